// genesis._C._testing: direct handles on C++ internals for the tests.
#include <chrono>
#include "core/half.h"
#include "core/scalar_type.h"
#include "core/shape.h"

#include "autograd/ops.h"
#include "core/errors.h"
#include "cuda/elementwise.h"
#include "cuda/index.h"
#include "index/index_memo.h"
#include "ops/elementwise.h"
#include "python/bindings.h"
#include "python/tensor_object.h"

namespace genesis::python {

namespace {
// Seconds that n calls of f take, timed in C++.
template <typename F>
double seconds_for(int n, const F& f) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

void init_testing(py::module_& m) {
  py::module_ t = m.def_submodule("_testing", "C++ internals exposed for tests");
  t.def("float_to_half_bits", &float_to_half_bits);
  t.def("half_bits_to_float", &half_bits_to_float);
  t.def("float_to_bfloat16_bits", &float_to_bfloat16_bits);
  t.def("view_strides", [](const Shape& sizes, const Shape& strides, const Shape& new_sizes) {
    return view_strides(sizes, strides, new_sizes);
  });
  t.def("storage_use_count", [](const Tensor& x) { return x.storage().use_count(); });
  init_pool_testing(t);
  // Host seconds of n back-to-back calls, timed in C++ (no Python in the loop): where the host
  // time of a small op goes (tools/host_time_probe.py).
  t.def("time_binary_calls", [](const Tensor& a, const Tensor& b, int n) {
    return seconds_for(n, [&] { ag::binary(ops::BinaryOp::Add, a, b, "add"); });
  });
  t.def("time_launch_calls", [](const Tensor& out, const Tensor& a, const Tensor& b, int n) {
    ops::ScalarArg none;
    GENESIS_CHECK(out.is_cuda(), "time_launch_calls", "expects CUDA tensors");
    return seconds_for(
        n, [&] { cuda::binary(ops::BinaryOp::Add, out.dtype(), out, a, none, b, none); });
  });
  t.def("time_empty_calls", [](const Tensor& a, int n) {
    return seconds_for(n, [&] { Tensor::empty(a.sizes(), a.dtype(), a.device()); });
  });
  t.def("time_wrap_calls", [](const Tensor& a, int n) {
    return seconds_for(n, [&] { Py_DECREF(new_tensor_object(Tensor(a))); });
  });
  // Note [Write versions] and [Validated index memo]: what the index memo depends on.
  t.def("write_version", [](const Tensor& x) { return x.storage().write_version(); });
  t.def("is_shared", [](const Tensor& x) { return x.storage().is_shared(); });
  // Note [Read-only storages]: the backstop behind every op's own check.
  t.def("mutable_data_ptr",
        [](const Tensor& x) { return reinterpret_cast<uintptr_t>(x.mutable_data()); });
  t.def("index_check_waits", &cuda::index_check_waits);
  t.def("index_known_in_range", &index_known_in_range);  // Note [Validated index memo]
  t.def("same_storage",
        [](const Tensor& a, const Tensor& b) { return a.storage().is_same(b.storage()); });
}

}  // namespace genesis::python
