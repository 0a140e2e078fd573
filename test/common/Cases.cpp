//===- Cases.cpp - shared references and comparisons of the case table ----===//
#include "test/common/Cases.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera;
using namespace tessera::testutil;

std::vector<ProgramCase> tessera::testutil::programCases() {
  std::vector<ProgramCase> all = exampleCases(), more = testProgramCases();
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

void tessera::testutil::onlySm90(std::vector<ProgramCase> &out, size_t from,
                                 const std::string &why) {
  for (size_t i = from; i < out.size(); ++i) {
    out[i].notOn = {"sm_80", "sm_86", "sm_89"};
    out[i].notOnWhy = why;
  }
}

std::string tessera::testutil::nameOf(const char *base,
                                      const std::vector<std::pair<std::string, int64_t>> &parts) {
  std::string s = base;
  for (auto &[n, v] : parts)
    s += "_" + n + std::to_string(v);
  return s;
}

std::vector<std::pair<std::string, int64_t>>
tessera::testutil::withParams(std::vector<std::pair<std::string, int64_t>> parts,
                              const std::map<std::string, int64_t> &params) {
  for (auto &[name, v] : params)
    parts.push_back({name == "num_warps"         ? "w"
                     : name == "num_stages"      ? "s"
                     : name == "split-k"         ? "split"
                     : name == "warp-specialize" ? "ws"
                     : name == "persistent"      ? "pers"
                     : name == "tma-store"       ? "tmast"
                     : name == "rotate-dots"     ? "rot"
                     : name == "ping-pong"       ? "pp"
                                                 : name,
                     v});
  return parts;
}

std::string tessera::testutil::closeTo(const std::string &what, const HostTensor &got,
                                       const std::vector<double> &want, double atol, double rtol) {
  if (got.v.size() != want.size())
    return what + ": " + std::to_string(got.v.size()) + " elements, want " +
           std::to_string(want.size());
  Compare c = compare(got, want, atol, rtol);
  if (c.bad == 0)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << what << ": " << c.bad << " of " << want.size() << " elements off; first at " << c.first
     << ": got " << llvm::format("%.9g", c.gotFirst) << ", want "
     << llvm::format("%.9g", c.wantFirst) << " (max abs err " << llvm::format("%.3g", c.maxAbs)
     << ", atol " << atol << ", rtol " << rtol << ")";
  return s;
}

const HostTensor &tessera::testutil::argTensor(const std::vector<CaseArg> &args,
                                               const std::string &name) {
  for (const CaseArg &a : args)
    if (a.name == name)
      return a.t;
  static HostTensor none;
  return none;
}

double tessera::testutil::roundTo(DType d, double v) {
  HostTensor t(d, {1});
  t.v[0] = v;
  t.roundToDtype();
  return t.v[0];
}

std::vector<double> tessera::testutil::matmulRef(const HostTensor &a, const HostTensor &b,
                                                 int64_t m, int64_t n, int64_t k, bool aT,
                                                 bool bT) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = aT ? a.v[kk * m + i] : a.v[i * k + kk];
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += av * (bT ? b.v[j * k + kk] : b.v[kk * n + j]);
    }
  return c;
}

std::vector<double> tessera::testutil::attentionRef(const HostTensor &q, const HostTensor &k,
                                                    const HostTensor &v, bool causal,
                                                    double scale) {
  int64_t bh = q.shape[0] * q.shape[1], n = q.shape[2], d = q.shape[3];
  int64_t group = q.shape[1] / k.shape[1]; // query heads per key/value head
  std::vector<double> o(bh * n * d, 0.0), s(n);
  for (int64_t z = 0; z < bh; ++z) {
    int64_t kv = z / q.shape[1] * k.shape[1] + z % q.shape[1] / group;
    const double *Q = &q.v[z * n * d], *K = &k.v[kv * n * d], *V = &v.v[kv * n * d];
    for (int64_t i = 0; i < n; ++i) {
      double mx = -INFINITY, sum = 0;
      int64_t lim = causal ? i + 1 : n;
      for (int64_t j = 0; j < lim; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < d; ++e)
          dot += Q[i * d + e] * K[j * d + e];
        s[j] = dot * scale;
        mx = std::max(mx, s[j]);
      }
      for (int64_t j = 0; j < lim; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      for (int64_t j = 0; j < lim; ++j)
        for (int64_t e = 0; e < d; ++e)
          o[(z * n + i) * d + e] += s[j] / sum * V[j * d + e];
    }
  }
  return o;
}

std::vector<double> tessera::testutil::softmaxRef(const HostTensor &x, int64_t m, int64_t n) {
  std::vector<double> want(m * n);
  for (int64_t r = 0; r < m; ++r) {
    double mx = -INFINITY, s = 0;
    for (int64_t c = 0; c < n; ++c)
      mx = std::max(mx, x.v[r * n + c]);
    for (int64_t c = 0; c < n; ++c)
      s += std::exp(x.v[r * n + c] - mx);
    for (int64_t c = 0; c < n; ++c)
      want[r * n + c] = std::exp(x.v[r * n + c] - mx) / s;
  }
  return want;
}

std::vector<double> tessera::testutil::layernormRef(const HostTensor &x, const HostTensor &w,
                                                    const HostTensor &b, int64_t m, int64_t n,
                                                    double eps) {
  std::vector<double> want(m * n);
  for (int64_t r = 0; r < m; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += x.v[r * n + j] / n;
    for (int64_t j = 0; j < n; ++j)
      var += (x.v[r * n + j] - mean) * (x.v[r * n + j] - mean) / n;
    for (int64_t j = 0; j < n; ++j)
      want[r * n + j] = (x.v[r * n + j] - mean) / std::sqrt(var + eps) * w.v[j] + b.v[j];
  }
  return want;
}
