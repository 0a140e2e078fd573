//===- Reduce.cpp - shrinking a failing generated program -----------------===//
//
// Candidates are numbered by a fixed walk of the tree (statements first, then
// expressions, then sizes); a candidate is built on a deep copy, so a rejected
// one leaves the current program untouched. After an accepted step the walk
// resumes at the same number, which now names the next candidate.
//
//===----------------------------------------------------------------------===//
#include "test/difftest/Reduce.h"

#include "test/difftest/Generator.h"

namespace tessera::difftest {

namespace {

ExprP copyExpr(const ExprP &e) {
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &k : c->kids)
    k = copyExpr(k);
  return c;
}

void copyStmts(std::vector<Stmt> &ss) {
  for (Stmt &s : ss) {
    if (s.value)
      s.value = copyExpr(s.value);
    copyStmts(s.body);
    copyStmts(s.orelse);
  }
}

/// Counts candidate edits and applies the `target`-th.
struct Editor {
  int target;
  int count = 0;
  bool done = false;
  bool hit() {
    if (count++ != target)
      return false;
    done = true;
    return true;
  }
};

void stmtEdits(std::vector<Stmt> &ss, Editor &ed) {
  for (size_t j = 0; j < ss.size() && !ed.done; ++j) {
    Stmt &s = ss[j];
    if (s.prelude)
      continue;
    if (ed.hit()) {
      ss.erase(ss.begin() + (long)j);
      return;
    }
    if (s.kind != Stmt::Kind::For && s.kind != Stmt::Kind::If)
      continue;
    for (std::vector<Stmt> *inner : {&s.body, &s.orelse}) {
      if (inner->empty() || !ed.hit())
        continue;
      std::vector<Stmt> keep = *inner;
      ss.erase(ss.begin() + (long)j);
      ss.insert(ss.begin() + (long)j, keep.begin(), keep.end());
      return;
    }
    stmtEdits(s.body, ed);
    if (!ed.done)
      stmtEdits(s.orelse, ed);
  }
}

bool isConstant(const Expr &e) {
  return e.op == Op::Lit || (e.op == Op::Leaf && e.text.rfind("full(", 0) == 0);
}

void exprEdits(ExprP &slot, Editor &ed) {
  Expr &n = *slot;
  for (ExprP &k : n.kids)
    if (k->ty == n.ty && ed.hit()) {
      slot = k;
      return;
    }
  if (!isConstant(n) && ed.hit()) {
    slot = constantOf(n.ty);
    return;
  }
  for (ExprP &k : n.kids) {
    exprEdits(k, ed);
    if (ed.done)
      return;
  }
}

void exprEditsIn(std::vector<Stmt> &ss, Editor &ed) {
  for (Stmt &s : ss) {
    if (ed.done)
      return;
    if (s.value && !s.prelude)
      exprEdits(s.value, ed);
    exprEditsIn(s.body, ed);
    exprEditsIn(s.orelse, ed);
  }
}

int64_t tuneOf(const Program &p, const std::string &name) {
  for (auto &[n, v] : p.tunes)
    if (n == name)
      return v;
  return 1;
}

void sizeEdits(Program &p, Editor &ed) {
  for (const char *d : {"M", "N", "K"}) {
    auto it = p.dims.find(d);
    if (it == p.dims.end())
      continue;
    int64_t v = it->second;
    for (int64_t to : {int64_t(1), v / 2, v - 1}) {
      if (to < 1 || to >= v || !ed.hit())
        continue;
      it->second = to;
      p.dims["GM"] = (p.dims["M"] + tuneOf(p, "BM") - 1) / tuneOf(p, "BM");
      p.dims["GN"] = (p.dims["N"] + tuneOf(p, "BN") - 1) / tuneOf(p, "BN");
      return;
    }
  }
}

} // namespace

Program deepCopy(const Program &p) {
  Program c = p;
  copyStmts(c.body);
  return c;
}

Program reduceProgram(const Program &p, const std::function<bool(const Program &)> &fails,
                      int maxTries, ReduceStats *stats) {
  Program cur = deepCopy(p);
  int tries = 0;
  if (cur.fixedSource.empty()) {
    // Passes over every candidate until one changes nothing: a step can
    // enable an earlier one (a let is deleted once its uses are constants).
    for (bool progress = true; progress && tries < maxTries;) {
      progress = false;
      for (int i = 0; tries < maxTries;) {
        Program cand = deepCopy(cur);
        Editor ed{i};
        stmtEdits(cand.body, ed);
        if (!ed.done)
          exprEditsIn(cand.body, ed);
        if (!ed.done)
          sizeEdits(cand, ed);
        if (!ed.done)
          break; // every candidate of the current program was tried
        if (analyze(cand)) {
          ++tries;
          if (fails(cand)) {
            cur = std::move(cand);
            progress = true;
            continue; // the same number names the next candidate now
          }
        }
        ++i;
      }
    }
  }
  if (stats) {
    stats->tries = tries;
    stats->statementsBefore = p.statementCount();
    stats->statementsAfter = cur.statementCount();
  }
  analyze(cur);
  return cur;
}

} // namespace tessera::difftest
