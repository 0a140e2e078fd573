// Row softmax, hand-written CUDA: the baseline for examples/softmax.tile (f32) and
// test/programs/softmax_bf16.tile (bf16). One block of 256 threads per row; pass 1
// streams the row with 16-byte loads keeping a per-thread online max and sum, combined
// across the block with warp shuffles; pass 2 streams it again (from L2) and writes
// exp(x - max) / sum. Any N; rows need not be 16-byte aligned (scalar fallback).
//
// Calling convention (docs/bench.md): tensors in .tile parameter order, then the named
// dims in order of first appearance (M, N).
// tessera-bench: softmax_f32 grid=[M] block=256
// tessera-bench: softmax_bf16 grid=[M] block=256
// No headers: NVRTC has none for bf16 built in, and the device has no toolkit.

#define INFINITY __int_as_float(0x7f800000)

namespace {

/// bf16 storage as raw bits.
struct bf16 {
  unsigned short bits;
};

constexpr int kThreads = 256;

__device__ __forceinline__ float toF(float v) { return v; }
__device__ __forceinline__ float toF(bf16 v) { return __int_as_float((int)((unsigned)v.bits << 16)); }
template <typename T> __device__ __forceinline__ T fromF(float v);
template <> __device__ __forceinline__ float fromF<float>(float v) { return v; }
template <> __device__ __forceinline__ bf16 fromF<bf16>(float v) {
  unsigned u = (unsigned)__float_as_int(v); // round to nearest even (finite inputs)
  return bf16{(unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16)};
}

/// Combines (max, sum) pairs of an online softmax.
__device__ __forceinline__ void combine(float &m, float &s, float m2, float s2) {
  float mn = fmaxf(m, m2);
  s = (m == -INFINITY ? 0.f : s * __expf(m - mn)) + (m2 == -INFINITY ? 0.f : s2 * __expf(m2 - mn));
  m = mn;
}

template <typename T> __device__ void softmaxRow(const T *__restrict__ x, T *__restrict__ y, int M, int N) {
  constexpr int kVec = 16 / sizeof(T);
  const int row = blockIdx.x;
  if (row >= M)
    return;
  const T *xr = x + (size_t)row * N;
  T *yr = y + (size_t)row * N;
  bool vec = ((reinterpret_cast<unsigned long long>(xr) | reinterpret_cast<unsigned long long>(yr)) & 15) == 0;
  int nv = vec ? N / kVec : 0; // whole vectors
  float m = -INFINITY, s = 0.f;
  for (int v = threadIdx.x; v < nv; v += kThreads) {
    uint4 raw = reinterpret_cast<const uint4 *>(xr)[v];
    const T *e = reinterpret_cast<const T *>(&raw);
    float lm = -INFINITY;
#pragma unroll
    for (int i = 0; i < kVec; ++i)
      lm = fmaxf(lm, toF(e[i]));
    float ls = 0.f;
#pragma unroll
    for (int i = 0; i < kVec; ++i)
      ls += __expf(toF(e[i]) - lm);
    combine(m, s, lm, ls);
  }
  for (int i = nv * kVec + threadIdx.x; i < N; i += kThreads)
    combine(m, s, toF(xr[i]), 1.f);
  // Block reduction: warps, then the warps' results through shared memory.
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    combine(m, s, m2, s2);
  }
  __shared__ float sm[kThreads / 32], ss[kThreads / 32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    sm[warp] = m;
    ss[warp] = s;
  }
  __syncthreads();
  m = lane < kThreads / 32 ? sm[lane] : -INFINITY;
  s = lane < kThreads / 32 ? ss[lane] : 0.f;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    combine(m, s, m2, s2);
  }
  const float inv = 1.f / s;
  for (int v = threadIdx.x; v < nv; v += kThreads) {
    uint4 raw = reinterpret_cast<const uint4 *>(xr)[v], out;
    const T *e = reinterpret_cast<const T *>(&raw);
    T *o = reinterpret_cast<T *>(&out);
#pragma unroll
    for (int i = 0; i < kVec; ++i)
      o[i] = fromF<T>(__expf(toF(e[i]) - m) * inv);
    reinterpret_cast<uint4 *>(yr)[v] = out;
  }
  for (int i = nv * kVec + threadIdx.x; i < N; i += kThreads)
    yr[i] = fromF<T>(__expf(toF(xr[i]) - m) * inv);
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads) softmax_f32(const float *x, float *y, int M, int N) {
  softmaxRow(x, y, M, N);
}

extern "C" __global__ void __launch_bounds__(kThreads)
    softmax_bf16(const bf16 *x, bf16 *y, int M, int N) {
  softmaxRow(x, y, M, N);
}
