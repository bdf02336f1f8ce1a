// Note [Muon steps]
// ~~~~~~~~~~~~~~~~~
// Muon (Keller Jordan, 2024, as torch.optim.Muon) steps each 2-D parameter along its momentum
// made orthogonal: with w = 1 - momentum, buf = lerp(buf, g, w); the update U is
// lerp(g, buf, momentum) under nesterov, else buf; O = NS(U), k Newton-Schulz iterations; then
// p *= 1 - lr * weight_decay and p -= lr * ratio * O, where ratio is sqrt(max(1, rows / cols))
// ("original", the default) or 0.2 * sqrt(max(rows, cols)) ("match_rms_adamw").
//
// The other optimizers are one elementwise rule run by one multi-tensor kernel (Note [Optimizer
// steps] in optimizer_step.cpp); Muon cannot be: NS is matrix products, and it starts from the
// Frobenius norm of the whole update. So the step is composed of genesis's ops (mm, norm2,
// clamp_, the elementwise binary ops, dtype conversions), which run on whichever device the
// tensors are on; the arithmetic is PyTorch's single-tensor step in PyTorch's order, but for
// one association in the iteration (below).
//
// NS is PyTorch's, in bfloat16: X = U in bfloat16, transposed when it has more rows than
// columns (so that the Gram matrix is the smaller one), divided by max(norm(X), eps) (the norm
// summed in float32 and rounded to bfloat16, as PyTorch's); then k times A = X X^T,
// B = b A + c A^2 (PyTorch's addmm(A, A, A, beta=b, alpha=c)) and X = a X + B X (addmm(X, B, X,
// beta=a)); X transposed back. Every matrix between the steps is bfloat16, as PyTorch's, and
// every product accumulates in float32 (cuBLAS on CUDA, tensor cores included). The sums
// differ: PyTorch's bfloat16 addmm forms beta * input + alpha * product from the product's
// float32 accumulator and rounds once, while genesis's mm returns its operands' dtype. Composed
// as written (ops::addmm, or mm and then a float32 sum), B X would be rounded before a X is
// added, and the two nearly cancel (a = 3.4 against B near -2.7 where a singular value is near
// 1, leaving 0.7): the rounding, 2^-9 of B X, becomes about 2^-7 of the result at every
// iteration; that measured 1.4 times PyTorch's distance from the exact (float64) iteration, and
// up to 7% of a one-row update. So X = a X + B X is taken as (a I + B) X, the same polynomial:
// a I + b A + c A^2 is summed in float32 from the bfloat16 A and A^2 and rounded once, so the
// cancellation comes before any rounding, and the product's rounding is relative to its result.
// That is as far from the exact iteration as PyTorch's result is (1-2.5% of the update's norm
// for well-conditioned matrices, more for nearly singular ones, for both), the two are about
// that far apart (independent roundings), and the sums are m x m, none m x n.
//
// The rest is PyTorch's elementwise arithmetic: lerp with its two-sided formula (w < 0.5:
// start + w (end - start); otherwise end - (end - start)(1 - w), 1 - w taken in the compute
// dtype), computed in float32 for 16-bit tensors and rounded once, as PyTorch's lerp; the
// update widened to float32 for 16-bit parameters (the parameter's dtype otherwise), scaled by
// -lr * ratio and added, rounded once into the parameter. One of PyTorch's effects is kept on
// purpose: without nesterov a bfloat16 buffer is its own bfloat16 copy (Tensor.bfloat16()
// returns it), so PyTorch's in-place division by the norm divides the momentum buffer too (its
// norm becomes 1 each step); so it does here, and the states of the two stay the same.
//
// Nothing waits for the device: the norm stays a 0-d tensor on the parameter's device, and
// everything on the host (lr * ratio, the factors) comes from the options and the shape.
// Everything is checked before anything is written (PyTorch checks ns_steps and the
// coefficients after the first parameter's buffer has moved).
//
// On CUDA a contiguous float32 matrix costs 14 + 10k launches (64 at k = 5; 3 fewer without
// nesterov, 1 fewer without weight decay): the lerp of buf (3), the nesterov lerp (3) and its
// bfloat16 copy; norm2, clamp and divide; per iteration the 3 products and the sum between
// them (7: widen A^2 and A, scale each, add, add a to the diagonal, round to bfloat16); the
// weight decay; the update widened, scaled and added. A bfloat16 matrix costs 21 + 10k (each
// lerp widens both operands and rounds its result, the update widens the parameter and writes
// its sum back); under master weights, 16 + 10k (the float32 step, the gradient widened, the
// copy rounded into the parameter). A norm the planner splits into chunks adds its final
// kernel (Note [Reduction chunks] in kernels/reduce_sum.cu). PyTorch launches 3 an iteration
// (its addmm is one cuBLAS call with beta) and about 10 besides. The temporaries of an m x n
// matrix (m <= n after the transpose): X (m n, bfloat16, a new one each iteration), A, A^2 and
// a I + B (m m, bfloat16) and the float32 sum and scaled A (m m), the nesterov update and the
// widened step (the parameter's size).
#include "ops/muon_step.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/reduce.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

constexpr const char* kOp = "muon_step";

// The dtype PyTorch computes elementwise ops of dtype t in: float32 for the 16-bit floats.
ScalarType compute_dtype(ScalarType t) { return is_16_bit_float(t) ? ScalarType::Float32 : t; }

// 1 - w in the compute dtype, as PyTorch's lerp forms it (opmath_t(1) - weight).
double one_minus(double w, ScalarType compute) {
  if (compute == ScalarType::Float64) return 1.0 - w;
  return static_cast<double>(1.0f - static_cast<float>(w));
}

// self = lerp(self, end, w) in place, PyTorch's two-sided formula in self's dtype; `end` is
// overwritten when `scratch` (a temporary), else read only. Three launches.
void lerp_in_place(const Tensor& self, const Tensor& end, double w, bool scratch) {
  if (std::fabs(w) < 0.5) {
    Tensor diff = scratch ? end : binary(BinaryOp::Sub, end, self, kOp);
    if (scratch) binary_(BinaryOp::Sub, diff, self, kOp);
    binary_(BinaryOp::Mul, diff, Scalar(w), kOp);
    binary_(BinaryOp::Add, self, diff, kOp);
  } else {
    // end - (end - self)(1 - w), written end + (self - end)(1 - w): the same numbers.
    binary_(BinaryOp::Sub, self, end, kOp);
    binary_(BinaryOp::Mul, self, Scalar(one_minus(w, self.dtype())), kOp);
    binary_(BinaryOp::Add, self, end, kOp);
  }
}

// buf.lerp_(g, w) as PyTorch: 16-bit buffers computed in float32 and rounded once.
void lerp_buffer(const Tensor& buf, const Tensor& g, double w) {
  if (!is_16_bit_float(buf.dtype())) {
    lerp_in_place(buf, g, w, false);
    return;
  }
  Tensor wide = to(buf, ScalarType::Float32, buf.device(), false);
  lerp_in_place(wide, to(g, ScalarType::Float32, g.device(), false), w, true);
  copy_(buf, wide);
}

// start.lerp(end, w) as PyTorch, a new tensor of start's dtype (16-bit ones computed in float32
// and rounded once).
Tensor lerp_of(const Tensor& start, const Tensor& end, double w) {
  const ScalarType compute = compute_dtype(start.dtype());
  Tensor s = to(start, compute, start.device(), false);
  Tensor e = to(end, compute, end.device(), false);
  Tensor out;
  if (std::fabs(w) < 0.5) {
    out = binary(BinaryOp::Sub, e, s, kOp);
    binary_(BinaryOp::Mul, out, Scalar(w), kOp);
    binary_(BinaryOp::Add, out, s, kOp);
  } else {
    // end - (end - start)(1 - w), written (start - end)(1 - w) + end: the same numbers.
    out = binary(BinaryOp::Sub, s, e, kOp);
    binary_(BinaryOp::Mul, out, Scalar(one_minus(w, compute)), kOp);
    binary_(BinaryOp::Add, out, e, kOp);
  }
  return to(out, start.dtype(), start.device(), false);
}

// a I + b A + c A A for the bfloat16 Gram matrix A (m x m): A A in bfloat16 (float32
// accumulation), the sum in float32, rounded to bfloat16 once (Note [Muon steps]). A zero
// coefficient drops its term (c == 0: no product), as PyTorch's addmm ignores a zero beta.
Tensor gram_polynomial(const Tensor& gram, double a, double b, double c) {
  Tensor sum;
  if (c != 0.0) {
    sum = to(mm(gram, gram), ScalarType::Float32, gram.device(), false);
    if (c != 1.0) binary_(BinaryOp::Mul, sum, Scalar(c), kOp);
  }
  if (b != 0.0) {
    Tensor linear = to(gram, ScalarType::Float32, gram.device(), false);
    if (b != 1.0) binary_(BinaryOp::Mul, linear, Scalar(b), kOp);
    if (sum.defined())
      binary_(BinaryOp::Add, sum, linear, kOp);
    else
      sum = linear;
  }
  if (!sum.defined()) {
    sum = Tensor::empty(gram.sizes(), ScalarType::Float32, gram.device());
    fill_(sum, Scalar(0.0), kOp);
  }
  if (a != 0.0) binary_(BinaryOp::Add, diagonal(sum, 0, 0, 1), Scalar(a), kOp);
  return to(sum, ScalarType::BFloat16, sum.device(), false);
}

// PyTorch's _zeropower_via_newtonschulz of a 2-D update, in bfloat16, with X = a X + B X taken
// as (a I + B) X (Note [Muon steps]); a bfloat16 update is divided by its norm in place, as in
// PyTorch.
Tensor newton_schulz(const Tensor& update, const MuonOptions& o) {
  const double a = o.ns_coefficients[0], b = o.ns_coefficients[1], c = o.ns_coefficients[2];
  Tensor x = to(update, ScalarType::BFloat16, update.device(), false);
  Tensor norm = norm2(x, std::nullopt, false);
  clamp_(norm, Operand(Scalar(o.eps)), std::nullopt, kOp);
  binary_(BinaryOp::Div, x, norm, kOp);
  const bool tall = x.sizes()[0] > x.sizes()[1];
  if (tall) x = t(x);
  for (int64_t k = 0; k < o.ns_steps; ++k) x = mm(gram_polynomial(mm(x, t(x)), a, b, c), x);
  return tall ? t(x) : x;
}

// PyTorch's _adjust_lr: lr times the ratio for a rows x cols matrix.
double adjusted_lr(double lr, const std::optional<std::string>& fn, int64_t rows, int64_t cols) {
  if (fn && *fn == "match_rms_adamw")
    return lr * (0.2 * std::sqrt(static_cast<double>(std::max(rows, cols))));
  return lr * std::sqrt(std::max(1.0, static_cast<double>(rows) / static_cast<double>(cols)));
}

void check_options(const MuonOptions& o) {
  GENESIS_CHECK_VALUE(o.ns_steps < 100, kOp,
                      "Number of steps must be less than 100 for computational efficiency");
  GENESIS_CHECK_VALUE(o.ns_coefficients.size() == 3, kOp,
                      "Coefficients must be a tuple of exactly 3 values");
  GENESIS_CHECK_VALUE(
      !o.adjust_lr_fn || *o.adjust_lr_fn == "original" || *o.adjust_lr_fn == "match_rms_adamw", kOp,
      "Adjust learning rate function ", *o.adjust_lr_fn,
      " is not supported (expected None, 'original' or 'match_rms_adamw')");
}

void check_lists(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& bufs, const std::vector<Tensor>& narrow) {
  const size_t n = params.size();
  GENESIS_CHECK_VALUE(grads.size() == n, kOp, "expected ", n, " gradients, got ", grads.size());
  GENESIS_CHECK_VALUE(bufs.size() == n, kOp, "expected ", n, " momentum buffers, got ",
                      bufs.size());
  GENESIS_CHECK_VALUE(narrow.empty() || narrow.size() == n, kOp, "expected ", n,
                      " 16-bit parameters, got ", narrow.size());
  for (size_t i = 0; i < n; ++i) {
    GENESIS_CHECK(grads[i].defined(), kOp, "grad ", i, " is undefined");
    GENESIS_CHECK_VALUE(grads[i].ndim() == 2, kOp, "Param gradient must be a 2D matrix");
  }
  for (size_t i = 0; i < n; ++i) {
    const Tensor& p = params[i];
    GENESIS_CHECK(p.defined(), kOp, "param ", i, " is undefined");
    GENESIS_CHECK_TYPE(is_floating_point(p.dtype()), kOp, "param ", i,
                       " must be a floating point tensor of 16, 32 or 64 bits, got ",
                       scalar_type_name(p.dtype()));
    check_writable(p, kOp);
    // Under master weights, the 16-bit parameter p stands for (its gradient's dtype).
    const bool mastered = !narrow.empty() && narrow[i].defined();
    if (mastered) {
      const Tensor& q = narrow[i];
      GENESIS_CHECK(p.dtype() == ScalarType::Float32 && is_16_bit_float(q.dtype()) &&
                        q.device() == p.device() && q.sizes() == p.sizes(),
                    kOp, "master weight ", i, " (", scalar_type_name(p.dtype()), ", ",
                    shape_str(p.sizes()),
                    ") must be float32 with the shape and device of its float16 or bfloat16 "
                    "parameter");
      check_writable(q, kOp);
    }
    const Tensor& g = grads[i];
    const ScalarType grad_dtype = mastered ? narrow[i].dtype() : p.dtype();
    GENESIS_CHECK(g.dtype() == grad_dtype && g.device() == p.device() && g.sizes() == p.sizes(),
                  kOp, "grad ", i, " (", scalar_type_name(g.dtype()), ", ", shape_str(g.sizes()),
                  ", ", g.device().str(), ") does not match its param (",
                  scalar_type_name(grad_dtype), ", ", shape_str(p.sizes()), ", ", p.device().str(),
                  ")");
    const Tensor& buf = bufs[i];
    GENESIS_CHECK(buf.defined(), kOp, "momentum buffer ", i, " is undefined");
    GENESIS_CHECK(
        buf.dtype() == p.dtype() && buf.device() == p.device() && buf.sizes() == p.sizes(), kOp,
        "momentum buffer ", i, " (", scalar_type_name(buf.dtype()), ", ", shape_str(buf.sizes()),
        ", ", buf.device().str(), ") does not match its param (", scalar_type_name(p.dtype()), ", ",
        shape_str(p.sizes()), ", ", p.device().str(), ")");
    check_writable(buf, kOp);
  }
}

// One matrix's step (Note [Muon steps]); g has p's dtype.
void step_matrix(const Tensor& p, const Tensor& g, const Tensor& buf, const MuonOptions& o) {
  lerp_buffer(buf, g, 1.0 - o.momentum);
  Tensor update = o.nesterov ? lerp_of(g, buf, o.momentum) : buf;
  Tensor ortho = newton_schulz(update, o);
  if (o.weight_decay != 0.0) binary_(BinaryOp::Mul, p, Scalar(1.0 - o.lr * o.weight_decay), kOp);
  const double lr = adjusted_lr(o.lr, o.adjust_lr_fn, p.sizes()[0], p.sizes()[1]);
  Tensor step = to(ortho, compute_dtype(p.dtype()), p.device(), false);
  binary_(BinaryOp::Mul, step, Scalar(-lr), kOp);
  binary_(BinaryOp::Add, p, step, kOp);
}

}  // namespace

void muon_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& momentum_buffers, const MuonOptions& options,
               const std::vector<Tensor>& narrow) {
  check_lists(params, grads, momentum_buffers, narrow);
  check_options(options);
  for (size_t i = 0; i < params.size(); ++i) {
    // PyTorch's ratio divides by the column count, a ZeroDivisionError for (n, 0); an empty
    // parameter and its buffer stay as they are.
    if (params[i].numel() == 0) continue;
    const bool mastered = !narrow.empty() && narrow[i].defined();
    const Tensor& p = params[i];
    step_matrix(p, mastered ? to(grads[i], p.dtype(), p.device(), false) : grads[i],
                momentum_buffers[i], options);
    if (mastered) copy_(narrow[i], p);
  }
}

}  // namespace genesis::ops
