//===- Parser.h - the tile language parser ----------------------*- C++ -*-===//
//
// A recursive-descent parser from tokens to the AST. It reports every syntax
// error it can recover from (statement by statement, kernel by kernel) and bounds
// nesting depth so that no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_PARSER_H
#define TESSERA_FRONTEND_PARSER_H

#include "lib/Frontend/AST.h"
#include "lib/Frontend/Token.h"

namespace tessera {

/// Lexes and parses `file`. Errors go to `diags`; the module holds what parsed.
std::unique_ptr<Module> parseFile(const SourceFile &file, DiagnosticEngine &diags);

/// The deepest nesting (parentheses, calls, blocks) the parser accepts.
constexpr unsigned kMaxNesting = 200;
/// The greatest height of an expression tree (long operator chains count).
constexpr unsigned kMaxExprHeight = 1000;

} // namespace tessera

#endif
