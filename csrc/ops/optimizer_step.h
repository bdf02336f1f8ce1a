#pragma once
// One optimizer step over a list of parameters as one call (Note [Optimizer steps] in
// optimizer_step.cpp): genesis.optim's optimizers call these once per parameter group. Each
// takes its lists as borrowed tensors (core/tensor.h's TensorRefs; null: an undefined tensor) and
// `narrow`: empty, or under master weights (Note [Master weights]) the float16/bfloat16
// parameters whose float32 copies are `params` (their gradients are the 16-bit ones, the states
// float32); each stepped value is then also written to its 16-bit parameter, rounded. The steps
// that can be captured in a CUDA graph (SGD, Adam, RMSprop, Adadelta, RAdam, Adamax, Rprop) also
// take `lr`: null, or the learning rate as a one-element tensor on the parameters' device, read
// there; and their step counts may be on the parameters' devices, incremented there (Note
// [Capturable steps] in vocab/optimizer_rules.h).
#include <vector>

#include "core/tensor.h"
#include "vocab/optimizer_rules.h"

namespace genesis::ops {

// params[i] -= lr * (its SGD direction) in place, for every i; grads[i] has params[i]'s dtype,
// shape and device. momentum_buffers: empty when rule.momentum is 0, else one entry per
// parameter, null where the buffer does not exist yet (it is created, as the gradient's
// direction). Returns the buffers created, each at its parameter's index, undefined elsewhere
// (empty without momentum).
std::vector<Tensor> sgd_step(const TensorRefs& params, const TensorRefs& grads,
                             const TensorRefs& momentum_buffers, const SgdRule& rule,
                             const TensorRefs& narrow = {}, const Tensor* lr = nullptr);

// The Adam (AdamW under rule.decoupled) step in place. steps: each parameter's step count, a
// 0-d float32 CPU tensor, incremented here before its bias corrections are worked out.
// max_exp_avg_sqs: one per parameter under rule.amsgrad, else empty. Every state tensor has its
// parameter's dtype, shape and device.
void adam_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
               const TensorRefs& exp_avg_sqs, const TensorRefs& max_exp_avg_sqs,
               const TensorRefs& steps, const AdamRule& rule, const TensorRefs& narrow = {},
               const Tensor* lr = nullptr);

// RMSprop in place. grad_avgs: one per parameter when rule.centered, else empty;
// momentum_buffers: one per parameter when rule.momentum > 0, else empty. steps as for Adam.
void rmsprop_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& square_avgs,
                  const TensorRefs& grad_avgs, const TensorRefs& momentum_buffers,
                  const TensorRefs& steps, const RmspropRule& rule, const TensorRefs& narrow = {},
                  const Tensor* lr = nullptr);

// Adagrad in place; each parameter's learning rate is lr / (1 + (step - 1) * lr_decay).
void adagrad_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& sums,
                  const TensorRefs& steps, double lr, double lr_decay, const AdagradRule& rule,
                  const TensorRefs& narrow = {});

// Adamax in place; the step size is rule.lr / (1 - beta1^step).
void adamax_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
                 const TensorRefs& exp_infs, const TensorRefs& steps, const AdamaxRule& rule,
                 const TensorRefs& narrow = {}, const Tensor* lr = nullptr);

// Adadelta in place; steps as for Adam.
void adadelta_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& square_avgs,
                   const TensorRefs& acc_deltas, const TensorRefs& steps, const AdadeltaRule& rule,
                   const TensorRefs& narrow = {}, const Tensor* lr = nullptr);

// NAdam in place; mu_products: each parameter's product of momentum coefficients, a 0-d
// float32 tensor updated here, on the CPU, or beside the step counts on the parameter's device
// (capturable; Note [Capturable steps] in vocab/optimizer_rules.h).
void nadam_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
                const TensorRefs& exp_avg_sqs, const TensorRefs& mu_products,
                const TensorRefs& steps, const NadamRule& rule, const TensorRefs& narrow = {},
                const Tensor* lr = nullptr);

// RAdam in place; steps as for Adam.
void radam_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
                const TensorRefs& exp_avg_sqs, const TensorRefs& steps, const RadamRule& rule,
                const TensorRefs& narrow = {}, const Tensor* lr = nullptr);

// Lion in place (no step count: its update does not depend on the step).
void lion_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
               const LionRule& rule, const TensorRefs& narrow = {});

// Rprop in place: prevs and step_sizes are each parameter's states; steps counted (unused by
// the update).
void rprop_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& prevs,
                const TensorRefs& step_sizes, const TensorRefs& steps, const RpropRule& rule,
                const TensorRefs& narrow = {});

// ASGD in place: axs (the averages) are states of the parameters' dtype; steps, etas and mus
// are one-element float32 tensors, as PyTorch keeps them (on the CPU, or all on the parameter's
// device: capturable): each parameter is stepped with its eta and mu, then the step is counted
// and eta and mu become lr / (1 + lambd * lr * step)^alpha and 1 / max(1, step - t0).
void asgd_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& axs,
               const TensorRefs& steps, const TensorRefs& etas, const TensorRefs& mus,
               const AsgdRule& rule, const TensorRefs& narrow = {}, const Tensor* lr = nullptr);

}  // namespace genesis::ops
