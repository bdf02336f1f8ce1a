#pragma once
// Note [Deferred index errors]: on CUDA, an op that indexes through index tensors on the device
// (x[idx], x[idx] = v, gather, scatter_*, index_*, take, put_, ...) never waits for the device
// to learn whether an index was out of range. Its kernels still never read or write out of
// range (a bad index reads element 0 or is skipped; Note [Poisoned offsets] in
// kernels/index_loops.cuh), and the first bad index of a device is recorded there: op code, dim,
// value, size (kernels/index.cuh's IndexError; the first wins an atomicCAS). The winning thread
// also copies it into mapped pinned host memory, so every place where the host already waits
// for that device (synchronize(), Stream/Event.synchronize, a copy to the host: item(),
// tolist(), cpu(), numpy(), a DLPack export to the CPU; a mask's count) checks it with one host
// load after its wait and raises IndexError "[op] index 7 is out of bounds for dimension 0 with
// size 5 (recorded on cuda:0, raised at ...)", clearing it. So each error is raised once, by
// the first wait that sees it, in whichever thread; a stream destroyed before anyone waited for
// it leaves its error for the device's next wait; an event's wait checks every device (its
// device is not known below Python). The CUDA context stays usable. A scatter writes nothing
// when one of its own checks recorded the error (Note [Fused scatter]): its checks and its
// scatter share a sequence number, which the record keeps. Every launch of one op shares its
// IndexOpScope's number, so an op made of several scatters (scatter_reduce's "mean" and
// include_self=False, the widened 16-bit sums) writes nothing once any of its checks fails.
// While an earlier error is pending a later bad op cannot record its own: it still skips its
// bad indices (writing the good ones), and only the first error is raised. The cost when
// nothing is wrong: no wait, one sequence number per op, one host load after each wait. Making
// a device's record (at its first index op) zeroes it on the current stream; cudaHostAlloc may
// serialise with the device that once.
// set_index_check_mode(Immediate) restores the old behaviour: each such op waits for its check
// and raises before returning (reported by the sync debug mode as "index bounds check"), and
// Note [Validated index memo] saves the waits of unchanged index tensors. The CPU always raises
// at once.
#include <cstdint>

namespace genesis {

enum class IndexCheckMode : int { Deferred = 0, Immediate = 1 };

void set_index_check_mode(IndexCheckMode mode);
IndexCheckMode index_check_mode();

// The op named in a deferred error: kernels record a small code, index_op_code's slot for the
// name in a table of at most 64 (later names share code 0, "index").
int index_op_code(const char* name);
const char* index_op_name(int code);

// Names the index op the calling thread runs until destroyed (`op` must outlive it); the
// outermost scope wins, so an op built on another (take_along_dim on gather) reports its own
// name, as its immediate errors do (ops/index_common.h's renamed()).
class IndexOpScope {
 public:
  explicit IndexOpScope(const char* op);
  ~IndexOpScope();
  IndexOpScope(const IndexOpScope&) = delete;
  IndexOpScope& operator=(const IndexOpScope&) = delete;

 private:
  bool outermost_;
};
const char* current_index_op();  // "index" outside every scope

// A new sequence number (never 0), and the outermost scope's on this thread (0 outside every
// scope): the launches of one op share it (Note [Deferred index errors]).
unsigned fresh_index_seq();
unsigned current_index_seq();

// Counts the deferred index errors raised so far: a memo of an index remembered in range before
// its deferred check had run holds only while no error was raised since (Note [Validated index
// memo] in index/index_memo.h).
uint64_t index_error_epoch();
void note_index_error_raised();

}  // namespace genesis
