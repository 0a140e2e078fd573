//===- Lexer.h - the tile language lexer ------------------------*- C++ -*-===//
//
// Turns a source file into tokens. Bad characters and malformed literals are
// reported to the diagnostic engine and produce an Error token; lexing goes on.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_LEXER_H
#define TESSERA_FRONTEND_LEXER_H

#include "lib/Frontend/Token.h"

#include <vector>

namespace tessera {

class Lexer {
public:
  Lexer(const SourceFile &file, DiagnosticEngine &diags) : file_(file), diags_(diags) {}
  /// Lexes the whole file; the last token is Eof.
  std::vector<Token> lexAll();
  Token next();

private:
  char peek(size_t ahead = 0) const;
  char advance();
  void skipSpaceAndComments();
  Token lexToken();
  Token lexNumber(SourceLoc loc);
  Token lexIdent(SourceLoc loc);

  const SourceFile &file_;
  DiagnosticEngine &diags_;
  size_t pos_ = 0;
  unsigned line_ = 1, col_ = 1;
};

} // namespace tessera

#endif
