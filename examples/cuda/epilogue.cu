// The unfused epilogues of examples/matmul_epilogue.tile, hand-written: run
// after cuBLAS has written C = A B, they add the bias and apply the activation
// in place. Each thread owns 8 consecutive elements of a row (16-byte bf16 or
// two 16-byte f32 accesses); a row's tail past a multiple of 8 is done one
// element at a time. Math in f32, GELU by the tanh approximation (tanhf).
//
// Calling convention (docs/bench.md): the .tile kernel's tensors in order
// (a and b unused), then the named dims in order of first appearance (M, K, N).
// tessera-bench: bias_gelu_bf16 grid=[cdiv(N,2048),M] block=256
// tessera-bench: bias_relu_f32 grid=[cdiv(N,2048),M] block=256
// No headers: NVRTC has none for bf16 built in, and the device has no toolkit.

namespace {

struct alignas(16) U4 {
  unsigned v[4];
};
struct alignas(16) F4 {
  float v[4];
};

__device__ __forceinline__ float fromBf16(unsigned short h) { return __uint_as_float((unsigned)h << 16); }

__device__ __forceinline__ unsigned short toBf16(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (unsigned short)((u >> 16) | 0x40); // NaN stays NaN
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

} // namespace

extern "C" __global__ void bias_gelu_bf16(const void *, const void *, const float *bias,
                                          unsigned short *c, int M, int K, int N) {
  (void)K;
  long row = blockIdx.y;
  int col = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (row >= M || col >= N)
    return;
  unsigned short *p = c + row * (long)N + col;
  if (col + 8 <= N && (N % 8) == 0) {
    U4 w = *reinterpret_cast<U4 *>(p);
    for (int i = 0; i < 4; ++i) {
      float lo = gelu(fromBf16((unsigned short)(w.v[i] & 0xffff)) + bias[col + 2 * i]);
      float hi = gelu(fromBf16((unsigned short)(w.v[i] >> 16)) + bias[col + 2 * i + 1]);
      w.v[i] = (unsigned)toBf16(lo) | ((unsigned)toBf16(hi) << 16);
    }
    *reinterpret_cast<U4 *>(p) = w;
    return;
  }
  for (int i = 0; i < 8 && col + i < N; ++i)
    p[i] = toBf16(gelu(fromBf16(p[i]) + bias[col + i]));
}

extern "C" __global__ void bias_relu_f32(const void *, const void *, const float *bias, float *c,
                                         int M, int K, int N) {
  (void)K;
  long row = blockIdx.y;
  int col = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (row >= M || col >= N)
    return;
  float *p = c + row * (long)N + col;
  if (col + 8 <= N && (N % 8) == 0) {
    F4 *q = reinterpret_cast<F4 *>(p);
    const F4 *b = reinterpret_cast<const F4 *>(bias + col);
    for (int i = 0; i < 2; ++i) {
      F4 v = q[i];
      for (int j = 0; j < 4; ++j)
        v.v[j] = fmaxf(v.v[j] + b[i].v[j], 0.f);
      q[i] = v;
    }
    return;
  }
  for (int i = 0; i < 8 && col + i < N; ++i)
    p[i] = fmaxf(p[i] + bias[col + i], 0.f);
}
