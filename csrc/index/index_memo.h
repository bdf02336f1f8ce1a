#pragma once
// Note [Validated index memo]: under the immediate index check (Note [Deferred index errors] in
// core/index_check.h; the default defers and never waits) a CUDA gather or scatter through an
// index tensor on the GPU must raise IndexError for an out-of-range value before it returns, so
// it waits for the device to check the values: about 15-20 us a call, several times the launch.
// Once a check of an index view has found every value in [-size, size), its storage remembers that
// size (a ContentMemo, Note [Write versions] in core/storage.h); later calls with the same view and
// an indexed dim at least that large skip the check and the wait, as long as nothing can have
// written the view since (same write version, memory never shared outside genesis). The kernels
// still wrap every index into range and record the ones out of range, so even a wrong memo could
// never make them read or write outside the tensor.
#include <cstdint>

#include "core/tensor.h"

namespace genesis {

// Whether every value of `index` (an int64 view) is known to lie in [-size, size).
bool index_known_in_range(const Tensor& index, int64_t size);
// Records that a check of `index` found every value in [-size, size); `version` is the storage's
// write version read before the check's kernel was enqueued.
void remember_index_in_range(const Tensor& index, int64_t size, uint64_t version);

}  // namespace genesis
