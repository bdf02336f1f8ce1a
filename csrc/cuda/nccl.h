#pragma once
// NCCL communicators for genesis.distributed (Note [Loading NCCL], Note [Collectives and
// streams] in cuda/nccl.cpp). A CPU-only build compiles cuda/no_cuda_nccl.cpp instead.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "cuda/stream.h"

namespace genesis::cuda {

enum class NcclReduce { Sum, Prod, Max, Min, Avg };

// Loads NCCL once (the `candidates` first, then $GENESIS_NCCL_PATH and the system's sonames) and
// returns its version code (NCCL 2.27.3 is 22703). Raises RuntimeError saying what to install.
int nccl_load(const std::vector<std::string>& candidates);
// 128 opaque bytes from ncclGetUniqueId: rank 0 makes one and the others receive it by a store.
std::string nccl_unique_id();

// The completion of one operation: an event recorded on the communicator's stream after it.
class NcclWork {
 public:
  NcclWork(EventId event, int device) : event_(event), device_(device) {}
  ~NcclWork();
  NcclWork(const NcclWork&) = delete;
  NcclWork& operator=(const NcclWork&) = delete;
  void wait() const;         // the device's current stream waits for it; the host does not
  void synchronize() const;  // the host waits for it
  bool completed() const;

 private:
  EventId event_;
  int device_;
};
using NcclWorkPtr = std::shared_ptr<NcclWork>;

// One rank's member of an NCCL communicator on one device, with its own stream.
class NcclComm {
 public:
  // Blocks until every rank has called it with the same unique id.
  NcclComm(const std::string& unique_id, int world_size, int rank, int device);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  StreamId stream() const { return stream_; }

  // Every tensor is a contiguous CUDA tensor on device(); `op` names the caller in errors.
  NcclWorkPtr all_reduce(const Tensor& input, const Tensor& output, NcclReduce reduce);
  NcclWorkPtr broadcast(const Tensor& input, const Tensor& output, int root);
  NcclWorkPtr reduce(const Tensor& input, const Tensor& output, NcclReduce reduce, int root);
  // output holds size() blocks of input's numel, in rank order.
  NcclWorkPtr all_gather(const Tensor& input, const Tensor& output);
  // input holds size() blocks of output's numel; rank r receives the reduction of block r.
  NcclWorkPtr reduce_scatter(const Tensor& input, const Tensor& output, NcclReduce reduce);
  // Block r of input (send_counts[r] elements) goes to rank r; block r of output
  // (recv_counts[r] elements) comes from rank r.
  NcclWorkPtr all_to_all(const Tensor& input, const Tensor& output,
                         const std::vector<int64_t>& send_counts,
                         const std::vector<int64_t>& recv_counts);
  NcclWorkPtr send(const Tensor& tensor, int peer);
  NcclWorkPtr recv(const Tensor& tensor, int peer);

  // Error text of an asynchronous NCCL failure (a peer died, ...), "" when all is well.
  std::string async_error() const;
  // Stops the communicator's work at once (a peer that never comes); later calls raise.
  void abort();
  // Releases the communicator after its work finished; later calls raise.
  void destroy();

 private:
  void* comm_ = nullptr;  // ncclComm_t
  int rank_, size_, device_;
  StreamId stream_ = 0;

  void* live(const char* op) const;
  // Orders the communicator's stream after the caller's current stream, runs `enqueue` on it,
  // marks the tensors as used there and returns the work's completion.
  template <typename Enqueue>
  NcclWorkPtr run(const char* op, std::initializer_list<const Tensor*> tensors, Enqueue enqueue);
};

}  // namespace genesis::cuda
