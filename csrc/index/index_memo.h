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
// Under the deferred check (the default) the memo saves the check's kernel, one read of the
// index (about 47 us of a 16384x1024 scatter_ on an H100, which took 1.25x its time without it).
// The check has not run when the view is remembered, so the memo is provisional: it holds only
// while no index error has been raised since (index_error_epoch) and none is pending on the
// device when it is consulted. A bad index is still reported: its check records the error, which
// the next wait raises, and raising lapses every provisional memo, so the next call checks
// again. A call that trusted the memo before the bad check had run skips its bad indices as any
// op does while an earlier error is pending (Note [Deferred index errors]).
#include <cstdint>

#include "core/tensor.h"

namespace genesis {

// Whether every value of `index` (an int64 view) is known to lie in [-size, size).
bool index_known_in_range(const Tensor& index, int64_t size);
// Records that a check of `index` found (or, deferred, will have found unless an error is raised)
// every value in [-size, size); `version` is the storage's write version and `epoch` the
// index-error epoch, both read before the check's kernel was enqueued.
void remember_index_in_range(const Tensor& index, int64_t size, uint64_t version, uint64_t epoch);

}  // namespace genesis
