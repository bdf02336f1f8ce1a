// Sorting and selection (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, quantile,
// nanquantile, unique, unique_consecutive) and binary search (searchsorted, bucketize): methods
// and genesis.* functions with PyTorch's signatures.
#include <map>
#include <string>
#include <utility>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/creation.h"
#include "ops/search.h"
#include "ops/sort.h"
#include "python/bindings.h"
#include "python/operand.h"
#include "python/tensor_object.h"

namespace genesis::python {

namespace {

// torch.return_types.<name>: a named tuple type (values, indices), one per name, made once.
py::handle values_indices_type(const char* name) {
  static auto* types = new std::map<std::string, py::object>();  // kept for the process's life
  auto it = types->find(name);
  if (it == types->end()) {
    py::object namedtuple = py::module_::import("collections").attr("namedtuple");
    py::object type = namedtuple(name, py::make_tuple("values", "indices"));
    type.attr("__module__") = "genesis.return_types";
    it = types->emplace(name, type).first;
  }
  return it->second;
}

// The named tuple (values, indices); with out=(values, indices), both written (Note [out=
// arguments]) and returned as the named tuple.
py::object pair_result(const char* name, std::pair<Tensor, Tensor> r, py::handle out) {
  return finish_tuple_out(values_indices_type(name),
                          py::make_tuple(std::move(r.first), std::move(r.second)), out, name);
}

py::object single_result(Tensor r, py::handle out, const char* name) {
  GENESIS_CHECK_TYPE(out.is_none() || tensor_of(out.ptr()), name, "out must be a tensor");
  return finish_out(std::move(r), out, name);
}

// unique's result: the values alone, or a tuple with the inverse and/or the counts.
py::object unique_result(ops::UniqueResult r, bool return_inverse, bool return_counts) {
  if (!return_inverse && !return_counts) return py::cast(std::move(r.values));
  py::list items;
  items.append(py::cast(std::move(r.values)));
  if (return_inverse) items.append(py::cast(std::move(r.inverse)));
  if (return_counts) items.append(py::cast(std::move(r.counts)));
  return py::tuple(items);
}

std::optional<int64_t> optional_dim(py::handle dim, const char* op) {
  if (dim.is_none()) return std::nullopt;
  return to_int(dim, op, "dim");
}

// A number, a sequence of numbers or a tensor as a tensor on `like`'s device (numbers take
// like's dtype, as PyTorch's quantile and searchsorted do).
Tensor tensor_arg(py::handle obj, const Tensor& like, const char* op) {
  if (const Tensor* t = tensor_of(obj.ptr())) return *t;
  if (is_scalar_like(obj))
    return ops::full(Shape{}, to_scalar(obj, op), like.dtype(), like.device(), op);
  return tensor_from_data(obj, like.dtype(), like.device());
}

// searchsorted's side= ("left"/"right") agreed with right=.
bool right_of(bool right, py::handle side, const char* op) {
  if (side.is_none()) return right;
  std::string s = py::str(side).cast<std::string>();
  GENESIS_CHECK_VALUE(s == "left" || s == "right", op, "side must be 'left' or 'right', not '", s,
                      "'");
  GENESIS_CHECK_VALUE(!(s == "left" && right), op,
                      "side='left' and right=True contradict each other");
  return s == "right";
}

Tensor search_values(py::handle values, const Tensor& sorted, const char* op) {
  if (const Tensor* t = tensor_of(values.ptr())) return *t;
  GENESIS_CHECK_TYPE(is_scalar_like(values), op, "expected a tensor or a number for the values");
  Scalar s = to_scalar(values, op);
  ScalarType dtype =
      s.is_floating() && !is_floating_point(sorted.dtype()) ? ScalarType::Float64 : sorted.dtype();
  return ops::full(Shape{}, s, dtype, sorted.device(), op);
}

}  // namespace

void init_sort(py::module_& m, py::class_<Tensor>& cls) {
  // sort / argsort / msort
  auto sort = [](const Tensor& t, int64_t dim, bool descending, bool stable, py::handle out) {
    (void)stable;  // always stable (Note [Sort keys])
    return pair_result("sort", ag::sort(t, dim, descending), out);
  };
  m.def("sort", sort, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
        py::arg("stable") = false, py::kw_only(), py::arg("out") = py::none());
  cls.def(
      "sort",
      [sort](const Tensor& t, int64_t dim, bool descending, bool stable) {
        return sort(t, dim, descending, stable, py::none());
      },
      py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  auto argsort = [](const Tensor& t, int64_t dim, bool descending, bool stable) {
    (void)stable;
    return ops::argsort(t, dim, descending);
  };
  m.def("argsort", argsort, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
        py::arg("stable") = false);
  cls.def("argsort", argsort, py::arg("dim") = -1, py::arg("descending") = false,
          py::arg("stable") = false);
  auto msort = [](const Tensor& t) {
    GENESIS_CHECK_INDEX(t.ndim() > 0, "msort", "expected a tensor of at least 1 dim");
    return ag::sort(t, 0, false).first;
  };
  m.def("msort", msort, py::arg("input"));
  cls.def("msort", msort);

  // topk / kthvalue
  auto topk = [](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted,
                 py::handle out) {
    (void)sorted;  // always sorted
    return pair_result("topk", ag::topk(t, k, dim, largest), out);
  };
  m.def("topk", topk, py::arg("input"), py::arg("k"), py::arg("dim") = -1,
        py::arg("largest") = true, py::arg("sorted") = true, py::kw_only(),
        py::arg("out") = py::none());
  cls.def(
      "topk",
      [topk](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
        return topk(t, k, dim, largest, sorted, py::none());
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
  auto kthvalue = [](const Tensor& t, int64_t k, int64_t dim, bool keepdim, py::handle out) {
    return pair_result("kthvalue", ag::kthvalue(t, k, dim, keepdim), out);
  };
  m.def("kthvalue", kthvalue, py::arg("input"), py::arg("k"), py::arg("dim") = -1,
        py::arg("keepdim") = false, py::kw_only(), py::arg("out") = py::none());
  cls.def(
      "kthvalue",
      [kthvalue](const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
        return kthvalue(t, k, dim, keepdim, py::none());
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("keepdim") = false);

  // median / nanmedian / mode
  for (bool ignore_nan : {false, true}) {
    const char* name = ignore_nan ? "nanmedian" : "median";
    auto f = [ignore_nan, name](const Tensor& t, py::handle dim, bool keepdim,
                                py::handle out) -> py::object {
      // As PyTorch: only the form with a dim takes out=.
      GENESIS_CHECK_TYPE(dim.is_none() <= out.is_none(), name,
                         "out= needs a dim (the median of all elements takes no out=)");
      if (dim.is_none()) return single_result(ag::median_all(t, ignore_nan), out, name);
      return pair_result(name, ag::median(t, to_int(dim, name, "dim"), keepdim, ignore_nan), out);
    };
    m.def(name, f, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false,
          py::kw_only(), py::arg("out") = py::none());
    cls.def(
        name,
        [f](const Tensor& t, py::handle dim, bool keepdim) {
          return f(t, dim, keepdim, py::none());
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }
  auto mode = [](const Tensor& t, int64_t dim, bool keepdim, py::handle out) {
    return pair_result("mode", ag::mode(t, dim, keepdim), out);
  };
  m.def("mode", mode, py::arg("input"), py::arg("dim") = -1, py::arg("keepdim") = false,
        py::kw_only(), py::arg("out") = py::none());
  cls.def(
      "mode",
      [mode](const Tensor& t, int64_t dim, bool keepdim) {
        return mode(t, dim, keepdim, py::none());
      },
      py::arg("dim") = -1, py::arg("keepdim") = false);

  // quantile / nanquantile
  for (bool ignore_nan : {false, true}) {
    const char* name = ignore_nan ? "nanquantile" : "quantile";
    auto f = [ignore_nan, name](const Tensor& t, py::handle q, py::handle dim, bool keepdim,
                                const std::string& interpolation, py::handle out) {
      Tensor qs = tensor_arg(q, t, name);
      return single_result(
          ag::quantile(t, qs, optional_dim(dim, name), keepdim, interpolation, ignore_nan, name),
          out, name);
    };
    m.def(name, f, py::arg("input"), py::arg("q"), py::arg("dim") = py::none(),
          py::arg("keepdim") = false, py::kw_only(), py::arg("interpolation") = "linear",
          py::arg("out") = py::none());
    cls.def(
        name,
        [f](const Tensor& t, py::handle q, py::handle dim, bool keepdim,
            const std::string& interpolation) {
          return f(t, q, dim, keepdim, interpolation, py::none());
        },
        py::arg("q"), py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
        py::arg("interpolation") = "linear");
  }

  // unique / unique_consecutive
  auto unique = [](const Tensor& t, bool sorted, bool return_inverse, bool return_counts,
                   py::handle dim) {
    (void)sorted;  // always sorted, as PyTorch on both devices
    return unique_result(
        ops::unique(t, optional_dim(dim, "unique"), {return_inverse, return_counts}),
        return_inverse, return_counts);
  };
  m.def("unique", unique, py::arg("input"), py::arg("sorted") = true,
        py::arg("return_inverse") = false, py::arg("return_counts") = false,
        py::arg("dim") = py::none());
  cls.def("unique", unique, py::arg("sorted") = true, py::arg("return_inverse") = false,
          py::arg("return_counts") = false, py::arg("dim") = py::none());
  auto unique_consecutive = [](const Tensor& t, bool return_inverse, bool return_counts,
                               py::handle dim) {
    return unique_result(ops::unique_consecutive(t, optional_dim(dim, "unique_consecutive"),
                                                 {return_inverse, return_counts}),
                         return_inverse, return_counts);
  };
  m.def("unique_consecutive", unique_consecutive, py::arg("input"),
        py::arg("return_inverse") = false, py::arg("return_counts") = false,
        py::arg("dim") = py::none());
  cls.def("unique_consecutive", unique_consecutive, py::arg("return_inverse") = false,
          py::arg("return_counts") = false, py::arg("dim") = py::none());

  // searchsorted / bucketize
  m.def(
      "searchsorted",
      [](const Tensor& sorted_sequence, py::handle values, bool out_int32, bool right,
         py::handle side, std::optional<Tensor> sorter, py::handle out) {
        const char* op = "searchsorted";
        Tensor v = search_values(values, sorted_sequence, op);
        return single_result(
            ops::searchsorted(sorted_sequence, v, out_int32, right_of(right, side, op), sorter),
            out, op);
      },
      py::arg("sorted_sequence"), py::arg("input"), py::kw_only(), py::arg("out_int32") = false,
      py::arg("right") = false, py::arg("side") = py::none(), py::arg("sorter") = py::none(),
      py::arg("out") = py::none());
  m.def(
      "bucketize",
      [](py::handle input, const Tensor& boundaries, bool out_int32, bool right, py::handle out) {
        const char* op = "bucketize";
        Tensor v = search_values(input, boundaries, op);
        return single_result(ops::bucketize(v, boundaries, out_int32, right), out, op);
      },
      py::arg("input"), py::arg("boundaries"), py::kw_only(), py::arg("out_int32") = false,
      py::arg("right") = false, py::arg("out") = py::none());
}

}  // namespace genesis::python
