#include "ops/products.h"

#include <cmath>
#include <optional>

#include "core/errors.h"
#include "core/shape.h"
#include "ops/activation.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/rearrange.h"
#include "ops/reduce.h"
#include "ops/reduce_composite.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

void check_ndim(const Tensor& t, int64_t ndim, const char* op, const char* what) {
  GENESIS_CHECK(t.ndim() == ndim, op, "expected ", what, " to be ", ndim, "-D, got ", t.ndim(),
                "-D");
}

// A number for a tensor of dtype: integer tensors take the number's integer part, as PyTorch.
Scalar coefficient(const Scalar& s, ScalarType dtype) {
  if (s.kind() == Scalar::Kind::Bool) return Scalar(s.to_int());
  return is_floating_point(dtype) || !s.is_floating() ? s : Scalar(s.to_int());
}

bool is_one(const Scalar& s) { return s.to_double() == 1.0; }

// Note [beta and alpha]: beta * input + alpha * product, in product's dtype and shape. input
// must broadcast to the product (one way, as PyTorch's expand); beta == 0 ignores its values so a
// NaN in it does not leak, and alpha == 1 skips the multiply.
Tensor scaled_sum(const Tensor& input, const Tensor& product, const Scalar& beta,
                  const Scalar& alpha, const char* op) {
  GENESIS_CHECK(input.device() == product.device(), op,
                "expected all tensors on the same device, got ", input.device().str(), " and ",
                product.device().str());
  GENESIS_CHECK(input.dtype() == product.dtype(), op, "expected input to have the product's dtype ",
                scalar_type_name(product.dtype()), ", got ", scalar_type_name(input.dtype()));
  const Shape& target = product.sizes();
  bool fits = input.ndim() <= product.ndim();
  for (int64_t i = 1; fits && i <= input.ndim(); ++i) {
    int64_t s = input.sizes()[input.ndim() - i];
    fits = s == 1 || s == target[target.size() - i];
  }
  GENESIS_CHECK(fits, op, "input of shape ", shape_str(input.sizes()),
                " does not broadcast to the product's shape ", shape_str(target));
  ScalarType dt = product.dtype();
  Tensor scaled =
      is_one(alpha) ? product : binary(BinaryOp::Mul, product, coefficient(alpha, dt), op);
  if (beta.to_double() == 0.0) return scaled;
  Tensor in = is_one(beta) ? input : binary(BinaryOp::Mul, input, coefficient(beta, dt), op);
  return binary(BinaryOp::Add, in, scaled, op);
}

// input as the (n,) row that broadcasts down every row of an (m, n) product: a 1-D (n,) tensor,
// or a 2-D one of one row or of rows that repeat (stride 0); nothing for any other shape.
std::optional<Tensor> bias_row(const Tensor& input, int64_t n) {
  if (input.ndim() == 0 || input.ndim() > 2 || input.sizes().back() != n) return std::nullopt;
  if (input.ndim() == 1) return input;
  if (input.sizes()[0] != 1 && input.strides()[0] != 0) return std::nullopt;
  return input.as_strided({n}, {input.strides()[1]}, input.storage_offset());
}

// The sizes of a's dims listed in `dims`, in order.
Shape sizes_at(const Tensor& t, const Shape& dims) {
  Shape out;
  for (int64_t d : dims) out.push_back(t.sizes()[d]);
  return out;
}

}  // namespace

Tensor matrix_vector(const Tensor& mat, const Tensor& vec, const char* op) {
  check_ndim(mat, 2, op, "mat");
  check_ndim(vec, 1, op, "vec");
  check_product_operands(mat, vec, op);
  GENESIS_CHECK(mat.sizes()[1] == vec.sizes()[0], op, "size mismatch: mat ", shape_str(mat.sizes()),
                " and vec ", shape_str(vec.sizes()));
  return matmul(mat, vec);
}

void check_product_operands(const Tensor& a, const Tensor& b, const char* op) {
  GENESIS_CHECK(a.device() == b.device(), op, "expected both tensors on the same device, got ",
                a.device().str(), " and ", b.device().str());
  GENESIS_CHECK(a.dtype() == b.dtype(), op, "expected both tensors to have the same dtype, got ",
                scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  GENESIS_CHECK_TYPE(a.dtype() != ScalarType::Bool, op, "bool tensors are not supported");
  GENESIS_CHECK_TYPE(!a.is_cuda() || is_floating_point(a.dtype()), op,
                     "integer matmul is not supported on CUDA");
}

Tensor outer(const Tensor& a, const Tensor& b) {
  check_ndim(a, 1, "outer", "input");
  check_ndim(b, 1, "outer", "vec2");
  return binary(BinaryOp::Mul, unsqueeze(a, 1), b, "outer");
}

Tensor dot(const Tensor& a, const Tensor& b, const char* op) {
  GENESIS_CHECK(a.ndim() == 1 && b.ndim() == 1, op, "expected 1-D tensors, got ", a.ndim(),
                "-D and ", b.ndim(), "-D");
  check_product_operands(a, b, op);
  GENESIS_CHECK(a.numel() == b.numel(), op, "expected tensors of the same size, got ", a.numel(),
                " and ", b.numel());
  return matmul(a, b);
}

Tensor inner(const Tensor& a, const Tensor& b) {
  const char* op = "inner";
  if (a.ndim() == 0 || b.ndim() == 0) return binary(BinaryOp::Mul, a, b, op);
  check_product_operands(a, b, op);
  int64_t k = a.sizes().back();
  GENESIS_CHECK(k == b.sizes().back(), op, "the last dims must match, got shapes ",
                shape_str(a.sizes()), " and ", shape_str(b.sizes()));
  return tensordot(a, b, Shape{a.ndim() - 1}, Shape{b.ndim() - 1});
}

namespace {

void check_addmm(const Tensor& mat1, const Tensor& mat2, const char* op) {
  check_ndim(mat1, 2, op, "mat1");
  check_ndim(mat2, 2, op, "mat2");
  check_product_operands(mat1, mat2, op);
  GENESIS_CHECK(mat1.sizes()[1] == mat2.sizes()[0], op, "shapes ", shape_str(mat1.sizes()), " and ",
                shape_str(mat2.sizes()), " cannot be multiplied");
}

// input as the row of a fused bias epilogue: a bias row added once (beta == 1), of the mats'
// device and dtype; nothing otherwise. alpha == 0 is left to the composition, whose 0 * product
// keeps a NaN or inf of the operands, as PyTorch's result does.
std::optional<Tensor> fusable_bias(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                                   const Scalar& beta, const Scalar& alpha) {
  if (!is_one(beta) || alpha.to_double() == 0.0 || input.device() != mat1.device() ||
      input.dtype() != mat1.dtype())
    return std::nullopt;
  return bias_row(input, mat2.sizes()[1]);
}

// addmm with errors named after op; `act` asks the fused path to apply that activation too, and
// `activated` says whether it did (otherwise the result is the plain addmm).
Tensor addmm_impl(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                  const Scalar& alpha, const char* op, cuda::BiasActivation act, bool* activated) {
  check_addmm(mat1, mat2, op);
  // cuBLASLt's bias epilogue: one call, no second pass (Note [cuBLASLt matmul]).
  if (std::optional<Tensor> row = fusable_bias(input, mat1, mat2, beta, alpha))
    if (std::optional<Tensor> fused = mm_bias(*row, mat1, mat2, alpha.to_double(), act)) {
      *activated = act != cuda::BiasActivation::None;
      return *fused;
    }
  return scaled_sum(input, mm(mat1, mat2), beta, alpha, op);
}

constexpr const char* kAddmmActivation = "_addmm_activation";

}  // namespace

Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  bool activated = false;
  return addmm_impl(input, mat1, mat2, beta, alpha, "addmm", cuda::BiasActivation::None,
                    &activated);
}

// Note [Fused matmul epilogues]
// _addmm_activation(input, mat1, mat2, beta, alpha, use_gelu) is act(addmm(...)), PyTorch's
// private op behind fused linear + activation layers. Which GELU: PyTorch's CPU kernel applies
// gelu() (the exact erf GELU) after addmm, and its CUDA kernel the tanh approximation, both
// when cuBLASLt's GELU_BIAS epilogue runs (that epilogue has only the tanh form) and when it
// falls back to gemm + gelu_(approximate="tanh"). genesis does the same per device, so results
// match torch._addmm_activation on each. On CUDA a bias row with beta == 1 (addmm's fused case)
// is one cuBLASLt call with RELU_BIAS or GELU_BIAS; anything else (CPU, float64, other input
// shapes, beta != 1, alpha == 0, k == 0, no algorithm) is addmm and then the activation, the
// very ops genesis.addmm and relu/gelu run. Unlike PyTorch's CUDA kernel, k == 0 still applies
// the activation (act(beta * input), as on CPU; PyTorch's CUDA returns beta * input). A NaN
// pre-activation keeps NaN through the composed ReLU; cuBLASLt does not document what its ReLU
// epilogue makes of one (PyTorch's fused CUDA op has the same caveat).
// Autograd (PyTorch's op has no derivative; genesis gives it one, autograd/products.cpp): ReLU's
// backward needs only the output's sign, so a ReLU forward is fused even when a gradient is
// wanted. GELU's needs the pre-activation z: in the fused case Lt's GELU_AUX_BIAS stores z
// beside the output in the same pass (addmm_gelu_with_preactivation), and autograd records
// addmm's node producing z and gelu's node whose output is the one already computed, the very
// graph of the composition. The output is GELU_BIAS's, the same epilogue math (z in float32,
// the GELU, one rounding), and z is kept in the output's dtype, as the bias epilogue's addmm
// would store it. Where GELU_AUX_BIAS does not apply (a width that is not a multiple of 8, Lt's
// rule for z's leading dimension, or no algorithm), the forward is addmm (the bias epilogue,
// fused) and a separate GELU, as off the fused case.
const char* addmm_gelu_approximate(const Tensor& t) { return t.is_cuda() ? "tanh" : "none"; }

std::optional<std::pair<Tensor, Tensor>> addmm_gelu_with_preactivation(const Tensor& input,
                                                                       const Tensor& mat1,
                                                                       const Tensor& mat2,
                                                                       const Scalar& beta,
                                                                       const Scalar& alpha) {
  check_addmm(mat1, mat2, kAddmmActivation);
  std::optional<Tensor> row = fusable_bias(input, mat1, mat2, beta, alpha);
  if (!row) return std::nullopt;
  return mm_bias_gelu_keep_input(*row, mat1, mat2, alpha.to_double());
}

Tensor addmm_preactivation(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                           const Scalar& beta, const Scalar& alpha) {
  bool activated = false;
  return addmm_impl(input, mat1, mat2, beta, alpha, kAddmmActivation, cuda::BiasActivation::None,
                    &activated);
}

Tensor addmm_activation(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& beta, const Scalar& alpha, bool use_gelu) {
  using cuda::BiasActivation;
  const ScalarType dt = mat1.dtype();
  GENESIS_CHECK_TYPE(!use_gelu || dt == ScalarType::Bool || is_floating_point(dt), kAddmmActivation,
                     "GELU needs floating-point tensors, got ",
                     scalar_type_name(dt));  // bool: the product's own error
  bool activated = false;
  Tensor z = addmm_impl(input, mat1, mat2, beta, alpha, kAddmmActivation,
                        use_gelu ? BiasActivation::GeluTanh : BiasActivation::Relu, &activated);
  if (activated) return z;
  return use_gelu ? gelu(z, addmm_gelu_approximate(z)) : unary(UnaryOp::Relu, z, kAddmmActivation);
}

Tensor addbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  const char* op = "addbmm";
  check_ndim(batch1, 3, op, "batch1");
  check_ndim(batch2, 3, op, "batch2");
  check_product_operands(batch1, batch2, op);
  int64_t nb = batch1.sizes()[0], n = batch1.sizes()[1], k = batch1.sizes()[2];
  GENESIS_CHECK(batch2.sizes()[0] == nb && batch2.sizes()[1] == k, op, "shapes ",
                shape_str(batch1.sizes()), " and ", shape_str(batch2.sizes()),
                " cannot be multiplied batch by batch");
  // The sum over the batch of b1[b] @ b2[b] is one product: (n, nb*k) @ (nb*k, p).
  int64_t nbk = checked_mul(nb, k, op);
  Tensor left = reshape(permute(batch1, {1, 0, 2}), {n, nbk});
  Tensor right = reshape(batch2, {nbk, batch2.sizes()[2]});
  return scaled_sum(input, mm(left, right), beta, alpha, op);
}

Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  const char* op = "baddbmm";
  check_ndim(batch1, 3, op, "batch1");
  check_ndim(batch2, 3, op, "batch2");
  check_product_operands(batch1, batch2, op);
  GENESIS_CHECK(batch2.sizes()[0] == batch1.sizes()[0] && batch2.sizes()[1] == batch1.sizes()[2],
                op, "shapes ", shape_str(batch1.sizes()), " and ", shape_str(batch2.sizes()),
                " cannot be multiplied batch by batch");
  return scaled_sum(input, bmm(batch1, batch2), beta, alpha, op);
}

Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  const char* op = "addmv";
  return scaled_sum(input, matrix_vector(mat, vec, op), beta, alpha, op);
}

Tensor mv(const Tensor& mat, const Tensor& vec) { return matrix_vector(mat, vec, "mv"); }

void check_product_target(const Tensor& self, const char* op) {
  check_writable(self, op);  // Note [Read-only storages]
  GENESIS_CHECK(!self.has_shared_elements(), op,
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location; clone() the tensor first");
}

void add_product_(const Tensor& self, const Tensor& result, const char* op) {
  check_product_target(self, op);
  GENESIS_CHECK(self.sizes() == result.sizes(), op, "the result's shape ",
                shape_str(result.sizes()), " differs from self's shape ", shape_str(self.sizes()));
  copy_(self, result);
}

Tensor kron(const Tensor& a, const Tensor& b) {
  const char* op = "kron";
  int64_t nd = std::max(a.ndim(), b.ndim());
  // a's dims at even positions and b's at odd ones: (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...),
  // then each pair merged.
  Shape sa(2 * nd, 1), sb(2 * nd, 1), out(nd);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t da = i < nd - a.ndim() ? 1 : a.sizes()[i - (nd - a.ndim())];
    int64_t db = i < nd - b.ndim() ? 1 : b.sizes()[i - (nd - b.ndim())];
    sa[2 * i] = da;
    sb[2 * i + 1] = db;
    out[i] = checked_mul(da, db, op);
  }
  Tensor product = binary(BinaryOp::Mul, reshape(a, sa), reshape(b, sb), op);
  return reshape(product, out);
}

int64_t cross_dim(const Tensor& a, const Tensor& b, std::optional<int64_t> dim, const char* op,
                  Shape& shape) {
  GENESIS_CHECK(a.device() == b.device(), op, "expected both tensors on the same device, got ",
                a.device().str(), " and ", b.device().str());
  GENESIS_CHECK(a.dtype() == b.dtype(), op, "expected both tensors to have the same dtype, got ",
                scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  GENESIS_CHECK_TYPE(a.dtype() != ScalarType::Bool, op, "bool tensors are not supported");
  GENESIS_CHECK(a.ndim() == b.ndim(), op, "inputs must have the same number of dims, got ",
                a.ndim(), " and ", b.ndim());
  shape = broadcast_shapes(a.sizes(), b.sizes(), op);
  int64_t d = 0;
  if (dim) {
    d = wrap_dim(*dim, static_cast<int64_t>(shape.size()), op);
  } else {  // torch.cross without dim: the first dim of size 3
    while (d < static_cast<int64_t>(shape.size()) && shape[d] != 3) ++d;
    GENESIS_CHECK(d < static_cast<int64_t>(shape.size()), op, "no dim of size 3 in shape ",
                  shape_str(shape));
  }
  GENESIS_CHECK(shape[d] == 3 && a.sizes()[d] == 3 && b.sizes()[d] == 3, op, "dim ", d,
                " must have size 3 in both inputs, got ", a.sizes()[d], " and ", b.sizes()[d]);
  return d;
}

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim, const char* op) {
  Shape shape;
  int64_t d = cross_dim(a, b, dim, op, shape);
  Tensor ea = expand(a, shape), eb = expand(b, shape);
  // out[i] = a[i+1] * b[i+2] - a[i+2] * b[i+1], indices mod 3: four rolled copies.
  auto rolled = [d](const Tensor& t, int64_t s) { return roll(t, {s}, {d}); };
  Tensor first = binary(BinaryOp::Mul, rolled(ea, -1), rolled(eb, -2), op);
  Tensor second = binary(BinaryOp::Mul, rolled(ea, -2), rolled(eb, -1), op);
  return binary(BinaryOp::Sub, first, second, op);
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, const std::string& compute_mode) {
  const char* op = "cdist";
  GENESIS_CHECK(x1.ndim() >= 2 && x2.ndim() >= 2, op, "expected tensors of at least 2 dims, got ",
                x1.ndim(), "-D and ", x2.ndim(), "-D");
  GENESIS_CHECK(x1.device() == x2.device(), op, "expected both tensors on the same device, got ",
                x1.device().str(), " and ", x2.device().str());
  GENESIS_CHECK_TYPE(is_floating_point(x1.dtype()) && x1.dtype() == x2.dtype(), op,
                     "expected floating point tensors of one dtype, got ",
                     scalar_type_name(x1.dtype()), " and ", scalar_type_name(x2.dtype()));
  GENESIS_CHECK_VALUE(p >= 0 && !std::isnan(p), op, "p must be non-negative, got ", p);
  int64_t m = x1.sizes().back();
  GENESIS_CHECK(m == x2.sizes().back(), op, "x1 and x2 must have the same number of columns, got ",
                m, " and ", x2.sizes().back());
  bool mm_mode = compute_mode == "use_mm_for_euclid_dist";
  GENESIS_CHECK_VALUE(mm_mode || compute_mode == "use_mm_for_euclid_dist_if_necessary" ||
                          compute_mode == "donot_use_mm_for_euclid_dist",
                      op, "unknown compute_mode '", compute_mode, "'");
  Shape sa(x1.sizes().begin(), x1.sizes().end() - 2), sb(x2.sizes().begin(), x2.sizes().end() - 2);
  Shape batch = broadcast_shapes(sa, sb, op);
  int64_t rows1 = x1.sizes()[x1.ndim() - 2], rows2 = x2.sizes()[x2.ndim() - 2];
  Shape shape1 = batch, shape2 = batch;
  shape1.insert(shape1.end(), {rows1, m});
  shape2.insert(shape2.end(), {rows2, m});
  Tensor a = expand(x1, shape1), b = expand(x2, shape2);
  if (compute_mode == "use_mm_for_euclid_dist_if_necessary") mm_mode = rows1 > 25 || rows2 > 25;
  if (p == 2 && mm_mode && m > 0) {
    // Note [cdist by products]: |a - b|^2 = |a|^2 + |b|^2 - 2 a.b, one batched product instead
    // of a (P, R, M) difference; rounding can make it slightly negative, hence the clamp.
    Tensor na = sum(binary(BinaryOp::Mul, a, a, op), Shape{-1}, true, std::nullopt);
    Tensor nb = sum(binary(BinaryOp::Mul, b, b, op), Shape{-1}, true, std::nullopt);
    Tensor ab = matmul(a, transpose(b, -1, -2));
    Tensor sq = binary(BinaryOp::Sub, binary(BinaryOp::Add, na, transpose(nb, -1, -2), op),
                       binary(BinaryOp::Mul, ab, Scalar(2.0), op), op);
    sq = binary(BinaryOp::Maximum, sq, Scalar(0.0), op);
    return unary(UnaryOp::Sqrt, sq, op);
  }
  // The difference of every pair of rows, (..., P, R, M), then its norm over M.
  Tensor diff = binary(BinaryOp::Sub, unsqueeze(a, -2), unsqueeze(b, -3), op);
  return vector_norm(diff, p, Shape{-1}, false, std::nullopt);
}

Tensor tensordot(const Tensor& a, const Tensor& b, const Shape& dims_a, const Shape& dims_b) {
  const char* op = "tensordot";
  GENESIS_CHECK(dims_a.size() == dims_b.size(), op,
                "both dim lists must have the same length, got ", dims_a.size(), " and ",
                dims_b.size());
  check_product_operands(a, b, op);
  std::vector<bool> used_a(a.ndim()), used_b(b.ndim());
  Shape ca, cb;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    int64_t da = wrap_dim(dims_a[i], a.ndim(), op), db = wrap_dim(dims_b[i], b.ndim(), op);
    GENESIS_CHECK(!used_a[da] && !used_b[db], op, "a dim is listed twice");
    used_a[da] = used_b[db] = true;
    GENESIS_CHECK(a.sizes()[da] == b.sizes()[db], op,
                  "contracted dims must have the same size, got ", a.sizes()[da], " in dim ", da,
                  " of the first and ", b.sizes()[db], " in dim ", db, " of the second");
    ca.push_back(da);
    cb.push_back(db);
  }
  Shape fa, fb;
  for (int64_t d = 0; d < a.ndim(); ++d)
    if (!used_a[d]) fa.push_back(d);
  for (int64_t d = 0; d < b.ndim(); ++d)
    if (!used_b[d]) fb.push_back(d);
  // (free_a, contracted) @ (contracted, free_b), each side one 2-D reshape.
  Shape sfa = sizes_at(a, fa), sfb = sizes_at(b, fb);
  int64_t m = numel_of(sfa), n = numel_of(sfb), k = numel_of(sizes_at(a, ca));
  Shape pa = fa, pb = cb;
  pa.insert(pa.end(), ca.begin(), ca.end());
  pb.insert(pb.end(), fb.begin(), fb.end());
  Tensor left = reshape(permute(a, pa), {m, k}), right = reshape(permute(b, pb), {k, n});
  Shape out = sfa;
  out.insert(out.end(), sfb.begin(), sfb.end());
  return reshape(mm(left, right), out);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t n) {
  const char* op = "tensordot";
  GENESIS_CHECK(n >= 0, op, "dims must be non-negative, got ", n);
  GENESIS_CHECK(n <= a.ndim() && n <= b.ndim(), op, "dims ", n,
                " is more than the dims of an input (", a.ndim(), " and ", b.ndim(), ")");
  Shape da, db;
  for (int64_t i = 0; i < n; ++i) {
    da.push_back(a.ndim() - n + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

}  // namespace genesis::ops
