// NCCL in a CPU-only build: there are no CUDA tensors to communicate, so these only raise.
#include "cuda/nccl.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

int nccl_load(const std::vector<std::string>&) { no_device(); }
std::string nccl_unique_id() { no_device(); }

NcclWork::~NcclWork() = default;
void NcclWork::wait() const { no_device(); }
void NcclWork::synchronize() const { no_device(); }
bool NcclWork::completed() const { return true; }

NcclComm::NcclComm(const std::string&, int, int, int) : rank_(0), size_(0), device_(0) {
  no_device();
}
NcclComm::~NcclComm() = default;
NcclWorkPtr NcclComm::all_reduce(const Tensor&, const Tensor&, NcclReduce) { no_device(); }
NcclWorkPtr NcclComm::broadcast(const Tensor&, const Tensor&, int) { no_device(); }
NcclWorkPtr NcclComm::reduce(const Tensor&, const Tensor&, NcclReduce, int) { no_device(); }
NcclWorkPtr NcclComm::all_gather(const Tensor&, const Tensor&) { no_device(); }
NcclWorkPtr NcclComm::reduce_scatter(const Tensor&, const Tensor&, NcclReduce) { no_device(); }
NcclWorkPtr NcclComm::all_to_all(const Tensor&, const Tensor&, const std::vector<int64_t>&,
                                 const std::vector<int64_t>&) {
  no_device();
}
NcclWorkPtr NcclComm::send(const Tensor&, int) { no_device(); }
NcclWorkPtr NcclComm::recv(const Tensor&, int) { no_device(); }
std::string NcclComm::async_error() const { return ""; }
void NcclComm::abort() {}
void NcclComm::destroy() {}

}  // namespace genesis::cuda
