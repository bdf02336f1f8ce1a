#pragma once
// One optimizer step over a list of parameters as one call (Note [Optimizer steps] in
// optimizer_step.cpp): genesis.optim's optimizers call these once per parameter group. Each
// takes `narrow`: empty, or under master weights (Note [Master weights]) the float16/bfloat16
// parameters whose float32 copies are `params` (their gradients are the 16-bit ones, the states
// float32); each stepped value is then also written to its 16-bit parameter, rounded.
#include <vector>

#include "core/tensor.h"
#include "vocab/optimizer_rules.h"

namespace genesis::ops {

// params[i] -= lr * (its SGD direction) in place, for every i; grads[i] has params[i]'s dtype,
// shape and device. momentum_buffers: empty when rule.momentum is 0, else one entry per
// parameter, an undefined Tensor where the buffer does not exist yet (it is created, as the
// gradient's direction, and returned in its place). Returns the buffers (empty without
// momentum).
std::vector<Tensor> sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                             const std::vector<Tensor>& momentum_buffers, const SgdRule& rule,
                             const std::vector<Tensor>& narrow = {});

// The Adam (AdamW under rule.decoupled) step in place. steps: each parameter's step count, a
// 0-d float32 CPU tensor, incremented here before its bias corrections are worked out.
// max_exp_avg_sqs: one per parameter under rule.amsgrad, else empty. Every state tensor has its
// parameter's dtype, shape and device.
void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
               const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
               const AdamRule& rule, const std::vector<Tensor>& narrow = {});

// RMSprop in place. grad_avgs: one per parameter when rule.centered, else empty;
// momentum_buffers: one per parameter when rule.momentum > 0, else empty. steps as for Adam.
void rmsprop_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& square_avgs, const std::vector<Tensor>& grad_avgs,
                  const std::vector<Tensor>& momentum_buffers, const std::vector<Tensor>& steps,
                  const RmspropRule& rule, const std::vector<Tensor>& narrow = {});

// Adagrad in place; each parameter's learning rate is lr / (1 + (step - 1) * lr_decay).
void adagrad_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& sums, const std::vector<Tensor>& steps, double lr,
                  double lr_decay, const AdagradRule& rule, const std::vector<Tensor>& narrow = {});

// Adamax in place; the step size is lr / (1 - beta1^step).
void adamax_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_infs,
                 const std::vector<Tensor>& steps, double lr, const AdamaxRule& rule,
                 const std::vector<Tensor>& narrow = {});

// Adadelta in place; steps as for Adam.
void adadelta_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   const std::vector<Tensor>& square_avgs, const std::vector<Tensor>& acc_deltas,
                   const std::vector<Tensor>& steps, const AdadeltaRule& rule,
                   const std::vector<Tensor>& narrow = {});

// NAdam in place; mu_products: each parameter's product of momentum coefficients, a 0-d
// float32 CPU tensor updated here.
void nadam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                const std::vector<Tensor>& mu_products, const std::vector<Tensor>& steps,
                double momentum_decay, const NadamRule& rule,
                const std::vector<Tensor>& narrow = {});

// RAdam in place; steps as for Adam.
void radam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                const std::vector<Tensor>& steps, const RadamRule& rule,
                const std::vector<Tensor>& narrow = {});

// Lion in place (no step count: its update does not depend on the step).
void lion_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& exp_avgs, const LionRule& rule,
               const std::vector<Tensor>& narrow = {});

// Rprop in place: prevs and step_sizes are each parameter's states; steps counted (unused by
// the update).
void rprop_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& prevs, const std::vector<Tensor>& step_sizes,
                const std::vector<Tensor>& steps, const RpropRule& rule,
                const std::vector<Tensor>& narrow = {});

// ASGD in place: axs (the averages) are states of the parameters' dtype; steps, etas and mus
// are one-element float32 CPU tensors, as PyTorch keeps them: each parameter is stepped with its
// eta and mu, then the step is counted and eta and mu become lr / (1 + lambd * lr * step)^alpha
// and 1 / max(1, step - t0).
void asgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& axs, const std::vector<Tensor>& steps,
               const std::vector<Tensor>& etas, const std::vector<Tensor>& mus, double lr,
               double alpha, double t0, const AsgdRule& rule,
               const std::vector<Tensor>& narrow = {});

}  // namespace genesis::ops
