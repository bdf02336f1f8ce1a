// torch.nn.functional's activations with PyTorch's signatures, inplace= included (the _C._nn
// submodule: genesis.nn.functional, and genesis.gelu ... for the ones torch.nn.functional alone
// has) and the elementwise composites lerp, addcmul,
// addcdiv, clamp_min/clamp_max, nan_to_num, isclose, allclose and equal, with their methods,
// in-place forms and out=.
#include <optional>
#include <string>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/activation.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

using ops::UnaryOp;

// The activation's result, written back into input when inplace (PyTorch's F.x(..., inplace)).
py::object maybe_inplace(py::handle input, Tensor result, bool inplace, const char* name) {
  if (!inplace) return py::cast(std::move(result));
  ops::assign_(input.cast<const Tensor&>(), result, name);
  return py::reinterpret_borrow<py::object>(input);
}

// An activation written back into input, recorded through its out-of-place form with the
// in-place node (`f(x, true)`) when autograd is involved (Note [In-place ops and autograd]).
template <typename F>
py::object activation_inplace(py::handle input, const char* name, const F& f) {
  const Tensor& t = input.cast<const Tensor&>();
  ag::apply_inplace(
      t, {}, name, [&](const Tensor& old) { return f(old, true); },
      [&] { ops::assign_(t, f(t, false), name); });
  return py::reinterpret_borrow<py::object>(input);
}

// A float argument (nan_to_num's replacements): a Python int of any size is its float value.
double to_double(py::handle obj, const char* op) {
  if (PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) {
    double d = PyLong_AsDouble(obj.ptr());
    if (!(d == -1.0 && PyErr_Occurred())) return d;
    PyErr_Clear();
    GENESIS_FAIL(ErrorKind::Value, op, "value ", py::str(obj).cast<std::string>(),
                 " is out of range for float64");
  }
  return to_scalar(obj, op).to_double();
}

std::optional<double> optional_double(py::handle obj, const char* op) {
  if (obj.is_none()) return std::nullopt;
  return to_double(obj, op);
}

void bind_activations(py::module_& m) {
  struct Plain {
    const char* name;
    UnaryOp op;
  };
  for (Plain spec :
       {Plain{"silu", UnaryOp::Silu}, Plain{"mish", UnaryOp::Mish}, Plain{"relu", UnaryOp::Relu}}) {
    UnaryOp op = spec.op;
    const char* name = spec.name;
    m.def(
        name,
        [op, name](py::handle input, bool inplace) {
          const Tensor& t = input.cast<const Tensor&>();
          if (!inplace) return py::cast(ag::unary(op, t, name));
          ag::unary_(op, t, name);
          return py::reinterpret_borrow<py::object>(input);
        },
        py::arg("input"), py::arg("inplace") = false);
  }
  m.def(
      "gelu",
      [](const Tensor& input, const std::string& approximate) {
        return ag::gelu(input, approximate);
      },
      py::arg("input"), py::kw_only(), py::arg("approximate") = "none");
  m.def("softplus", &ag::softplus, py::arg("input"), py::arg("beta") = 1.0,
        py::arg("threshold") = 20.0);

  auto elu = [](py::handle input, double alpha, bool inplace) {
    Tensor r = ag::elu(input.cast<const Tensor&>(), alpha, 1.0, 1.0);
    return maybe_inplace(input, std::move(r), inplace, inplace ? "elu_" : "elu");
  };
  m.def("elu", elu, py::arg("input"), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  m.def(
      "elu_", [elu](py::handle input, double alpha) { return elu(input, alpha, true); },
      py::arg("input"), py::arg("alpha") = 1.0);

  auto leaky = [](py::handle input, double slope, bool inplace) {
    const Tensor& t = input.cast<const Tensor&>();
    if (!inplace) return py::cast(ag::leaky_relu(t, slope, false));
    return activation_inplace(input, "leaky_relu_", [slope](const Tensor& x, bool from_result) {
      return ag::leaky_relu(x, slope, from_result);
    });
  };
  m.def("leaky_relu", leaky, py::arg("input"), py::arg("negative_slope") = 0.01,
        py::arg("inplace") = false);
  m.def(
      "leaky_relu_", [leaky](py::handle input, double slope) { return leaky(input, slope, true); },
      py::arg("input"), py::arg("negative_slope") = 0.01);

  auto hardtanh = [](py::handle input, py::handle min_val, py::handle max_val, bool inplace) {
    const char* name = inplace ? "hardtanh_" : "hardtanh";
    Scalar lo = to_scalar(min_val, name), hi = to_scalar(max_val, name);
    const Tensor& t = input.cast<const Tensor&>();
    if (!inplace) return py::cast(ag::hardtanh(t, lo, hi, false));
    return activation_inplace(input, name, [lo, hi](const Tensor& x, bool from_result) {
      return ag::hardtanh(x, lo, hi, from_result);
    });
  };
  m.def("hardtanh", hardtanh, py::arg("input"), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0,
        py::arg("inplace") = false);
  m.def(
      "hardtanh_",
      [hardtanh](py::handle input, py::handle min_val, py::handle max_val) {
        return hardtanh(input, min_val, max_val, true);
      },
      py::arg("input"), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0);
}

// The Python number or tensor `weight` of lerp.
ops::Operand weight_operand(py::handle weight) {
  ops::Operand w = operand(weight, "lerp");
  // A bool weight is 0 or 1, as in PyTorch.
  if (w.is_scalar() && w.scalar.kind() == Scalar::Kind::Bool)
    return ops::Operand(Scalar(static_cast<double>(w.scalar.to_int())));
  return w;
}

Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ag::addcmul(input, t1, t2, value, /*divide=*/false);
}
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ag::addcmul(input, t1, t2, value, /*divide=*/true);
}

void bind_composites(py::module_& m, py::class_<Tensor>& cls) {
  // lerp(input, end, weight)
  auto lerp = [](const Tensor& input, const Tensor& end, py::handle weight) {
    return ag::lerp(input, end, weight_operand(weight));
  };
  m.def(
      "lerp",
      [lerp](const Tensor& input, const Tensor& end, py::handle weight, py::handle out) {
        return finish_out(lerp(input, end, weight), out, "lerp");
      },
      py::arg("input"), py::arg("end"), py::arg("weight"), py::kw_only(),
      py::arg("out") = py::none());
  cls.def("lerp", lerp, py::arg("end"), py::arg("weight"));
  cls.def(
      "lerp_",
      [lerp](py::object self, const Tensor& end, py::handle weight) {
        const Tensor& t = self.cast<const Tensor&>();
        ops::Operand w = weight_operand(weight);
        const Tensor* wt = w.is_scalar() ? nullptr : &w.tensor();
        ag::apply_inplace(
            t, {&end, wt}, "lerp_", [&](const Tensor& old) { return ag::lerp(old, end, w); },
            [&] { ops::assign_(t, ops::lerp(t, end, w), "lerp_"); });
        return self;
      },
      py::arg("end"), py::arg("weight"));

  // addcmul / addcdiv(input, tensor1, tensor2, *, value=1)
  using Addc = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&);
  struct AddcSpec {
    const char* name;
    const char* inplace;
    Addc fn;
  };
  for (AddcSpec spec :
       {AddcSpec{"addcmul", "addcmul_", &addcmul}, AddcSpec{"addcdiv", "addcdiv_", &addcdiv}}) {
    Addc fn = spec.fn;
    const char *name = spec.name, *stored = spec.inplace;
    m.def(
        name,
        [fn, name](const Tensor& input, const Tensor& t1, const Tensor& t2, py::handle value,
                   py::handle out) {
          return finish_out(fn(input, t1, t2, to_scalar(value, name)), out, name);
        },
        py::arg("input"), py::arg("tensor1"), py::arg("tensor2"), py::kw_only(),
        py::arg("value") = 1, py::arg("out") = py::none());
    cls.def(
        name,
        [fn, name](const Tensor& self, const Tensor& t1, const Tensor& t2, py::handle value) {
          return fn(self, t1, t2, to_scalar(value, name));
        },
        py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
    cls.def(
        stored,
        [fn, stored](py::object self, const Tensor& t1, const Tensor& t2, py::handle value) {
          const Tensor& t = self.cast<const Tensor&>();
          Scalar v = to_scalar(value, stored);
          ag::apply_inplace(
              t, {&t1, &t2}, stored, [&](const Tensor& old) { return fn(old, t1, t2, v); },
              [&] { ops::assign_(t, fn(t, t1, t2, v), stored); });
          return self;
        },
        py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
  }

  // clamp_min / clamp_max: clamp with one bound.
  for (bool is_min : {true, false}) {
    const char* name = is_min ? "clamp_min" : "clamp_max";
    const char* stored = is_min ? "clamp_min_" : "clamp_max_";
    const char* arg = is_min ? "min" : "max";
    auto bound = [is_min](py::handle b, const char* op) {
      std::optional<ops::Operand> one = operand(b, op);
      return is_min ? std::pair{one, std::optional<ops::Operand>()}
                    : std::pair{std::optional<ops::Operand>(), one};
    };
    auto fn = [bound, name](const Tensor& input, py::handle b) {
      auto [lo, hi] = bound(b, name);
      return ag::clamp(input, lo, hi);
    };
    m.def(
        name,
        [fn, name](const Tensor& input, py::handle b, py::handle out) {
          return finish_out(fn(input, b), out, name);
        },
        py::arg("input"), py::arg(arg), py::kw_only(), py::arg("out") = py::none());
    cls.def(name, fn, py::arg(arg));
    cls.def(
        stored,
        [bound, stored](py::object self, py::handle b) {
          auto [lo, hi] = bound(b, stored);
          ops::clamp_(self.cast<const Tensor&>(), lo, hi, stored);
          return self;
        },
        py::arg(arg));
  }

  // nan_to_num(input, nan=0.0, posinf=None, neginf=None)
  auto nan_to_num = [](const Tensor& input, py::handle nan, py::handle posinf, py::handle neginf) {
    const char* name = "nan_to_num";
    double n = nan.is_none() ? 0.0 : to_double(nan, name);
    return ag::nan_to_num(input, n, optional_double(posinf, name), optional_double(neginf, name));
  };
  m.def(
      "nan_to_num",
      [nan_to_num](const Tensor& input, py::handle nan, py::handle posinf, py::handle neginf,
                   py::handle out) {
        return finish_out(nan_to_num(input, nan, posinf, neginf), out, "nan_to_num");
      },
      py::arg("input"), py::arg("nan") = 0.0, py::arg("posinf") = py::none(),
      py::arg("neginf") = py::none(), py::kw_only(), py::arg("out") = py::none());
  cls.def("nan_to_num", nan_to_num, py::arg("nan") = 0.0, py::arg("posinf") = py::none(),
          py::arg("neginf") = py::none());
  cls.def(
      "nan_to_num_",
      [nan_to_num](py::object self, py::handle nan, py::handle posinf, py::handle neginf) {
        const Tensor& t = self.cast<const Tensor&>();
        ops::assign_(t, nan_to_num(t, nan, posinf, neginf), "nan_to_num_");
        return self;
      },
      py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none());

  // isclose / allclose / equal
  m.def("isclose", &ops::isclose, py::arg("input"), py::arg("other"), py::arg("rtol") = 1e-05,
        py::arg("atol") = 1e-08, py::arg("equal_nan") = false);
  cls.def("isclose", &ops::isclose, py::arg("other"), py::arg("rtol") = 1e-05,
          py::arg("atol") = 1e-08, py::arg("equal_nan") = false);
  m.def("allclose", &ops::allclose, py::arg("input"), py::arg("other"), py::arg("rtol") = 1e-05,
        py::arg("atol") = 1e-08, py::arg("equal_nan") = false);
  cls.def("allclose", &ops::allclose, py::arg("other"), py::arg("rtol") = 1e-05,
          py::arg("atol") = 1e-08, py::arg("equal_nan") = false);
  m.def("equal", &ops::equal, py::arg("input"), py::arg("other"));
  cls.def("equal", &ops::equal, py::arg("other"));
}

}  // namespace

void init_activation(py::module_& m, py::class_<Tensor>& cls) {
  py::module_ nn = m.def_submodule("_nn", "genesis.nn.functional's compiled functions");
  bind_activations(nn);
  bind_composites(m, cls);
}

}  // namespace genesis::python
