// kernels/mxfp4_device.h's FNUZ helpers, which feed gfx942's fp8 MFMA in the packed MLA decode
// (kernels/mla_packed_qk.h): the OCP -> FNUZ byte rewrite on every code, and Q K^T for a 16 x 16
// tile assembled lane by lane as the kernel assembles it, with the MFMA's sum written out from
// its definition, against float64 on fresh random inputs (the seed is printed on failure). No
// AMD GPU runs here: this checks the bytes, scales and lane arithmetic, not the hardware.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "attention/dtype.h"
#include "kernels/mxfp4_device.h"

namespace {

// e4m3 FNUZ from its definition: exponent bias 8, 0x80 the only NaN, no -0, no infinities.
double fnuz_value(std::uint32_t b) {
  if (b == 0x80u) return std::numeric_limits<double>::quiet_NaN();
  const int e = static_cast<int>((b >> 3) & 15u), m = static_cast<int>(b & 7u);
  const double v = e == 0 ? std::ldexp(m, -10) : std::ldexp(1.0 + m / 8.0, e - 8);
  return (b & 0x80u) != 0u ? -v : v;
}

std::uint32_t byte_of(std::uint32_t w, int i) { return (w >> (8 * i)) & 0xffu; }

constexpr int kDk = 576, kBlocks = kDk / 32;
// The kernel's blocks a wave (mla_packed_qk.h: 5, 5, 4, 4 of the 18).
int first_block(int w) { return 4 * w + (w < 2 ? w : 2); }
int block_count(int w) { return w < 2 ? 5 : 4; }

// S[r][t] = Q[r] . K[t] over 576 dims for 16 q rows and 16 tokens, as the gfx942 path builds it:
// per wave and block, lane l's A operand is token l % 16's 8 stored bytes at dims 32 blk +
// 8 (l / 16) .., rewritten to FNUZ; its B operands are fnuz_q_part of q row l % 16's block, part
// l / 16; the MFMA's 16 x 16 x 32 sum; C element e of lane l (token 4 (l / 16) + e, q row
// l % 16) scaled by that lane's multipliers.
void gfx942_scores(const float (&q)[16][kDk], const std::uint8_t (&k)[16][kDk],
                   double (&s)[16][16]) {
  for (auto& row : s)
    for (double& v : row) v = 0.0;
  for (int w = 0; w < 4; ++w) {
    for (int i = 0; i < block_count(w); ++i) {
      const int blk = first_block(w) + i;
      std::uint32_t a[64][2];
      kern::mx::FnuzQ b[64];
      for (int l = 0; l < 64; ++l) {
        const std::uint8_t* kr = &k[l % 16][blk * 32 + 8 * (l / 16)];
        for (int h = 0; h < 2; ++h) {
          const std::uint32_t word = kr[4 * h] | kr[4 * h + 1] << 8 | kr[4 * h + 2] << 16 |
                                     static_cast<std::uint32_t>(kr[4 * h + 3]) << 24;
          a[l][h] = kern::mx::ocp_to_fnuz_x4(word);
        }
        b[l] = kern::mx::fnuz_q_part(&q[l % 16][blk * 32], l / 16);
      }
      for (int l = 0; l < 64; ++l) {
        const int r = l % 16;  // this lane's C column: a q row
        for (int e = 0; e < 4; ++e) {
          const int t = 4 * (l / 16) + e;  // the token of C element e
          double hi = 0.0, lo = 0.0;       // C[t][r] = sum over k of A[t][k] B[k][r]
          for (int g = 0; g < 4; ++g)
            for (int j = 0; j < 8; ++j) {
              const double av = fnuz_value(byte_of(a[t + 16 * g][j / 4], j % 4));
              hi += av * fnuz_value(byte_of(b[r + 16 * g].hi[j / 4], j % 4));
              lo += av * fnuz_value(byte_of(b[r + 16 * g].lo[j / 4], j % 4));
            }
          s[r][t] += hi * b[l].mul_hi + lo * b[l].mul_lo;
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("FNUZ: every OCP e4m3 byte becomes the FNUZ byte of half its value, in each position",
          "[fnuz]") {
  for (std::uint32_t code = 0; code < 256; ++code) {
    for (int pos = 0; pos < 4; ++pos) {
      // The other three bytes are the awkward codes, which must come out as their own rewrite.
      const std::uint32_t others[4] = {0x80u, 0x7fu, 0xffu, 0x01u};
      std::uint32_t w = 0;
      for (int i = 0; i < 4; ++i) w |= (i == pos ? code : others[i]) << (8 * i);
      const std::uint32_t out = kern::mx::ocp_to_fnuz_x4(w);
      CAPTURE(code, pos, w, out);
      for (int i = 0; i < 4; ++i) {
        const std::uint32_t in = byte_of(w, i), got = byte_of(out, i);
        const double ocp = attn::e4m3_bits_to_float(static_cast<std::uint8_t>(in));
        if (std::isnan(ocp)) {
          CHECK(got == 0x80u);
        } else {
          CHECK(fnuz_value(got) * 2.0 == ocp);
          CHECK(got != 0x80u);  // OCP's -0 is +0 in FNUZ, never its NaN
          if (in != 0x80u) CHECK(got == in);
        }
      }
    }
  }
}

TEST_CASE("FNUZ: Q K^T from the gfx942 operands is within 2^-7 of float64, and NaN stays NaN",
          "[fnuz]") {
  const unsigned seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> randn(0.0f, 1.0f);
  static float q[16][kDk];
  static std::uint8_t k[16][kDk];
  double s[16][16];
  for (int trial = 0; trial < 6; ++trial) {
    CAPTURE(trial);
    // Q is bf16, at a scale that moves over trials; a few blocks are zero or tiny.
    const float amp = std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20);
    for (auto& row : q)
      for (float& v : row) v = attn::round_to_bf16(randn(rng) * amp);
    for (int d = 0; d < 32; ++d) q[3][5 * 32 + d] = 0.0f;
    for (int d = 0; d < 32; ++d) q[7][2 * 32 + d] *= 1e-6f;
    // The cache: any OCP byte but NaN, -0 included.
    for (auto& row : k)
      for (std::uint8_t& b : row) {
        do b = static_cast<std::uint8_t>(rng());
        while ((b & 0x7fu) == 0x7fu);
      }
    k[2][100] = 0x80u;
    gfx942_scores(q, k, s);
    for (int r = 0; r < 16; ++r)
      for (int t = 0; t < 16; ++t) {
        // Each Q block is kept within 2^-8 of its largest value (split_e4m3_block), so the error
        // is bounded by 2^-8 sum over blocks of amax x sum |K|; the bound checked is twice that.
        double want = 0.0, bound = 0.0;
        for (int blk = 0; blk < kBlocks; ++blk) {
          double amax = 0.0, ksum = 0.0;
          for (int d = blk * 32; d < blk * 32 + 32; ++d) {
            const double kv = attn::e4m3_bits_to_float(k[t][d]);
            want += static_cast<double>(q[r][d]) * kv;
            amax = std::max(amax, std::fabs(static_cast<double>(q[r][d])));
            ksum += std::fabs(kv);
          }
          bound += std::ldexp(amax * ksum, -7);
        }
        CAPTURE(r, t, want, s[r][t], bound);
        REQUIRE(std::isfinite(s[r][t]));
        REQUIRE(std::fabs(s[r][t] - want) <= bound);
      }
  }
  // A NaN in the cache (OCP 0x7f) makes that token's scores NaN for every q row, and only its;
  // a NaN in Q makes that row's scores NaN.
  k[9][300] = 0x7fu;
  q[4][17] = std::numeric_limits<float>::quiet_NaN();
  gfx942_scores(q, k, s);
  for (int r = 0; r < 16; ++r)
    for (int t = 0; t < 16; ++t) {
      CAPTURE(r, t);
      CHECK(std::isnan(s[r][t]) == (t == 9 || r == 4));
    }
}
