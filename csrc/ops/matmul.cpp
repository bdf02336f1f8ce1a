#include "ops/matmul.h"

#include <algorithm>
#include <optional>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/matmul.h"
#include "cuda/blas.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

void check_operands(const Tensor& a, const Tensor& b, const char* op) {
  GENESIS_CHECK(a.device() == b.device(), op, "expected both tensors on the same device, got ",
                a.device().str(), " and ", b.device().str());
  GENESIS_CHECK(a.dtype() == b.dtype(), op, "expected both tensors to have the same dtype, got ",
                scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  GENESIS_CHECK_TYPE(a.dtype() != ScalarType::Bool, op, "bool tensors are not supported");
  GENESIS_CHECK_TYPE(!a.is_cuda() || is_floating_point(a.dtype()), op,
                     "integer matmul is not supported on CUDA");
}

[[noreturn]] void shape_error(const Tensor& a, const Tensor& b, const char* op) {
  GENESIS_FAIL(ErrorKind::Runtime, op, "shapes ", shape_str(a.sizes()), " and ",
               shape_str(b.sizes()), " cannot be multiplied");
}

// The dims before the last two of a and b, broadcast together.
Shape broadcast_batch(const Tensor& a, const Tensor& b, const Tensor& a_in, const Tensor& b_in) {
  Shape sa(a.sizes().begin(), a.sizes().end() - 2), sb(b.sizes().begin(), b.sizes().end() - 2);
  size_t n = std::max(sa.size(), sb.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - sa.size() ? 1 : sa[i - (n - sa.size())];
    int64_t db = i < n - sb.size() ? 1 : sb[i - (n - sb.size())];
    if (da != db && da != 1 && db != 1)
      GENESIS_FAIL(ErrorKind::Runtime, "matmul", "shapes ", shape_str(a_in.sizes()), " and ",
                   shape_str(b_in.sizes()), " cannot be multiplied: batch dimensions ",
                   shape_str(sa), " and ", shape_str(sb), " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// The one stride that steps through all batch dims of t (all but the last two) in row-major
// order, or nothing when they are not evenly spaced. Size-1 dims do not count; 0 when no dim
// moves (no batch, or every batch dim broadcast).
std::optional<int64_t> merged_batch_stride(const Tensor& t) {
  std::optional<int64_t> stride, span;
  for (int64_t d = t.ndim() - 3; d >= 0; --d) {
    int64_t size = t.sizes()[d], st = t.strides()[d];
    if (size == 1) continue;
    if (span && st != *span) return std::nullopt;
    if (!stride) stride = st;
    span = st * size;
  }
  return stride.value_or(0);
}

// t (..., r, c) broadcast to batch + (r, c), seen as a 3-D (nbatch, r, c) tensor: a view when the
// batch dims merge into one stride (broadcast ones included, as stride 0), else a copy.
Tensor as_batched(const Tensor& t, const Shape& batch, int64_t nbatch) {
  int64_t r = t.sizes()[t.ndim() - 2], c = t.sizes()[t.ndim() - 1];
  Shape full = batch;
  full.push_back(r);
  full.push_back(c);
  Tensor e = t.sizes() == full ? t : expand(t, full);
  std::optional<int64_t> stride = merged_batch_stride(e);
  if (!stride) {
    e = contiguous(e);
    stride = r * c;
  }
  int64_t nd = e.ndim();
  return e.as_strided({nbatch, r, c}, {*stride, e.strides()[nd - 2], e.strides()[nd - 1]},
                      e.storage_offset());
}

// a (..., m, k) @ b (..., k, n) -> a new contiguous batch + (m, n) tensor.
Tensor batched_matmul(const Tensor& a, const Tensor& b, const Shape& batch) {
  int64_t m = a.sizes()[a.ndim() - 2], k = a.sizes()[a.ndim() - 1], n = b.sizes()[b.ndim() - 1];
  int64_t nb = numel_of(batch);
  Shape sizes = batch;
  sizes.push_back(m);
  sizes.push_back(n);
  Tensor out = Tensor::empty(sizes, a.dtype(), a.device());
  if (out.numel() == 0) return out;
  if (k == 0) {
    fill_(out, Scalar(int64_t{0}), "matmul");
    return out;
  }
  Tensor a3 = as_batched(a, batch, nb), b3 = as_batched(b, batch, nb);
  Tensor out3 = out.as_strided({nb, m, n}, {m * n, n, 1}, 0);
  // A batch against one shared right operand is a single taller product when the left rows are
  // evenly spaced across the batch: stack them.
  const Shape& sa = a3.strides();
  if (nb > 1 && b3.strides()[0] == 0 && (m == 1 || sa[0] == m * sa[1])) {
    a3 = a3.as_strided({1, nb * m, k}, {0, m == 1 ? sa[0] : sa[1], sa[2]}, a3.storage_offset());
    b3 = b3.as_strided({1, k, n}, {0, b3.strides()[1], b3.strides()[2]}, b3.storage_offset());
    out3 = out.as_strided({1, nb * m, n}, {0, n, 1}, 0);
  }
  if (out.is_cuda())
    cuda::gemm_strided_batched(out3, a3, b3);
  else
    cpu::matmul(out3, a3, b3);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  GENESIS_CHECK(a.ndim() > 0 && b.ndim() > 0, "matmul",
                "both arguments need at least 1 dimension, got ", a.ndim(), "-D and ", b.ndim(),
                "-D");
  check_operands(a, b, "matmul");
  Tensor a2 = a.ndim() == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = b.ndim() == 1 ? unsqueeze(b, 1) : b;
  if (a2.sizes()[a2.ndim() - 1] != b2.sizes()[b2.ndim() - 2]) shape_error(a, b, "matmul");
  Shape batch = broadcast_batch(a2, b2, a, b);
  Tensor out = batched_matmul(a2, b2, batch);
  // Drop the dims that 1-D operands gained.
  Shape sizes = batch;
  if (a.ndim() > 1) sizes.push_back(a2.sizes()[a2.ndim() - 2]);
  if (b.ndim() > 1) sizes.push_back(b2.sizes()[b2.ndim() - 1]);
  return out.as_strided(sizes, contiguous_strides(sizes), 0);
}

Tensor mm(const Tensor& a, const Tensor& b) {
  GENESIS_CHECK(a.ndim() == 2 && b.ndim() == 2, "mm", "expected 2-D tensors, got ", a.ndim(),
                "-D and ", b.ndim(), "-D");
  check_operands(a, b, "mm");
  if (a.sizes()[1] != b.sizes()[0]) shape_error(a, b, "mm");
  return batched_matmul(a, b, {});
}

namespace {

// mm_bias, and with `keep` (GELU only) the GELU's input stored there too: a fresh (m, n) tensor.
std::optional<Tensor> bias_epilogue(const Tensor& bias, const Tensor& a, const Tensor& b,
                                    double alpha, cuda::BiasActivation act, Tensor* keep) {
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  if (!a.is_cuda() || a.dtype() == ScalarType::Float64 || m == 0 || n == 0 || k == 0)
    return std::nullopt;
  // cuBLASLt reads the bias packed.
  Tensor vec = n == 1 || bias.strides()[0] == 1 ? bias : contiguous(bias);
  Tensor out = Tensor::empty({m, n}, a.dtype(), a.device());
  Tensor out3 = out.as_strided({1, m, n}, {m * n, n, 1}, 0);
  if (keep) *keep = Tensor::empty({m, n}, a.dtype(), a.device());
  if (!cuda::gemm_bias(out3, as_batched(a, {}, 1), as_batched(b, {}, 1), vec, alpha, act, keep))
    return std::nullopt;
  return out;
}

}  // namespace

std::optional<Tensor> mm_bias(const Tensor& bias, const Tensor& a, const Tensor& b, double alpha,
                              cuda::BiasActivation act) {
  return bias_epilogue(bias, a, b, alpha, act, nullptr);
}

std::optional<std::pair<Tensor, Tensor>> mm_bias_gelu_keep_input(const Tensor& bias,
                                                                 const Tensor& a, const Tensor& b,
                                                                 double alpha) {
  // n's rule is checked by csrc/cuda/blas_lt.cpp, with Lt's others (Note [cuBLASLt matmul]).
  Tensor input;
  std::optional<Tensor> out =
      bias_epilogue(bias, a, b, alpha, cuda::BiasActivation::GeluTanh, &input);
  if (!out) return std::nullopt;
  return std::make_pair(*out, input);
}

bool mm_accumulate(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  if (a.ndim() != 2 || b.ndim() != 2 || out.ndim() != 2 || !a.is_cuda() ||
      a.device() != b.device() || a.device() != out.device() || a.dtype() != b.dtype() ||
      (a.dtype() != ScalarType::Float16 && a.dtype() != ScalarType::BFloat16 &&
       a.dtype() != ScalarType::Float32) ||
      out.dtype() != ScalarType::Float32)
    return false;
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  if (b.sizes()[0] != k || out.sizes()[0] != m || out.sizes()[1] != n || m == 0 || n == 0 ||
      k == 0 || (m > 1 && out.strides()[0] != n) || (n > 1 && out.strides()[1] != 1))
    return false;
  Tensor out3 = out.as_strided({1, m, n}, {m * n, n, 1}, out.storage_offset());
  return cuda::gemm_accumulate(out3, as_batched(a, {}, 1), as_batched(b, {}, 1), accumulate);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  GENESIS_CHECK(a.ndim() == 3 && b.ndim() == 3, "bmm", "expected 3-D tensors, got ", a.ndim(),
                "-D and ", b.ndim(), "-D");
  check_operands(a, b, "bmm");
  GENESIS_CHECK(a.sizes()[0] == b.sizes()[0], "bmm", "batch sizes differ: ", a.sizes()[0], " and ",
                b.sizes()[0]);
  if (a.sizes()[2] != b.sizes()[1]) shape_error(a, b, "bmm");
  return batched_matmul(a, b, {a.sizes()[0]});
}

}  // namespace genesis::ops
