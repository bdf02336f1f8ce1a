#pragma once
// Host launcher for the random fill kernel (device code lives in random.cu).
#include <cstdint>

namespace genesis::kernels {

// Fills `numel` contiguous items of dtype code `dtype` at `out`: item i takes Philox counter
// offset + i (offset + i / 4 for randn into float32 and 16-bit floats, philox::normals_float)
// under key `seed` and becomes a value of `kind` (philox::Kind in vocab/philox.h; low and range
// for integers), on `stream` (a cudaStream_t). A non-null `state` (a graph's draw, Note [Random
// ops in graphs] in cuda/graph_random.h) is read on the device: the key is state[0] and the
// counters start at state[1] + offset; `seed` is ignored then.
void launch_random(void* out, int dtype, int64_t numel, uint64_t seed, uint64_t offset,
                   const uint64_t* state, int kind, int64_t low, uint64_t range, void* stream);

// Poisson counts of `numel` float64 rates into float64 `out` (vocab/poisson.h): item i owns
// the Philox counters (offset + i, j), j = 0, 1, ... (Note [Poisson streams]).
// `state` as launch_random's.
void launch_poisson(double* out, const double* rates, int64_t numel, uint64_t seed, uint64_t offset,
                    const uint64_t* state, void* stream);

// Writes {seed, offset} to the device words state[0..1] with one tiny kernel on `stream`: the
// values travel as kernel arguments, so nothing on the host must outlive the launch.
void launch_write_philox_state(uint64_t* state, uint64_t seed, uint64_t offset, void* stream);

// Writes the key and first counter a draw uses to out[0..1]: {seed, offset}, or with a non-null
// `state` (as launch_random's) {state[0], state[1] + offset}, read on the device.
void launch_write_philox_args(uint64_t* out, uint64_t seed, uint64_t offset, const uint64_t* state,
                              void* stream);

}  // namespace genesis::kernels
