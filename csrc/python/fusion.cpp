// genesis._C._fusion: the compiled regions of genesis.compile (Note [Fusing by deferring
// elementwise ops] in fusion/group.h).
#include <chrono>
#include <thread>

#include "fusion/background_builds.h"
#include "fusion/cuda_source.h"
#include "fusion/group.h"
#include "fusion/kernel_cache.h"
#include "fusion/nvrtc.h"
#include "python/bindings.h"

namespace genesis::python {

void init_fusion(py::module_& m) {
  py::module_ f = m.def_submodule("_fusion", "genesis.compile's compiled regions");
  f.def("enter_region", &fusion::enter_region, py::arg("fullgraph") = false,
        "Opens a compiled region on this thread (regions nest); fullgraph: a tensor's value read "
        "into Python inside it raises.");
  f.def("exit_region", &fusion::exit_region,
        "Closes it; closing the outermost runs the ops still deferred.");
  f.def("region_active", &fusion::region_active, "Whether this thread is in a compiled region.");
  f.def("flush", &fusion::flush, "Runs this thread's deferred ops now.");
  f.def(
      "stats",
      [] {
        fusion::Stats s = fusion::stats();
        py::dict d;
        d["groups"] = s.groups;
        d["ops"] = s.ops;
        d["results_written"] = s.results_written;
        d["results_skipped"] = s.results_skipped;
        d["bytes_skipped"] = s.bytes_skipped;
        d["results_recomputable"] = s.results_recomputable;
        d["recomputed_in_groups"] = s.recomputed_in_groups;
        d["recomputed_alone"] = s.recomputed_alone;
        d["recipes_alive"] = s.recipes_alive;
        return d;
      },
      "What the fused groups run so far did: groups, ops, results written and skipped, bytes "
      "of memory traffic saved, results left to recompute for backward and how they were "
      "recomputed.");
  f.def("set_cpu_min_items", &fusion::set_cpu_min_items, py::arg("items"),
        "The fewest items a CPU op needs to start a fused group (default 4096; smaller ops run "
        "as eager code unless a group they fit is open).");
  f.def("set_recompute", &fusion::set_recompute, py::arg("on"),
        "Whether results only autograd holds are recomputed for backward instead of written: "
        "True, False, or None (the default: on CUDA only).");
  f.def("reset_stats", &fusion::reset_stats, "Sets the counters of stats() to zero.");
  f.def("set_logging", &fusion::set_logging, py::arg("on"),
        "Describes each fused group on stderr as it runs (GENESIS_LOGS=compile).");
  f.def("set_cuda_fusion", &fusion::set_cuda_fusion, py::arg("on"),
        "Whether CUDA groups are deferred (the default, unless GENESIS_COMPILE_CUDA=0).");
  f.def("cuda_fusion", &fusion::cuda_fusion,
        "Whether CUDA groups are deferred now (switched on and NVRTC loaded).");
  f.def(
      "nvrtc_available",
      [] {
        std::string why;
        bool ok = fusion::nvrtc_available(&why);
        return py::make_tuple(ok, why);
      },
      "(loaded, why not): whether NVRTC could be loaded.");
  f.def("nvrtc_version", &fusion::nvrtc_version, "NVRTC's version as major * 1000 + minor * 10.");
  f.def("set_nvrtc_search_dirs", &fusion::set_nvrtc_search_dirs, py::arg("dirs"),
        "The Python environment's nvidia-cuda-nvrtc directories, tried before the toolkit's.");
  f.def("set_background_builds", &fusion::set_background_builds, py::arg("on"),
        "Whether new programs are built on worker threads while their groups run op by op (the "
        "default; GENESIS_COMPILE_SYNC=1 builds them first).");
  f.def("background_builds", &fusion::background_builds,
        "Whether new programs are built in the background.");
  f.def("wait_for_builds", &fusion::wait_for_builds, py::call_guard<py::gil_scoped_release>(),
        "Waits until no program is being built in the background.");
  f.def(
      "build_stats",
      [] {
        fusion::BuildStats s = fusion::build_stats();
        py::dict d;
        d["started"] = s.started;
        d["finished"] = s.finished;
        d["failed"] = s.failed;
        d["pending"] = s.pending;
        return d;
      },
      "The background builds' counters: started, finished, failed, pending (queued or running).");
  f.def("cache_folder", &fusion::cache_folder, "The disk cache's folder ('' when none).");
  f.def(
      "cache_stats",
      [] {
        fusion::CacheStats s = fusion::cache_stats();
        py::dict d;
        d["memory_hits"] = s.memory_hits;
        d["disk_hits"] = s.disk_hits;
        d["builds"] = s.builds;
        d["disk_writes"] = s.disk_writes;
        d["disk_rejected"] = s.disk_rejected;
        return d;
      },
      "The kernel cache's counters.");
  f.def("clear_memory_cache", &fusion::clear_memory_cache,
        "Forgets the in-memory programs (the disk cache stays).");
  // Tests.
  f.def("_set_eager_executor", &fusion::set_eager_executor_for_tests, py::arg("on"));
  f.def("_capture_sources", &fusion::capture_sources_for_tests, py::arg("on"));
  f.def("_captured_sources", &fusion::captured_sources);
  f.def("_captured_key_mismatches", &fusion::captured_key_mismatches);
  f.def(
      "_nvrtc_compile",
      [](const std::string& source, const std::string& name, int arch) {
        std::string cubin = fusion::nvrtc_compile(source, name, fusion::kernel_headers(), arch);
        return py::bytes(cubin);
      },
      py::arg("source"), py::arg("name"), py::arg("arch"));
  f.def(
      "_cached",
      [](const std::string& key, const std::string& value) {
        bool built = false;
        std::string got = fusion::cached_cubin(key, [&] {
          built = true;
          return value;
        });
        return py::make_tuple(py::bytes(got), built);
      },
      py::arg("key"), py::arg("value"),
      "The cache's entry for key, stored as value when it has none: (entry, built).");
  f.def(
      "_cached_or_build_in_background",
      [](const std::string& key, const std::string& value, bool fail, double seconds) {
        std::string got;
        bool found = fusion::cubin_or_start_build(
            key,
            [value, fail, seconds] {
              std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
              if (fail) throw Error(ErrorKind::Runtime, "[compile] a test build that fails");
              return value;
            },
            got);
        return py::make_tuple(found, py::bytes(got));
      },
      py::arg("key"), py::arg("value"), py::arg("fail") = false, py::arg("seconds") = 0.0,
      "(found, entry): the cache's entry for key, else (False, b'') and a background build that "
      "stores value after `seconds` (or fails).");
}

}  // namespace genesis::python
