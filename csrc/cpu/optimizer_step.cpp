// Note [Vectorized steps]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The CPU step applies the same per-element update as the CUDA kernel (Note [Optimizer rules]
// in vocab/optimizer_rules.h). For the compiler to vectorize it, the loop must see a local
// update object whose constants are already in the compute type (a double conversion inside
// the loop stops it), a constant number of states, and contiguous float or double arrays
// (16-bit items are widened into blocks first); and this file is compiled with -fno-math-errno
// (sqrt may otherwise set errno) and -fno-trapping-math (the options' selects compute both
// arms, which the compiler may otherwise not do for operations that could trap). GCC (12)
// vectorizes a select on a comparison of floats, not one on a loop-invariant bool: the updates
// hold their options as 1 or 0 in the compute type (as_option / is_set in optimizer_rules.h),
// and the update object passes through an empty asm before the loop, so that the compiler
// cannot see that those values came from bools and fold the comparisons back into them.
// Measured on the 2-core machine (Zen 4, AVX-512), one thread, Adam over 4M float32 elements:
// 15.8 ms with the bools (scalar sqrt and divisions), 5.3 ms with the options as floats.
#include "cpu/optimizer_step.h"

#include <algorithm>
#include <type_traits>

#include "cpu/float_kernels.h"
#include "cpu/half_simd.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int64_t kBlock = 256;  // elements widened at a time

// A block of T items widened to C and C values rounded back to T: float16 with the CPU's
// conversion instructions (cpu/half_simd.h; the software conversion's branches do not
// vectorize: float16 Adam over 4M elements on the 2-core machine took 9.4 ms, 2.9 ms so, against
// 1.9 ms for float32), the same values. bfloat16's conversions vectorize inline (a shift and a
// rounding add), faster than the out-of-line calls (3.1 ms against 3.6 ms).
template <typename C, typename T>
inline void widen_block(C* dst, const T* src, int64_t n) {
  if constexpr (std::is_same_v<C, float> && std::is_same_v<T, Half>)
    widen_chunk(dst, src, n);
  else
    for (int64_t j = 0; j < n; ++j) dst[j] = widen<C>(src[j]);
}
template <typename T, typename C>
inline void narrow_block(T* dst, const C* src, int64_t n) {
  if constexpr (std::is_same_v<C, float> && std::is_same_v<T, Half>)
    narrow_chunk(dst, src, n);
  else
    for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<T>(src[j]);
}

// A rule's update of elements [begin, end) of one tensor with S states, in blocks: a local update
// object and a constant S, so that the compiler sees loop-invariant options and fixed-size state
// and vectorizes the loop (Note [Vectorized steps]); 16-bit items are widened into a block of
// floats first and rounded back after.
// G: the gradients' type, T's except under master weights (T float, G 16-bit), where `narrow`
// (else null) receives each stepped value rounded to G.
template <typename T, typename G, typename C, int S, typename Rule>
[[gnu::always_inline]] inline void step_range(const Rule& rule, const StepFactors& f, T* p,
                                              const G* g, T* const* s, G* narrow, int64_t begin,
                                              int64_t end) {
  // The update's options hidden from the optimizer (Note [Vectorized steps]).
  auto opaque = rule.template update<C>(f);
#if defined(__GNUC__) || defined(__clang__)
  asm volatile("" : "+m"(opaque));
#endif
  const auto step = opaque;
  C* sv[S > 0 ? S : 1] = {};
  C *pv = nullptr, *gv = nullptr;
  C pb[kBlock], gb[kBlock], sb[S > 0 ? S : 1][kBlock];
  for (int64_t at = begin; at < end; at += kBlock) {
    int64_t n = std::min(kBlock, end - at);
    if constexpr (std::is_same_v<T, C>) {  // in place
      pv = p + at;
    } else {
      pv = pb;
      widen_block(pb, p + at, n);
    }
    if constexpr (std::is_same_v<G, C>) {
      gv = const_cast<C*>(g + at);
    } else {
      gv = gb;
      widen_block(gb, g + at, n);
    }
    for (int k = 0; k < S; ++k) {
      if (s[k] == nullptr) {  // a state the call does not hold: zeros, not stored
        sv[k] = sb[k];
        std::fill(sb[k], sb[k] + n, C(0));
      } else if constexpr (std::is_same_v<T, C>) {
        sv[k] = s[k] + at;
      } else {
        sv[k] = sb[k];
        widen_block(sb[k], s[k] + at, n);
      }
    }
    // Named state pointers, not sv[k]: the vectorizer gives up on loads through the array.
    C* const s0 = sv[0];
    C* const s1 = sv[S > 1 ? 1 : 0];
    C* const s2 = sv[S > 2 ? 2 : 0];
    for (int64_t j = 0; j < n; ++j) {
      C state[3] = {S > 0 ? s0[j] : C(0), S > 1 ? s1[j] : C(0), S > 2 ? s2[j] : C(0)};
      step(pv[j], gv[j], state);
      if constexpr (S > 0) s0[j] = state[0];
      if constexpr (S > 1) s1[j] = state[1];
      if constexpr (S > 2) s2[j] = state[2];
    }
    if constexpr (!std::is_same_v<T, C>) {
      narrow_block(p + at, pb, n);
      for (int k = 0; k < S; ++k)
        if (s[k] != nullptr) narrow_block(s[k] + at, sb[k], n);
    }
    if constexpr (!std::is_same_v<G, C>)
      if (narrow != nullptr) narrow_block(narrow + at, pv, n);
  }
}

// step_range compiled for the baseline and for AVX2 and AVX-512 (with FMA), picked at run time
// (cpu/isa.h).
#define GENESIS_STEP_RANGE(isa, attributes)                                                  \
  template <typename T, typename G, typename C, int S, typename Rule>                        \
  attributes void step_range_##isa(const Rule& rule, const StepFactors& f, T* p, const G* g, \
                                   T* const* s, G* narrow, int64_t begin, int64_t end) {     \
    step_range<T, G, C, S>(rule, f, p, g, s, narrow, begin, end);                            \
  }
GENESIS_STEP_RANGE(base, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GENESIS_STEP_X86 1
GENESIS_STEP_RANGE(avx2, __attribute__((target("avx2,fma"))))
GENESIS_STEP_RANGE(avx512, __attribute__((target("avx512f,avx2,fma"))))
#endif

// Every element of every tensor: a tensor's elements are split over the threads; tensors are
// taken one after another (an optimizer's tensors are few and large, or small enough that
// threads would not pay). slots[2 + S]: the 16-bit parameters under master weights, or empty.
template <typename T, typename G, typename C, int S, typename Rule>
void step_tensors(const StepSlots& slots, const std::vector<StepFactors>& factors,
                  const Rule& rule) {
  [[maybe_unused]] const Isa isa = cpu_isa();
  const TensorRefs& narrows = slots[2 + S];
  for (size_t i = 0; i < slots[0].size(); ++i) {
    T* p = slots[0][i]->mutable_data_as<T>();
    const G* g = slots[1][i]->data_as<G>();
    G* narrow =
        narrows.empty() || narrows[i] == nullptr ? nullptr : narrows[i]->mutable_data_as<G>();
    T* s[S > 0 ? S : 1] = {};
    for (int k = 0; k < S; ++k)
      s[k] = slots[2 + k].empty() ? nullptr : slots[2 + k][i]->mutable_data_as<T>();
    // About 20 operations an element.
    parallel_for(slots[0][i]->numel(), kDefaultGrain / 20, [&](int64_t begin, int64_t end) {
#ifdef GENESIS_STEP_X86
      if (isa == Isa::Avx512)
        return step_range_avx512<T, G, C, S>(rule, factors[i], p, g, s, narrow, begin, end);
      if (isa == Isa::Avx2)
        return step_range_avx2<T, G, C, S>(rule, factors[i], p, g, s, narrow, begin, end);
#endif
      step_range_base<T, G, C, S>(rule, factors[i], p, g, s, narrow, begin, end);
    });
  }
}

template <typename Rule>
void step(const StepSlots& slots, const std::vector<StepFactors>& factors, const Rule& rule,
          const char* op) {
  if (slots[0].empty()) return;
  // Every rule's states are passed, an empty list for each the call does not hold, then the
  // 16-bit parameters of master weights (or an empty list).
  GENESIS_CHECK(slots.size() == 3 + Rule::kStates, op, "expected ", 3 + Rule::kStates,
                " lists of tensors, got ", slots.size());
  ScalarType grad_dtype = slots[1][0]->dtype();
  if (grad_dtype == slots[0][0]->dtype()) {
    dispatch_floating(slots[0][0]->dtype(), op, [&](auto t, auto c) {
      using T = decltype(t);
      step_tensors<T, T, decltype(c), Rule::kStates>(slots, factors, rule);
    });
    return;
  }
  // Master weights: float32 values and states, 16-bit gradients and parameters.
  GENESIS_CHECK(slots[0][0]->dtype() == ScalarType::Float32, op,
                "master weights must be float32, got ", scalar_type_name(slots[0][0]->dtype()));
  if (grad_dtype == ScalarType::Float16)
    step_tensors<float, Half, float, Rule::kStates>(slots, factors, rule);
  else if (grad_dtype == ScalarType::BFloat16)
    step_tensors<float, BFloat16, float, Rule::kStates>(slots, factors, rule);
  else
    GENESIS_CHECK(false, op, "master weights take 16-bit gradients, got ",
                  scalar_type_name(grad_dtype));
}

}  // namespace

void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const SgdRule& rule) {
  step(slots, factors, rule, "sgd_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamRule& rule) {
  step(slots, factors, rule, "adam_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RmspropRule& rule) {
  step(slots, factors, rule, "rmsprop_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdagradRule& rule) {
  step(slots, factors, rule, "adagrad_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamaxRule& rule) {
  step(slots, factors, rule, "adamax_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdadeltaRule& rule) {
  step(slots, factors, rule, "adadelta_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const NadamRule& rule) {
  step(slots, factors, rule, "nadam_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RadamRule& rule) {
  step(slots, factors, rule, "radam_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const LionRule& rule) {
  step(slots, factors, rule, "lion_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RpropRule& rule) {
  step(slots, factors, rule, "rprop_step");
}
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AsgdRule& rule) {
  step(slots, factors, rule, "asgd_step");
}

}  // namespace genesis::cpu
