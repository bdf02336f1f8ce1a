#pragma once
// Vectorized math over contiguous runs, for the hot elementwise ops on the CPU. Each routine picks
// an AVX-512 or AVX2+FMA body at run time (the library is built without -march flags).
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace genesis::cpu {

// dst[i] = exp(src[i]) within 1 ulp, with IEEE results for NaN, +-inf, overflow and subnormal
// results. dst may equal src. Returns false (doing nothing) where the CPU lacks the instructions.
bool exp_f32_simd(float* dst, const float* src, int64_t n);
bool exp_f64_simd(double* dst, const double* src, int64_t n);

// dst[i] = exp(src[i]) for float or double: the vector routine where the CPU has it, else
// std::exp. dst may equal src.
template <typename C>
void exp_items(C* dst, const C* src, int64_t n) {
  bool done;
  if constexpr (std::is_same_v<C, float>)
    done = exp_f32_simd(dst, src, n);
  else
    done = exp_f64_simd(dst, src, n);
  if (!done)
    for (int64_t i = 0; i < n; ++i) dst[i] = std::exp(src[i]);
}

// dst[i] = erf(src[i]) and tanh(src[i]), within 1 ulp of the correctly rounded result (Note
// [Vector erf and tanh] in vector_math.cpp); dst may equal src. false where the CPU lacks the
// instructions.
bool erf_f32_simd(float* dst, const float* src, int64_t n);
bool tanh_f32_simd(float* dst, const float* src, int64_t n);

// dst[i] = 1 / (1 + exp(-src[i])) in float with the vector exp: the bits of ops::math::Sigmoid's
// formula over exp_f32_simd, in one pass. dst may equal src; false where the CPU lacks the
// instructions.
bool sigmoid_f32_simd(float* dst, const float* src, int64_t n);

// dst[i] = expm1(src[i]) within 1 ulp (Note [Vector expm1] in vector_math.cpp); dst may equal
// src; false without AVX-512.
bool expm1_f32_simd(float* dst, const float* src, int64_t n);

// dst[i] = log(src[i]), log1p(src[i]) and softplus(src[i]) (log1p(e^x) at and below 20, x above:
// the functor's), within 1 ulp for log and log1p (Note [Vector log] in vector_math.cpp); dst may
// equal src; false without AVX-512.
bool log_f32_simd(float* dst, const float* src, int64_t n);
bool log1p_f32_simd(float* dst, const float* src, int64_t n);
bool softplus_f32_simd(float* dst, const float* src, int64_t n);
// dst[i] = src[i] / (1 + exp(-src[i])), the functor's silu over the vector exp, in one pass.
bool silu_f32_simd(float* dst, const float* src, int64_t n);
// The GELU (tanh_form: its tanh approximation) as ops::math::Gelu / GeluTanh compute it, over
// the vector erf / tanh, in one pass; false without AVX-512.
bool gelu_f32_simd(float* dst, const float* src, int64_t n, bool tanh_form);

// dst[i] = grad[i] * f'(input[i]) for silu and the two GELUs, as ops::math::SiluBackward,
// GeluBackward and GeluTanhBackward compute it, over the vector exp, erf and tanh; dst may equal
// either input; false without AVX-512.
enum class ActivationGrad { Silu, Gelu, GeluTanh };
bool activation_backward_f32_simd(ActivationGrad kind, float* dst, const float* grad,
                                  const float* input, int64_t n);

}  // namespace genesis::cpu
