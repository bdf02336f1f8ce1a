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
#undef GENESIS_MATH1_
GENESIS_HD float m_fmod(float a, float b) { return ::fmodf(a, b); }
GENESIS_HD double m_fmod(double a, double b) { return ::fmod(a, b); }
GENESIS_HD float m_pow(float a, float b) { return ::powf(a, b); }
GENESIS_HD double m_pow(double a, double b) { return ::pow(a, b); }
GENESIS_HD float m_copysign(float a, float b) { return ::copysignf(a, b); }
GENESIS_HD double m_copysign(double a, double b) { return ::copysign(a, b); }

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
struct Relu {
  template <typename T>
  GENESIS_HD T operator()(T a) const {
    if (is_nan(a)) return a;
    return a > T(0) ? a : T(0);
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
#undef GENESIS_FLOAT_UNARY_

}  // namespace genesis::ops::math
