//===- Reduce.h - shrinking a failing generated program ---------*- C++ -*-===//
//
// Greedy reduction over the program's tree: delete statements, inline loop
// and branch bodies, replace expressions by an operand of the same type or by
// a constant, and shrink the sizes, keeping each step only while the program
// still fails the same way (the caller's predicate) and still keeps the rules
// of its bounds (analyze()). Deterministic for a deterministic predicate.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_DIFFTEST_REDUCE_H
#define TESSERA_TEST_DIFFTEST_REDUCE_H

#include "test/difftest/Program.h"

#include <functional>

namespace tessera::difftest {

/// A copy that shares no expression node with `p`.
Program deepCopy(const Program &p);

struct ReduceStats {
  int tries = 0;            // predicate calls
  int statementsBefore = 0; // Program::statementCount
  int statementsAfter = 0;
};

/// The smallest program reached from `p` on which `fails` still holds, after
/// at most `maxTries` calls of it.
Program reduceProgram(const Program &p, const std::function<bool(const Program &)> &fails,
                      int maxTries = 400, ReduceStats *stats = nullptr);

} // namespace tessera::difftest

#endif
