#include "ops/distributions.h"

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "cpu/random.h"
#include "cuda/random.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/index_ops.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/sort.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// The dtype the draws are made and transformed in: float64 for float64 targets, else float32.
ScalarType draw_dtype(const Tensor& self) {
  return self.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

Tensor uniforms(const Tensor& self, Generator* gen, const char* op) {
  return rand(self.sizes(), draw_dtype(self), self.device(), op, gen);
}

Tensor mul(const Tensor& a, double b, const char* op) {
  return binary(BinaryOp::Mul, a, Scalar(b), op);
}
Tensor add(const Tensor& a, double b, const char* op) {
  return binary(BinaryOp::Add, a, Scalar(b), op);
}

// poisson and multinomial check their inputs with a wait for the device, which a capture cannot
// hold (Note [Random ops in graphs]): refused up front, before anything is recorded.
void check_not_captured(const Tensor& t, const char* op) {
  GENESIS_CHECK(!t.is_cuda() || !cuda::current_stream_capturing(t.device().index), op,
                "cannot be captured in a CUDA graph: it validates its input on the host "
                "(call it outside the capture)");
}

void check_floating(const Tensor& self, const char* op) {
  GENESIS_CHECK_TYPE(is_floating_point(self.dtype()), op,
                     "expected a floating point tensor, but got ", scalar_type_name(self.dtype()));
}

// -log(1 - u): exponential with rate 1 (1 - u is in (0, 1], so the log is finite).
Tensor exponentials(const Tensor& u, const char* op) {
  return unary(UnaryOp::Neg, unary(UnaryOp::Log1p, unary(UnaryOp::Neg, u, op), op), op);
}

}  // namespace

void uniform_(const Tensor& self, double from, double to, Generator* gen) {
  const char* op = "uniform_";
  check_writable(self, op);
  check_floating(self, op);
  GENESIS_CHECK_VALUE(from <= to, op, "expected from <= to, but got from=", from, " > to=", to);
  copy_(self, add(mul(uniforms(self, gen, op), to - from, op), from, op));
}

void normal_(const Tensor& self, double mean, double std, Generator* gen) {
  const char* op = "normal_";
  check_writable(self, op);
  check_floating(self, op);
  GENESIS_CHECK_VALUE(std >= 0, op, "expected std >= 0, but got ", std);
  copy_(self,
        add(mul(randn(self.sizes(), draw_dtype(self), self.device(), op, gen), std, op), mean, op));
}

void random_(const Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen) {
  const char* op = "random_";
  check_writable(self, op);
  int64_t high;
  if (to) {
    high = *to;
  } else {  // the dtype's largest exactly held integer, inclusive (PyTorch's default range)
    switch (self.dtype()) {
      case ScalarType::Bool:
        high = 2;
        break;
      case ScalarType::UInt8:
        high = 256;
        break;
      case ScalarType::Int8:
        high = 128;
        break;
      case ScalarType::Int16:
        high = 32768;
        break;
      case ScalarType::Int32:
        high = int64_t{1} << 31;
        break;
      case ScalarType::Float16:
        high = (int64_t{1} << 11) + 1;
        break;
      case ScalarType::BFloat16:
        high = (int64_t{1} << 8) + 1;
        break;
      case ScalarType::Float32:
        high = (int64_t{1} << 24) + 1;
        break;
      case ScalarType::Float64:
        high = (int64_t{1} << 53) + 1;
        break;
      default:
        high = std::numeric_limits<int64_t>::max();
    }
  }
  GENESIS_CHECK_VALUE(from < high, op, "expected from < to, but got from=", from, " >= to=", high);
  ScalarType dtype = self.dtype() == ScalarType::Bool ? ScalarType::UInt8 : self.dtype();
  copy_(self, randint(from, high, self.sizes(), dtype, self.device(), op, gen));
}

void exponential_(const Tensor& self, double lambd, Generator* gen) {
  const char* op = "exponential_";
  check_writable(self, op);
  check_floating(self, op);
  GENESIS_CHECK_VALUE(lambd > 0, op, "expected lambd > 0, but got ", lambd);
  copy_(self, mul(exponentials(uniforms(self, gen, op), op), 1.0 / lambd, op));
}

void geometric_(const Tensor& self, double p, Generator* gen) {
  const char* op = "geometric_";
  check_writable(self, op);
  GENESIS_CHECK_VALUE(p > 0 && p < 1, op, "expected p in (0, 1), but got ", p);
  // The number of trials up to the first success: ceil(log(1 - u) / log(1 - p)), at least 1.
  Tensor u = rand(self.sizes(), ScalarType::Float64, self.device(), op, gen);
  Tensor trials = unary(
      UnaryOp::Ceil,
      mul(unary(UnaryOp::Log1p, unary(UnaryOp::Neg, u, op), op), 1.0 / std::log1p(-p), op), op);
  copy_(self, binary(BinaryOp::Maximum, trials, Scalar(1.0), op));
}

void log_normal_(const Tensor& self, double mean, double std, Generator* gen) {
  const char* op = "log_normal_";
  check_writable(self, op);
  check_floating(self, op);
  GENESIS_CHECK_VALUE(std > 0, op, "expected std > 0, but got ", std);
  Tensor z = randn(self.sizes(), draw_dtype(self), self.device(), op, gen);
  copy_(self, unary(UnaryOp::Exp, add(mul(z, std, op), mean, op), op));
}

void cauchy_(const Tensor& self, double median, double sigma, Generator* gen) {
  const char* op = "cauchy_";
  check_writable(self, op);
  check_floating(self, op);
  GENESIS_CHECK_VALUE(sigma > 0, op, "expected sigma > 0, but got ", sigma);
  // median + sigma * tan(pi * (u - 1/2))
  Tensor angle = mul(add(uniforms(self, gen, op), -0.5, op), M_PI, op);
  Tensor tangent =
      binary(BinaryOp::Div, unary(UnaryOp::Sin, angle, op), unary(UnaryOp::Cos, angle, op), op);
  copy_(self, add(mul(tangent, sigma, op), median, op));
}

void bernoulli_(const Tensor& self, double p, Generator* gen) {
  const char* op = "bernoulli_";
  check_writable(self, op);
  GENESIS_CHECK_VALUE(p >= 0 && p <= 1, op, "expected p in [0, 1], but got ", p);
  Tensor u = rand(self.sizes(), ScalarType::Float64, self.device(), op, gen);
  copy_(self, binary(BinaryOp::Lt, u, Scalar(p), op));
}

void bernoulli_(const Tensor& self, const Tensor& p, Generator* gen) {
  const char* op = "bernoulli_";
  check_writable(self, op);
  GENESIS_CHECK(p.device() == self.device(), op, "expected p on ", self.device().str(),
                ", but it is on ", p.device().str());
  Tensor u = rand(self.sizes(), ScalarType::Float64, self.device(), op, gen);
  copy_(self, binary(BinaryOp::Lt, u, p, op));
}

Tensor bernoulli(const Tensor& probs, Generator* gen) {
  const char* op = "bernoulli";
  check_floating(probs, op);
  Tensor out = Tensor::empty(probs.sizes(), probs.dtype(), probs.device());
  Tensor u = rand(probs.sizes(), ScalarType::Float64, probs.device(), op, gen);
  copy_(out, binary(BinaryOp::Lt, u, probs, op));
  return out;
}

Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  const char* op = "normal";
  GENESIS_CHECK(mean.device() == std.device(), op, "expected mean and std on one device");
  Tensor spread = binary(BinaryOp::Mul, std, Scalar(1.0), op);  // broadcast shape and dtype
  Tensor shape = binary(BinaryOp::Add, mean, spread, op);
  check_floating(shape, op);
  Tensor z = randn(shape.sizes(), shape.dtype(), shape.device(), op, gen);
  return binary(BinaryOp::Add, binary(BinaryOp::Mul, z, std, op), mean, op);
}

Tensor poisson(const Tensor& rates, Generator* gen) {
  const char* op = "poisson";
  check_floating(rates, op);
  check_not_captured(rates, op);
  // The sampler works in float64 on a contiguous copy; one wait for the device checks that
  // every rate is a finite, non-negative number (PyTorch raises for negative and NaN rates).
  Tensor r = contiguous(to(rates, ScalarType::Float64, rates.device(), false));
  if (r.numel() > 0) {
    Tensor bad = binary(BinaryOp::LogicalOr, binary(BinaryOp::Lt, r, Scalar(0.0), op),
                        binary(BinaryOp::Ne, r, r, op), op);  // negative or NaN
    bad = binary(BinaryOp::LogicalOr, bad, binary(BinaryOp::Eq, r, Scalar(INFINITY), op), op);
    GENESIS_CHECK_VALUE(!scalar_of(any(bad, std::nullopt, false), op).to_int(), op,
                        "invalid Poisson rate: expected every rate to be finite and "
                        "non-negative");
  }
  // Allocate before reserving: a failed allocation leaves the generator where it was.
  Tensor counts = Tensor::empty(r.sizes(), ScalarType::Float64, r.device());
  Generator& g = generator_or_default(gen);
  if (r.is_cuda()) {
    cuda::poisson_fill(counts, r, cuda_counters(g, r.device().index, r.numel()));
  } else {
    Counters c = g.reserve(r.numel());
    cpu::poisson_fill(counts, r, c.seed, c.offset);
  }
  return rates.dtype() == ScalarType::Float64 ? counts
                                              : to(counts, rates.dtype(), rates.device(), false);
}

Tensor randperm(int64_t n, ScalarType dtype, Device device, Generator* gen) {
  const char* op = "randperm";
  GENESIS_CHECK_VALUE(n >= 0, op, "n must be non-negative, but got ", n);
  GENESIS_CHECK_TYPE(dtype != ScalarType::Bool &&
                         (n == 0 || is_floating_point(dtype) || can_cast(ScalarType::Int64, dtype)),
                     op, "cannot hold a permutation in dtype ", scalar_type_name(dtype));
  // Sorting random 64-bit keys: a stable sort makes the rare equal keys deterministic too.
  Tensor keys = randint(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                        Shape{n}, ScalarType::Int64, device, op, gen);
  Tensor order = argsort(keys, 0, false);
  return dtype == ScalarType::Int64 ? order : to(order, dtype, device, false);
}

Tensor multinomial(const Tensor& weights, int64_t num_samples, bool replacement, Generator* gen) {
  const char* op = "multinomial";
  check_floating(weights, op);
  check_not_captured(weights, op);
  GENESIS_CHECK(weights.ndim() == 1 || weights.ndim() == 2, op,
                "expected a 1-d or 2-d tensor of weights, but it has ", weights.ndim(), " dims");
  int64_t categories = weights.sizes().back();
  GENESIS_CHECK_VALUE(num_samples > 0, op, "num_samples must be positive, but got ", num_samples);
  GENESIS_CHECK_VALUE(categories > 0, op, "expected at least one category");
  GENESIS_CHECK_VALUE(replacement || num_samples <= categories, op, "cannot draw ", num_samples,
                      " samples from ", categories, " categories without replacement");
  Tensor w = to(weights, ScalarType::Float64, weights.device(), false);
  // One wait for the device: the weights must be finite, non-negative, with a positive sum
  // in every row (and enough positive ones without replacement).
  Tensor bad = any(binary(BinaryOp::LogicalOr, binary(BinaryOp::Lt, w, Scalar(0.0), op),
                          binary(BinaryOp::Ne, w, w, op), op),  // negative or NaN
                   std::nullopt, false);
  GENESIS_CHECK_VALUE(!scalar_of(bad, op).to_int(), op,
                      "the weights must be non-negative and not NaN");
  GENESIS_CHECK_VALUE(
      !scalar_of(any(binary(BinaryOp::Eq, w, Scalar(INFINITY), op), std::nullopt, false), op)
           .to_int(),
      op, "the weights must be finite");
  Tensor positive =
      sum(binary(BinaryOp::Gt, w, Scalar(0.0), op), Shape{-1}, false, ScalarType::Int64);
  int64_t fewest = scalar_of(extreme(positive, false), op).to_int();
  GENESIS_CHECK_VALUE(fewest > 0, op, "a row of weights sums to 0");
  GENESIS_CHECK_VALUE(replacement || fewest >= num_samples, op, "cannot draw ", num_samples,
                      " samples without replacement from a row with ", fewest, " positive weights");
  Tensor rows = w.ndim() == 1 ? unsqueeze(w, 0) : w;  // [R, C]
  int64_t r = rows.sizes()[0];
  Tensor result;
  if (!replacement) {
    // Note [Exponential races]: with e_i exponential(1), the categories ordered by e_i / w_i
    // are a draw without replacement in order (each next is picked with probability w_i over
    // the weights left); the first num_samples of that order are the sample.
    Tensor e =
        exponentials(rand(Shape{r, categories}, ScalarType::Float64, w.device(), op, gen), op);
    Tensor race = binary(BinaryOp::Div, e, rows, op);  // w = 0: +inf, never before a positive one
    result = topk(race, num_samples, -1, false).second;
  } else {
    // Gumbel-max per sample: argmax over categories of log(w) - log(e), e exponential(1).
    Tensor e = exponentials(
        rand(Shape{r, num_samples, categories}, ScalarType::Float64, w.device(), op, gen), op);
    Tensor scores = binary(BinaryOp::Sub, unsqueeze(unary(UnaryOp::Log, rows, op), 1),
                           unary(UnaryOp::Log, e, op), op);
    result = arg_extreme(scores, -1, false, true);
  }
  return weights.ndim() == 1 ? squeeze(result, Shape{0}) : result;
}

}  // namespace genesis::ops
