#pragma once
// Note [Op functors]
// The arithmetic of every elementwise op, written once on its compute type (float for the
// 16-bit floats, the type itself otherwise) and compiled into both the CPU loops and the CUDA
// kernels, so the devices agree. Integer ops wrap (computed in unsigned arithmetic where C++
// would call overflow undefined), and never trap: x // 0 and x % 0 give 0 (NumPy's answer;
// PyTorch's CPU raises), INT_MIN // -1 wraps.
#include <math.h>

#include <cstdint>
#include <type_traits>

#include "vocab/host_device.h"

namespace genesis::ops::math {

template <typename T>
constexpr bool is_float_v = std::is_floating_point_v<T>;

template <typename T>
GENESIS_HD bool is_nan(T v) {
  if constexpr (is_float_v<T>)
    return v != v;
  else
    return false;
}

// Wrapping +, -, * for integers (through the unsigned type); plain for floats and bool.
template <typename T>
GENESIS_HD T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
GENESIS_HD T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
GENESIS_HD T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    // uint16 * uint16 would promote to (signed) int and overflow: multiply as 32/64-bit.
    using W = std::conditional_t<(sizeof(T) < 4), uint32_t, U>;
    return static_cast<T>(
        static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}

// Overloads so the functors read the same for float and double.
#define GENESIS_MATH1_(name, f32, f64)                \
  GENESIS_HD float name(float x) { return ::f32(x); } \
  GENESIS_HD double name(double x) { return ::f64(x); }
GENESIS_MATH1_(m_exp, expf, exp)
GENESIS_MATH1_(m_log, logf, log)
GENESIS_MATH1_(m_sqrt, sqrtf, sqrt)
GENESIS_MATH1_(m_sin, sinf, sin)
GENESIS_MATH1_(m_cos, cosf, cos)
GENESIS_MATH1_(m_tanh, tanhf, tanh)
GENESIS_MATH1_(m_floor, floorf, floor)
GENESIS_MATH1_(m_trunc, truncf, trunc)
GENESIS_MATH1_(m_fabs, fabsf, fabs)
GENESIS_MATH1_(m_ceil, ceilf, ceil)
GENESIS_MATH1_(m_rint, rintf, rint)
GENESIS_MATH1_(m_log1p, log1pf, log1p)
GENESIS_MATH1_(m_expm1, expm1f, expm1)
GENESIS_MATH1_(m_log2, log2f, log2)
GENESIS_MATH1_(m_log10, log10f, log10)
GENESIS_MATH1_(m_exp2, exp2f, exp2)
GENESIS_MATH1_(m_erf, erff, erf)
GENESIS_MATH1_(m_erfc, erfcf, erfc)
GENESIS_MATH1_(m_lgamma, lgammaf, lgamma)
GENESIS_MATH1_(m_sinh, sinhf, sinh)
GENESIS_MATH1_(m_cosh, coshf, cosh)
GENESIS_MATH1_(m_asin, asinf, asin)
GENESIS_MATH1_(m_acos, acosf, acos)
GENESIS_MATH1_(m_atan, atanf, atan)
GENESIS_MATH1_(m_asinh, asinhf, asinh)
GENESIS_MATH1_(m_acosh, acoshf, acosh)
GENESIS_MATH1_(m_atanh, atanhf, atanh)
GENESIS_MATH1_(m_tan, tanf, tan)
#undef GENESIS_MATH1_
GENESIS_HD float m_fmod(float a, float b) { return ::fmodf(a, b); }
GENESIS_HD double m_fmod(double a, double b) { return ::fmod(a, b); }
GENESIS_HD float m_pow(float a, float b) { return ::powf(a, b); }
GENESIS_HD double m_pow(double a, double b) { return ::pow(a, b); }
GENESIS_HD float m_copysign(float a, float b) { return ::copysignf(a, b); }
GENESIS_HD double m_copysign(double a, double b) { return ::copysign(a, b); }
GENESIS_HD float m_atan2(float a, float b) { return ::atan2f(a, b); }
GENESIS_HD double m_atan2(double a, double b) { return ::atan2(a, b); }
GENESIS_HD float m_hypot(float a, float b) { return ::hypotf(a, b); }
GENESIS_HD double m_hypot(double a, double b) { return ::hypot(a, b); }

// ---- binary ------------------------------------------------------------------------------

struct Add {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return wrap_add(a, b);
  }
};
struct Sub {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return wrap_sub(a, b);
  }
};
struct Mul {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return wrap_mul(a, b);
  }
};
struct Div {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return a / b;
  }
};

template <typename T>
GENESIS_HD T int_trunc_div(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return wrap_sub(T(0), a);  // INT_MIN / -1 would trap
  return static_cast<T>(a / b);
}

struct TruncDiv {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>)
      return m_trunc(a / b);
    else
      return int_trunc_div(a, b);
  }
};

struct FloorDiv {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      if (b == T(0)) return a / b;
      // Divide the exact multiple a - fmod(a, b), then step down when the signs disagree; this
      // stays exact where floor(a / b) would round the quotient up first.
      T mod = m_fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return m_copysign(T(0), a / b);
      T floored = m_floor(div);
      if (div - floored > T(0.5)) floored += T(1);
      return floored;
    } else {
      T q = int_trunc_div(a, b);
      if constexpr (std::is_signed_v<T>)
        if (b != 0 && b != T(-1) && static_cast<T>(a % b) != 0 && ((a < 0) != (b < 0)))
          q = static_cast<T>(q - 1);
      return q;
    }
  }
};

struct Rem {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      T r = m_fmod(a, b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
      return r;
    } else {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
        T r = static_cast<T>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        return r;
      } else {
        return static_cast<T>(a % b);
      }
    }
  }
};

struct Pow {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      return m_pow(a, b);
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {  // only 1 and -1 survive a negative power in integers
          if (a == 1) return T(1);
          if (a == T(-1)) return (b & 1) ? T(-1) : T(1);
          return T(0);
        }
      }
      T result = 1, base = a;
      for (auto e = b; e != 0; e = static_cast<T>(e >> 1)) {
        if (e & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
      }
      return result;
    }
  }
};

// maximum/minimum propagate NaN, as PyTorch's.
struct Maximum {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return a > b ? a : b;
  }
};
struct Minimum {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return a < b ? a : b;
  }
};

struct Fmod {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      return m_fmod(a, b);
    } else {
      if (b == 0) return T(0);  // Note [Op functors]: integer ops never trap
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return T(0);
      return static_cast<T>(a % b);
    }
  }
};
// PyTorch's: `values` where x == 0, else x > 0 (so NaN gives 0).
struct Heaviside {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    if (a == T(0)) return b;
    return static_cast<T>(a > T(0));
  }
};
// relu's backward, PyTorch's threshold_backward at 0: 0 where the result `b` is <= 0, else the
// gradient `a` (so a NaN result passes the gradient, as in PyTorch).
struct ReluBackward {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return b <= T(0) ? T(0) : a;
  }
};
// Note [Fused activation backward]
// The gradients of silu and of both gelus, a * f'(b) for the gradient a and the input b, in one
// pass computed in the compute type (float for 16-bit floats), as PyTorch's SiluBackward and
// GeluBackward kernels: written as a chain of recorded ops they cost a GPT-2 step a dozen passes
// over each MLP activation, rounded to bfloat16 at every step. A backward that builds a graph
// (create_graph) still takes the chain, which autograd can differentiate again.
struct SiluBackward {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    T s = T(1) / (T(1) + m_exp(-b));
    return a * s * (T(1) + b * (T(1) - s));
  }
};
// d/dx x/2 (1 + erf(x / sqrt 2)) = cdf(x) + x pdf(x).
struct GeluBackward {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    T cdf = T(0.5) * (T(1) + m_erf(b * T(0.70710678118654752440)));
    T pdf = m_exp(T(-0.5) * b * b) * T(0.39894228040143267794);
    return a * (cdf + b * pdf);
  }
};
// d/dx x/2 (1 + tanh(k (x + c x^3))) = (1 + t)/2 + x/2 (1 - t^2) k (1 + 3 c x^2).
struct GeluTanhBackward {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    const T k = T(0.79788456080286535588), c = T(0.044715);
    T b2 = b * b;
    T t = m_tanh(k * (b + c * b2 * b));
    T slope = T(0.5) * (T(1) + t) + T(0.5) * b * (T(1) - t * t) * k * (T(1) + T(3) * c * b2);
    return a * slope;
  }
};
struct Atan2 {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return m_atan2(a, b);
  }
};
struct Copysign {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return m_copysign(a, b);
  }
};
struct Hypot {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return m_hypot(a, b);
  }
};

#define GENESIS_COMPARE_(Name, expr)             \
  struct Name {                                  \
    template <typename T>                        \
    GENESIS_HD bool operator()(T a, T b) const { \
      return expr;                               \
    }                                            \
  };
GENESIS_COMPARE_(Eq, a == b)
GENESIS_COMPARE_(Ne, a != b)
GENESIS_COMPARE_(Lt, a < b)
GENESIS_COMPARE_(Le, a <= b)
GENESIS_COMPARE_(Gt, a > b)
GENESIS_COMPARE_(Ge, a >= b)
GENESIS_COMPARE_(LogicalAnd, a != T(0) && b != T(0))
GENESIS_COMPARE_(LogicalOr, a != T(0) || b != T(0))
GENESIS_COMPARE_(LogicalXor, (a != T(0)) != (b != T(0)))
#undef GENESIS_COMPARE_

struct BitAnd {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct BitOr {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct BitXor {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};

// Shifts as PyTorch's: an amount outside [0, bits) shifts everything out (0, or the sign bits
// for a right shift of a signed value) instead of C++'s undefined behaviour.
struct ShiftLeft {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    constexpr int bits = static_cast<int>(sizeof(T) * 8);
    if (static_cast<U>(b) >= static_cast<U>(bits)) return T(0);  // negative b too
    // Through a 32/64-bit unsigned type: no promotion to signed int, no signed overflow.
    using W = std::conditional_t<(sizeof(T) < 4), uint32_t, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) << b));
  }
};
struct ShiftRight {
  template <typename T>
  GENESIS_HD T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    constexpr int bits = static_cast<int>(sizeof(T) * 8);
    if (static_cast<U>(b) >= static_cast<U>(bits)) {
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      return T(0);
    }
    return static_cast<T>(a >> b);
  }
};

// ---- unary -------------------------------------------------------------------------------

struct Neg {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    return wrap_sub(T(0), a);
  }
};
struct Abs {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (is_float_v<T>)
      return m_fabs(a);
    else if constexpr (std::is_signed_v<T>)
      return a < 0 ? wrap_sub(T(0), a) : a;
    else
      return a;
  }
};
// PyTorch's: 0 below zero, else the input itself (so NaN stays NaN and -0.0 stays -0.0).
struct Relu {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    return a < T(0) ? T(0) : a;
  }
};
struct BitNot {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>)
      return !a;
    else
      return static_cast<T>(~a);
  }
};
struct Floor {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (is_float_v<T>)
      return m_floor(a);
    else
      return a;
  }
};
struct Ceil {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (is_float_v<T>)
      return m_ceil(a);
    else
      return a;
  }
};
struct Round {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (is_float_v<T>)
      return m_rint(a);  // the default rounding mode: half to even
    else
      return a;
  }
};
struct Trunc {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (is_float_v<T>)
      return m_trunc(a);
    else
      return a;
  }
};
// PyTorch's (0 < a) - (a < 0): NaN and -0.0 give 0.
struct Sign {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>)
      return a;
    else if constexpr (std::is_unsigned_v<T>)
      return static_cast<T>(a > T(0));
    else
      return static_cast<T>(static_cast<int>(T(0) < a) - static_cast<int>(a < T(0)));
  }
};
struct Square {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    return wrap_mul(a, a);
  }
};

// Note [Erfinv]
// No C library has erfinv, so genesis has its own: Giles's single-precision approximation
// ("Approximating the erfinv function", GPU Gems 2012) as the start, then Newton steps on
// erf(x) - y, whose derivative 2/sqrt(pi) exp(-x^2) is cheap; each step doubles the correct
// digits, so two reach float64. |y| == 1 gives +-inf, |y| > 1 and NaN give NaN.
template <typename T>
GENESIS_HD T erfinv_impl(T y) {
  if (!(y >= T(-1) && y <= T(1))) return T(NAN);
  if (y == T(1) || y == T(-1)) return m_copysign(T(INFINITY), y);
  float yf = static_cast<float>(y);
  float w = -::logf((1.0f - yf) * (1.0f + yf)), p;
  if (w < 5.0f) {
    w = w - 2.5f;
    p = 2.81022636e-08f;
    p = 3.43273939e-07f + p * w;
    p = -3.5233877e-06f + p * w;
    p = -4.39150654e-06f + p * w;
    p = 0.00021858087f + p * w;
    p = -0.00125372503f + p * w;
    p = -0.00417768164f + p * w;
    p = 0.246640727f + p * w;
    p = 1.50140941f + p * w;
  } else {
    w = ::sqrtf(w) - 3.0f;
    p = -0.000200214257f;
    p = 0.000100950558f + p * w;
    p = 0.00134934322f + p * w;
    p = -0.00367342844f + p * w;
    p = 0.00573950773f + p * w;
    p = -0.0076224613f + p * w;
    p = 0.00943887047f + p * w;
    p = 1.00167406f + p * w;
    p = 2.83297682f + p * w;
  }
  T x = static_cast<T>(p * yf);
  const T two_over_sqrt_pi = T(1.1283791670955126);
  for (int k = 0; k < 2; ++k) {
    T d = two_over_sqrt_pi * m_exp(-x * x);
    if (d == T(0)) break;  // far in the tail: the start is as good as it gets
    x -= (m_erf(x) - y) / d;
  }
  return x;
}

// Note [Digamma]
// psi(x): psi(0) is -inf for +0 and +inf for -0 and NaN at negative integers (PyTorch's
// choices); negative x by the reflection psi(1 - x) - pi / tan(pi x); then the recurrence
// psi(x) = psi(x + 1) - 1 / x up to x >= 10 and the asymptotic series there. tan has period
// pi, so pi x is reduced first to pi r with r = x - round(x) in [-1/2, 1/2], exact in floating
// point: near a pole, pi * x itself would round away most of the distance to it (float32
// digamma(-66.00002) was 9% off).
template <typename T>
GENESIS_HD T digamma_impl(T x) {
  const T pi = T(3.14159265358979323846);
  if (x == T(0)) return m_copysign(T(INFINITY), -x);
  T result = T(0);
  if (x < T(0)) {
    if (x == m_floor(x)) return T(NAN);
    T r = x - m_floor(x + T(0.5));  // exact: x and its nearest integer are close
    result = -pi / m_tan(pi * r);
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x != x || x == T(INFINITY)) return x;
  T z = T(1) / (x * x);
  // Bernoulli terms B2k / (2k): 1/12, 1/120, 1/252, 1/240, 1/132, 691/32760, 1/12.
  T series = z * (T(1.0 / 12) -
                  z * (T(1.0 / 120) -
                       z * (T(1.0 / 252) -
                            z * (T(1.0 / 240) -
                                 z * (T(1.0 / 132) - z * (T(691.0 / 32760) - z * T(1.0 / 12)))))));
  return result + m_log(x) - T(0.5) / x - series;
}

// Note [Polygamma]
// polygamma(n, x), the n-th derivative of digamma, is a binary op on (x, n) so that n travels
// as a scalar operand: n = 0 is digamma, n = 1 trigamma (digamma's derivative, which its
// backward needs), and n >= 2 (-1)^(n+1) n! zeta(n + 1, x) with the Hurwitz zeta below. The
// poles (x = 0, -1, -2, ...) give +inf for odd n (the limit from both sides), and for even n
// the -inf that (-1)^(n+1) n! times zeta's +inf gives.
//
// trigamma: the reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) below 1/2, the
// recurrence psi1(x) = psi1(x + 1) + 1 / x^2 up to x >= 10, then the asymptotic series
// 1/x + 1/(2x^2) + sum B2k / x^(2k+1) (B2..B14: 1/6, -1/30, 1/42, -1/30, 5/66, -691/2730, 7/6).
template <typename T>
GENESIS_HD T trigamma_impl(T x) {
  const T pi = T(3.14159265358979323846);
  if (x <= T(0) && x == m_floor(x)) return T(INFINITY);
  T result = T(0), sign = T(1);
  if (x < T(0.5)) {
    T s = m_sin(pi * (x - m_floor(x + T(0.5))));  // sin^2 has period pi: Note [Digamma]
    result = -pi * pi / (s * s);
    sign = T(-1);
    x = T(1) - x;
  }
  while (x < T(10)) {
    result += T(1) / (x * x);
    x += T(1);
  }
  if (x != x) return x;
  T r = T(1) / x, z = r * r;
  T series =
      T(1.0 / 6) -
      z * (T(1.0 / 30) -
           z * (T(1.0 / 42) -
                z * (T(1.0 / 30) - z * (T(5.0 / 66) - z * (T(691.0 / 2730) - z * T(7.0 / 6))))));
  return sign * (result + r + T(0.5) * z + r * z * series);
}

// zeta(s, q) = sum over k >= 0 of (q + k)^-s, for integer s >= 2: the first terms summed until
// a = q + k is past max(12, s) (the pole at q = 0, -1, ... is +inf; q below -2^20 gives NaN
// rather than a million-step shift), then Euler-Maclaurin's tail a^(1-s)/(s-1) + a^-s/2 + sum
// B2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1), j = 1..7.
template <typename T>
GENESIS_HD T hurwitz_zeta_impl(T s, T q) {
  if (q <= T(0) && q == m_floor(q)) return T(INFINITY);
  if (q != q || q < T(-1048576)) return T(NAN);
  T sum = T(0), a = q;
  T start = s > T(12) ? s : T(12);
  while (a < start) {
    sum += m_pow(a, -s);
    a += T(1);
  }
  const T c[7] = {T(1.0 / 12),           T(-1.0 / 720),     T(1.0 / 30240),
                  T(-1.0 / 1209600),     T(1.0 / 47900160), T(-691.0 / 1307674368000.0),
                  T(1.0 / 74724249600.0)};
  T power = m_pow(a, -s);  // a^-s
  T tail = power * a / (s - T(1)) + T(0.5) * power;
  T rising = s * power / a;  // s a^(-s-1)
  for (int j = 0; j < 7; ++j) {
    tail += c[j] * rising;
    T k = T(2 * j + 1);
    rising *= (s + k) * (s + k + T(1)) / (a * a);
  }
  return sum + tail;
}

struct Polygamma {
  template <typename T>
  GENESIS_HD T operator()(T x, T order) const {
    int n = static_cast<int>(order);
    if (n == 0) return digamma_impl(x);
    if (n == 1) return trigamma_impl(x);
    T factorial = T(1);
    for (int k = 2; k <= n; ++k) factorial *= T(k);
    T sign = (n % 2 == 1) ? T(1) : T(-1);
    return sign * factorial * hurwitz_zeta_impl(T(n + 1), x);
  }
};

#define GENESIS_FLOAT_UNARY_(Name, expr) \
  struct Name {                          \
    template <typename T>                \
    GENESIS_HD T operator()(T x) const { \
      return expr;                       \
    }                                    \
  };
GENESIS_FLOAT_UNARY_(Exp, m_exp(x))
GENESIS_FLOAT_UNARY_(Log, m_log(x))
GENESIS_FLOAT_UNARY_(Sqrt, m_sqrt(x))
GENESIS_FLOAT_UNARY_(Rsqrt, T(1) / m_sqrt(x))
GENESIS_FLOAT_UNARY_(Sin, m_sin(x))
GENESIS_FLOAT_UNARY_(Cos, m_cos(x))
GENESIS_FLOAT_UNARY_(Tanh, m_tanh(x))
GENESIS_FLOAT_UNARY_(Sigmoid, T(1) / (T(1) + m_exp(-x)))
GENESIS_FLOAT_UNARY_(Reciprocal, T(1) / x)
GENESIS_FLOAT_UNARY_(Log1p, m_log1p(x))
GENESIS_FLOAT_UNARY_(Expm1, m_expm1(x))
GENESIS_FLOAT_UNARY_(Log2, m_log2(x))
GENESIS_FLOAT_UNARY_(Log10, m_log10(x))
GENESIS_FLOAT_UNARY_(Exp2, m_exp2(x))
GENESIS_FLOAT_UNARY_(Erf, m_erf(x))
GENESIS_FLOAT_UNARY_(Erfc, m_erfc(x))
GENESIS_FLOAT_UNARY_(Erfinv, erfinv_impl(x))
GENESIS_FLOAT_UNARY_(Lgamma, m_lgamma(x))
GENESIS_FLOAT_UNARY_(Digamma, digamma_impl(x))
GENESIS_FLOAT_UNARY_(Sinh, m_sinh(x))
GENESIS_FLOAT_UNARY_(Cosh, m_cosh(x))
GENESIS_FLOAT_UNARY_(Asin, m_asin(x))
GENESIS_FLOAT_UNARY_(Acos, m_acos(x))
GENESIS_FLOAT_UNARY_(Atan, m_atan(x))
GENESIS_FLOAT_UNARY_(Asinh, m_asinh(x))
GENESIS_FLOAT_UNARY_(Acosh, m_acosh(x))
GENESIS_FLOAT_UNARY_(Atanh, m_atanh(x))
GENESIS_FLOAT_UNARY_(Frac, x - m_trunc(x))

// Note [Activations]
// The activations of torch.nn.functional with their default parameters are functors, so they
// run as one pass (and as one kernel on CUDA); other parameters compose them from the
// elementwise ops (ops/activation.cpp). The formulas are PyTorch's: silu x / (1 + e^-x); gelu
// x/2 (1 + erf(x / sqrt 2)), its tanh form x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
// softplus log1p(e^x), x itself above the threshold 20; mish x tanh(softplus(x)); elu x above
// 0 and e^x - 1 below.
GENESIS_FLOAT_UNARY_(Silu, x / (T(1) + m_exp(-x)))
GENESIS_FLOAT_UNARY_(Gelu, T(0.5) * x * (T(1) + m_erf(x * T(0.70710678118654752440))))
GENESIS_FLOAT_UNARY_(GeluTanh,
                     T(0.5) * x *
                         (T(1) + m_tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x))))
GENESIS_FLOAT_UNARY_(Softplus, x > T(20) ? x : m_log1p(m_exp(x)))
GENESIS_FLOAT_UNARY_(Mish, m_tanh(x > T(20) ? x : m_log1p(m_exp(x))) * x)
GENESIS_FLOAT_UNARY_(Elu, x > T(0) ? x : m_expm1(x))
#undef GENESIS_FLOAT_UNARY_

}  // namespace genesis::ops::math
