//===- Program.cpp - printing generated programs --------------------------===//
//
// The printer parenthesizes every compound operand, so a tree prints the same
// way wherever the reducer moved it. A program's source declares only the
// tensors its body mentions. Error bounds are Bounds.cpp's.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Program.h"

#include "llvm/ADT/StringSwitch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

namespace tessera::difftest {

std::string scanCombiner(llvm::StringRef kind) {
  return llvm::StringSwitch<std::string>(kind)
      .Case("scan:max", "max(a, b)")
      .Case("scan:fill", "where(b != 0, b, a)") // the last non-zero so far
      .Case("scan:largest", "where(abs(b) > abs(a), b, a)")
      .Default("a + b"); // scan:sum
}

namespace {

std::string printExpr(const Expr &e) {
  auto k = [&](size_t i) { return printExpr(*e.kids[i]); };
  switch (e.op) {
  case Op::Leaf:
  case Op::Ref:
  case Op::Lit:
    return e.text;
  case Op::Add:
    return "(" + k(0) + " + " + k(1) + ")";
  case Op::Sub:
    return "(" + k(0) + " - " + k(1) + ")";
  case Op::Mul:
    return "(" + k(0) + " * " + k(1) + ")";
  case Op::Scale:
  case Op::IDiv:
  case Op::Rem:
    return "(" + k(0) +
           (e.op == Op::Scale  ? " * "
            : e.op == Op::IDiv ? " / "
                               : " % ") +
           e.text + ")";
  case Op::Div:
    return "(" + k(0) + " / (abs(" + k(1) + ") + 1.0))";
  case Op::Neg:
    return "(-" + k(0) + ")";
  case Op::Abs:
    return "abs(" + k(0) + ")";
  case Op::Fma:
    return "fma(" + k(0) + ", " + k(1) + ", " + k(2) + ")";
  case Op::Maximum:
    return "maximum(" + k(0) + ", " + k(1) + ")";
  case Op::Minimum:
    return "minimum(" + k(0) + ", " + k(1) + ")";
  case Op::Select:
    return "where(" + k(0) + ", " + k(1) + ", " + k(2) + ")";
  case Op::Cmp:
    return "(" + k(0) + " " + e.text + " " + k(1) + ")";
  case Op::And:
    return "(" + k(0) + " && " + k(1) + ")";
  case Op::Or:
    return "(" + k(0) + " || " + k(1) + ")";
  case Op::Not:
    return "(!" + k(0) + ")";
  case Op::ExpNeg:
    return "exp(-abs(" + k(0) + "))";
  case Op::Exp2Neg:
    return "exp2(-abs(" + k(0) + "))";
  case Op::Tanh:
    return "tanh(" + k(0) + ")";
  case Op::Sigmoid:
    return "sigmoid(" + k(0) + ")";
  case Op::Log1:
    return "log(abs(" + k(0) + ") + 1.0)";
  case Op::Sqrt1:
    return "sqrt(abs(" + k(0) + ") + 1.0)";
  case Op::Rsqrt1:
    return "rsqrt(abs(" + k(0) + ") + 1.0)";
  case Op::Convert:
    return k(0) + ".to(" + dtypeName(e.ty.dt).str() + ")";
  case Op::Bcast:
    return k(0) + e.text;
  case Op::Transpose:
    return k(0) + ".T";
  case Op::Permute:
    return "permute(" + k(0) + ", [1, 0])";
  case Op::Reshape:
    return "reshape(" + k(0) + ", " + e.text + ")";
  case Op::Reduce:
  case Op::ArgReduce:
  case Op::Scan:
    if (llvm::StringRef(e.text).starts_with("scan:"))
      return "scan(" + k(0) + ", " + std::to_string(e.axis) + ", (a, b) => " +
             scanCombiner(e.text) + ")";
    return e.text + "(" + k(0) + ", " + std::to_string(e.axis) + ")";
  case Op::Dot:
    return "dot(" + k(0) + ", " + k(1) + ", " + k(2) + ")";
  }
  return "?";
}

void printStmts(const std::vector<Stmt> &ss, int indent, std::string &out) {
  std::string pad(indent, ' ');
  for (const Stmt &s : ss) {
    switch (s.kind) {
    case Stmt::Kind::Let:
      out += pad + "let " + s.name + " = " + printExpr(*s.value) + ";\n";
      break;
    case Stmt::Kind::Var:
      out += pad + "var " + s.name + " = " + printExpr(*s.value) + ";\n";
      break;
    case Stmt::Kind::Assign:
      out += pad + s.name + " = " + printExpr(*s.value) + ";\n";
      break;
    case Stmt::Kind::Store: {
      std::string t = s.text;
      size_t at = t.find("$0");
      out += pad + t.replace(at, 2, printExpr(*s.value)) + "\n";
      break;
    }
    case Stmt::Kind::Assert: {
      std::string v = printExpr(*s.value);
      out += pad + "assert(" + v + " || !" + v + ", \"a tautology\");\n";
      break;
    }
    case Stmt::Kind::For:
      out += pad + s.head + " {\n";
      printStmts(s.body, indent + 2, out);
      out += pad + "}\n";
      break;
    case Stmt::Kind::If:
      out += pad + "if " + s.head + " {\n";
      printStmts(s.body, indent + 2, out);
      if (!s.orelse.empty()) {
        out += pad + "} else {\n";
        printStmts(s.orelse, indent + 2, out);
      }
      out += pad + "}\n";
      break;
    }
  }
}

/// Whether `text` mentions identifier `name` (not as part of a longer one).
bool mentions(llvm::StringRef text, llvm::StringRef name) {
  for (size_t at = text.find(name); at != llvm::StringRef::npos; at = text.find(name, at + 1)) {
    auto word = [](char c) { return llvm::isAlnum(c) || c == '_'; };
    bool before = at > 0 && word(text[at - 1]);
    bool after = at + name.size() < text.size() && word(text[at + name.size()]);
    if (!before && !after)
      return true;
  }
  return false;
}

void countStmts(const std::vector<Stmt> &ss, int &n) {
  for (const Stmt &s : ss) {
    n += !s.prelude;
    countStmts(s.body, n);
    countStmts(s.orelse, n);
  }
}

} // namespace

std::string Program::source() const {
  if (!fixedSource.empty())
    return fixedSource;
  std::string body;
  printStmts(this->body, 2, body);
  std::string s = "// difftest seed " + std::to_string(seed) + "\nkernel k(";
  bool first = true;
  for (const TensorParam *t : usedTensors()) {
    s += (first ? "" : ", ") + t->name + ": tensor<" + dtypeName(t->dt).str() + ", [" +
         llvm::join(t->dims, ", ") + "]>";
    first = false;
  }
  for (const ScalarParam &sc : scalars) {
    s += (first ? "" : ", ") + sc.name + ": " + dtypeName(sc.dt).str();
    first = false;
  }
  s += ")\n";
  for (auto &[name, v] : tunes)
    s += "  tune " + name + " in [" + std::to_string(v) + "]\n";
  s += "  grid " + grid + "\n{\n" + body + "}\n";
  return s;
}

std::vector<const TensorParam *> Program::usedTensors() const {
  std::string body = fixedSource;
  if (body.empty())
    printStmts(this->body, 0, body);
  std::vector<const TensorParam *> out;
  for (const TensorParam &t : tensors)
    if (t.anchor || mentions(body, t.name))
      out.push_back(&t);
  return out;
}

std::map<std::string, int64_t> Program::usedDims() const {
  std::map<std::string, int64_t> out;
  for (const TensorParam *t : usedTensors())
    for (const std::string &d : t->dims)
      out[d] = dims.at(d);
  return out;
}

bool Program::hasOddExtents() const {
  for (auto &[name, v] : tunes)
    if (name != "num_warps" && name != "num_stages" && !llvm::isPowerOf2_64(v))
      return true;
  return false;
}

bool Program::usesF8() const { return source().find("f8e") != std::string::npos; }

int Program::statementCount() const {
  int n = 0;
  countStmts(body, n);
  return n;
}

} // namespace tessera::difftest
