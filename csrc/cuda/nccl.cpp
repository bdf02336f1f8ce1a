// NCCL communicators (csrc/cuda/nccl.h).
#include "cuda/nccl.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/caller_lock.h"
#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/driver_entry.h"
#include "cuda/memory.h"

#if __has_include(<nccl.h>)
#include <nccl.h>
#define GENESIS_HAVE_NCCL_HEADER 1
#endif

// Note [Loading NCCL]
// As cuBLAS (Note [Loading cuBLAS] in csrc/cuda/blas.cpp), NCCL is never linked: importing
// genesis must not need it, and only multi-process programs pay for it. The first collective
// dlopen()s it, trying first the paths genesis.distributed found in the installed
// `nvidia-nccl-cu13`/`-cu12` packages, then $GENESIS_NCCL_PATH, then the system's soname
// (also what a process that already loaded NCCL, through PyTorch for instance, resolves to).
// The few functions and enums below are written from NCCL's API documentation (enums are ints
// in the C ABI; ncclUniqueId is 128 opaque bytes); where nccl.h exists, static_asserts check them.
//
// Note [Collectives and stream order]
// Every communicator owns a stream on its device. An operation records an event on the caller's
// current stream and makes the communicator's stream wait for it, so NCCL reads its inputs only
// after the work queued before the call, without the host waiting. The tensors are then marked
// as used on the communicator's stream (the pool's record_stream), so freeing them early does
// not let the pool hand their memory to other work before NCCL finished with it. An event
// recorded after the operation is the work handle: wait() makes the caller's current stream wait
// for it (what a synchronous collective does before returning), synchronize() blocks the host.
// The stream is never destroyed, not even with the communicator: freeing a tensor records an
// event on every stream it was marked with, whenever that happens.

namespace genesis::cuda {

namespace {

using Comm = void*;  // ncclComm_t
using Result = int;  // ncclResult_t
constexpr Result kSuccess = 0, kInProgress = 7;
constexpr int kUniqueIdBytes = 128;
struct UniqueId {
  char internal[kUniqueIdBytes];
};
// ncclDataType_t
constexpr int kInt8 = 0, kUint8 = 1, kInt32 = 2, kInt64 = 4, kFloat16 = 6, kFloat32 = 7,
              kFloat64 = 8, kBfloat16 = 9;
// ncclRedOp_t
constexpr int kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4;

#ifdef GENESIS_HAVE_NCCL_HEADER
static_assert(NCCL_UNIQUE_ID_BYTES == kUniqueIdBytes && sizeof(ncclUniqueId) == sizeof(UniqueId));
static_assert(ncclSuccess == kSuccess && ncclInProgress == kInProgress);
static_assert(ncclInt8 == kInt8 && ncclUint8 == kUint8 && ncclInt32 == kInt32 &&
              ncclInt64 == kInt64 && ncclFloat16 == kFloat16 && ncclFloat32 == kFloat32 &&
              ncclFloat64 == kFloat64 && ncclBfloat16 == kBfloat16);
static_assert(ncclSum == kSum && ncclProd == kProd && ncclMax == kMax && ncclMin == kMin &&
              ncclAvg == kAvg);
#endif

struct Api {
  int version = 0;
  Result (*get_version)(int*);
  Result (*get_unique_id)(UniqueId*);
  Result (*comm_init_rank)(Comm*, int, UniqueId, int);
  Result (*comm_destroy)(Comm);
  Result (*comm_abort)(Comm);
  Result (*comm_get_async_error)(Comm, Result*);
  const char* (*get_error_string)(Result);
  const char* (*get_last_error)(Comm);
  Result (*all_reduce)(const void*, void*, size_t, int, int, Comm, cudaStream_t);
  Result (*broadcast)(const void*, void*, size_t, int, int, Comm, cudaStream_t);
  Result (*reduce)(const void*, void*, size_t, int, int, int, Comm, cudaStream_t);
  Result (*all_gather)(const void*, void*, size_t, int, Comm, cudaStream_t);
  Result (*reduce_scatter)(const void*, void*, size_t, int, int, Comm, cudaStream_t);
  Result (*send)(const void*, size_t, int, int, Comm, cudaStream_t);
  Result (*recv)(void*, size_t, int, int, Comm, cudaStream_t);
  Result (*group_start)();
  Result (*group_end)();
};

std::mutex g_load_mutex;
const Api* g_api = nullptr;

template <typename Fn>
void find_symbol(void* lib, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  GENESIS_CHECK(*fn != nullptr, "genesis.distributed", "NCCL could not be loaded: ", name,
                " is missing from the library (NCCL 2.10 or newer is needed)");
}

const Api& api(const char* op) {
  std::lock_guard<std::mutex> lock(g_load_mutex);
  GENESIS_CHECK(g_api != nullptr, op, "NCCL is not loaded (genesis.distributed loads it first)");
  return *g_api;
}

void check(Result r, const char* call, const char* op, Comm comm = nullptr) {
  if (r == kSuccess) [[likely]]
    return;
  const Api& nccl = *g_api;
  const char* detail = comm && nccl.get_last_error ? nccl.get_last_error(comm) : nullptr;
  GENESIS_FAIL(ErrorKind::Runtime, op, call, " failed: ", nccl.get_error_string(r), " (", r, ")",
               detail && *detail ? str_cat(": ", detail) : std::string());
}

int reduce_code(NcclReduce reduce) {
  switch (reduce) {
    case NcclReduce::Sum:
      return kSum;
    case NcclReduce::Prod:
      return kProd;
    case NcclReduce::Max:
      return kMax;
    case NcclReduce::Min:
      return kMin;
    case NcclReduce::Avg:
      return kAvg;
  }
  return kSum;
}

const char* reduce_name(NcclReduce reduce) {
  static const char* names[] = {"sum", "product", "max", "min", "avg"};
  return names[static_cast<int>(reduce)];
}

// How a tensor travels: NCCL's type and element count. Types NCCL lacks move as bytes when
// nothing is reduced; bool reduces as bytes with sum -> max (logical or), product -> min.
struct Wire {
  int type;
  size_t count;
  int op;
};

Wire wire_of(const Tensor& t, const NcclReduce* reduce, const char* op) {
  size_t count = static_cast<size_t>(t.numel());
  int r = reduce ? reduce_code(*reduce) : kSum;
  ScalarType dtype = t.dtype();
  if (reduce && *reduce == NcclReduce::Avg)
    GENESIS_CHECK_TYPE(is_floating_point(dtype), op, "op=avg needs a floating-point tensor, got ",
                       scalar_type_name(dtype));
  switch (dtype) {
    case ScalarType::Bool:
      if (r == kSum) r = kMax;
      if (r == kProd) r = kMin;
      return {kUint8, count, r};
    case ScalarType::UInt8:
      return {kUint8, count, r};
    case ScalarType::Int8:
      return {kInt8, count, r};
    case ScalarType::Int16:
      GENESIS_CHECK_TYPE(reduce == nullptr, op,
                         "NCCL cannot reduce int16 (op=", reduce_name(*reduce), "); use int32");
      return {kUint8, count * 2, r};
    case ScalarType::Int32:
      return {kInt32, count, r};
    case ScalarType::Int64:
      return {kInt64, count, r};
    case ScalarType::Float16:
      return {kFloat16, count, r};
    case ScalarType::BFloat16:
      return {kBfloat16, count, r};
    case ScalarType::Float32:
      return {kFloat32, count, r};
    case ScalarType::Float64:
      return {kFloat64, count, r};
  }
  GENESIS_FAIL(ErrorKind::Type, op, "unsupported dtype");
}

size_t element_scale(const Tensor& t) { return t.dtype() == ScalarType::Int16 ? 2 : 1; }

// Note [NCCL and the current device]
// NCCL may switch the calling thread's current device itself (its initialisation can look at
// every GPU). genesis's own view would be unaffected, but the driver's current context is shared
// by every CUDA runtime in the process, so PyTorch or CuPy would then create their tensors on
// another GPU. As a precaution every NCCL call puts the driver's context back. (On two H200s
// the device stayed cuda:0 through init, a collective and destroy, with this in place.)
// The driver's context functions are fetched through the runtime (genesis does not link
// libcuda); the runtime's own cudaGetDevice/cudaSetDevice would not see NCCL's change.
using GetContext = int (*)(void**);  // cuCtxGetCurrent
using SetContext = int (*)(void*);   // cuCtxSetCurrent

class KeepCurrentDevice {
 public:
  KeepCurrentDevice() {
    if (GetContext get = get_context()) get(&context_);
  }
  ~KeepCurrentDevice() {
    if (SetContext set = set_context(); set && context_) set(context_);
  }
  KeepCurrentDevice(const KeepCurrentDevice&) = delete;
  KeepCurrentDevice& operator=(const KeepCurrentDevice&) = delete;

 private:
  // Fetched at first use, never while the module loads: asking the runtime for them starts
  // CUDA, and `import genesis` must not (a process forked after it could not use CUDA).
  static GetContext get_context() {
    static const GetContext get = driver_entry<GetContext>("cuCtxGetCurrent");
    return get;
  }
  static SetContext set_context() {
    static const SetContext set = driver_entry<SetContext>("cuCtxSetCurrent");
    return set;
  }
  void* context_ = nullptr;
};

}  // namespace

int nccl_load(const std::vector<std::string>& candidates) {
  const char* op = "genesis.distributed";
  std::lock_guard<std::mutex> lock(g_load_mutex);
  if (g_api) return g_api->version;
  std::vector<std::string> names = candidates;
  if (const char* path = std::getenv("GENESIS_NCCL_PATH"); path && *path) names.push_back(path);
  names.push_back("libnccl.so.2");
  names.push_back("libnccl.so");
  void* lib = nullptr;
  std::string first_error, tried;
  for (const std::string& name : names) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    if (first_error.empty()) first_error = err ? err : name;
    tried += tried.empty() ? name : ", " + name;
  }
  GENESIS_CHECK(lib != nullptr, op, "NCCL could not be loaded: ", first_error, " (tried ", tried,
                "); install it with `pip install nvidia-nccl-cu13` (CUDA 13) or "
                "`nvidia-nccl-cu12` (CUDA 12), or set GENESIS_NCCL_PATH to libnccl.so.2");
  auto* loaded = new Api{};  // kept for the process's life, as the library is
  find_symbol(lib, "ncclGetVersion", &loaded->get_version);
  find_symbol(lib, "ncclGetUniqueId", &loaded->get_unique_id);
  find_symbol(lib, "ncclCommInitRank", &loaded->comm_init_rank);
  find_symbol(lib, "ncclCommDestroy", &loaded->comm_destroy);
  find_symbol(lib, "ncclCommAbort", &loaded->comm_abort);
  find_symbol(lib, "ncclCommGetAsyncError", &loaded->comm_get_async_error);
  find_symbol(lib, "ncclGetErrorString", &loaded->get_error_string);
  loaded->get_last_error = reinterpret_cast<const char* (*)(Comm)>(dlsym(lib, "ncclGetLastError"));
  find_symbol(lib, "ncclAllReduce", &loaded->all_reduce);
  find_symbol(lib, "ncclBroadcast", &loaded->broadcast);
  find_symbol(lib, "ncclReduce", &loaded->reduce);
  find_symbol(lib, "ncclAllGather", &loaded->all_gather);
  find_symbol(lib, "ncclReduceScatter", &loaded->reduce_scatter);
  find_symbol(lib, "ncclSend", &loaded->send);
  find_symbol(lib, "ncclRecv", &loaded->recv);
  find_symbol(lib, "ncclGroupStart", &loaded->group_start);
  find_symbol(lib, "ncclGroupEnd", &loaded->group_end);
  GENESIS_CHECK(loaded->get_version(&loaded->version) == kSuccess, op, "ncclGetVersion failed");
  GENESIS_CHECK(loaded->version >= 21000, op, "NCCL ", loaded->version,
                " is too old: genesis needs NCCL 2.10 or newer");
  g_api = loaded;
  return loaded->version;
}

std::string nccl_unique_id() {
  const char* op = "genesis.distributed";
  UniqueId id{};
  KeepCurrentDevice keep;
  check(api(op).get_unique_id(&id), "ncclGetUniqueId", op);
  return std::string(id.internal, kUniqueIdBytes);
}

NcclWork::~NcclWork() { destroy_event(event_); }
void NcclWork::wait() const { stream_wait_event(current_stream(device_), event_, device_); }
void NcclWork::synchronize() const {
  UnlockedRegion unlocked;
  synchronize_event(event_);
}
bool NcclWork::completed() const { return query_event(event_); }

NcclComm::NcclComm(const std::string& unique_id, int world_size, int rank, int device)
    : rank_(rank), size_(world_size), device_(device) {
  const char* op = "init_process_group";
  const Api& nccl = api(op);
  GENESIS_CHECK_VALUE(unique_id.size() == kUniqueIdBytes, op, "an NCCL unique id has ",
                      kUniqueIdBytes, " bytes, got ", unique_id.size());
  GENESIS_CHECK_VALUE(world_size >= 1 && rank >= 0 && rank < world_size, op, "rank ", rank,
                      " is outside a world of size ", world_size);
  resolve(Device{DeviceType::CUDA, device});
  UniqueId id;
  std::memcpy(id.internal, unique_id.data(), kUniqueIdBytes);
  stream_ = create_stream(device, 0);
  KeepCurrentDevice keep;
  DeviceGuard guard(device);
  Comm comm = nullptr;
  Result r;
  {
    UnlockedRegion unlocked;  // waits for every rank to arrive
    r = nccl.comm_init_rank(&comm, world_size, id, rank);
  }
  if (r != kSuccess) destroy_stream(device, stream_);
  check(r, "ncclCommInitRank", op);
  comm_ = comm;
}

NcclComm::~NcclComm() {
  // At exit the driver may already be gone: a communicator the program did not destroy is
  // left to the process's end rather than torn down against a dead context.
}

void* NcclComm::live(const char* op) const {
  GENESIS_CHECK(comm_ != nullptr, op,
                "the process group's NCCL communicator was destroyed or aborted");
  return comm_;
}

std::string NcclComm::async_error() const {
  if (!comm_) return "";
  const Api& nccl = *g_api;
  Result r = kSuccess;
  if (nccl.comm_get_async_error(comm_, &r) != kSuccess) return "ncclCommGetAsyncError failed";
  if (r == kSuccess || r == kInProgress) return "";
  return nccl.get_error_string(r);
}

void NcclComm::abort() {
  if (!comm_) return;
  UnlockedRegion unlocked;
  KeepCurrentDevice keep;
  g_api->comm_abort(comm_);
  comm_ = nullptr;
}

void NcclComm::destroy() {
  if (!comm_) return;
  {
    UnlockedRegion unlocked;
    synchronize_stream(device_, stream_);
    KeepCurrentDevice keep;
    g_api->comm_destroy(comm_);
  }
  comm_ = nullptr;
  // The stream stays: blocks the collectives used were marked as used on it (record_stream),
  // and the pool records an event on it when they are freed, which may be long after this.
}

template <typename Enqueue>
NcclWorkPtr NcclComm::run(const char* op, std::initializer_list<const Tensor*> tensors,
                          Enqueue enqueue) {
  Comm comm = live(op);
  for (const Tensor* t : tensors) {
    GENESIS_CHECK_VALUE(t->is_cuda() && t->device().index == device_, op,
                        "expects tensors on cuda:", device_,
                        " (the process group's device), got one on ", t->device().str());
    GENESIS_CHECK_VALUE(t->is_contiguous(), op, "expects contiguous tensors");
  }
  DeviceGuard guard(device_);
  StreamId caller = current_stream(device_);
  EventId ready = create_event(device_, false, false);
  record_event(ready, caller, device_);
  stream_wait_event(stream_, ready, device_);
  destroy_event(ready);  // the wait is enqueued; the event may go
  {
    KeepCurrentDevice keep;
    check(enqueue(comm, reinterpret_cast<cudaStream_t>(stream_)), "NCCL", op, comm);
  }
  for (const Tensor* t : tensors)
    if (t->numel() > 0) record_stream(t->storage().data_ptr(), stream_);
  EventId done = create_event(device_, false, false);
  record_event(done, stream_, device_);
  return std::make_shared<NcclWork>(done, device_);
}

NcclWorkPtr NcclComm::all_reduce(const Tensor& input, const Tensor& output, NcclReduce reduce) {
  const char* op = "all_reduce";
  GENESIS_CHECK_VALUE(input.numel() == output.numel() && input.dtype() == output.dtype(), op,
                      "input and output differ in size or dtype");
  Wire w = wire_of(input, &reduce, op);
  return run(op, {&input, &output}, [&](Comm c, cudaStream_t s) {
    return g_api->all_reduce(input.data(), output.mutable_data(), w.count, w.type, w.op, c, s);
  });
}

NcclWorkPtr NcclComm::broadcast(const Tensor& input, const Tensor& output, int root) {
  const char* op = "broadcast";
  GENESIS_CHECK_VALUE(input.numel() == output.numel() && input.dtype() == output.dtype(), op,
                      "input and output differ in size or dtype");
  Wire w = wire_of(input, nullptr, op);
  return run(op, {&input, &output}, [&](Comm c, cudaStream_t s) {
    return g_api->broadcast(input.data(), output.mutable_data(), w.count, w.type, root, c, s);
  });
}

NcclWorkPtr NcclComm::reduce(const Tensor& input, const Tensor& output, NcclReduce reduce,
                             int root) {
  const char* op = "reduce";
  GENESIS_CHECK_VALUE(input.numel() == output.numel() && input.dtype() == output.dtype(), op,
                      "input and output differ in size or dtype");
  Wire w = wire_of(input, &reduce, op);
  return run(op, {&input, &output}, [&](Comm c, cudaStream_t s) {
    return g_api->reduce(input.data(), output.mutable_data(), w.count, w.type, w.op, root, c, s);
  });
}

NcclWorkPtr NcclComm::all_gather(const Tensor& input, const Tensor& output) {
  const char* op = "all_gather";
  GENESIS_CHECK_VALUE(output.numel() == input.numel() * size_ && input.dtype() == output.dtype(),
                      op, "the output needs world_size (", size_, ") times the input's ",
                      input.numel(), " elements of its dtype, got ", output.numel());
  Wire w = wire_of(input, nullptr, op);
  return run(op, {&input, &output}, [&](Comm c, cudaStream_t s) {
    return g_api->all_gather(input.data(), output.mutable_data(), w.count, w.type, c, s);
  });
}

NcclWorkPtr NcclComm::reduce_scatter(const Tensor& input, const Tensor& output, NcclReduce reduce) {
  const char* op = "reduce_scatter";
  GENESIS_CHECK_VALUE(input.numel() == output.numel() * size_ && input.dtype() == output.dtype(),
                      op, "the input needs world_size (", size_, ") times the output's ",
                      output.numel(), " elements of its dtype, got ", input.numel());
  Wire w = wire_of(output, &reduce, op);
  return run(op, {&input, &output}, [&](Comm c, cudaStream_t s) {
    return g_api->reduce_scatter(input.data(), output.mutable_data(), w.count, w.type, w.op, c, s);
  });
}

NcclWorkPtr NcclComm::all_to_all(const Tensor& input, const Tensor& output,
                                 const std::vector<int64_t>& send_counts,
                                 const std::vector<int64_t>& recv_counts) {
  const char* op = "all_to_all";
  GENESIS_CHECK_VALUE(input.dtype() == output.dtype(), op, "input and output differ in dtype");
  GENESIS_CHECK_VALUE(static_cast<int>(send_counts.size()) == size_ &&
                          static_cast<int>(recv_counts.size()) == size_,
                      op, "needs one split size per rank (", size_, ")");
  int64_t sent = 0, received = 0;
  for (int r = 0; r < size_; ++r) {
    GENESIS_CHECK_VALUE(send_counts[r] >= 0 && recv_counts[r] >= 0, op,
                        "split sizes must be non-negative");
    sent += send_counts[r];
    received += recv_counts[r];
  }
  GENESIS_CHECK_VALUE(sent == input.numel() && received == output.numel(), op,
                      "the split sizes add up to ", sent, " and ", received,
                      " elements, but the input has ", input.numel(), " and the output ",
                      output.numel());
  Wire w = wire_of(input, nullptr, op);
  size_t scale = itemsize(input.dtype());  // bytes per element
  return run(op, {&input, &output}, [&](Comm c, cudaStream_t s) {
    const Api& nccl = *g_api;
    auto* in = static_cast<const char*>(input.data());
    auto* out = static_cast<char*>(output.mutable_data());
    size_t per = element_scale(input);
    Result r = nccl.group_start();
    if (r != kSuccess) return r;
    size_t in_at = 0, out_at = 0;
    for (int peer = 0; peer < size_ && r == kSuccess; ++peer) {
      size_t n_send = static_cast<size_t>(send_counts[peer]);
      size_t n_recv = static_cast<size_t>(recv_counts[peer]);
      if (n_send) r = nccl.send(in + in_at * scale, n_send * per, w.type, peer, c, s);
      if (r == kSuccess && n_recv)
        r = nccl.recv(out + out_at * scale, n_recv * per, w.type, peer, c, s);
      in_at += n_send;
      out_at += n_recv;
    }
    Result end = nccl.group_end();
    return r != kSuccess ? r : end;
  });
}

NcclWorkPtr NcclComm::send(const Tensor& tensor, int peer) {
  const char* op = "send";
  Wire w = wire_of(tensor, nullptr, op);
  return run(op, {&tensor}, [&](Comm c, cudaStream_t s) {
    return g_api->send(tensor.data(), w.count, w.type, peer, c, s);
  });
}

NcclWorkPtr NcclComm::recv(const Tensor& tensor, int peer) {
  const char* op = "recv";
  Wire w = wire_of(tensor, nullptr, op);
  return run(op, {&tensor}, [&](Comm c, cudaStream_t s) {
    return g_api->recv(tensor.mutable_data(), w.count, w.type, peer, c, s);
  });
}

}  // namespace genesis::cuda
