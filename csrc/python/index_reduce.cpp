// PyTorch's accumulating index-family functions (ops/index_reduce.h, Note [Accumulating index
// ops]): genesis.X with out= where PyTorch has it, Tensor.X, and the in-place Tensor.X_.
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "ops/convert.h"
#include "ops/index_reduce.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {}  // namespace

void init_index_reduce(py::module_& m, py::class_<Tensor>& cls) {
  // scatter_add
  m.def(
      "scatter_add",
      [](const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src, py::handle out) {
        return finish_out(ag::scatter_add(input, dim, index, src, "scatter_add"), out,
                          "scatter_add");
      },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(),
      py::arg("out") = py::none());
  cls.def(
      "scatter_add",
      [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
        return ag::scatter_add(self, dim, index, src, "scatter_add");
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def(
      "scatter_add_",
      [](py::object self, int64_t dim, const Tensor& index, const Tensor& src) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&src}, "scatter_add_",
            [&](const Tensor& old) {
              return ag::scatter_add(old, dim, index, src, "scatter_add_");
            },
            [&] { ops::scatter_add_(t, dim, index, src); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));

  // scatter_reduce
  m.def(
      "scatter_reduce",
      [](const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
         const std::string& reduce, bool include_self, py::handle out) {
        return finish_out(
            ag::scatter_reduce(input, dim, index, src, reduce, include_self, "scatter_reduce"), out,
            "scatter_reduce");
      },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"),
      py::kw_only(), py::arg("include_self") = true, py::arg("out") = py::none());
  cls.def(
      "scatter_reduce",
      [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
         const std::string& reduce, bool include_self) {
        return ag::scatter_reduce(self, dim, index, src, reduce, include_self, "scatter_reduce");
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);
  cls.def(
      "scatter_reduce_",
      [](py::object self, int64_t dim, const Tensor& index, const Tensor& src,
         const std::string& reduce, bool include_self) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&src}, "scatter_reduce_",
            [&](const Tensor& old) {
              return ag::scatter_reduce(old, dim, index, src, reduce, include_self,
                                        "scatter_reduce_");
            },
            [&] { ops::scatter_reduce_(t, dim, index, src, reduce, include_self); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);

  // index_add
  m.def(
      "index_add",
      [](const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source,
         py::handle alpha, py::handle out) {
        return finish_out(
            ag::index_add(input, dim, index, source, to_scalar(alpha, "index_add"), "index_add"),
            out, "index_add");
      },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(),
      py::arg("alpha") = 1, py::arg("out") = py::none());
  cls.def(
      "index_add",
      [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
         py::handle alpha) {
        return ag::index_add(self, dim, index, source, to_scalar(alpha, "index_add"), "index_add");
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  cls.def(
      "index_add_",
      [](py::object self, int64_t dim, const Tensor& index, const Tensor& source,
         py::handle alpha) {
        const Tensor& t = self.cast<const Tensor&>();
        Scalar a = to_scalar(alpha, "index_add_");
        ag::apply_inplace(
            t, {&source}, "index_add_",
            [&](const Tensor& old) {
              return ag::index_add(old, dim, index, source, a, "index_add_");
            },
            [&] { ops::index_add_(t, dim, index, source, a); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);

  // index_reduce
  m.def(
      "index_reduce",
      [](const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source,
         const std::string& reduce, bool include_self, py::handle out) {
        return finish_out(
            ag::index_reduce(input, dim, index, source, reduce, include_self, "index_reduce"), out,
            "index_reduce");
      },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("source"), py::arg("reduce"),
      py::kw_only(), py::arg("include_self") = true, py::arg("out") = py::none());
  cls.def(
      "index_reduce",
      [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
         const std::string& reduce, bool include_self) {
        return ag::index_reduce(self, dim, index, source, reduce, include_self, "index_reduce");
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);
  cls.def(
      "index_reduce_",
      [](py::object self, int64_t dim, const Tensor& index, const Tensor& source,
         const std::string& reduce, bool include_self) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&source}, "index_reduce_",
            [&](const Tensor& old) {
              return ag::index_reduce(old, dim, index, source, reduce, include_self,
                                      "index_reduce_");
            },
            [&] { ops::index_reduce_(t, dim, index, source, reduce, include_self); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);

  // put
  auto put = [](const Tensor& input, const Tensor& index, const Tensor& source, bool accumulate) {
    return ag::put(input, index, source, accumulate, "put");
  };
  m.def("put", put, py::arg("input"), py::arg("index"), py::arg("source"),
        py::arg("accumulate") = false);
  cls.def("put", put, py::arg("index"), py::arg("source"), py::arg("accumulate") = false);
  cls.def(
      "put_",
      [](py::object self, const Tensor& index, const Tensor& source, bool accumulate) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&source}, "put_",
            [&](const Tensor& old) { return ag::put(old, index, source, accumulate, "put_"); },
            [&] { ops::put_(t, index, source, accumulate); });
        return self;
      },
      py::arg("index"), py::arg("source"), py::arg("accumulate") = false);

  // index_put
  auto index_put = [](const Tensor& input, const std::vector<Tensor>& indices, const Tensor& values,
                      bool accumulate) {
    return ag::index_put(input, indices, values, accumulate, "index_put");
  };
  m.def("index_put", index_put, py::arg("input"), py::arg("indices"), py::arg("values"),
        py::arg("accumulate") = false);
  cls.def("index_put", index_put, py::arg("indices"), py::arg("values"),
          py::arg("accumulate") = false);
  cls.def(
      "index_put_",
      [](py::object self, const std::vector<Tensor>& indices, const Tensor& values,
         bool accumulate) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&values}, "index_put_",
            [&](const Tensor& old) {
              return ag::index_put(old, indices, values, accumulate, "index_put_");
            },
            [&] { ops::index_put_(t, indices, values, accumulate); });
        return self;
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
}

}  // namespace genesis::python
