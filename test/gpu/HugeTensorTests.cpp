//===- HugeTensorTests.cpp - tensors past 2^31 elements on the GPU ------------===//
//
// An f32 vector of 2^31 + 1000 elements (an axis past 2^31: the 64-bit size
// class) is loaded, stored, reduced and gathered; a [70000, 40000] bf16 matrix
// (2.8e9 elements on two small axes: the 32-bit class with 64-bit addresses) is
// multiplied and reduced. Inputs are random: small integers where sums must be
// exact. Every vector output is checked whole; the matrix results on sampled
// rows (the first and last, those around element 2^31, a spread between)
// against float64. They take about 26 GB of GPU memory and as much host memory.
// Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "test/gpu/GpuFixture.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace tessera;
using namespace tessera::gputest;

namespace {

uint64_t mix(uint64_t x) { // splitmix64's finalizer: a random value per index
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Calls `fn(begin, end)` on slices of [0, n), one per hardware thread.
template <typename F> void parallelFor(int64_t n, F fn) {
  int64_t t = std::max(1u, std::thread::hardware_concurrency());
  int64_t chunk = (n + t - 1) / t;
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < t; ++w)
    threads.emplace_back([&, w] { fn(std::min(n, w * chunk), std::min(n, (w + 1) * chunk)); });
  for (std::thread &th : threads)
    th.join();
}

// bf16 by bit arithmetic: HostTensor's halfBits goes through APFloat, too slow
// for 2.8e9 values and the 3e8 reads of the reference rows.
uint16_t bf16Bits(float f) { // round to nearest even
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}
float fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The first index where `bad(i)` holds and how many do, over [0, n).
template <typename F> std::pair<int64_t, int64_t> mismatches(int64_t n, F bad) {
  std::atomic<int64_t> count{0}, first{n};
  parallelFor(n, [&](int64_t lo, int64_t hi) {
    int64_t c = 0, f = n;
    for (int64_t i = lo; i < hi; ++i)
      if (bad(i)) {
        f = std::min(f, i);
        ++c;
      }
    count += c;
    int64_t seen = first.load();
    while (f < seen && !first.compare_exchange_weak(seen, f)) {
    }
  });
  return {first.load(), count.load()};
}

class HugeTensors : public Gpu {
protected:
  static cuda::DeviceBuffer device(size_t bytes, const void *from = nullptr) {
    auto b = cuda::DeviceBuffer::allocate(bytes);
    EXPECT_TRUE((bool)b) << (b ? "" : llvm::toString(b.takeError()));
    if (!b)
      return cuda::DeviceBuffer();
    if (from) {
      llvm::Error e = b->copyFromHost(from, bytes);
      EXPECT_FALSE((bool)e) << llvm::toString(std::move(e));
    } else {
      llvm::Error e = b->fill(0xFF); // NaN: unwritten elements show
      EXPECT_FALSE((bool)e) << llvm::toString(std::move(e));
    }
    return std::move(*b);
  }
  static void launch(const std::string &file, const char *kernel, std::vector<jit::Arg> args) {
    auto p = program(file);
    ASSERT_TRUE(p);
    auto info = runtime->launch(*p, kernel, args);
    ASSERT_TRUE((bool)info) << kernel << ": " << llvm::toString(info.takeError());
    llvm::Error e = cuda::check(cuda::driver()->cuCtxSynchronize(), "cuCtxSynchronize");
    ASSERT_FALSE((bool)e) << kernel << ": " << llvm::toString(std::move(e));
  }
};

TEST_F(HugeTensors, AVectorOf2To31Plus1000ElementsLoadsStoresReducesAndGathers) {
  const int64_t n = (int64_t{1} << 31) + 1000, blocks = (n + 1023) / 1024;
  std::vector<float> x(n);
  // Integers in [-8, 8]: every sum below is exact in f32.
  parallelFor(n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      x[i] = (float)((int64_t)(mix(i) % 17) - 8);
  });
  cuda::DeviceBuffer dx = device(n * 4, x.data()), dy = device(n * 4), dz = device(n * 4),
                     ds = device(blocks * 4);
  ASSERT_FALSE(HasFailure());
  auto t = [](const cuda::DeviceBuffer &b, int64_t e) {
    return jit::TensorArg{b.get(), DType::F32, {e}, {}};
  };
  launch("test/programs/huge.tile", "scale", {t(dx, n), t(dy, n)});
  launch("test/programs/huge.tile", "block_sums", {t(dx, n), t(ds, blocks)});
  launch("test/programs/huge.tile", "reverse", {t(dx, n), t(dz, n)});
  ASSERT_FALSE(HasFailure());

  std::vector<float> out(n);
  ASSERT_FALSE((bool)dy.copyToHost(out.data(), n * 4));
  auto [first, count] = mismatches(n, [&](int64_t i) { return out[i] != x[i] * 2.0f + 1.0f; });
  EXPECT_EQ(count, 0) << "scale: " << count << " of " << n << " elements off, first at " << first;
  ASSERT_FALSE((bool)dz.copyToHost(out.data(), n * 4));
  std::tie(first, count) = mismatches(n, [&](int64_t i) { return out[i] != x[n - 1 - i]; });
  EXPECT_EQ(count, 0) << "reverse: " << count << " of " << n << " elements off, first at " << first;
  std::vector<float> sums(blocks);
  ASSERT_FALSE((bool)ds.copyToHost(sums.data(), blocks * 4));
  std::tie(first, count) = mismatches(blocks, [&](int64_t b) {
    double want = 0;
    for (int64_t i = b * 1024; i < std::min(n, (b + 1) * 1024); ++i)
      want += x[i];
    return (double)sums[b] != want;
  });
  EXPECT_EQ(count, 0) << "block_sums: " << count << " of " << blocks << " sums off, first at "
                      << first;
  std::printf("huge vector: %lld elements (2^31 + 1000); scale, reverse and %lld block sums "
              "checked whole\n",
              (long long)n, (long long)blocks);
}

TEST_F(HugeTensors, AMatrixOf2800MillionElementsMultipliesAndReduces) {
  const int64_t m = 70000, k = 40000, n = 64;
  std::vector<uint16_t> a(m * k), b(k * n);
  auto uniform = [](uint64_t i) {
    return (float)((double)(mix(i) >> 11) / 9007199254740992.0 * 2 - 1);
  };
  parallelFor(m * k, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      a[i] = bf16Bits(uniform(i));
  });
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = bf16Bits(uniform(i + (uint64_t{1} << 40)));
  cuda::DeviceBuffer da = device(m * k * 2, a.data()), db = device(k * n * 2, b.data()),
                     dc = device(m * n * 2), ds = device(m * 4);
  ASSERT_FALSE(HasFailure());
  auto t = [](const cuda::DeviceBuffer &buf, DType d, std::vector<int64_t> shape) {
    return jit::TensorArg{buf.get(), d, std::move(shape), {}};
  };
  launch("examples/matmul.tile", "matmul",
         {t(da, DType::BF16, {m, k}), t(db, DType::BF16, {k, n}), t(dc, DType::BF16, {m, n})});
  launch("test/programs/huge.tile", "row_sums",
         {t(da, DType::BF16, {m, k}), t(ds, DType::F32, {m})});
  ASSERT_FALSE(HasFailure());
  std::vector<uint16_t> c(m * n);
  std::vector<float> s(m);
  ASSERT_FALSE((bool)dc.copyToHost(c.data(), c.size() * 2));
  ASSERT_FALSE((bool)ds.copyToHost(s.data(), s.size() * 4));

  // Rows: the first and last 16, 16 around element 2^31 (row 53687), every 997th.
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < 16; ++r)
    rows.insert(rows.end(), {r, m - 1 - r, (int64_t{1} << 31) / k - 8 + r});
  for (int64_t r = 0; r < m; r += 997)
    rows.push_back(r);
  int64_t badC = 0, badS = 0;
  double maxErr = 0;
  for (int64_t r : rows) {
    std::vector<double> want(n, 0.0);
    double rowSum = 0;
    for (int64_t j = 0; j < k; ++j) {
      double av = fromBf16(a[r * k + j]);
      rowSum += av;
      for (int64_t col = 0; col < n; ++col)
        want[col] += av * fromBf16(b[j * n + col]);
    }
    for (int64_t col = 0; col < n; ++col) {
      double got = fromBf16(c[r * n + col]), err = std::fabs(got - want[col]);
      maxErr = std::max(maxErr, err);
      badC += !(err <= 2e-3 * std::sqrt((double)k) + 8e-3 * std::fabs(want[col]));
    }
    badS += !(std::fabs(s[r] - rowSum) <= 1e-2 + 1e-5 * std::fabs(rowSum));
  }
  EXPECT_EQ(badC, 0) << badC << " of " << rows.size() * n << " sampled products off (max abs err "
                     << maxErr << ")";
  EXPECT_EQ(badS, 0) << badS << " of " << rows.size() << " sampled row sums off";
  std::printf("huge matrix: [%lld, %lld] bf16 (%lld elements); %zu rows of the product and the "
              "row sums checked, max abs err %.3g\n",
              (long long)m, (long long)k, (long long)(m * k), rows.size(), maxErr);
}

} // namespace
