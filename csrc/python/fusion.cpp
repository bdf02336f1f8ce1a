// genesis._C._fusion: the compiled regions of genesis.compile (Note [Fusing by deferring
// elementwise ops] in fusion/group.h).
#include "fusion/group.h"
#include "python/bindings.h"

namespace genesis::python {

void init_fusion(py::module_& m) {
  py::module_ f = m.def_submodule("_fusion", "genesis.compile's compiled regions");
  f.def("enter_region", &fusion::enter_region,
        "Opens a compiled region on this thread (regions nest).");
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
        return d;
      },
      "What the fused groups run so far did: groups, ops, results written and skipped, bytes "
      "of memory traffic saved.");
  f.def("reset_stats", &fusion::reset_stats, "Sets the counters of stats() to zero.");
  f.def("set_logging", &fusion::set_logging, py::arg("on"),
        "Describes each fused group on stderr as it runs (GENESIS_LOGS=compile).");
}

}  // namespace genesis::python
