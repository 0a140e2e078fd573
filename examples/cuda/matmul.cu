// bf16 matmul C = A B (f32 accumulation), hand-written CUDA: the baseline for
// examples/matmul.tile. A 128x128 block tile, BK = 32, 8 warps as 2 x 4 (each warp a
// 64x32 tile: 4 x 4 tensor-core mma.sync.m16n8k16 per k-step), operands staged in
// padded shared memory by a 3-stage cp.async pipeline and read with ldmatrix.
// Rows past M and k past K are zero-filled (cp.async with source size 0), so any M
// works; K and N must be multiples of 8 (16-byte rows). Stores are masked to M x N.
//
// Calling convention (docs/bench.md): tensors in .tile parameter order, then the named
// dims in order of first appearance (M, K, N).
// tessera-bench: matmul_bf16 grid=[cdiv(N,128),cdiv(M,128)] block=256 smem=56832
// No headers: NVRTC has none for bf16 built in, and the device has no toolkit.

namespace {

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, THREADS = 256;
constexpr int LDA = BK + 8;  // padded rows (elements): 80 bytes, conflict-free ldmatrix
constexpr int LDB = BN + 8;  // 272 bytes

struct bf16 {
  unsigned short bits;
};

__device__ __forceinline__ unsigned smemAddr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cpAsync16(void *dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cpAsyncWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrixX4(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void ldmatrixX4Trans(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned short toBf16(float v) {
  unsigned u = (unsigned)__float_as_int(v);
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

struct Smem {
  bf16 a[STAGES][BM][LDA];
  bf16 b[STAGES][BK][LDB];
};

} // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
    matmul_bf16(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, int M, int K, int N) {
  extern __shared__ __align__(16) unsigned char smemRaw[]; // sizeof(Smem) = 56832 bytes, dynamic
  Smem &sm = *reinterpret_cast<Smem *>(smemRaw);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4; // 2 x 4 warps: each 64 rows x 32 columns
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kTiles = (K + BK - 1) / BK;

  auto loadStage = [&](int stage, int kt) {
    int k0 = kt * BK;
    // A: 128 rows x 32 k = 512 chunks of 8 elements; 2 per thread.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      int c = tid + i * THREADS, r = c / 4, kc = (c % 4) * 8;
      bool ok = m0 + r < M && k0 + kc < K;
      const bf16 *src = ok ? A + (size_t)(m0 + r) * K + k0 + kc : A;
      cpAsync16(&sm.a[stage][r][kc], src, ok);
    }
    // B: 32 k x 128 columns = 512 chunks; 2 per thread.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      int c = tid + i * THREADS, r = c / 16, nc = (c % 16) * 8;
      bool ok = k0 + r < K && n0 + nc < N;
      const bf16 *src = ok ? B + (size_t)(k0 + r) * N + n0 + nc : B;
      cpAsync16(&sm.b[stage][r][nc], src, ok);
    }
  };

  float acc[4][4][4] = {}; // [m16 tile][n8 tile][fragment]
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < kTiles)
      loadStage(s, s);
    cpAsyncCommit();
  }
  for (int kt = 0; kt < kTiles; ++kt) {
    cpAsyncWait<STAGES - 2>();
    __syncthreads();
    if (kt + STAGES - 1 < kTiles)
      loadStage((kt + STAGES - 1) % STAGES, kt + STAGES - 1);
    cpAsyncCommit();
    const int st = kt % STAGES;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      unsigned af[4][4], bfr[2][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
        ldmatrixX4(af[mi], &sm.a[st][wm * 64 + mi * 16 + lane % 16][kk + (lane / 16) * 8]);
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) // two n8 tiles per ldmatrix.x4.trans
        ldmatrixX4Trans(bfr[nj], &sm.b[st][kk + lane % 8 + ((lane / 8) % 2) * 8][wn * 32 + nj * 16 + (lane / 16) * 8]);
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
          mma(acc[mi][ni], af[mi], bfr[ni / 2][(ni % 2) * 2], bfr[ni / 2][(ni % 2) * 2 + 1]);
    }
  }
  cpAsyncWait<0>();
  // Epilogue: fragment (row g or g + 8, columns 2t and 2t + 1) to bf16, masked.
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int row = m0 + wm * 64 + mi * 16 + g + h * 8, col = n0 + wn * 32 + ni * 8 + 2 * t;
        if (row >= M)
          continue;
        unsigned short lo = toBf16(acc[mi][ni][2 * h]), hi = toBf16(acc[mi][ni][2 * h + 1]);
        if (col + 1 < N) {
          *reinterpret_cast<unsigned *>(&C[(size_t)row * N + col]) = (unsigned)lo | ((unsigned)hi << 16);
        } else if (col < N) {
          C[(size_t)row * N + col].bits = lo;
        }
      }
}
