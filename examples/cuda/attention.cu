// Flash-attention forward in bf16, hand-written CUDA: the baseline for
// examples/attention.tile and examples/causal_attention.tile. One block of 4 warps per
// 64 queries of one (batch, head); each warp owns 16 query rows. Q stays in registers
// as mma A fragments; K and V blocks of 64 keys are double-buffered in padded shared
// memory by cp.async; S = Q K^T and O += P V are mma.sync.m16n8k16 (f32 accumulation);
// the online softmax (exp2, running max and sum) works on the S accumulators in
// registers, which are repacked in place as the A fragments of P. Keys past N are
// masked, and with causal masking key blocks above the diagonal are skipped.
//
// Calling convention (docs/bench.md): tensors in .tile parameter order, the scalars,
// then the named dims in order of first appearance (B, H, N, D).
// tessera-bench: attention_bf16_d64 grid=[cdiv(N,64),B*H] block=128 smem=36864
// tessera-bench: attention_bf16_d128 grid=[cdiv(N,64),B*H] block=128 smem=69632
// tessera-bench: causal_attention_bf16_d64 grid=[cdiv(N,64),B*H] block=128 smem=36864
// tessera-bench: causal_attention_bf16_d128 grid=[cdiv(N,64),B*H] block=128 smem=69632
// No headers: NVRTC has none for bf16 built in, and the device has no toolkit.

#define INFINITY __int_as_float(0x7f800000)

namespace {

constexpr int BM = 64, BN = 64, THREADS = 128;

struct bf16 {
  unsigned short bits;
};

__device__ __forceinline__ unsigned smemAddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cpAsync16(void *dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void waitGroup() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ __forceinline__ void ldsm4(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void ldsm4t(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                                    unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned short toBf16(float v) {
  unsigned u = (unsigned)__float_as_int(v);
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ unsigned pack(float lo, float hi) {
  return (unsigned)toBf16(lo) | ((unsigned)toBf16(hi) << 16);
}
__device__ __forceinline__ float fastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

template <int D, bool CAUSAL>
__device__ void flashForward(const bf16 *__restrict__ q, const bf16 *__restrict__ k, const bf16 *__restrict__ v,
                             bf16 *__restrict__ o, float scale, int N) {
  constexpr int LD = D + 8; // padded rows
  extern __shared__ __align__(16) unsigned char smemRaw[];
  bf16(*ks)[BN][LD] = reinterpret_cast<bf16(*)[BN][LD]>(smemRaw);                       // [2][BN][LD]
  bf16(*vs)[BN][LD] = reinterpret_cast<bf16(*)[BN][LD]>(smemRaw + 2 * BN * LD * sizeof(bf16));
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
  const int mBlock = blockIdx.x, bh = blockIdx.y;
  const size_t base = (size_t)bh * N * D;
  const bf16 *Q = q + base, *K = k + base, *V = v + base;
  bf16 *O = o + base;
  const int q0 = mBlock * BM;

  // Loads rows [r0, r0 + 64) of a [N, D] matrix into `dst` (rows past N zero-filled).
  auto loadRows = [&](bf16(*dst)[LD], const bf16 *src, int r0) {
    constexpr int chunks = BN * D / 8;
#pragma unroll
    for (int c = tid; c < chunks; c += THREADS) {
      int r = c / (D / 8), col = (c % (D / 8)) * 8;
      bool ok = r0 + r < N;
      cpAsync16(&dst[r][col], ok ? src + (size_t)(r0 + r) * D + col : src, ok);
    }
  };

  // Q: through the first K buffer into registers (A fragments, one per 16 of D).
  loadRows(ks[0], Q, q0);
  commit();
  waitGroup<0>();
  __syncthreads();
  unsigned qf[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk)
    ldsm4(qf[kk], &ks[0][warp * 16 + lane % 16][kk * 16 + (lane / 16) * 8]);
  __syncthreads();

  float acc[D / 8][4] = {};
  float mRow[2] = {-INFINITY, -INFINITY}, lRow[2] = {0.f, 0.f};
  const float qkScale = scale * 1.4426950408889634f;
  int nBlocks = (N + BN - 1) / BN;
  if (CAUSAL)
    nBlocks = min(nBlocks, (q0 + BM + BN - 1) / BN);

  loadRows(ks[0], K, 0);
  loadRows(vs[0], V, 0);
  commit();
  for (int j = 0; j < nBlocks; ++j) {
    const int st = j & 1;
    if (j + 1 < nBlocks) {
      loadRows(ks[st ^ 1], K, (j + 1) * BN);
      loadRows(vs[st ^ 1], V, (j + 1) * BN);
    }
    commit();
    waitGroup<1>();
    __syncthreads();

    // S = Q K^T for this warp's 16 rows and the block's 64 keys.
    float s[BN / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
      for (int nt = 0; nt < BN / 8; nt += 2) {
        unsigned b[4];
        ldsm4(b, &ks[st][nt * 8 + lane % 8 + (lane / 16) * 8][kk * 16 + ((lane / 8) % 2) * 8]);
        mma(s[nt], qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], b[0], b[1]);
        mma(s[nt + 1], qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], b[2], b[3]);
      }
    // Mask, scale, online softmax. Element (nt, e): row g + 8 * (e / 2), key nt * 8 + 2t + e % 2.
    float mNew[2] = {mRow[0], mRow[1]};
#pragma unroll
    for (int nt = 0; nt < BN / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        int key = j * BN + nt * 8 + 2 * t + (e % 2), row = q0 + warp * 16 + g + 8 * (e / 2);
        bool visible = key < N && (!CAUSAL || key <= row);
        s[nt][e] = visible ? s[nt][e] * qkScale : -INFINITY;
        mNew[e / 2] = fmaxf(mNew[e / 2], s[nt][e]);
      }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mNew[h] = fmaxf(mNew[h], __shfl_xor_sync(0xffffffffu, mNew[h], 1));
      mNew[h] = fmaxf(mNew[h], __shfl_xor_sync(0xffffffffu, mNew[h], 2));
    }
    float alpha[2], sub[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sub[h] = mNew[h] == -INFINITY ? 0.f : mNew[h];
      alpha[h] = mRow[h] == -INFINITY ? 0.f : fastExp2(mRow[h] - sub[h]);
      mRow[h] = mNew[h];
      lRow[h] *= alpha[h];
    }
#pragma unroll
    for (int nt = 0; nt < BN / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[nt][e] = fastExp2(s[nt][e] - sub[e / 2]);
        lRow[e / 2] += s[nt][e];
      }
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      acc[dt][0] *= alpha[0];
      acc[dt][1] *= alpha[0];
      acc[dt][2] *= alpha[1];
      acc[dt][3] *= alpha[1];
    }
    // O += P V: P's A fragments are the S accumulators of two adjacent key tiles.
#pragma unroll
    for (int kt = 0; kt < BN / 16; ++kt) {
      unsigned a0 = pack(s[2 * kt][0], s[2 * kt][1]), a1 = pack(s[2 * kt][2], s[2 * kt][3]);
      unsigned a2 = pack(s[2 * kt + 1][0], s[2 * kt + 1][1]), a3 = pack(s[2 * kt + 1][2], s[2 * kt + 1][3]);
#pragma unroll
      for (int dt = 0; dt < D / 8; dt += 2) {
        unsigned b[4];
        ldsm4t(b, &vs[st][kt * 16 + lane % 8 + ((lane / 8) % 2) * 8][dt * 8 + (lane / 16) * 8]);
        mma(acc[dt], a0, a1, a2, a3, b[0], b[1]);
        mma(acc[dt + 1], a0, a1, a2, a3, b[2], b[3]);
      }
    }
    __syncthreads(); // the next iteration's loads overwrite this stage
  }
  waitGroup<0>();
  // Normalize by the row sums (reduced over the quad) and store.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    lRow[h] += __shfl_xor_sync(0xffffffffu, lRow[h], 1);
    lRow[h] += __shfl_xor_sync(0xffffffffu, lRow[h], 2);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    int row = q0 + warp * 16 + g + 8 * h;
    if (row >= N)
      continue;
    float inv = 1.f / lRow[h];
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt)
      *reinterpret_cast<unsigned *>(&O[(size_t)row * D + dt * 8 + 2 * t]) =
          pack(acc[dt][2 * h] * inv, acc[dt][2 * h + 1] * inv);
  }
}

} // namespace

#define TESSERA_ATTENTION(name, d, causal)                                                                  \
  extern "C" __global__ void __launch_bounds__(THREADS)                                                     \
      name(const bf16 *q, const bf16 *k, const bf16 *v, bf16 *o, float scale, int B, int H, int N, int D) { \
    (void)B, (void)H, (void)D;                                                                              \
    flashForward<d, causal>(q, k, v, o, scale, N);                                                          \
  }
TESSERA_ATTENTION(attention_bf16_d64, 64, false)
TESSERA_ATTENTION(attention_bf16_d128, 128, false)
TESSERA_ATTENTION(causal_attention_bf16_d64, 64, true)
TESSERA_ATTENTION(causal_attention_bf16_d128, 128, true)
