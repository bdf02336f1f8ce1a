#pragma once
// Copies to, from and on CUDA devices (Note [CUDA backend layout] in cuda/runtime.h).
#include <cstddef>

#include "core/device.h"
#include "core/tensor.h"
#include "cuda/stream.h"

namespace genesis::cuda {

// Whether `device` can map `peer`'s memory (NVLink or PCIe peer access).
bool can_access_peer(int device, int peer);

// Copies bytes between any two devices (host pointers are CPU memory); returns when the bytes
// can be used (see copy.cpp for which copies wait).
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
// Enqueues the copy on `stream` (of the CUDA side's device) and returns at once; the host side
// must be pinned memory (or the copy is device to device).
void copy_bytes_async(void* dst, const void* src, size_t nbytes, StreamId stream, int device_index);

// dst <- cast(src) for two tensors on the same CUDA device, src already broadcast to dst's
// shape; any strides. Runs on the current stream.
void copy(const Tensor& dst, const Tensor& src);

}  // namespace genesis::cuda
