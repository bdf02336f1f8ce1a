#pragma once
// Tensor <-> DLPack managed tensors, without Python: the capsule protocol lives in
// csrc/python/dlpack.cpp.
#include "core/tensor.h"
#include "dlpack/dlpack.h"

namespace genesis::dlpack {

DLDataType to_dl_dtype(ScalarType t);
// Raises Buffer errors for types genesis does not have.
ScalarType from_dl_dtype(DLDataType t);
DLDevice to_dl_device(Device d);
// kDLCPU and kDLCUDAHost are the CPU, kDLCUDA a CUDA device; anything else raises.
Device from_dl_device(DLDevice d);

// Managed tensors that keep `t` (a view: shape, strides, offset folded into data) alive until
// their deleter runs. `flags` only exists in the versioned form.
DLManagedTensorVersioned* export_versioned(const Tensor& t, uint64_t flags);
DLManagedTensor* export_legacy(const Tensor& t);
// The tensor that a managed tensor made by export_versioned/export_legacy views, or null for
// another producer's (Note [Round trips through DLPack] in convert.cpp).
const Tensor* exported_tensor(const DLManagedTensorVersioned* m);
const Tensor* exported_tensor(const DLManagedTensor* m);

// A tensor over the memory a DLTensor describes; `owner` and `release` free the producer's
// memory when the last view of it is gone. Validates everything before taking ownership:
// on an exception the caller still owns the managed tensor. `writable` false (a capsule flagged
// READ_ONLY) gives a read-only tensor (Note [Read-only storages] in core/storage.h).
Tensor import(const DLTensor& dl, void* owner, void (*release)(void* data, void* owner),
              bool writable = true);

}  // namespace genesis::dlpack
