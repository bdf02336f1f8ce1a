#pragma once
// The per-device records of out-of-range indices that CUDA index kernels fill and the host
// checks after its waits (Note [Deferred index errors] in core/index_check.h). Plain C++.
namespace genesis::kernels {
struct IndexSite;
}

namespace genesis::cuda {

// A launch sequence number: the calling op's (its IndexOpScope's) inside one, else a fresh one.
// Kernels that share one (an op's checks and its scatters) know whether the recorded error is
// their own (Note [Deferred index errors] in core/index_check.h).
unsigned next_index_seq();
// The record of `device` (made at the first use) with the calling thread's index op and `seq`
// (0: a fresh one), for one launch. Only CUDA .cpp files call it (kernels/index.cuh defines the
// type).
kernels::IndexSite index_site(int device, unsigned seq = 0);

// Whether `device` holds a recorded index error not yet raised (one host load).
bool index_error_pending(int device);
// After a wait for `device`: raises IndexError for the error recorded there since the last
// check and clears it; nothing (one host load) when none is. `where` names the wait in the
// message ("synchronize", "copy", ...); nullptr gives the plain message of an immediate check.
void raise_index_error(int device, const char* where);
// The same for every device that has a record (after an event's wait).
void raise_index_errors(const char* where);

}  // namespace genesis::cuda
