//===- AST.cpp - printing the syntax tree -----------------------*- C++ -*-===//
//
// `--emit ast`: one node a line, indented, with `@LINE:COL` locations.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/AST.h"

#include "llvm/Support/Format.h"

using namespace tessera;

std::string ValueType::str() const {
  if (kind == Error)
    return "<error>";
  if (kind == Void)
    return "no value";
  if (shape.empty())
    return dtypeName(dtype).str();
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype).str() + ">";
}

const char *tessera::binOpSpelling(BinOp op) {
  switch (op) {
  case BinOp::Add:
    return "+";
  case BinOp::Sub:
    return "-";
  case BinOp::Mul:
    return "*";
  case BinOp::Div:
    return "/";
  case BinOp::Mod:
    return "%";
  case BinOp::Lt:
    return "<";
  case BinOp::Le:
    return "<=";
  case BinOp::Gt:
    return ">";
  case BinOp::Ge:
    return ">=";
  case BinOp::Eq:
    return "==";
  case BinOp::Ne:
    return "!=";
  case BinOp::And:
    return "&&";
  case BinOp::Or:
    return "||";
  }
  return "?";
}

const Kernel *Module::find(llvm::StringRef name) const {
  for (auto &k : kernels)
    if (k->name == name)
      return k.get();
  return nullptr;
}

namespace {
struct Printer {
  llvm::raw_ostream &os;
  unsigned indent = 0;

  llvm::raw_ostream &line(SourceLoc loc) {
    os.indent(indent * 2);
    return os;
  }
  static std::string at(SourceLoc l) {
    return " @" + std::to_string(l.line) + ":" + std::to_string(l.col);
  }

  void expr(const Expr &e) {
    auto &o = line(e.loc);
    switch (e.kind) {
    case ExprKind::Int:
      o << "(int " << e.intValue << ")" << at(e.loc) << "\n";
      return;
    case ExprKind::Float:
      o << "(float " << llvm::format("%g", e.floatValue) << ")" << at(e.loc) << "\n";
      return;
    case ExprKind::Bool:
      o << "(bool " << (e.boolValue ? "true" : "false") << ")" << at(e.loc) << "\n";
      return;
    case ExprKind::Str: {
      o << "(string \"";
      for (char c : e.name) // as written: \" and \\ escaped
        o << (c == '"' || c == '\\' ? "\\" : "") << c;
      o << "\")" << at(e.loc) << "\n";
      return;
    }
    case ExprKind::Name:
      o << "(name " << e.name << ")" << at(e.loc) << "\n";
      return;
    case ExprKind::Unary:
      o << "(unary " << (e.unOp == UnOp::Neg ? "-" : "!");
      break;
    case ExprKind::Binary:
      o << "(binary " << binOpSpelling(e.binOp);
      break;
    case ExprKind::Call:
      o << "(call " << e.name;
      break;
    case ExprKind::Index:
      o << "(index";
      break;
    case ExprKind::Attr:
      o << "(attr ." << e.name;
      break;
    case ExprKind::Method:
      o << "(method ." << e.name;
      break;
    case ExprKind::List:
      o << "(list";
      break;
    case ExprKind::Lambda:
      o << "(lambda";
      for (const LambdaParam &p : e.params)
        o << " " << p.name;
      break;
    }
    o << at(e.loc) << "\n";
    ++indent;
    for (auto &a : e.args)
      expr(*a);
    for (auto &k : e.kwargs) {
      line(k.loc) << "(kwarg " << k.name << at(k.loc) << "\n";
      ++indent;
      expr(*k.value);
      --indent;
      line(k.loc) << ")\n";
    }
    for (auto &i : e.index) {
      if (i.kind == IndexItem::Colon)
        line(i.loc) << "(:)" << at(i.loc) << "\n";
      else if (i.kind == IndexItem::None)
        line(i.loc) << "(None)" << at(i.loc) << "\n";
      else
        expr(*i.expr);
    }
    --indent;
    line(e.loc) << ")\n";
  }

  void block(const char *tag, const std::vector<StmtPtr> &stmts) {
    line({}) << "(" << tag << "\n";
    ++indent;
    for (auto &s : stmts)
      stmt(*s);
    --indent;
    line({}) << ")\n";
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Var:
    case StmtKind::Assign: {
      const char *tag = s.kind == StmtKind::Let   ? "let"
                        : s.kind == StmtKind::Var ? "var"
                                                  : "assign";
      line(s.loc) << "(" << tag << " " << s.name << at(s.loc) << "\n";
      ++indent;
      expr(*s.value);
      --indent;
      line(s.loc) << ")\n";
      return;
    }
    case StmtKind::Expr:
      line(s.loc) << "(expr-stmt" << at(s.loc) << "\n";
      ++indent;
      expr(*s.value);
      --indent;
      line(s.loc) << ")\n";
      return;
    case StmtKind::For:
      line(s.loc) << "(for " << s.name << at(s.loc) << "\n";
      ++indent;
      expr(*s.lo);
      expr(*s.hi);
      if (s.step)
        expr(*s.step);
      block("body", s.body);
      --indent;
      line(s.loc) << ")\n";
      return;
    case StmtKind::If:
      line(s.loc) << "(if" << at(s.loc) << "\n";
      ++indent;
      expr(*s.cond);
      block("then", s.body);
      if (s.hasElse)
        block("else", s.elseBody);
      --indent;
      line(s.loc) << ")\n";
      return;
    }
  }

  void kernel(const Kernel &k) {
    line(k.loc) << "(kernel " << k.name << at(k.loc) << "\n";
    ++indent;
    for (auto &p : k.params) {
      auto &o = line(p.loc);
      o << "(param " << p.name << " ";
      if (p.isTensor) {
        o << "tensor<" << dtypeName(p.dtype) << ", [";
        for (size_t i = 0; i < p.dims.size(); ++i)
          o << (i ? ", " : "")
            << (p.dims[i].isName ? p.dims[i].name : std::to_string(p.dims[i].value));
        o << "]>";
      } else {
        o << dtypeName(p.dtype);
      }
      o << ")" << at(p.loc) << "\n";
    }
    for (auto &t : k.tunes) {
      auto &o = line(t.loc);
      o << "(tune " << t.name << " [";
      for (size_t i = 0; i < t.values.size(); ++i)
        o << (i ? ", " : "") << t.values[i].first;
      o << "])" << at(t.loc) << "\n";
    }
    for (auto &w : k.wheres) {
      line(w.loc) << "(where " << w.name << at(w.loc) << "\n";
      ++indent;
      expr(*w.value);
      --indent;
      line(w.loc) << ")\n";
    }
    if (k.hasGrid) {
      line(k.gridLoc) << "(grid" << at(k.gridLoc) << "\n";
      ++indent;
      for (auto &g : k.grid)
        expr(*g);
      --indent;
      line(k.gridLoc) << ")\n";
    }
    block("body", k.body);
    --indent;
    line(k.loc) << ")\n";
  }
};
} // namespace

void tessera::dumpAST(const Module &m, llvm::raw_ostream &os) {
  Printer p{os};
  for (auto &k : m.kernels)
    p.kernel(*k);
}
