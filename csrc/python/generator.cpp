// genesis.Generator (Note [Generators] in ops/generator.h), get_rng_state/set_rng_state, and the
// distributions of ops/distributions.h: randperm, multinomial, bernoulli, normal and the
// in-place fills.
#include <cstring>
#include <optional>
#include <string>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/distributions.h"
#include "ops/generator.h"
#include "python/bindings.h"
#include "python/tensor_object.h"

namespace genesis::python {

using GeneratorPtr = std::shared_ptr<ops::Generator>;

ops::Generator* generator_of(py::handle obj, const char* op) {
  if (obj.is_none()) return nullptr;
  GENESIS_CHECK_TYPE(py::isinstance<ops::Generator>(obj), op,
                     "generator must be a genesis.Generator, got ", type_name(obj));
  return obj.cast<ops::Generator*>();
}

namespace {

constexpr int64_t kStateBytes = 16;  // the seed, then the offset, little-endian uint64s

Tensor state_tensor(const ops::Generator& g) {
  ops::Counters c = g.state();
  Tensor t = Tensor::empty(Shape{kStateBytes}, ScalarType::UInt8, Device{});
  auto* bytes = static_cast<unsigned char*>(t.mutable_data());
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(c.seed >> (8 * i));
    bytes[8 + i] = static_cast<unsigned char>(c.offset >> (8 * i));
  }
  return t;
}

void load_state(ops::Generator& g, const Tensor& state, const char* op) {
  GENESIS_CHECK_TYPE(state.dtype() == ScalarType::UInt8, op,
                     "expected a uint8 state tensor (from get_state), but got ",
                     scalar_type_name(state.dtype()));
  GENESIS_CHECK_VALUE(!state.is_cuda() && state.ndim() == 1 && state.numel() == kStateBytes, op,
                      "expected a 1-d CPU state of ", kStateBytes, " bytes (from get_state)");
  Tensor dense = ag::contiguous(state);
  const auto* bytes = static_cast<const unsigned char*>(dense.data());
  ops::Counters c{0, 0};
  for (int i = 0; i < 8; ++i) {
    c.seed |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    c.offset |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
  }
  g.set_state(c);
}

double number(py::handle obj, const char* op) { return to_scalar(obj, op).to_double(); }

}  // namespace

void init_generator(py::module_& m, py::class_<Tensor>& cls) {
  py::class_<ops::Generator, GeneratorPtr> gen(m, "Generator");
  gen.def(py::init([](py::handle device) {
            return std::make_shared<ops::Generator>(to_device_or(device, Device{}, "Generator"));
          }),
          py::arg("device") = "cpu")
      .def(
          "manual_seed",
          [](GeneratorPtr self, py::handle seed) {
            self->manual_seed(to_seed(seed));
            return self;
          },
          py::arg("seed"))
      .def("seed", &ops::Generator::seed)
      .def("initial_seed", &ops::Generator::initial_seed)
      .def("get_state", [](const ops::Generator& self) { return state_tensor(self); })
      .def(
          "set_state",
          [](GeneratorPtr self, const Tensor& state) {
            load_state(*self, state, "set_state");
            return self;
          },
          py::arg("new_state"))
      .def_property_readonly(
          "device", [](const ops::Generator& self) { return device_object(self.device()); });
  m.attr("default_generator") = py::cast(ops::default_generator());

  m.def("get_rng_state", [] { return state_tensor(*ops::default_generator()); });
  m.def(
      "set_rng_state",
      [](const Tensor& state) { load_state(*ops::default_generator(), state, "set_rng_state"); },
      py::arg("new_state"));

  m.def(
      "randperm",
      [](int64_t n, py::handle generator, py::handle dtype, py::handle device) {
        const char* op = "randperm";
        return ops::randperm(n, to_optional_dtype(dtype, op).value_or(ScalarType::Int64),
                             to_device_or(device, Device{}, op), generator_of(generator, op));
      },
      py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  auto multinomial = [](const Tensor& t, int64_t num_samples, bool replacement,
                        py::handle generator) {
    return ops::multinomial(t, num_samples, replacement, generator_of(generator, "multinomial"));
  };
  m.def("multinomial", multinomial, py::arg("input"), py::arg("num_samples"),
        py::arg("replacement") = false, py::kw_only(), py::arg("generator") = py::none());
  cls.def("multinomial", multinomial, py::arg("num_samples"), py::arg("replacement") = false,
          py::kw_only(), py::arg("generator") = py::none());
  auto bernoulli = [](const Tensor& t, py::handle generator) {
    return ag::random_draw("BernoulliBackward0", {&t},
                           ops::bernoulli(t, generator_of(generator, "bernoulli")));
  };
  m.def("bernoulli", bernoulli, py::arg("input"), py::kw_only(), py::arg("generator") = py::none());
  cls.def("bernoulli", bernoulli, py::kw_only(), py::arg("generator") = py::none());
  m.def(
      "poisson",
      [](const Tensor& t, py::handle generator) {
        return ag::random_draw("PoissonBackward0", {&t},
                               ops::poisson(t, generator_of(generator, "poisson")));
      },
      py::arg("input"), py::arg("generator") = py::none());
  m.def(
      "normal",
      [](py::handle mean, py::handle std, py::handle size, py::handle generator, py::handle dtype,
         py::handle device) -> Tensor {
        const char* op = "normal";
        ops::Generator* g = generator_of(generator, op);
        const Tensor* mt = tensor_of(mean.ptr());
        const Tensor* st = tensor_of(std.ptr());
        if (!mt && !st) {  // normal(mean, std, size): numbers
          GENESIS_CHECK_TYPE(!size.is_none(), op,
                             "with a number mean and std, pass size (the result's shape)");
          Tensor out = ops::full(checked_sizes(to_shape(size, op), op), Scalar(0.0),
                                 to_optional_dtype(dtype, op).value_or(default_float()),
                                 to_device_or(device, Device{}, op), op);
          ops::normal_(out, number(mean, op), number(std, op), g);
          return out;
        }
        GENESIS_CHECK_TYPE(size.is_none(), op, "size is only for a number mean and std");
        const Tensor& like = mt ? *mt : *st;
        auto as_tensor = [&](py::handle obj, const Tensor* t) {
          return t ? *t : ops::full(Shape{}, to_scalar(obj, op), like.dtype(), like.device(), op);
        };
        // PyTorch's nodes: NormalBackward1 (tensor mean), 2 (tensor std), 3 (both).
        const char* node =
            mt && st ? "NormalBackward3" : (mt ? "NormalBackward1" : "NormalBackward2");
        return ag::random_draw(node, {mt, st},
                               ops::normal(as_tensor(mean, mt), as_tensor(std, st), g));
      },
      py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("size") = py::none(), py::kw_only(),
      py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());

  // The in-place fills: each returns the tensor.
  auto fill = [&](const char* name, auto f, auto... args) {
    cls.def(name, f, args..., py::kw_only(), py::arg("generator") = py::none());
  };
  fill(
      "uniform_",
      [](py::object self, double from, double to, py::handle generator) {
        ops::uniform_(self.cast<const Tensor&>(), from, to, generator_of(generator, "uniform_"));
        return self;
      },
      py::arg("from_") = 0.0, py::arg("to") = 1.0);
  fill(
      "normal_",
      [](py::object self, double mean, double std, py::handle generator) {
        ops::normal_(self.cast<const Tensor&>(), mean, std, generator_of(generator, "normal_"));
        return self;
      },
      py::arg("mean") = 0.0, py::arg("std") = 1.0);
  fill(
      "random_",
      [](py::object self, py::handle from, py::handle to, py::handle generator) {
        const char* op = "random_";
        std::optional<int64_t> high;
        int64_t low = 0;
        if (!to.is_none()) {
          low = to_int(from, op, "from");
          high = to_int(to, op, "to");
        } else if (!from.is_none()) {  // random_(to): [0, to)
          high = to_int(from, op, "to");
        }
        ops::random_(self.cast<const Tensor&>(), low, high, generator_of(generator, op));
        return self;
      },
      py::arg("from_") = py::none(), py::arg("to") = py::none());
  fill(
      "exponential_",
      [](py::object self, double lambd, py::handle generator) {
        ops::exponential_(self.cast<const Tensor&>(), lambd,
                          generator_of(generator, "exponential_"));
        return self;
      },
      py::arg("lambd") = 1.0);
  fill(
      "geometric_",
      [](py::object self, double p, py::handle generator) {
        ops::geometric_(self.cast<const Tensor&>(), p, generator_of(generator, "geometric_"));
        return self;
      },
      py::arg("p"));
  fill(
      "log_normal_",
      [](py::object self, double mean, double std, py::handle generator) {
        ops::log_normal_(self.cast<const Tensor&>(), mean, std,
                         generator_of(generator, "log_normal_"));
        return self;
      },
      py::arg("mean") = 1.0, py::arg("std") = 2.0);
  fill(
      "cauchy_",
      [](py::object self, double median, double sigma, py::handle generator) {
        ops::cauchy_(self.cast<const Tensor&>(), median, sigma, generator_of(generator, "cauchy_"));
        return self;
      },
      py::arg("median") = 0.0, py::arg("sigma") = 1.0);
  fill(
      "bernoulli_",
      [](py::object self, py::handle p, py::handle generator) {
        const char* op = "bernoulli_";
        const Tensor& t = self.cast<const Tensor&>();
        if (const Tensor* pt = tensor_of(p.ptr()))
          ops::bernoulli_(t, *pt, generator_of(generator, op));
        else
          ops::bernoulli_(t, number(p, op), generator_of(generator, op));
        return self;
      },
      py::arg("p") = 0.5);
}

}  // namespace genesis::python
