//===- Token.h - tokens of the tile language --------------------*- C++ -*-===//
//
// The kinds of token the lexer produces. Every token carries its source location
// (1-based line and column) so that diagnostics can point at it.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_TOKEN_H
#define TESSERA_FRONTEND_TOKEN_H

#include "lib/Support/Diagnostics.h"

#include <cstdint>
#include <string>

namespace tessera {

enum class Tok {
  Eof,
  Error,
  Ident,
  Int,
  Float,
  String, // "...": only as assert()'s message
  // keywords
  KwKernel,
  KwTune,
  KwIn,
  KwWhere,
  KwGrid,
  KwLet,
  KwVar,
  KwFor,
  KwIf,
  KwElse,
  KwTrue,
  KwFalse,
  KwNone,
  KwInf,
  KwTensor,
  // punctuation
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Semi,
  Dot,
  Assign,
  FatArrow, // => (a scan's combiner)
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  AndAnd,
  OrOr,
  Bang,
};

struct Token {
  Tok kind = Tok::Eof;
  SourceLoc loc;
  SourceLoc end;                    // just past the last character
  size_t offset = 0, endOffset = 0; // byte offsets in the file
  std::string text;                 // the spelling (identifier name, literal text)
  int64_t intValue = 0;             // for Int
  double floatValue = 0;            // for Float
};

/// A readable name of a token kind for diagnostics ("'('", "identifier").
const char *tokName(Tok k);

} // namespace tessera

#endif
