//===- Parser.cpp - the tile language parser --------------------*- C++ -*-===//
//
// Grammar (see docs/language.md):
//   file    := kernel*
//   kernel  := 'kernel' IDENT '(' [param (',' param)*] ')' clause* block
//   clause  := 'tune' IDENT 'in' '[' int (',' int)* ']' (',' ...)*
//            | 'where' IDENT '=' expr (',' ...)*  |  'grid' '[' expr (',' expr)* ']'
//   stmt    := 'let' IDENT '=' expr ';' | 'var' IDENT '=' expr ';' | IDENT '=' expr ';'
//            | 'for' IDENT 'in' 'range' '(' expr [',' expr [',' expr]] ')' block
//            | 'if' expr block ['else' (if | block)] | expr ';'
// Expressions use precedence climbing: || && comparisons + - * / % unary postfix.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/ParserImpl.h"

using namespace tessera;
using namespace tessera::parser;

void Parser::skipToStmtEnd() {
  int depth = 0;
  while (!at(Tok::Eof)) {
    Tok k = tok().kind;
    if (depth == 0 && k == Tok::Semi) {
      consume();
      return;
    }
    // Statement keywords cannot occur inside an expression: resume there.
    if (depth == 0 && (k == Tok::RBrace || k == Tok::KwKernel || k == Tok::KwLet ||
                       k == Tok::KwVar || k == Tok::KwFor || k == Tok::KwIf))
      return;
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LBrace)
      ++depth;
    if (k == Tok::RParen || k == Tok::RBracket || k == Tok::RBrace)
      --depth;
    if (depth < 0)
      depth = 0;
    consume();
  }
}

void Parser::skipToKernel() {
  while (!at(Tok::Eof) && !at(Tok::KwKernel))
    consume();
}

std::unique_ptr<Module> Parser::parseModule() {
  auto m = std::make_unique<Module>();
  while (!at(Tok::Eof) && !stop()) {
    if (!at(Tok::KwKernel)) {
      error(tok().loc, "expected 'kernel', found " + found());
      consume();
      skipToKernel();
      continue;
    }
    if (auto k = parseKernel()) {
      for (auto &prev : m->kernels)
        if (prev->name == k->name)
          error(k->loc, "kernel '" + k->name + "' is defined twice (first at line " +
                            std::to_string(prev->loc.line) + ")");
      m->kernels.push_back(std::move(k));
    }
  }
  return m;
}

std::unique_ptr<Kernel> Parser::parseKernel() {
  consume(); // 'kernel'
  unsigned errorsBefore = diags_.numErrors();
  hadError_ = false;
  auto k = std::make_unique<Kernel>();
  if (!at(Tok::Ident)) {
    error(tok().loc, "expected a kernel name after 'kernel', found " + found());
    skipToKernel();
    return nullptr;
  }
  k->loc = tok().loc;
  k->name = consume().text;
  if (!expect(Tok::LParen, "after the kernel name")) {
    skipToKernel();
    return nullptr;
  }
  if (!at(Tok::RParen)) {
    do {
      if (!parseParam(*k)) {
        skipToKernel();
        return nullptr;
      }
    } while (accept(Tok::Comma));
  }
  if (!expect(Tok::RParen, "to close the parameter list") || !parseClauses(*k)) {
    skipToKernel();
    return nullptr;
  }
  k->bodyLoc = tok().loc;
  if (!at(Tok::LBrace)) {
    error(tok().loc,
          "expected '{' to begin the body of kernel '" + k->name + "', found " + found());
    skipToKernel();
    return nullptr;
  }
  if (!parseBlock(k->body, "kernel body"))
    skipToKernel();
  k->hasSyntaxErrors = hadError_ || diags_.numErrors() != errorsBefore;
  return k;
}

bool Parser::parseParam(Kernel &k) {
  Param p;
  if (!at(Tok::Ident)) {
    error(tok().loc, "expected a parameter name, found " + found());
    return false;
  }
  p.loc = tok().loc;
  p.name = consume().text;
  if (!expect(Tok::Colon, "after the parameter name"))
    return false;
  p.typeLoc = tok().loc;
  auto parseDType = [&](DType &out) {
    if (at(Tok::Ident)) {
      if (auto d = tessera::parseDType(tok().text)) {
        out = *d;
        consume();
        return true;
      }
      error(tok().loc, "unknown element type '" + tok().text +
                           "'; expected one of f32, f16, bf16, f64, f8e4m3, f8e5m2, i8, u8, i32, "
                           "u32, i64, bool");
      return false;
    }
    error(tok().loc, "expected an element type, found " + found());
    return false;
  };
  if (accept(Tok::KwTensor)) {
    p.isTensor = true;
    if (!expect(Tok::Lt, "after 'tensor'") || !parseDType(p.dtype) ||
        !expect(Tok::Comma, "after the element type") ||
        !expect(Tok::LBracket, "to begin the dimension list"))
      return false;
    do {
      DimSpec d;
      d.loc = tok().loc;
      if (at(Tok::Ident)) {
        d.isName = true;
        d.name = consume().text;
      } else if (at(Tok::Int)) {
        d.value = consume().intValue;
        if (d.value <= 0 || d.value > INT32_MAX) {
          error(d.loc, d.value <= 0 ? "a tensor extent must be positive"
                                    : "a tensor extent must fit in i32");
          return false;
        }
      } else {
        error(tok().loc, "expected a dimension name or a positive integer, found " + found());
        return false;
      }
      p.dims.push_back(std::move(d));
    } while (accept(Tok::Comma));
    if (!expect(Tok::RBracket, "to close the dimension list") ||
        !expect(Tok::Gt, "to close the tensor type"))
      return false;
  } else if (!parseDType(p.dtype)) {
    return false;
  }
  k.params.push_back(std::move(p));
  return true;
}

bool Parser::parseClauses(Kernel &k) {
  for (;;) {
    if (accept(Tok::KwTune)) {
      do {
        TuneDecl t;
        if (!at(Tok::Ident)) {
          error(tok().loc, "expected a tunable parameter name, found " + found());
          return false;
        }
        t.loc = tok().loc;
        t.name = consume().text;
        if (!expect(Tok::KwIn, "after the tunable parameter name") ||
            !expect(Tok::LBracket, "to begin the list of values"))
          return false;
        do {
          SourceLoc l = tok().loc;
          bool neg = accept(Tok::Minus);
          if (!at(Tok::Int)) {
            error(tok().loc, "expected an integer value for '" + t.name + "', found " + found());
            return false;
          }
          int64_t v = consume().intValue;
          t.values.push_back({neg ? -v : v, l});
        } while (accept(Tok::Comma));
        if (!expect(Tok::RBracket, "to close the list of values"))
          return false;
        k.tunes.push_back(std::move(t));
      } while (at(Tok::Comma) && peekTok().kind == Tok::Ident && peekTok(2).kind == Tok::KwIn &&
               accept(Tok::Comma));
    } else if (accept(Tok::KwWhere)) {
      do {
        WhereDecl w;
        if (!at(Tok::Ident)) {
          error(tok().loc, "expected a name to define in 'where', found " + found());
          return false;
        }
        w.loc = tok().loc;
        w.name = consume().text;
        if (!expect(Tok::Assign, "after the name in 'where'"))
          return false;
        w.value = parseExpr();
        if (!w.value)
          return false;
        k.wheres.push_back(std::move(w));
      } while (accept(Tok::Comma));
    } else if (at(Tok::KwGrid)) {
      if (k.hasGrid)
        error(tok().loc, "kernel '" + k.name + "' has more than one 'grid' clause");
      k.gridLoc = consume().loc;
      k.hasGrid = true;
      k.grid.clear();
      if (!expect(Tok::LBracket, "after 'grid'"))
        return false;
      do {
        ExprPtr e = parseExpr();
        if (!e)
          return false;
        k.grid.push_back(std::move(e));
      } while (accept(Tok::Comma));
      if (!expect(Tok::RBracket, "to close the grid"))
        return false;
    } else {
      return true;
    }
  }
}

bool Parser::parseBlock(std::vector<StmtPtr> &out, const char *what) {
  DepthGuard g(nesting_);
  SourceLoc open = tok().loc;
  if (!expect(Tok::LBrace, (std::string("to begin the ") + what).c_str()))
    return false;
  if (nesting_ > kMaxNesting) {
    error(open, "blocks nest too deeply (the limit is " + std::to_string(kMaxNesting) + ")");
    return false;
  }
  while (!at(Tok::RBrace) && !at(Tok::Eof) && !at(Tok::KwKernel) && !stop()) {
    size_t before = pos_;
    if (StmtPtr s = parseStmt()) {
      out.push_back(std::move(s));
      continue;
    }
    hadError_ = true;
    if (pos_ == before) // always make progress
      consume();
    skipToStmtEnd();
  }
  if (!at(Tok::RBrace)) {
    error(tok().loc, std::string("expected '}' to close the ") + what + " opened at line " +
                         std::to_string(open.line) + ", found " + found());
    return false;
  }
  consume();
  return true;
}

StmtPtr Parser::parseStmt() {
  SourceLoc loc = tok().loc;
  if (at(Tok::KwLet) || at(Tok::KwVar)) {
    bool isLet = consume().kind == Tok::KwLet;
    auto s = std::make_unique<Stmt>(isLet ? StmtKind::Let : StmtKind::Var, loc);
    if (!at(Tok::Ident)) {
      error(tok().loc, std::string("expected a name after '") + (isLet ? "let" : "var") +
                           "', found " + found());
      return nullptr;
    }
    s->nameLoc = tok().loc;
    s->name = consume().text;
    if (!expect(Tok::Assign, "after the name being declared"))
      return nullptr;
    s->value = parseExpr();
    if (!s->value || !expectSemi("after the declaration"))
      return nullptr;
    return s;
  }
  if (at(Tok::KwFor))
    return parseFor();
  if (at(Tok::KwIf))
    return parseIf();
  if (at(Tok::KwElse)) {
    error(loc, "'else' without a matching 'if'");
    return nullptr;
  }
  if (at(Tok::Ident) &&
      (tok().text == "return" || tok().text == "while" || tok().text == "break" ||
       tok().text == "continue") &&
      peekTok().kind != Tok::Assign && peekTok().kind != Tok::LParen) {
    std::string w = tok().text;
    error(loc, w == "return"  ? "there is no 'return' statement; kernels write results with store()"
               : w == "while" ? "there is no 'while' loop; use 'for i in range(...)'"
                              : "there is no '" + w + "' statement");
    return nullptr;
  }
  if (at(Tok::Ident) && peekTok().kind == Tok::Assign) {
    auto s = std::make_unique<Stmt>(StmtKind::Assign, loc);
    s->nameLoc = loc;
    s->name = consume().text;
    consume(); // '='
    s->value = parseExpr();
    if (!s->value || !expectSemi("after the assignment"))
      return nullptr;
    return s;
  }
  auto s = std::make_unique<Stmt>(StmtKind::Expr, loc);
  s->value = parseExpr();
  if (!s->value)
    return nullptr;
  if (at(Tok::Assign)) {
    error(tok().loc, "only a variable name can be assigned to");
    return nullptr;
  }
  if (!expectSemi("after the expression"))
    return nullptr;
  return s;
}

StmtPtr Parser::parseFor() {
  auto s = std::make_unique<Stmt>(StmtKind::For, consume().loc);
  if (!at(Tok::Ident)) {
    error(tok().loc, "expected a loop variable after 'for', found " + found());
    return nullptr;
  }
  s->nameLoc = tok().loc;
  s->name = consume().text;
  if (!expect(Tok::KwIn, "after the loop variable"))
    return nullptr;
  if (!at(Tok::Ident) || tok().text != "range") {
    error(tok().loc, "expected 'range(...)' after 'in', found " + found());
    return nullptr;
  }
  SourceLoc rangeLoc = consume().loc;
  if (!expect(Tok::LParen, "after 'range'"))
    return nullptr;
  std::vector<ExprPtr> bounds;
  do {
    ExprPtr e = parseExpr();
    if (!e)
      return nullptr;
    bounds.push_back(std::move(e));
  } while (accept(Tok::Comma));
  if (!expect(Tok::RParen, "to close 'range'"))
    return nullptr;
  if (bounds.size() > 3) {
    error(rangeLoc, "range takes 1 to 3 arguments, got " + std::to_string(bounds.size()));
    return nullptr;
  }
  if (bounds.size() == 1) {
    s->lo = std::make_unique<Expr>(ExprKind::Int, rangeLoc);
    s->hi = std::move(bounds[0]);
  } else {
    s->lo = std::move(bounds[0]);
    s->hi = std::move(bounds[1]);
    if (bounds.size() == 3)
      s->step = std::move(bounds[2]);
  }
  if (!parseBlock(s->body, "loop body"))
    return nullptr;
  return s;
}

StmtPtr Parser::parseIf() {
  DepthGuard g(nesting_);
  auto s = std::make_unique<Stmt>(StmtKind::If, consume().loc);
  if (nesting_ > kMaxNesting) {
    error(s->loc, "'if' statements nest too deeply");
    return nullptr;
  }
  s->cond = parseExpr();
  if (!s->cond || !parseBlock(s->body, "'if' body"))
    return nullptr;
  if (accept(Tok::KwElse)) {
    s->hasElse = true;
    if (at(Tok::KwIf)) {
      StmtPtr inner = parseIf();
      if (!inner)
        return nullptr;
      s->elseBody.push_back(std::move(inner));
    } else if (!parseBlock(s->elseBody, "'else' body")) {
      return nullptr;
    }
  }
  return s;
}

std::unique_ptr<Module> tessera::parseFile(const SourceFile &file, DiagnosticEngine &diags) {
  Parser p(file, diags);
  return p.parseModule();
}
