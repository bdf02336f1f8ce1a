#pragma once
// One Poisson draw per element, shared by the CPU loop (cpu/random.cpp) and the CUDA kernel
// (kernels/poisson.cu), so a generator state gives the same counts on every device.
//
// Note [Poisson streams]: a call reserves one Philox counter per element (Note [Generators]),
// as the fills do, but a rejection sampler needs an unbounded number of uniforms. Element i
// owns every 128-bit counter (offset + i, j) for j = 0, 1, 2, ...: j = 0 is the counter the
// reservation handed out, and j > 0 is a counter no fill ever uses (fills keep the high half
// 0), so no two elements, and no two calls, share a uniform. Each Philox call gives two
// float64 uniforms.
//
// Note [Poisson samplers]: rates below 10 use Knuth's product of uniforms (on average rate + 1
// uniforms); larger rates use Hörmann's transformed rejection with squeeze, PTRS ("The
// transformed rejection method for generating Poisson random variables", Insurance:
// Mathematics and Economics 12, 1993), which accepts ~90% of its pairs. Both loops stop after
// kMaxRounds tries, which no finite rate reaches in practice (each try fails with probability
// well below 1/2); the fallback returns floor(rate), the mode, so a kernel never spins. The
// caller rejects negative, NaN and infinite rates. The arithmetic is float64 with libm's exp,
// log and lgamma; every product that nvcc could fuse with an add into an FMA is an explicitly
// rounded one (mul_rn_d), as the CPU rounds it. So CPU and CUDA agree except where exp, log or
// lgamma differ in the last bit right at an acceptance boundary.
#include <cmath>
#include <cstdint>

#include "vocab/host_device.h"
#include "vocab/philox.h"

namespace genesis::philox {

constexpr int kPoissonMaxRounds = 1 << 16;
constexpr double kPoissonKnuthBelow = 10.0;

// a * b rounded once, never fused into an FMA by nvcc (philox.h's mul_rn, in double).
GENESIS_HD double mul_rn_d(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// The uniforms of one element: counter (counter, 0), (counter, 1), ... two at a time.
struct UniformStream {
  uint64_t key, counter, block = 0;
  Words words{};
  int left = 0;  // uniforms still unread in `words`

  GENESIS_HD UniformStream(uint64_t key_, uint64_t counter_) : key(key_), counter(counter_) {}

  // [0, 1) with 53 random bits.
  GENESIS_HD double next() {
    if (left == 0) {
      words = philox4x32_10(counter, key, block++);
      left = 2;
    }
    --left;
    return left == 1 ? uniform_double(words.w[0], words.w[1])
                     : uniform_double(words.w[2], words.w[3]);
  }
};

// Knuth: the number of uniforms whose running product stays above exp(-rate), less one.
GENESIS_HD double poisson_knuth(double rate, UniformStream& s) {
  double limit = ::exp(-rate), product = 1.0;
  for (int k = 0; k < kPoissonMaxRounds; ++k) {
    product *= s.next();
    if (product <= limit) return k;
  }
  return ::floor(rate);
}

// PTRS (Hörmann 1993), for rate >= 10.
GENESIS_HD double poisson_ptrs(double rate, UniformStream& s) {
  double root = ::sqrt(rate), log_rate = ::log(rate);
  double b = 0.931 + mul_rn_d(2.53, root);
  double a = -0.059 + mul_rn_d(0.02483, b);
  double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  double v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (int round = 0; round < kPoissonMaxRounds; ++round) {
    double u = s.next() - 0.5;
    double v = s.next();
    double us = 0.5 - ::fabs(u);
    double k = ::floor(mul_rn_d(2.0 * a / us + b, u) + rate + 0.43);
    if (us >= 0.07 && v <= v_r) return k;  // the squeeze: inside the hat for sure
    if (k < 0 || (us < 0.013 && v > us)) continue;
    // Accept when v, scaled by the hat at u, lies under the Poisson density at k (in logs).
    if (::log(v) + ::log(inv_alpha) - ::log(a / (us * us) + b) <=
        -rate + mul_rn_d(k, log_rate) - ::lgamma(k + 1.0))
      return k;
  }
  return ::floor(rate);
}

// A Poisson(rate) count for the element owning `counter`; rate finite and >= 0.
GENESIS_HD double poisson(double rate, uint64_t key, uint64_t counter) {
  if (rate == 0.0) return 0.0;
  UniformStream s(key, counter);
  return rate < kPoissonKnuthBelow ? poisson_knuth(rate, s) : poisson_ptrs(rate, s);
}

}  // namespace genesis::philox
