// genesis._C._cuda: devices, streams, events and the memory pools, as thin handles for the
// genesis.cuda package. Devices are indices (-1: the current device); streams and events are
// integer handles.
#include "core/allocator.h"
#include "core/errors.h"
#include "core/index_check.h"
#include "core/sync_debug.h"
#include "cuda/blas.h"
#include "cuda/copy.h"
#include "cuda/cudnn.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "fusion/group.h"
#include "memory/caching_pool.h"
#include "python/bindings.h"

namespace genesis::python {

py::list snapshot_list(const std::vector<memory::SegmentSnapshot>& segments);

namespace {

int device_index(int device) { return cuda::resolve(Device{DeviceType::CUDA, device}).index; }

// The device's pool, or nullptr when there is no GPU or nothing was ever allocated on it.
memory::CachingPool* pool_or_null(int device) {
  if (cuda::device_count() == 0) return nullptr;
  return cuda::device_pool(device_index(device));
}

// Whether this process may release pooled memory: not a child forked after CUDA started, whose
// pools are the parent's (Note [CUDA after fork] in cuda/runtime.h; PyTorch's empty_cache does
// nothing there either), and not without a GPU.
bool may_release() { return cuda::device_count() > 0 && !cuda::forked_after_cuda_started(); }

// The device's pool, created if needed (setting a fraction before the first tensor is fine).
memory::CachingPool* pool_for(int device) {
  int index = device_index(device);
  cuda::allocator(index);
  return cuda::device_pool(index);
}

// Note [Sync debug mode]: "warn" becomes a UserWarning; a filter that makes it an error raises
// from the waiting op, before it waits.
void warn_about_sync(const char* message) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message, 1) < 0) throw py::error_already_set();
}

// A stream or event call that first runs the thread's deferred ops (Note [Fusing by deferring
// elementwise ops]): their kernels go to their streams before the event is recorded, waited on
// or synchronized, or the current stream changes, as eager code's would have.
template <auto F, typename R, typename... Args>
R flushing_call(Args... args) {
  fusion::flush();
  return F(args...);
}
template <auto F, typename R, typename... Args>
constexpr auto flushing(R (*)(Args...)) {
  return &flushing_call<F, R, Args...>;
}
template <auto F>
constexpr auto flushing_first = flushing<F>(F);

}  // namespace

void init_cuda(py::module_& m) {
  py::module_ c = m.def_submodule("_cuda", "CUDA runtime bindings");
  c.def("is_compiled", &cuda::compiled);
  set_sync_warning_hook(&warn_about_sync);
  c.def("set_sync_debug_mode",
        [](int mode) { set_sync_debug_mode(static_cast<SyncDebugMode>(mode)); });
  c.def("get_sync_debug_mode", [] { return static_cast<int>(sync_debug_mode()); });
  c.def("set_index_check", [](bool immediate) {
    set_index_check_mode(immediate ? IndexCheckMode::Immediate : IndexCheckMode::Deferred);
  });
  c.def("get_index_check", [] { return index_check_mode() == IndexCheckMode::Immediate; });
  c.def("is_available", [] { return cuda::device_count() > 0; });
  c.def("device_count", &cuda::device_count);
  c.def("current_device", &cuda::current_device);
  c.def("set_device", &cuda::set_device);
  c.def("architectures", &cuda::architectures);
  c.def("runtime_version", &cuda::runtime_version);
  c.def(
      "synchronize",
      [](int device) {
        fusion::flush();
        cuda::synchronize_device(device);
      },
      py::arg("device") = -1, py::call_guard<py::gil_scoped_release>());

  // Streams.
  c.def(
      "current_stream", [](int device) { return cuda::current_stream(device); },
      py::arg("device") = -1);
  c.def("set_current_stream", flushing_first<&cuda::set_current_stream>, py::arg("device"),
        py::arg("stream"));
  c.def(
      "create_stream",
      [](int device, int priority) { return cuda::create_stream(device_index(device), priority); },
      py::arg("device") = -1, py::arg("priority") = 0);
  c.def("destroy_stream", &cuda::destroy_stream);
  c.def("synchronize_stream", flushing_first<&cuda::synchronize_stream>,
        py::call_guard<py::gil_scoped_release>());
  c.def("query_stream", flushing_first<&cuda::query_stream>);

  // Events.
  c.def(
      "create_event",
      [](int device, bool timing, bool blocking) {
        return cuda::create_event(device_index(device), timing, blocking);
      },
      py::arg("device") = -1, py::arg("enable_timing") = false, py::arg("blocking") = false);
  c.def("destroy_event", &cuda::destroy_event);
  c.def("record_event", flushing_first<&cuda::record_event>, py::arg("event"), py::arg("stream"),
        py::arg("device"));
  c.def("query_event", flushing_first<&cuda::query_event>);
  c.def("synchronize_event", flushing_first<&cuda::synchronize_event>,
        py::call_guard<py::gil_scoped_release>());
  c.def("elapsed_time", &cuda::elapsed_ms);
  c.def("stream_wait_event", flushing_first<&cuda::stream_wait_event>, py::arg("stream"),
        py::arg("event"), py::arg("device"));

  c.def("can_access_peer", [](int device, int peer) {
    int a = device_index(device), b = device_index(peer);
    return a != b && cuda::can_access_peer(a, b);
  });

  // Device facts.
  c.def(
      "device_properties",
      [](int device) {
        cuda::DeviceProperties p = cuda::device_properties(device);
        py::dict d;
        d["name"] = p.name;
        d["total_memory"] = p.total_memory;
        d["multi_processor_count"] = p.multi_processor_count;
        d["major"] = p.major;
        d["minor"] = p.minor;
        return d;
      },
      py::arg("device") = -1);
  c.def(
      "mem_get_info",
      [](int device) {
        size_t free_b = 0, total_b = 0;
        cuda::memory_info(device, &free_b, &total_b);
        return py::make_tuple(free_b, total_b);
      },
      py::arg("device") = -1);

  // The device pools.
  c.def(
      "memory_stats",
      [](int device) {
        memory::CachingPool* pool = pool_or_null(device);
        return pool ? pool->stats().flatten() : memory::PoolStats{}.flatten();
      },
      py::arg("device") = -1);
  c.def(
      "memory_snapshot",
      [](int device) {
        memory::CachingPool* pool = pool_or_null(device);
        return pool ? snapshot_list(pool->snapshot()) : py::list();
      },
      py::arg("device") = -1);
  // empty_cache and the pending frees say what they released: (bytes, segments), bytes.
  c.def(
      "empty_cache",
      [](int device) {
        memory::ReleaseReport r;
        if (memory::CachingPool* pool = may_release() ? pool_or_null(device) : nullptr)
          r = pool->empty_cache();
        return py::make_tuple(r.bytes, r.segments);
      },
      py::arg("device") = -1);
  c.def(
      "process_pending_frees",
      [](int device) -> size_t {
        memory::CachingPool* pool = may_release() ? pool_or_null(device) : nullptr;
        return pool ? pool->process_pending_frees() : 0;
      },
      py::arg("device") = -1);
  // Note [Cache cap] in memory/caching_pool.h; -1: no cap.
  c.def(
      "set_cache_size",
      [](int64_t nbytes, int device) {
        pool_for(device)->set_max_cached_bytes(nbytes < 0 ? memory::kNoCacheCap
                                                          : static_cast<size_t>(nbytes));
      },
      py::arg("nbytes"), py::arg("device") = -1);
  c.def(
      "get_cache_size",
      [](int device) -> int64_t {
        memory::CachingPool* pool = pool_or_null(device);
        size_t cap = pool ? pool->max_cached_bytes() : memory::kNoCacheCap;
        return cap == memory::kNoCacheCap ? -1 : static_cast<int64_t>(cap);
      },
      py::arg("device") = -1);
  c.def(
      "set_memory_fraction",
      [](double fraction, int device) { pool_for(device)->set_memory_fraction(fraction); },
      py::arg("fraction"), py::arg("device") = -1);
  c.def(
      "get_memory_fraction",
      [](int device) {
        memory::CachingPool* pool = pool_or_null(device);
        return pool ? pool->memory_fraction() : 1.0;
      },
      py::arg("device") = -1);
  c.def(
      "reset_peak_memory_stats",
      [](int device) {
        if (memory::CachingPool* pool = pool_or_null(device)) pool->reset_peak_stats();
      },
      py::arg("device") = -1);
  c.def(
      "reset_accumulated_memory_stats",
      [](int device) {
        if (memory::CachingPool* pool = pool_or_null(device)) pool->reset_accumulated_stats();
      },
      py::arg("device") = -1);
  c.def("host_memory_stats", [] {
    memory::CachingPool* pool = cuda::device_count() > 0 ? cuda::pinned_pool() : nullptr;
    return pool ? pool->stats().flatten() : memory::PoolStats{}.flatten();
  });
  c.def("host_empty_cache", [] {
    memory::ReleaseReport r;
    if (may_release()) r = cuda::pinned_pool()->empty_cache();
    return py::make_tuple(r.bytes, r.segments);
  });
  c.def("host_process_pending_frees", []() -> size_t {
    return may_release() ? cuda::pinned_pool()->process_pending_frees() : 0;
  });
  // Note [Pinned CPU tensors] in core/allocator.h: returns whether CPU tensors now come from
  // the pinned pool (never without a GPU).
  c.def(
      "set_pinned_cpu_tensors",
      [](bool on) {
        Allocator* pinned =
            on && cuda::device_count() > 0 ? cuda::pinned_cpu_tensor_allocator() : nullptr;
        set_cpu_tensor_allocator(pinned);
        return pinned != nullptr;
      },
      py::arg("on"));
  // genesis.backends.cuda (Note [cuBLASLt matmul] in csrc/cuda/blas_lt.cpp).
  c.def("set_allow_tf32", &cuda::set_allow_tf32, py::arg("allow"));
  c.def("allow_tf32", &cuda::allow_tf32);
  // genesis.backends.cudnn (Note [Loading cuDNN] in csrc/cuda/cudnn.cpp).
  c.def("cudnn_available", &cuda::cudnn_available);
  c.def("cudnn_version", &cuda::cudnn_version);
  c.def("set_cudnn_search_dirs", &cuda::set_cudnn_search_dirs, py::arg("dirs"));
  c.def("set_prefer_cublaslt", &cuda::set_prefer_cublaslt, py::arg("prefer"));
  c.def("prefer_cublaslt", &cuda::prefer_cublaslt);
  // What cuBLASLt did: {"available", "calls", "fallbacks", "cached", "aux_calls"}
  // (csrc/cuda/blas.h).
  c.def("blaslt_stats", [] {
    cuda::LtStats s = cuda::lt_stats();
    py::dict d;
    d["available"] = s.available;
    d["calls"] = s.calls;
    d["fallbacks"] = s.fallbacks;
    d["cached"] = s.cached;
    d["aux_calls"] = s.aux_calls;
    return d;
  });
}

}  // namespace genesis::python
