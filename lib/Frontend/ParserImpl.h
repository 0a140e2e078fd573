//===- ParserImpl.h - internals of the parser -------------------*- C++ -*-===//
//
// The recursive-descent parser class shared by Parser.cpp (kernels, clauses,
// statements and recovery) and ParseExpr.cpp (expressions).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_FRONTEND_PARSERIMPL_H
#define TESSERA_FRONTEND_PARSERIMPL_H

#include "lib/Frontend/Lexer.h"
#include "lib/Frontend/Parser.h"

namespace tessera {
namespace parser {

class Parser {
public:
  Parser(const SourceFile &file, DiagnosticEngine &diags) : file_(file), diags_(diags) {
    Lexer lexer(file, diags);
    toks_ = lexer.lexAll();
  }

  std::unique_ptr<Module> parseModule();

private:
  const Token &tok() const { return toks_[pos_]; }
  const Token &peekTok(size_t n = 1) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool at(Tok k) const { return tok().kind == k; }
  const Token &consume() {
    const Token &t = toks_[pos_];
    if (pos_ + 1 < toks_.size())
      ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k))
      return false;
    consume();
    return true;
  }
  /// The spelling of the current token for "found ..." messages.
  std::string found() const {
    const Token &t = tok();
    switch (t.kind) {
    case Tok::Eof:
      return "end of file";
    case Tok::Ident:
      return "identifier '" + t.text + "'";
    case Tok::Int:
    case Tok::Float:
      return "'" + t.text + "'";
    default:
      return tokName(t.kind);
    }
  }
  bool expect(Tok k, const char *context) {
    if (accept(k))
      return true;
    error(tok().loc, std::string("expected ") + tokName(k) + " " + context + ", found " + found());
    return false;
  }
  /// `expected ';'` is reported just past the previous token.
  bool expectSemi(const char *context) {
    if (accept(Tok::Semi))
      return true;
    SourceLoc l = pos_ > 0 ? toks_[pos_ - 1].end : tok().loc;
    error(l, std::string("expected ';' ") + context + ", found " + found());
    return false;
  }
  void error(SourceLoc loc, const std::string &msg) {
    // The lexer already reported a bad token: the parser adds nothing about it.
    if (tok().kind == Tok::Error) {
      SourceLoc prevEnd = pos_ > 0 ? toks_[pos_ - 1].end : SourceLoc();
      bool atBadToken = (loc.line == tok().loc.line && loc.col == tok().loc.col) ||
                        (loc.line == prevEnd.line && loc.col == prevEnd.col);
      if (atBadToken)
        return;
    }
    // One error per position: cascades at the same token add nothing.
    if (loc.line == lastErrLoc_.line && loc.col == lastErrLoc_.col)
      return;
    lastErrLoc_ = loc;
    diags_.error(loc, msg);
  }
  bool stop() const { return diags_.full(); }

  // Recovery.
  void skipToStmtEnd();
  void skipToKernel();

  std::unique_ptr<Kernel> parseKernel();
  bool parseParam(Kernel &k);
  bool parseClauses(Kernel &k);
  bool parseBlock(std::vector<StmtPtr> &out, const char *what);
  StmtPtr parseStmt();
  StmtPtr parseFor();
  StmtPtr parseIf();

  ExprPtr parseExpr();
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  bool parseArgs(Expr &call);
  bool isLambda() const;
  ExprPtr parseLambda();
  ExprPtr finish(ExprPtr e, size_t beginTok);

  const SourceFile &file_;
  DiagnosticEngine &diags_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  unsigned nesting_ = 0;
  SourceLoc lastErrLoc_;
  bool hadError_ = false; // a syntax error in the kernel being parsed
};

/// Bounds recursion: every recursive entry point holds one of these.
struct DepthGuard {
  unsigned &n;
  explicit DepthGuard(unsigned &n) : n(n) { ++n; }
  ~DepthGuard() { --n; }
};

} // namespace parser
} // namespace tessera

#endif
