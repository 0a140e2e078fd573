//===- ParseExpr.cpp - parsing expressions ----------------------*- C++ -*-===//
//
// Precedence climbing over || && comparisons + - * / %, then unary operators,
// postfix chains (calls, `[...]`, `.T`, `.to(...)`) and primaries. Every node
// records its first token and the height of its subtree, which is bounded.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/ParserImpl.h"

#include <cmath>

using namespace tessera;
using namespace tessera::parser;

namespace {
int precedence(Tok k) {
  switch (k) {
  case Tok::OrOr:
    return 1;
  case Tok::AndAnd:
    return 2;
  case Tok::EqEq:
  case Tok::Ne:
  case Tok::Lt:
  case Tok::Le:
  case Tok::Gt:
  case Tok::Ge:
    return 3;
  case Tok::Plus:
  case Tok::Minus:
    return 4;
  case Tok::Star:
  case Tok::Slash:
  case Tok::Percent:
    return 5;
  default:
    return -1;
  }
}

BinOp binOpOf(Tok k) {
  switch (k) {
  case Tok::OrOr:
    return BinOp::Or;
  case Tok::AndAnd:
    return BinOp::And;
  case Tok::EqEq:
    return BinOp::Eq;
  case Tok::Ne:
    return BinOp::Ne;
  case Tok::Lt:
    return BinOp::Lt;
  case Tok::Le:
    return BinOp::Le;
  case Tok::Gt:
    return BinOp::Gt;
  case Tok::Ge:
    return BinOp::Ge;
  case Tok::Plus:
    return BinOp::Add;
  case Tok::Minus:
    return BinOp::Sub;
  case Tok::Star:
    return BinOp::Mul;
  case Tok::Slash:
    return BinOp::Div;
  default:
    return BinOp::Mod;
  }
}

unsigned heightOf(const Expr &e) {
  unsigned h = 0;
  for (auto &a : e.args)
    h = std::max(h, a->depth);
  for (auto &k : e.kwargs)
    h = std::max(h, k.value->depth);
  for (auto &i : e.index)
    if (i.expr)
      h = std::max(h, i.expr->depth);
  return h + 1;
}

} // namespace

ExprPtr Parser::finish(ExprPtr e, size_t beginTok) {
  if (!e)
    return nullptr;
  e->beginOffset = toks_[beginTok].offset;
  e->begin = toks_[beginTok].loc;
  e->endOffset = pos_ > 0 ? toks_[pos_ - 1].endOffset : e->beginOffset;
  e->depth = heightOf(*e);
  if (e->depth > kMaxExprHeight) {
    error(e->loc, "expression is too long: its operators chain or nest " +
                      std::to_string(e->depth) + " deep (the limit is " +
                      std::to_string(kMaxExprHeight) + "); split it with 'let'");
    return nullptr;
  }
  return e;
}

ExprPtr Parser::parseExpr() {
  DepthGuard g(nesting_);
  if (nesting_ > kMaxNesting) {
    error(tok().loc,
          "nesting is too deep (the limit is " + std::to_string(kMaxNesting) + " levels)");
    return nullptr;
  }
  return parseBinary(1);
}

ExprPtr Parser::parseBinary(int minPrec) {
  size_t begin = pos_;
  ExprPtr lhs = parseUnary();
  bool comparedOnce = false;
  while (lhs) {
    int prec = precedence(tok().kind);
    if (prec < minPrec)
      break;
    const Token &op = consume();
    if (prec == 3) {
      if (comparedOnce) {
        error(op.loc, "comparisons cannot be chained; add parentheses, e.g. (a < b) && (b < c) "
                      "or (a < b) == c");
        return nullptr;
      }
      comparedOnce = true;
    }
    ExprPtr rhs = parseBinary(prec + 1);
    if (!rhs)
      return nullptr;
    auto e = std::make_unique<Expr>(ExprKind::Binary, op.loc);
    e->binOp = binOpOf(op.kind);
    e->args.push_back(std::move(lhs));
    e->args.push_back(std::move(rhs));
    lhs = finish(std::move(e), begin);
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (at(Tok::Minus) || at(Tok::Bang)) {
    DepthGuard g(nesting_);
    size_t begin = pos_;
    const Token &op = consume();
    if (nesting_ > kMaxNesting) {
      error(op.loc, "expression nests too deeply");
      return nullptr;
    }
    ExprPtr operand = parseUnary();
    if (!operand)
      return nullptr;
    auto e = std::make_unique<Expr>(ExprKind::Unary, op.loc);
    e->unOp = op.kind == Tok::Minus ? UnOp::Neg : UnOp::Not;
    e->args.push_back(std::move(operand));
    return finish(std::move(e), begin);
  }
  return parsePostfix();
}

ExprPtr Parser::parsePostfix() {
  size_t begin = pos_;
  ExprPtr e = parsePrimary();
  while (e) {
    if (at(Tok::LBracket)) {
      auto idx = std::make_unique<Expr>(ExprKind::Index, consume().loc);
      idx->args.push_back(std::move(e));
      do {
        IndexItem item{IndexItem::Colon, tok().loc, nullptr};
        if (accept(Tok::Colon)) {
          item.kind = IndexItem::Colon;
        } else if (accept(Tok::KwNone)) {
          item.kind = IndexItem::None;
        } else {
          item.kind = IndexItem::Expr;
          item.expr = parseExpr();
          if (!item.expr)
            return nullptr;
        }
        idx->index.push_back(std::move(item));
      } while (accept(Tok::Comma));
      if (!expect(Tok::RBracket, "to close the index"))
        return nullptr;
      e = finish(std::move(idx), begin);
    } else if (at(Tok::Dot)) {
      SourceLoc dot = consume().loc;
      if (!at(Tok::Ident)) {
        error(tok().loc, "expected an attribute name after '.', found " + found());
        return nullptr;
      }
      SourceLoc nameLoc = tok().loc;
      std::string name = consume().text;
      (void)dot;
      if (at(Tok::LParen)) {
        auto m = std::make_unique<Expr>(ExprKind::Method, nameLoc);
        m->name = name;
        m->args.push_back(std::move(e));
        consume();
        if (!parseArgs(*m))
          return nullptr;
        e = finish(std::move(m), begin);
      } else {
        auto a = std::make_unique<Expr>(ExprKind::Attr, nameLoc);
        a->name = name;
        a->args.push_back(std::move(e));
        e = finish(std::move(a), begin);
      }
    } else {
      break;
    }
  }
  return e;
}

// Parses call arguments after '(' up to and including ')'.
bool Parser::parseArgs(Expr &call) {
  if (accept(Tok::RParen))
    return true;
  do {
    if (at(Tok::Ident) && peekTok().kind == Tok::Assign) {
      KwArg kw;
      kw.loc = tok().loc;
      kw.name = consume().text;
      consume();
      kw.value = parseExpr();
      if (!kw.value)
        return false;
      call.kwargs.push_back(std::move(kw));
      continue;
    }
    if (!call.kwargs.empty()) {
      error(tok().loc, "a positional argument cannot follow a keyword argument");
      return false;
    }
    ExprPtr a = parseExpr();
    if (!a)
      return false;
    call.args.push_back(std::move(a));
  } while (accept(Tok::Comma));
  return expect(Tok::RParen, "to close the argument list");
}

ExprPtr Parser::parsePrimary() {
  size_t begin = pos_;
  const Token &t = tok();
  switch (t.kind) {
  case Tok::Int: {
    auto e = std::make_unique<Expr>(ExprKind::Int, t.loc);
    e->intValue = consume().intValue;
    return finish(std::move(e), begin);
  }
  case Tok::Float: {
    auto e = std::make_unique<Expr>(ExprKind::Float, t.loc);
    e->floatValue = consume().floatValue;
    return finish(std::move(e), begin);
  }
  case Tok::KwInf: {
    auto e = std::make_unique<Expr>(ExprKind::Float, t.loc);
    consume();
    e->floatValue = HUGE_VAL;
    return finish(std::move(e), begin);
  }
  case Tok::String: {
    auto e = std::make_unique<Expr>(ExprKind::Str, t.loc);
    e->name = consume().text;
    return finish(std::move(e), begin);
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    auto e = std::make_unique<Expr>(ExprKind::Bool, t.loc);
    e->boolValue = consume().kind == Tok::KwTrue;
    return finish(std::move(e), begin);
  }
  case Tok::Ident:
  case Tok::KwWhere: {
    bool isWhere = t.kind == Tok::KwWhere;
    if (isWhere && peekTok().kind != Tok::LParen) {
      error(t.loc, "expected '(' after 'where' in an expression");
      return nullptr;
    }
    SourceLoc loc = t.loc;
    std::string name = isWhere ? "where" : t.text;
    consume();
    if (accept(Tok::LParen)) {
      auto e = std::make_unique<Expr>(ExprKind::Call, loc);
      e->name = name;
      if (!parseArgs(*e))
        return nullptr;
      return finish(std::move(e), begin);
    }
    auto e = std::make_unique<Expr>(ExprKind::Name, loc);
    e->name = name;
    return finish(std::move(e), begin);
  }
  case Tok::LParen: {
    if (isLambda())
      return parseLambda();
    consume();
    ExprPtr e = parseExpr();
    if (!e || !expect(Tok::RParen, "to close the parenthesis"))
      return nullptr;
    return e;
  }
  case Tok::LBracket: {
    auto e = std::make_unique<Expr>(ExprKind::List, consume().loc);
    if (!at(Tok::RBracket)) {
      do {
        ExprPtr item = parseExpr();
        if (!item)
          return nullptr;
        e->args.push_back(std::move(item));
      } while (accept(Tok::Comma));
    }
    if (!expect(Tok::RBracket, "to close the list"))
      return nullptr;
    return finish(std::move(e), begin);
  }
  case Tok::Error:
    consume(); // already reported by the lexer
    lastErrLoc_ = t.loc;
    return nullptr;
  default:
    error(t.loc, "expected an expression, found " + found());
    return nullptr;
  }
}

// `(` names separated by commas `)` `=>`: a function literal, not a parenthesis.
bool Parser::isLambda() const {
  size_t n = 1;
  if (peekTok(n).kind == Tok::Ident)
    while (peekTok(++n).kind == Tok::Comma && peekTok(n + 1).kind == Tok::Ident)
      ++n;
  return peekTok(n).kind == Tok::RParen && peekTok(n + 1).kind == Tok::FatArrow;
}

// `(a, b) => expr`, the combiner of scan(); Sema says where it may appear.
ExprPtr Parser::parseLambda() {
  size_t begin = pos_;
  auto e = std::make_unique<Expr>(ExprKind::Lambda, consume().loc);
  while (at(Tok::Ident)) {
    e->params.push_back({tok().text, tok().loc});
    consume();
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "to close the parameters");
  e->loc = consume().loc; // '=>'
  ExprPtr body = parseExpr();
  if (!body)
    return nullptr;
  e->args.push_back(std::move(body));
  return finish(std::move(e), begin);
}
