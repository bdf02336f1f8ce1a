// Note [Adafactor steps]
// ~~~~~~~~~~~~~~~~~~~~~~
// Adafactor (Shazeer and Stern, 2018, as torch.optim.Adafactor) keeps no first moment, and for a
// parameter of 2 or more dims it does not keep a second moment of the parameter's size either:
// it keeps the running means of the squared gradient over the last dim (row_var, (..., m, 1))
// and over the one before it (col_var, (..., 1, n)), and estimates the second moment of each
// element as their outer product over the mean of row_var, V = R C / max(mean(R), eps1): m + n
// numbers per matrix instead of m n. Parameters of 0 or 1 dims keep the whole running mean
// (variance). The update is U = g / max(sqrt(V), eps1), clipped to an RMS of at most d, and
// scaled by the parameter's own RMS (at least eps2) times rho = min(lr, 1 / sqrt(step)).
//
// The other optimizers are one elementwise rule run by one multi-tensor kernel (Note [Optimizer
// steps] in optimizer_step.cpp); Adafactor cannot be: each tensor's step needs reductions whose
// results every element then reads: the sums of squares of the gradient's rows and of its
// columns (before V exists), the RMS of the parameter (taken before weight decay changes it) and
// the RMS of U (before any element of the parameter moves). So the step is composed of genesis's
// ops (norm2 over a dim or all of them, mean, the elementwise binary and unary ops), which run on
// whichever device the tensors are on; the arithmetic is PyTorch's single-tensor step in
// PyTorch's order (lerp with its two-sided formula, the row means as norm2^2 / n), computed in
// the parameter's dtype as PyTorch's Adafactor, which has no fused form, does.
//
// Nothing waits for the device: PyTorch reads both RMS values to the host (.item()), twice a
// tensor; here they stay 0-d tensors on the parameter's device and the step size is worked out
// there (five launches on single elements), so a CUDA step queues every launch of the group
// without a synchronization. Only the step counts (0-d float32 CPU tensors, as PyTorch keeps
// them) and what follows from them (1 - beta2_t = step^beta2_decay, rho) are on the host.
//
// On CUDA a contiguous tensor of 2 or more dims costs 28 launches (29 with weight decay): norm2
// and two scalings for alpha; norm2, square, divide and a three-launch lerp for each of row_var
// and col_var; the outer product; mean, clamp and divide by the clamped mean of row_var; clamp,
// rsqrt and multiply by g; norm2, divide, clamp and divide for the step size; scale and subtract.
// A tensor of 0 or 1 dims costs 16 (17): the squared gradient and its lerp replace the factored
// part, and the clamp writes the estimate's copy. A reduction the planner splits into chunks (a
// long row or column, or a whole large tensor) adds its final kernel (Note [Reduction chunks] in
// kernels/reduce_sum.cu), and a layout norm2 cannot read in place adds its copy. The temporaries
// are the update (the parameter's size, as PyTorch's) and, for 0 or 1 dims, the squared gradient;
// the factors' are of their sizes.
#include "ops/adafactor_step.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/errors.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

namespace genesis::ops {

namespace {

constexpr const char* kOp = "adafactor_step";

// torch.finfo(dtype).eps of the step dtypes.
double machine_epsilon(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return 0x1p-10;
    case ScalarType::BFloat16:
      return 0x1p-7;
    case ScalarType::Float32:
      return 0x1p-23;
    default:
      return 0x1p-52;
  }
}

// `t` has `want`'s sizes and the parameter's dtype and device.
void check_state(const Tensor& t, const Tensor& p, const Shape& want, const char* what, size_t i) {
  GENESIS_CHECK(t.defined(), kOp, what, " ", i, " is undefined: a parameter of ", p.ndim(),
                " dims keeps ", p.ndim() >= 2 ? "row_var and col_var" : "variance");
  GENESIS_CHECK(t.dtype() == p.dtype() && t.device() == p.device() && t.sizes() == want, kOp, what,
                " ", i, " (", scalar_type_name(t.dtype()), ", ", shape_str(t.sizes()), ", ",
                t.device().str(), ") does not match its param: expected ",
                scalar_type_name(p.dtype()), ", ", shape_str(want), ", ", p.device().str());
  check_writable(t, kOp);
}

void check_lists(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& row_vars, const std::vector<Tensor>& col_vars,
                 const std::vector<Tensor>& variances, const std::vector<Tensor>& steps) {
  const size_t n = params.size();
  const std::pair<const std::vector<Tensor>*, const char*> lists[] = {{&grads, "gradients"},
                                                                      {&row_vars, "row_vars"},
                                                                      {&col_vars, "col_vars"},
                                                                      {&variances, "variances"},
                                                                      {&steps, "step counts"}};
  for (const auto& [list, what] : lists)
    GENESIS_CHECK_VALUE(list->size() == n, kOp, "expected ", n, " ", what, ", got ", list->size());
  for (size_t i = 0; i < n; ++i) {
    const Tensor& p = params[i];
    GENESIS_CHECK(p.defined(), kOp, "param ", i, " is undefined");
    GENESIS_CHECK_TYPE(is_floating_point(p.dtype()), kOp, "param ", i,
                       " must be a floating point tensor of 16, 32 or 64 bits, got ",
                       scalar_type_name(p.dtype()));
    check_writable(p, kOp);
    const Tensor& g = grads[i];
    GENESIS_CHECK(g.defined(), kOp, "grad ", i, " is undefined");
    GENESIS_CHECK(g.dtype() == p.dtype() && g.device() == p.device() && g.sizes() == p.sizes(), kOp,
                  "grad ", i, " (", scalar_type_name(g.dtype()), ", ", shape_str(g.sizes()), ", ",
                  g.device().str(), ") does not match its param (", scalar_type_name(p.dtype()),
                  ", ", shape_str(p.sizes()), ", ", p.device().str(), ")");
    if (p.ndim() >= 2) {
      Shape rows = p.sizes(), cols = p.sizes();
      rows[rows.size() - 1] = 1;
      cols[cols.size() - 2] = 1;
      check_state(row_vars[i], p, rows, "row_var", i);
      check_state(col_vars[i], p, cols, "col_var", i);
    } else {
      check_state(variances[i], p, p.sizes(), "variance", i);
    }
    const Tensor& s = steps[i];
    GENESIS_CHECK(s.defined() && !s.is_cuda() && s.numel() == 1 &&
                      s.dtype() == ScalarType::Float32 && s.is_contiguous(),
                  kOp, "expected each step count as a one-element float32 CPU tensor");
    check_writable(s, kOp);
  }
}

// self = lerp(self, end, weight) in place with PyTorch's two-sided formula, self + w (end - self)
// for |w| < 0.5 and end - (end - self)(1 - w) otherwise (written end + (self - end)(1 - w), the
// same numbers), so that w = 1 gives end exactly. Three launches; `end`, a temporary, is
// overwritten in the first case.
void lerp_(const Tensor& self, const Tensor& end, double weight) {
  if (std::fabs(weight) < 0.5) {
    binary_(BinaryOp::Sub, end, self, kOp);
    binary_(BinaryOp::Mul, end, Scalar(weight), kOp);
    binary_(BinaryOp::Add, self, end, kOp);
  } else {
    binary_(BinaryOp::Sub, self, end, kOp);
    binary_(BinaryOp::Mul, self, Scalar(1.0 - weight), kOp);
    binary_(BinaryOp::Add, self, end, kOp);
  }
}

// mean(g * g) over `dim`, kept as a size-1 dim, without a squared copy of g: norm2^2 / size.
Tensor mean_of_squares(const Tensor& g, int64_t dim) {
  Tensor out = norm2(g, Shape{dim}, true);
  unary_(UnaryOp::Square, out, kOp);
  binary_(BinaryOp::Div, out, Scalar(static_cast<double>(g.size(dim))), kOp);
  return out;
}

// One tensor's step; `step` is its count, already incremented.
void step_tensor(const Tensor& p, const Tensor& g, const Tensor& row_var, const Tensor& col_var,
                 const Tensor& variance, double step, double eps1, const AdafactorOptions& o) {
  const double one_minus_beta2 = std::pow(step, o.beta2_decay);
  const double rho = std::min(o.lr, 1 / std::sqrt(step));
  const double root_numel = std::sqrt(static_cast<double>(p.numel()));

  // alpha = max(eps2, RMS(p)) * rho, a 0-d tensor on p's device, read before weight decay.
  Tensor alpha = norm2(p, std::nullopt, false);
  binary_(BinaryOp::Mul, alpha, Scalar(rho / root_numel), kOp);
  binary_(BinaryOp::Maximum, alpha, Scalar(o.eps2 * rho), kOp);
  if (o.weight_decay != 0) binary_(BinaryOp::Mul, p, Scalar(1 - o.lr * o.weight_decay), kOp);

  // Under maximize PyTorch steps along -g: the squares are the same, and the update's sign is
  // taken at the end (the last add instead of the subtraction), so -g is never made.
  Tensor update;
  if (p.ndim() >= 2) {
    lerp_(row_var, mean_of_squares(g, -1), one_minus_beta2);
    lerp_(col_var, mean_of_squares(g, -2), one_minus_beta2);
    update = binary(BinaryOp::Mul, row_var, col_var, kOp);  // the outer product, (..., m, n)
    Tensor row_mean = mean(row_var, Shape{-2}, true, std::nullopt);
    binary_(BinaryOp::Maximum, row_mean, Scalar(eps1), kOp);
    binary_(BinaryOp::Div, update, row_mean, kOp);
    binary_(BinaryOp::Maximum, update, Scalar(eps1 * eps1), kOp);
  } else {
    lerp_(variance, unary(UnaryOp::Square, g, kOp), one_minus_beta2);
    update = binary(BinaryOp::Maximum, variance, Scalar(eps1 * eps1), kOp);
  }
  // eps1 is squared above as the clamp comes before the square root.
  unary_(UnaryOp::Rsqrt, update, kOp);
  binary_(BinaryOp::Mul, update, g, kOp);

  // The step size alpha / max(1, RMS(U) / d), still on the device.
  Tensor clip = norm2(update, std::nullopt, false);
  binary_(BinaryOp::Div, clip, Scalar(root_numel * o.d), kOp);
  binary_(BinaryOp::Maximum, clip, Scalar(1.0), kOp);
  Tensor step_size = binary(BinaryOp::Div, alpha, clip, kOp);
  binary_(BinaryOp::Mul, update, step_size, kOp);
  binary_(o.maximize ? BinaryOp::Add : BinaryOp::Sub, p, update, kOp);
}

}  // namespace

void adafactor_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                    const std::vector<Tensor>& row_vars, const std::vector<Tensor>& col_vars,
                    const std::vector<Tensor>& variances, const std::vector<Tensor>& steps,
                    const AdafactorOptions& options) {
  check_lists(params, grads, row_vars, col_vars, variances, steps);
  if (params.empty()) return;
  const double eps1 = options.eps1.value_or(machine_epsilon(params[0].dtype()));
  for (size_t i = 0; i < params.size(); ++i) {
    float* count = steps[i].mutable_data_as<float>();
    *count += 1;
    // PyTorch's step divides by the RMS of an empty tensor (a ZeroDivisionError); here an empty
    // parameter and its state stay as they are.
    if (params[i].numel() == 0) continue;
    step_tensor(params[i], grads[i], row_vars[i], col_vars[i], variances[i],
                static_cast<double>(*count), eps1, options);
  }
}

}  // namespace genesis::ops
