// genesis._C._distributed: NCCL communicators and work handles (cuda/nccl.h) for the
// genesis.distributed package, which does the rendezvous, the process groups and the argument
// handling in Python.
#include <string>
#include <vector>

#include "core/errors.h"
#include "cuda/nccl.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

cuda::NcclReduce reduce_of(const std::string& name, const char* op) {
  if (name == "sum") return cuda::NcclReduce::Sum;
  if (name == "product") return cuda::NcclReduce::Prod;
  if (name == "max") return cuda::NcclReduce::Max;
  if (name == "min") return cuda::NcclReduce::Min;
  if (name == "avg") return cuda::NcclReduce::Avg;
  GENESIS_FAIL(ErrorKind::Value, op, "unknown reduction '", name,
               "' (expected sum, product, max, min or avg)");
}

}  // namespace

void init_distributed(py::module_& m) {
  py::module_ d = m.def_submodule("_distributed", "NCCL bindings for genesis.distributed");
  d.def("nccl_load", &cuda::nccl_load, py::arg("candidates"),
        py::call_guard<py::gil_scoped_release>());
  d.def("nccl_unique_id", [] { return py::bytes(cuda::nccl_unique_id()); });

  py::class_<cuda::NcclWork, cuda::NcclWorkPtr>(d, "NcclWork")
      .def("wait", &cuda::NcclWork::wait)
      .def("synchronize", &cuda::NcclWork::synchronize)
      .def("completed", &cuda::NcclWork::completed);

  using Comm = cuda::NcclComm;
  py::class_<Comm>(d, "NcclComm")
      .def(py::init([](py::bytes id, int world_size, int rank, int device) {
             return new Comm(std::string(id), world_size, rank, device);
           }),
           py::arg("unique_id"), py::arg("world_size"), py::arg("rank"), py::arg("device"))
      .def_property_readonly("rank", &Comm::rank)
      .def_property_readonly("size", &Comm::size)
      .def_property_readonly("device", &Comm::device)
      .def_property_readonly("stream", &Comm::stream)
      .def(
          "all_reduce",
          [](Comm& c, const Tensor& in, const Tensor& out, const std::string& op) {
            return c.all_reduce(in, out, reduce_of(op, "all_reduce"));
          },
          py::arg("input"), py::arg("output"), py::arg("op"))
      .def("broadcast", &Comm::broadcast, py::arg("input"), py::arg("output"), py::arg("root"))
      .def(
          "reduce",
          [](Comm& c, const Tensor& in, const Tensor& out, const std::string& op, int root) {
            return c.reduce(in, out, reduce_of(op, "reduce"), root);
          },
          py::arg("input"), py::arg("output"), py::arg("op"), py::arg("root"))
      .def("all_gather", &Comm::all_gather, py::arg("input"), py::arg("output"))
      .def(
          "reduce_scatter",
          [](Comm& c, const Tensor& in, const Tensor& out, const std::string& op) {
            return c.reduce_scatter(in, out, reduce_of(op, "reduce_scatter"));
          },
          py::arg("input"), py::arg("output"), py::arg("op"))
      .def("all_to_all", &Comm::all_to_all, py::arg("input"), py::arg("output"),
           py::arg("send_counts"), py::arg("recv_counts"))
      .def("send", &Comm::send, py::arg("tensor"), py::arg("peer"))
      .def("recv", &Comm::recv, py::arg("tensor"), py::arg("peer"))
      .def("async_error", &Comm::async_error)
      .def("abort", &Comm::abort)
      .def("destroy", &Comm::destroy);
}

}  // namespace genesis::python
