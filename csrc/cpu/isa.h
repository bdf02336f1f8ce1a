#pragma once
// The widest x86 vector instruction set this CPU runs, for the kernels compiled several times
// with target attributes (gemm, reductions, vector math): the file itself is built for the
// baseline, so each picks its AVX-512 or AVX2+FMA body at run time.
namespace genesis::cpu {

enum class Isa { Base, Avx2, Avx512 };

// Checked once; Base off x86 or on compilers without __builtin_cpu_supports. The environment
// variable GENESIS_CPU_ISA=avx2 or base, read then, caps it (for tests).
Isa cpu_isa();

}  // namespace genesis::cpu

// The attributes of the row kernels compiled again for AVX2 and AVX-512 with everything they
// call inlined (Note [Norm rows per instruction set] in normalization.cpp); defined only where
// such bodies can be built (GENESIS_ISA_ROWS set).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GENESIS_ISA_ROWS 1
#define GENESIS_AVX2_ROWS __attribute__((target("avx2,fma"), flatten))
#define GENESIS_AVX512_ROWS __attribute__((target("avx512f,avx512bw,avx2,fma"), flatten))
#endif

namespace genesis::cpu {}  // namespace genesis::cpu
