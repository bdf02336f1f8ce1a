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
