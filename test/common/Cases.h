//===- Cases.h - every example and test program, with references -*- C++ -*-===//
//
// One table of runs: a .tile file, a kernel, arguments in signature order
// (random inputs, sizes that are and are not multiples of the tiles), optional
// tune overrides, and a check that compares the arguments after the run with
// float64 references (or, where ties make the output non-unique, with what
// any correct answer must satisfy). The interpreter tests (CI) and the GPU
// tests (the device) run the same table, so both executors meet the same bar.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_COMMON_CASES_H
#define TESSERA_TEST_COMMON_CASES_H

#include "test/common/HostTensor.h"

#include <functional>
#include <map>
#include <ostream>
#include <set>

namespace tessera::testutil {

enum class Role { In, Out, InOut, Scalar };

struct CaseArg {
  std::string name;
  Role role = Role::In;
  HostTensor t;      // tensors (Out: zeros here, poisoned on the device)
  double scalar = 0; // Role::Scalar
  /// Compared exactly when the GPU is checked against the interpreter: only where
  /// one rounding of the same values decides every element (no approximate math,
  /// no reduction order, no fused multiply-add); otherwise within dtype tolerances.
  bool exactInDiff = false;
};

struct ProgramCase {
  std::string name; // a GoogleTest name: letters, digits, underscores
  std::string file; // relative to the source tree
  std::string kernel;
  std::map<std::string, int64_t> params;
  std::vector<CaseArg> args;
  /// After the run: "" when every output holds, else what is off.
  std::function<std::string(const std::vector<CaseArg> &)> check;
  /// Architectures whose code the GPU tests do not try for this case (what
  /// TESSERA_GPU_TEST_ARCH names), and why: a schedule that needs what they
  /// lack, such as four stages of the wide tile past sm_80's shared memory.
  std::set<std::string> notOn;
  std::string notOnWhy;
};

/// Marks the cases from `from` on as not for the code of sm_80, sm_86 and
/// sm_89 (their shared memory, at most 163 KiB a block, is smaller than
/// sm_90's 227 KiB), with `why`.
void onlySm90(std::vector<ProgramCase> &out, size_t from, const std::string &why);

/// GoogleTest prints a case by its name.
inline void PrintTo(const ProgramCase &c, std::ostream *os) { *os << c.name; }

/// Every case; deterministic (fixed seeds).
std::vector<ProgramCase> programCases();
std::vector<ProgramCase> exampleCases();
std::vector<ProgramCase> testProgramCases();
void addElementwiseCases(std::vector<ProgramCase> &out,
                         std::mt19937 &rng);                            // part of testProgramCases
void addIndexedCases(std::vector<ProgramCase> &out, std::mt19937 &rng); // likewise
void addAtomicCases(std::vector<ProgramCase> &out, std::mt19937 &rng);  // likewise
void addDecodeCases(std::vector<ProgramCase> &out, std::mt19937 &rng);  // part of exampleCases
void addAttentionCases(std::vector<ProgramCase> &out, std::mt19937 &rng);        // likewise
void addExampleAttentionCases(std::vector<ProgramCase> &out, std::mt19937 &rng); // likewise
void addScanCases(std::vector<ProgramCase> &out, std::mt19937 &rng);    // part of testProgramCases
void addReshapeCases(std::vector<ProgramCase> &out, std::mt19937 &rng); // likewise
void addF64Cases(std::vector<ProgramCase> &out, std::mt19937 &rng);     // likewise
void addIntCases(std::vector<ProgramCase> &out, std::mt19937 &rng);     // likewise
void addF8Cases(std::vector<ProgramCase> &out, std::mt19937 &rng);      // likewise
void addFmaCases(std::vector<ProgramCase> &out, std::mt19937 &rng);     // likewise
/// Tile extents that are not powers of two (part of testProgramCases too).
std::vector<ProgramCase> oddExtentCases();

/// A case name: `base`, then "_" NAME VALUE for each part.
std::string nameOf(const char *base, const std::vector<std::pair<std::string, int64_t>> &parts);
/// A case name's parts for its parameters (num_warps as w, num_stages as s,
/// the schedule options abbreviated), after `parts` (the shape).
std::vector<std::pair<std::string, int64_t>>
withParams(std::vector<std::pair<std::string, int64_t>> parts,
           const std::map<std::string, int64_t> &params);

/// "" when `got` is within atol + rtol * |want| everywhere, else a summary.
std::string closeTo(const std::string &what, const HostTensor &got, const std::vector<double> &want,
                    double atol, double rtol);
/// The argument called `name`.
const HostTensor &argTensor(const std::vector<CaseArg> &args, const std::string &name);

// Builders.
inline CaseArg in(std::string n, HostTensor t) {
  return CaseArg{std::move(n), Role::In, std::move(t)};
}
inline CaseArg output(std::string n, DType d, std::vector<int64_t> s) {
  return CaseArg{std::move(n), Role::Out, HostTensor(d, std::move(s))};
}
inline CaseArg inout(std::string n, HostTensor t) {
  return CaseArg{std::move(n), Role::InOut, std::move(t)};
}
inline CaseArg scalar(std::string n, double v) {
  return CaseArg{std::move(n), Role::Scalar, {}, v};
}
inline HostTensor rnd(std::mt19937 &rng, DType d, std::vector<int64_t> s, double lo = -1,
                      double hi = 1) {
  HostTensor t(d, std::move(s));
  t.random(rng, lo, hi);
  return t;
}
/// Uniform random integers in [lo, hi] (ids, indices, bins).
inline HostTensor ints(std::mt19937 &rng, DType d, std::vector<int64_t> s, int64_t lo, int64_t hi) {
  HostTensor t(d, std::move(s));
  std::uniform_int_distribution<int64_t> u(lo, hi);
  for (double &x : t.v)
    x = (double)u(rng);
  return t;
}
/// C = op(A) op(B) in float64; A is [m, k] ([k, m] when aT), B is [k, n] ([n, k] when bT).
std::vector<double> matmulRef(const HostTensor &a, const HostTensor &b, int64_t m, int64_t n,
                              int64_t k, bool aT, bool bT = false);
/// softmax(Q K^T * scale) V per (batch, head) over [B, H, N, D]; keys j <= i when causal.
/// K and V may have fewer heads (grouped-query): query head h reads h / (H / HK).
std::vector<double> attentionRef(const HostTensor &q, const HostTensor &k, const HostTensor &v,
                                 bool causal, double scale);
/// Marks arguments `idx` of `c` as bit-exact between the GPU and the interpreter.
inline void exact(ProgramCase &c, std::initializer_list<int> idx) {
  for (int i : idx)
    c.args[i].exactInDiff = true;
}
/// Row softmax of an [m, n] tensor in float64.
std::vector<double> softmaxRef(const HostTensor &x, int64_t m, int64_t n);
/// LayerNorm over the rows of x [m, n] (biased variance) with weight w and bias b.
std::vector<double> layernormRef(const HostTensor &x, const HostTensor &w, const HostTensor &b,
                                 int64_t m, int64_t n, double eps);
/// Rounds a double to a dtype (nearest even), as a store would.
double roundTo(DType d, double v);

} // namespace tessera::testutil

#endif
