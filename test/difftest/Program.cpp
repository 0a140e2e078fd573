//===- Program.cpp - printing and bounding generated programs -------------===//
//
// The printer parenthesizes every compound operand, so a tree prints the same
// way wherever the reducer moved it. The bounds are deliberately loose (they
// assume the worst rounding at every step, and a reduction order as bad as a
// sequential one): a wrong mask, index or layout moves an element by about
// its own magnitude, far beyond them, while a correct executor never leaves
// them.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Program.h"

#include "llvm/ADT/StringSwitch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

namespace tessera::difftest {

double epsOf(DType dt) {
  switch (dt) {
  case DType::F32:
    return std::ldexp(1.0, -24);
  case DType::F16:
    return std::ldexp(1.0, -11);
  case DType::BF16:
    return std::ldexp(1.0, -8);
  case DType::F64:
    return std::ldexp(1.0, -53);
  case DType::F8E4M3:
    return std::ldexp(1.0, -4);
  case DType::F8E5M2:
    return std::ldexp(1.0, -3);
  default:
    return 0;
  }
}

std::string scanCombiner(llvm::StringRef kind) {
  return llvm::StringSwitch<std::string>(kind)
      .Case("scan:max", "max(a, b)")
      .Case("scan:fill", "where(b != 0, b, a)") // the last non-zero so far
      .Case("scan:largest", "where(abs(b) > abs(a), b, a)")
      .Default("a + b"); // scan:sum
}

namespace {

/// The largest magnitude a type may carry before a step could overflow it.
double limitOf(DType dt) {
  switch (dt) {
  case DType::F16:
    return 3e4;
  case DType::F8E4M3:
    return 400;
  case DType::F8E5M2:
    return 5e4;
  case DType::I32:
  case DType::I8: // i8, u8 and u32 wrap around as the language defines, on both sides
  case DType::U8:
  case DType::U32:
    return std::ldexp(1.0, 30);
  case DType::I64:
    return std::ldexp(1.0, 52);
  case DType::Bool:
    return 1;
  default:
    return 1e30;
  }
}

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

class Analyzer {
public:
  bool ok = true;

  void stmts(std::vector<Stmt> &ss) {
    for (Stmt &s : ss)
      stmt(s);
  }

  std::map<std::string, double> tol;
  std::map<std::string, Bounds> env_;

  void fail() { ok = false; }

public:
  void stmt(Stmt &s) {
    switch (s.kind) {
    case Stmt::Kind::Let:
    case Stmt::Kind::Var:
      expr(*s.value);
      env_[s.name] = {s.value->mag, s.value->err, s.value->exact};
      break;
    case Stmt::Kind::Assert:
      expr(*s.value);
      break;
    case Stmt::Kind::Assign: {
      if (!env_.count(s.name))
        return fail();
      expr(*s.value);
      Bounds &b = env_[s.name];
      b = {std::max(b.mag, s.value->mag), std::max(b.err, s.value->err), b.exact && s.value->exact};
      break;
    }
    case Stmt::Kind::Store: {
      expr(*s.value);
      const Expr &v = *s.value;
      double t = (v.err + 2 * epsOf(v.ty.dt) * v.mag) * s.contributions;
      // Atomic float adds in any order onto the output's first value (|x| <= 1).
      if (s.contributions > 1 && isFloat(v.ty.dt))
        t += 2 * epsOf(v.ty.dt) * (1 + v.mag * s.contributions) * s.contributions;
      tol[s.target] = std::max(tol[s.target], t);
      break;
    }
    case Stmt::Kind::For: {
      // Bounds that hold after any number of trips up to s.trips: run the body
      // that often, widening the carried values each time.
      for (int i = 0; i < std::max(1, s.trips); ++i)
        scoped(s.body);
      break;
    }
    case Stmt::Kind::If:
      scoped(s.body);
      scoped(s.orelse);
      break;
    }
  }

  /// A block: its own names go out of scope, assignments to outer vars stay.
  void scoped(std::vector<Stmt> &ss) {
    std::map<std::string, Bounds> outer = env_;
    stmts(ss);
    for (auto &[name, b] : outer) {
      Bounds &now = env_[name];
      b = {std::max(b.mag, now.mag), std::max(b.err, now.err), b.exact && now.exact};
    }
    env_ = std::move(outer);
  }

  void expr(Expr &e) {
    if (!ok)
      return;
    for (ExprP &k : e.kids)
      expr(*k);
    auto K = [&](size_t i) -> Expr & { return *e.kids[i]; };
    double eps = epsOf(e.ty.dt);
    auto rounded = [&](double mag) { return 2 * eps * mag; };
    switch (e.op) {
    case Op::Leaf:
    case Op::Lit:
      e.err = 0;
      e.exact = true;
      break;
    case Op::Ref: {
      auto it = env_.find(e.text);
      if (it == env_.end())
        return fail();
      e.mag = it->second.mag;
      e.err = it->second.err;
      e.exact = it->second.exact;
      break;
    }
    case Op::Add:
    case Op::Sub:
      e.mag = K(0).mag + K(1).mag;
      e.err = K(0).err + K(1).err + rounded(e.mag);
      e.exact = K(0).exact && K(1).exact;
      break;
    case Op::Mul:
      e.mag = K(0).mag * K(1).mag;
      e.err = K(0).err * K(1).mag + K(1).err * K(0).mag + K(0).err * K(1).err + rounded(e.mag);
      e.exact = isInt(e.ty.dt) && K(0).exact && K(1).exact;
      break;
    case Op::Scale: {
      double f = std::fabs(std::stod(e.text));
      e.mag = K(0).mag * f;
      e.err = K(0).err * f;
      e.exact = K(0).exact;
      break;
    }
    case Op::Div:
      e.mag = K(0).mag;
      e.err = K(0).err + K(0).mag * K(1).err + rounded(e.mag);
      e.exact = false;
      break;
    case Op::IDiv:
    case Op::Rem:
      if (!K(0).exact)
        fail();
      e.mag = e.op == Op::Rem ? std::min(K(0).mag, std::stod(e.text)) : K(0).mag;
      e.err = 0;
      e.exact = true;
      break;
    case Op::Neg:
    case Op::Abs:
      e.mag = K(0).mag;
      e.err = K(0).err;
      e.exact = K(0).exact;
      break;
    case Op::Maximum:
    case Op::Minimum:
      e.mag = std::max(K(0).mag, K(1).mag);
      e.err = std::max(K(0).err, K(1).err);
      e.exact = K(0).exact && K(1).exact;
      break;
    case Op::Select:
      if (!K(0).exact)
        fail();
      e.mag = std::max(K(1).mag, K(2).mag);
      e.err = std::max(K(1).err, K(2).err);
      e.exact = K(1).exact && K(2).exact;
      break;
    case Op::Cmp:
    case Op::And:
    case Op::Or:
    case Op::Not:
      for (ExprP &k : e.kids)
        if (!k->exact)
          fail();
      e.mag = 1;
      e.err = 0;
      e.exact = true;
      break;
    case Op::ExpNeg:
    case Op::Exp2Neg:
      e.mag = 1;
      e.err = K(0).err + 1e-6 + rounded(1);
      e.exact = false;
      break;
    case Op::Tanh:
      e.mag = std::min(1.0, K(0).mag);
      e.err = K(0).err + 1e-3 * e.mag + rounded(e.mag);
      e.exact = false;
      break;
    case Op::Sigmoid:
      e.mag = 1;
      e.err = 0.25 * K(0).err + 1e-6 + rounded(1);
      e.exact = false;
      break;
    case Op::Log1:
      e.mag = std::log(K(0).mag + 1);
      e.err = K(0).err + 1e-5 + rounded(e.mag);
      e.exact = false;
      break;
    case Op::Sqrt1:
      e.mag = std::sqrt(K(0).mag + 1);
      e.err = 0.5 * K(0).err + rounded(e.mag);
      e.exact = false;
      break;
    case Op::Rsqrt1:
      e.mag = 1;
      e.err = 0.5 * K(0).err + 1e-6 + rounded(1);
      e.exact = false;
      break;
    case Op::Convert: {
      DType from = K(0).ty.dt;
      e.mag = K(0).mag;
      if (isInt(e.ty.dt) && isFloat(from) && (!K(0).exact || K(0).mag > std::ldexp(1.0, 30)))
        fail();
      e.err = K(0).err + rounded(e.mag);
      e.exact = K(0).exact;
      break;
    }
    case Op::Bcast:
    case Op::Transpose:
    case Op::Permute:
    case Op::Reshape:
      e.mag = K(0).mag;
      e.err = K(0).err;
      e.exact = K(0).exact;
      break;
    case Op::Reduce:
    case Op::Scan: {
      double n = (double)e.extent;
      if (e.text == "sum" || e.text == "cumsum" || e.text == "scan:sum") {
        e.mag = n * K(0).mag;
        double steps = std::min(n, 64.0) + std::ceil(std::log2(n)) + 2;
        e.err = n * K(0).err + steps * 2 * eps * e.mag;
        e.exact = isInt(e.ty.dt) && K(0).exact;
      } else {
        e.mag = K(0).mag;
        e.err = K(0).err;
        e.exact = K(0).exact;
      }
      break;
    }
    case Op::ArgReduce:
      if (!K(0).exact)
        fail();
      e.mag = (double)e.extent;
      e.err = 0;
      e.exact = true;
      break;
    case Op::Dot: {
      // dot(a [BM, BK], b [BK, BN], acc): e.extent is BK.
      double n = (double)e.extent;
      double prod = n * K(0).mag * K(1).mag;
      e.mag = K(2).mag + prod;
      e.err = K(2).err + n * (K(0).err * K(1).mag + K(1).err * K(0).mag) +
              (std::min(n, 64.0) + std::ceil(std::log2(n)) + 2) * 2 * epsOf(DType::F32) * prod +
              rounded(e.mag);
      e.exact = false;
      break;
    }
    }
    if (e.mag > limitOf(e.ty.dt) || !std::isfinite(e.mag) || !std::isfinite(e.err))
      fail();
  }
};

void countStmts(const std::vector<Stmt> &ss, int &n) {
  for (const Stmt &s : ss) {
    n += !s.prelude;
    countStmts(s.body, n);
    countStmts(s.orelse, n);
  }
}

} // namespace

bool analyzeExpr(Expr &e, const std::map<std::string, Bounds> &env) {
  Analyzer a;
  a.env_ = env;
  a.expr(e);
  return a.ok;
}

bool analyze(Program &p, std::map<std::string, Bounds> *names) {
  if (!p.fixedSource.empty())
    return true;
  Analyzer a;
  a.stmts(p.body);
  if (names)
    *names = std::move(a.env_);
  return a.ok;
}

std::map<std::string, double> Program::tolerances() const {
  if (!fixedSource.empty())
    return fixedTolerances;
  Analyzer a;
  Program copy = *this; // analyze writes the nodes, which the copy shares: same values
  a.stmts(copy.body);
  for (auto &[name, t] : a.tol)
    t += 1e-30; // subnormal results flush to zero on the GPU
  return a.tol;
}

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
