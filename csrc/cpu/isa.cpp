#include "cpu/isa.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace genesis::cpu {

namespace {
Isa detected() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f")) return Isa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
#endif
  return Isa::Base;
}
}  // namespace

Isa cpu_isa() {
  // GENESIS_CPU_ISA=avx2 or base caps the choice (never raises it), so the narrower bodies can be
  // tested on a wider CPU (tests/ops/test_vector_math.py).
  static const Isa value = [] {
    Isa isa = detected();
    const char* cap = std::getenv("GENESIS_CPU_ISA");
    if (cap && std::strcmp(cap, "avx2") == 0) return std::min(isa, Isa::Avx2);
    if (cap && std::strcmp(cap, "base") == 0) return Isa::Base;
    return isa;
  }();
  return value;
}

}  // namespace genesis::cpu
