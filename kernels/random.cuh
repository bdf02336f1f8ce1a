#pragma once
// Host launcher for the random fill kernel (device code lives in random.cu).
#include <cstdint>

namespace genesis::kernels {

// Fills `numel` contiguous items of dtype code `dtype` at `out`: item i takes Philox counter
// offset + i (offset + i / 4 for randn into float32 and 16-bit floats, philox::normals_float)
// under key `seed` and becomes a value of `kind` (philox::Kind in vocab/philox.h; low and range
// for integers), on `stream` (a cudaStream_t).
void launch_random(void* out, int dtype, int64_t numel, uint64_t seed, uint64_t offset, int kind,
                   int64_t low, uint64_t range, void* stream);

// Poisson counts of `numel` float64 rates into float64 `out` (vocab/poisson.h): item i owns
// the Philox counters (offset + i, j), j = 0, 1, ... (Note [Poisson streams]).
void launch_poisson(double* out, const double* rates, int64_t numel, uint64_t seed, uint64_t offset,
                    void* stream);

}  // namespace genesis::kernels
