// genesis.outer/dot/vdot/inner/addmm/_addmm_activation/addbmm/baddbmm/addmv/mv/kron/cross/cdist/
// tensordot/einsum
// with out= where PyTorch has it, the Tensor methods, the in-place add*_ forms, and
// genesis.linalg.cross (in the _C._linalg submodule).
#include <string>
#include <vector>

#include "autograd/node.h"
#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/einsum.h"
#include "ops/products.h"
#include "python/bindings.h"
#include "python/operand.h"
#include "python/tensor_object.h"

namespace genesis::python {

namespace {

using ScaledFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&,
                            const Scalar&);

// tensordot recorded as the einsum it is: a's dims, b's free dims, b's contracted dims named as
// the dims of a they meet.
Tensor tensordot_recorded(const Tensor& a, const Tensor& b, const Shape& da, const Shape& db,
                          Tensor out) {
  if (a.ndim() + b.ndim() > 52 || da.size() != db.size()) return out;
  auto letter = [](int64_t i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + (i - 26)); };
  auto wrap = [](int64_t d, int64_t n) { return d < 0 ? d + n : d; };
  std::string la, lb(static_cast<size_t>(b.ndim()), ' '), lo;
  std::vector<bool> a_contracted(static_cast<size_t>(a.ndim()), false);
  for (int64_t i = 0; i < a.ndim(); ++i) la += letter(i);
  for (size_t k = 0; k < da.size(); ++k) {
    int64_t ia = wrap(da[k], a.ndim()), ib = wrap(db[k], b.ndim());
    if (ia < 0 || ia >= a.ndim() || ib < 0 || ib >= b.ndim()) return out;
    a_contracted[ia] = true;
    lb[ib] = la[ia];
  }
  for (int64_t i = 0; i < a.ndim(); ++i)
    if (!a_contracted[i]) lo += la[i];
  for (int64_t j = 0, next = a.ndim(); j < b.ndim(); ++j)
    if (lb[j] == ' ') lb[j] = letter(next++), lo += lb[j];
  return ag::product_as_einsum("TensordotBackward0", out, la + "," + lb + "->" + lo, {a, b});
}

// tensordot's dims: an int n, or a pair of dim lists (each an int or a sequence of ints).
Tensor tensordot(const Tensor& a, const Tensor& b, py::handle dims) {
  const char* op = "tensordot";
  if (PyIndex_Check(dims.ptr()) && !py::isinstance<Tensor>(dims)) {
    int64_t n = to_int(dims, op, "dims");
    Tensor out = ops::tensordot(a, b, n);
    Shape da, db;
    for (int64_t k = 0; k < n; ++k) da.push_back(a.ndim() - n + k), db.push_back(k);
    return tensordot_recorded(a, b, da, db, out);
  }
  GENESIS_CHECK_TYPE(py::isinstance<py::sequence>(dims) && !py::isinstance<py::str>(dims), op,
                     "dims must be an int or a pair of dim lists");
  std::vector<py::object> pair = sequence_items(dims, op, "dims", 2);
  GENESIS_CHECK_TYPE(pair.size() == 2, op, "dims must be a pair of dim lists, got ", pair.size(),
                     " items");
  auto dim_list = [op](py::handle h) {
    if (PyIndex_Check(h.ptr())) return Shape{to_int(h, op, "dims")};
    return to_shape(h, op);
  };
  Shape da = dim_list(pair[0]), db = dim_list(pair[1]);
  return tensordot_recorded(a, b, da, db, ops::tensordot(a, b, da, db));
}

// kron under autograd: the einsum of a and b (padded to as many dims) with each pair of dims
// interleaved, reshaped to the products of the sizes.
Tensor kron(const Tensor& a, const Tensor& b) {
  if (!autograd::any_requires_grad({&a, &b}) || std::max(a.ndim(), b.ndim()) > 26)
    return ops::kron(a, b);
  int64_t n = std::max(a.ndim(), b.ndim());
  Shape pa(static_cast<size_t>(n - a.ndim()), 1), pb(static_cast<size_t>(n - b.ndim()), 1), sizes;
  pa.insert(pa.end(), a.sizes().begin(), a.sizes().end());
  pb.insert(pb.end(), b.sizes().begin(), b.sizes().end());
  std::string la, lb, lo;
  for (int64_t i = 0; i < n; ++i) {
    la += static_cast<char>('a' + i), lb += static_cast<char>('A' + i);
    lo += la.back(), lo += lb.back();
    sizes.push_back(pa[i] * pb[i]);
  }
  Tensor e = ag::einsum(la + "," + lb + "->" + lo, {ag::reshape(a, pa), ag::reshape(b, pb)});
  return ag::reshape(e, sizes);
}

// A sublist's subscripts as equation letters: 0..25 are 'A'..'Z', 26..51 'a'..'z' (PyTorch's
// numbering), Ellipsis is "...".
std::string sublist_letters(py::handle sublist, const char* op) {
  std::string out;
  for (const py::object& item : sequence_items(sublist, op, "a sublist", kMaxDims)) {
    if (item.is(py::ellipsis())) {
      out += "...";
      continue;
    }
    int64_t n = to_int(item, op, "a subscript");
    GENESIS_CHECK_VALUE(n >= 0 && n < 52, op, "subscripts in a sublist must be in [0, 52), got ",
                        n);
    out += static_cast<char>(n < 26 ? 'A' + n : 'a' + (n - 26));
  }
  return out;
}

// einsum(equation, *operands), einsum(equation, [operands]) or the sublist form
// einsum(op0, sublist0, op1, sublist1, ..., [output sublist]), as torch.einsum(*args).
Tensor einsum(const py::args& args) {
  const char* op = "einsum";
  GENESIS_CHECK_VALUE(args.size() >= 1, op,
                      "expected the equation and at least one operand, or operands and their "
                      "sublists");
  std::vector<Tensor> operands;
  std::string equation;
  auto take = [&](py::handle item) {
    const Tensor* t = tensor_of(item.ptr());
    GENESIS_CHECK_TYPE(t != nullptr, op, "expected tensors as operands, got ", type_name(item));
    operands.push_back(*t);
  };
  if (py::isinstance<py::str>(args[0])) {
    equation = args[0].cast<std::string>();
    py::handle seq = args;
    size_t skip = 1;
    if (args.size() == 2 && !py::isinstance<Tensor>(args[1])) {
      GENESIS_CHECK_TYPE(py::isinstance<py::sequence>(args[1]), op,
                         "expected tensors as operands or one list of them");
      seq = args[1];
      skip = 0;
    }
    std::vector<py::object> items = sequence_items(seq, op, "operands", 1 << 16);
    for (size_t i = skip; i < items.size(); ++i) take(items[i]);
  } else {
    GENESIS_CHECK_TYPE(py::isinstance<Tensor>(args[0]), op,
                       "expected an equation string or a tensor first, got ", type_name(args[0]));
    size_t pairs = args.size() / 2;
    for (size_t i = 0; i < pairs; ++i) {
      take(args[2 * i]);
      equation += (i ? "," : "") + sublist_letters(args[2 * i + 1], op);
    }
    if (args.size() % 2 == 1) equation += "->" + sublist_letters(args[args.size() - 1], op);
  }
  return ag::einsum(equation, operands);
}

}  // namespace

namespace {
// inner: over the last dims, every other dim of a then of b kept (einsum's gradient).
Tensor inner(const Tensor& a, const Tensor& b) {
  if (a.ndim() == 0 || b.ndim() == 0)  // a scalar factor: a product
    return ag::binary(ops::BinaryOp::Mul, a, b, "inner");
  Tensor out = ops::inner(a, b);
  std::string la, lb, lo;
  for (int64_t i = 0; i + 1 < a.ndim(); ++i) la += static_cast<char>('a' + i), lo += la.back();
  for (int64_t i = 0; i + 1 < b.ndim(); ++i)
    lb += static_cast<char>('a' + a.ndim() + i), lo += lb.back();
  return ag::product_as_einsum("InnerBackward0", out, la + "z," + lb + "z->" + lo, {a, b});
}
}  // namespace

void init_products(py::module_& m, py::class_<Tensor>& cls) {
  // Two-tensor products: genesis.X(input, <other>, *, out=None) and Tensor.X(<other>).
  struct Pair {
    const char* name;
    const char* other;
    Tensor (*fn)(const Tensor&, const Tensor&);
  };
  static const Pair kPairs[] = {
      {"outer", "vec2",
       [](const Tensor& a, const Tensor& b) {
         return ag::product_as_einsum("OuterBackward0", ops::outer(a, b), "i,j->ij", {a, b});
       }},
      {"dot", "tensor",
       [](const Tensor& a, const Tensor& b) {
         return ag::product_as_einsum("DotBackward0", ops::dot(a, b, "dot"), "i,i->", {a, b});
       }},
      {"vdot", "other",
       [](const Tensor& a, const Tensor& b) {
         return ag::product_as_einsum("VdotBackward0", ops::dot(a, b, "vdot"), "i,i->", {a, b});
       }},
      {"inner", "other", [](const Tensor& a, const Tensor& b) { return inner(a, b); }},
      {"mv", "vec",
       [](const Tensor& a, const Tensor& b) {
         return ag::product_as_einsum("MvBackward0", ops::mv(a, b), "ij,j->i", {a, b});
       }},
      {"kron", "other", [](const Tensor& a, const Tensor& b) { return kron(a, b); }},
  };
  for (const Pair& p : kPairs) {
    auto fn = p.fn;
    const char* name = p.name;
    m.def(
        name,
        [fn, name](const Tensor& a, const Tensor& b, py::handle out) {
          return finish_out(fn(a, b), out, name);
        },
        py::arg("input"), py::arg(p.other), py::kw_only(), py::arg("out") = py::none());
    cls.def(name, fn, py::arg(p.other));
  }

  // beta * input + alpha * product: function with out=, method, in-place method.
  struct Scaled {
    const char* name;
    const char* inplace;
    const char* first;
    const char* second;
    ScaledFn fn;
    const char* equation;  // the product, for its gradient
  };
  static const Scaled kScaled[] = {
      {"addmm", "addmm_", "mat1", "mat2", &ops::addmm, "ij,jk->ik"},
      {"addbmm", "addbmm_", "batch1", "batch2", &ops::addbmm, "bij,bjk->ik"},
      {"baddbmm", "baddbmm_", "batch1", "batch2", &ops::baddbmm, "bij,bjk->bik"},
      {"addmv", "addmv_", "mat", "vec", &ops::addmv, "ij,j->i"},
  };
  for (const Scaled& s : kScaled) {
    ScaledFn fn = s.fn;
    const char* name = s.name;
    const char* inplace = s.inplace;
    const char* equation = s.equation;
    auto call = [fn, name, equation](const Tensor& input, const Tensor& x, const Tensor& y,
                                     py::handle beta, py::handle alpha) {
      Scalar b = to_scalar(beta, name), a = to_scalar(alpha, name);
      return ag::product_as_einsum(name, fn(input, x, y, b, a), equation, {x, y}, a, &input, b);
    };
    m.def(
        name,
        [call, name](const Tensor& input, const Tensor& x, const Tensor& y, py::handle beta,
                     py::handle alpha, py::handle out) {
          return finish_out(call(input, x, y, beta, alpha), out, name);
        },
        py::arg("input"), py::arg(s.first), py::arg(s.second), py::kw_only(), py::arg("beta") = 1,
        py::arg("alpha") = 1, py::arg("out") = py::none());
    cls.def(name, call, py::arg(s.first), py::arg(s.second), py::kw_only(), py::arg("beta") = 1,
            py::arg("alpha") = 1);
    cls.def(
        inplace,
        [fn, inplace](py::object self, const Tensor& x, const Tensor& y, py::handle beta,
                      py::handle alpha) {
          const Tensor& t = self.cast<const Tensor&>();
          ops::check_product_target(t, inplace);  // before the product is computed
          ops::add_product_(t, fn(t, x, y, to_scalar(beta, inplace), to_scalar(alpha, inplace)),
                            inplace);
          return self;
        },
        py::arg(s.first), py::arg(s.second), py::kw_only(), py::arg("beta") = 1,
        py::arg("alpha") = 1);
  }

  m.def(
      "_addmm_activation",
      [](const Tensor& input, const Tensor& x, const Tensor& y, py::handle beta, py::handle alpha,
         bool use_gelu, py::handle out) {
        const char* name = "_addmm_activation";
        Scalar b = to_scalar(beta, name), a = to_scalar(alpha, name);
        return finish_out(ag::addmm_activation(input, x, y, b, a, use_gelu), out, name);
      },
      py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1,
      py::arg("alpha") = 1, py::arg("use_gelu") = false, py::arg("out") = py::none());

  auto cross = [](const Tensor& a, const Tensor& b, std::optional<int64_t> dim, py::handle out) {
    return finish_out(ag::cross(a, b, dim, "cross"), out, "cross");
  };
  m.def("cross", cross, py::arg("input"), py::arg("other"), py::arg("dim") = py::none(),
        py::kw_only(), py::arg("out") = py::none());
  cls.def(
      "cross",
      [](const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
        return ag::cross(a, b, dim, "cross");
      },
      py::arg("other"), py::arg("dim") = py::none());
  m.def(
      "cdist",
      [](const Tensor& x1, const Tensor& x2, double p, const std::string& mode) {
        return ag::cdist(x1, x2, p, mode);
      },
      py::arg("x1"), py::arg("x2"), py::arg("p") = 2.0,
      py::arg("compute_mode") = "use_mm_for_euclid_dist_if_necessary");
  m.def(
      "tensordot",
      [](const Tensor& a, const Tensor& b, py::handle dims, py::handle out) {
        return finish_out(tensordot(a, b, dims), out, "tensordot");
      },
      py::arg("a"), py::arg("b"), py::arg("dims") = 2, py::arg("out") = py::none());
  m.def("einsum", &einsum);

  py::module_ linalg = m.attr("_linalg").cast<py::module_>();
  linalg.def(
      "cross",
      [](const Tensor& a, const Tensor& b, int64_t dim, py::handle out) {
        return finish_out(ag::cross(a, b, dim, "linalg.cross"), out, "linalg.cross");
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("dim") = -1,
      py::arg("out") = py::none());
}

}  // namespace genesis::python
