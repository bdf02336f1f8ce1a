#include "cpu/isa.h"

namespace genesis::cpu {

Isa cpu_isa() {
  static const Isa value = [] {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx512f")) return Isa::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
#endif
    return Isa::Base;
  }();
  return value;
}

}  // namespace genesis::cpu
