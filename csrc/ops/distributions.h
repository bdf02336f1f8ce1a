#pragma once
// Distributions composed from the Philox streams of ops/random.h: the in-place fills
// (uniform_, normal_, random_, exponential_, geometric_, log_normal_, cauchy_, bernoulli_),
// bernoulli, normal with tensor parameters, randperm and multinomial. Each draws uniforms or
// normals in float32 (float64 for float64 tensors) and transforms them with tensor ops, so the
// numbers are the same on every device for a generator state (Note [Generators]).
#include <cstdint>
#include <optional>

#include "core/scalar.h"
#include "core/tensor.h"
#include "ops/generator.h"

namespace genesis::ops {

void uniform_(const Tensor& self, double from, double to, Generator* gen);
void normal_(const Tensor& self, double mean, double std, Generator* gen);
// Integers in [from, to); without `to`, [from, the largest integer the dtype holds exactly].
void random_(const Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen);
void exponential_(const Tensor& self, double lambd, Generator* gen);
void geometric_(const Tensor& self, double p, Generator* gen);
void log_normal_(const Tensor& self, double mean, double std, Generator* gen);
void cauchy_(const Tensor& self, double median, double sigma, Generator* gen);
// 1 with probability p (a number or a tensor broadcast to self), else 0.
void bernoulli_(const Tensor& self, double p, Generator* gen);
void bernoulli_(const Tensor& self, const Tensor& p, Generator* gen);
// Draws 0/1 with the probabilities in `probs`; the result has probs' dtype.
Tensor bernoulli(const Tensor& probs, Generator* gen);
// Normal numbers with tensor (or broadcast) means and standard deviations.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen);
// Poisson counts with the rates in `rates` (finite, non-negative floats), of rates' dtype and
// shape; the numbers come from vocab/poisson.h (Note [Poisson streams]).
Tensor poisson(const Tensor& rates, Generator* gen);
// A random permutation of 0 .. n-1.
Tensor randperm(int64_t n, ScalarType dtype, Device device, Generator* gen);
// num_samples category indices per row of non-negative weights (1-d or 2-d).
Tensor multinomial(const Tensor& weights, int64_t num_samples, bool replacement, Generator* gen);

}  // namespace genesis::ops
