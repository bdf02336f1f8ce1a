#pragma once
// The per-element update rules of genesis.optim's steps, shared by the CPU pass and the CUDA
// multi-tensor kernel (Note [Optimizer steps] in ops/optimizer_step.cpp).
//
// Note [Capturable steps]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A step captured in a CUDA graph replays the launches it recorded, their parameters included:
// a step count incremented on the host and turned into bias corrections there would be baked
// in at its capture value. So, as PyTorch's capturable=True, the step counts can live on the
// device (0-d float32 tensors on the parameter's device) and the learning rate in a device
// tensor: the CUDA backend then increments the counts in a launch of its own before the step's,
// and each block of the step works out its tensor's factors from its count with the rule's
// factors(step), the same double arithmetic the host does (so both give the same values), and
// reads lr from the tensor. A rule that can says so: kCountsOnDevice (it defines factors(step)
// from its options alone) and kLrOnDevice (its update takes lr from its `lr` member). Adagrad
// (its lr outside the rule) steps with host counts only.
//
// Some rules keep scalar states beside the count (NAdam's mu_product; ASGD's eta and mu, as
// PyTorch's 0-d float32 tensors). Such a rule declares kDeviceStates (how many) and defines
// factors(step, states) and advance(step, states), which moves the states on from the new
// count: before the step where the factors read the advanced value (NAdam: the product times
// this step's mu), or after it (kAdvanceAfterStep; ASGD steps with the eta and mu it holds and
// then works out the next ones). On the device that is one thread per tensor in the launch that
// increments the counts, or in a launch after the step's; on the host the same functions run in
// the same order, so both paths give the same float32 states.
//
// Note [Optimizer rules]
// A rule holds the options of a call (as doubles, PyTorch's Python floats); rule.update<C>(f)
// gives the update of one tensor's elements, with every constant already in the compute type C
// (float for 16- and 32-bit parameters, double for float64) and the tensor's StepFactors (what
// differs between the tensors of a call: their step counts, worked out on the host in double)
// folded in. update(p, g, s) then changes one element: its parameter value p, gradient g and
// state values s[0..kStates) (each kept in the parameter's dtype). Each rule does the arithmetic of
// PyTorch's single-tensor step in the same order (torch.optim's _single_tensor_* functions), so
// that genesis and PyTorch agree to the last bit or two after many steps. Options are written as
// selects, not branches: the CPU's loop is then vectorized (Note [Vectorized steps] in
// cpu/optimizer_step.cpp). A state the options leave unused (SGD's buffer without momentum, Adam's
// max_exp_avg_sq without amsgrad) is read and written back unchanged; the backends pass zeros for
// states they do not hold.
#include <cmath>
#include <type_traits>

#include "vocab/host_device.h"

namespace genesis {

// An update holds its options in the compute type, 1 or 0, made by as_option() and tested by
// is_set(): GCC vectorizes a select on a comparison of C values but not one on a loop-invariant
// bool (Note [Vectorized steps] in cpu/optimizer_step.cpp).
template <typename C>
GENESIS_HD constexpr C as_option(bool option) {
  return option ? C(1) : C(0);
}
template <typename C>
GENESIS_HD constexpr bool is_set(C option) {
  return option != C(0);
}

// What one tensor of a call contributes beyond the shared scalars; each rule says what a and b
// mean.
struct StepFactors {
  double a = 0, b = 0, c = 0;
};

// How many scalar states Rule keeps beside its step count (Note [Capturable steps]):
// Rule::kDeviceStates where it declares them, else 0.
template <typename Rule, typename = void>
struct DeviceStatesOf {
  static constexpr int value = 0;
};
template <typename Rule>
struct DeviceStatesOf<Rule, std::void_t<decltype(Rule::kDeviceStates)>> {
  static constexpr int value = Rule::kDeviceStates;
};

// SGD: weight decay into the gradient, momentum with dampening, Nesterov's look-ahead.
// a: 1 when the momentum buffer is new (it starts as the gradient), else 0.
template <typename C>
struct SgdUpdate {
  C neg_lr, momentum, keep, weight_decay;                // keep: 1 - dampening
  C has_momentum, has_decay, nesterov, maximize, fresh;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    g = is_set(has_decay) ? g + weight_decay * p : g;
    C buf = is_set(fresh) ? g : s[0] * momentum + keep * g;
    s[0] = is_set(has_momentum) ? buf : s[0];
    g = !is_set(has_momentum) ? g : is_set(nesterov) ? g + momentum * buf : buf;
    p = p + neg_lr * g;
  }
};

struct SgdRule {
  static constexpr int kStates = 1;  // momentum_buffer (untouched when momentum is 0)
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = false, kLrOnDevice = true;
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;

  // The update of one tensor's elements, its constants in the compute type C.
  template <typename C>
  GENESIS_HD SgdUpdate<C> update(const StepFactors& f) const {
    return {C(-lr),
            C(momentum),
            C(1 - dampening),
            C(weight_decay),
            as_option<C>(momentum != 0),
            as_option<C>(weight_decay != 0),
            as_option<C>(nesterov),
            as_option<C>(maximize),
            as_option<C>(f.a != 0)};
  }
};

// Adam, and AdamW when `decoupled` (weight decay shrinks the parameter instead of joining the
// gradient); amsgrad keeps the running maximum of the second moment.
// a: lr / (1 - beta1^step), the step size; b: std::sqrt(1 - beta2^step).
template <typename C>
struct AdamUpdate {
  // shrink: 1 - lr * weight_decay under decoupled weight decay, else 1 (p * 1 is p, exactly).
  C shrink, weight_decay, one_minus_beta1, beta2, one_minus_beta2, eps, neg_step_size,
      bias_correction2_sqrt;
  C coupled_decay, maximize;  // options: as_option(), is_set()

  // s[2] holds the largest second moment so far under amsgrad and stays 0 otherwise (then the
  // larger of s[2] and s[1] is s[1], NaN included): no select on amsgrad, which keeps the CPU's
  // loop vectorizable.
  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    p = p * shrink;
    g = is_set(coupled_decay) ? g + weight_decay * p : g;
    s[0] = lerp(s[0], g, one_minus_beta1);
    s[1] = s[1] * beta2 + one_minus_beta2 * g * g;
    s[2] = s[2] > s[1] ? s[2] : s[1];
    C denom = std::sqrt(s[2]) / bias_correction2_sqrt + eps;
    p = p + neg_step_size * (s[0] / denom);
  }

  // PyTorch's lerp: exact at both ends, computed from the nearer one.
  GENESIS_HD static C lerp(C from, C to, C weight) {
    return weight < C(0.5) ? from + weight * (to - from) : to - (to - from) * (C(1) - weight);
  }
};

struct AdamRule {
  static constexpr int kStates = 3;  // exp_avg, exp_avg_sq, max_exp_avg_sq (under amsgrad)
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true;
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  bool decoupled = false, amsgrad = false, maximize = false;

  // A tensor's factors at its step count `step` (already incremented), in double, as PyTorch's
  // Python works them out.
  GENESIS_HD StepFactors factors(double step) const {
    return {lr / (1 - std::pow(beta1, step)), std::sqrt(1 - std::pow(beta2, step))};
  }

  template <typename C>
  GENESIS_HD AdamUpdate<C> update(const StepFactors& f) const {
    bool decay = weight_decay != 0;
    return {decay && decoupled ? C(1 - lr * weight_decay) : C(1),
            C(weight_decay),
            C(1 - beta1),
            C(beta2),
            C(1 - beta2),
            C(eps),
            C(-f.a),
            C(f.b),
            as_option<C>(decay && !decoupled),
            as_option<C>(maximize)};
  }
};

// RMSprop: a running mean of squared gradients (and, centered, of gradients) scales the step;
// momentum accumulates the scaled steps. States: square_avg, grad_avg (centered only),
// momentum_buffer (momentum > 0 only).
template <typename C>
struct RmspropUpdate {
  C neg_lr, alpha, one_minus_alpha, eps, weight_decay, momentum;
  C has_decay, centered, has_momentum, maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    g = is_set(has_decay) ? g + weight_decay * p : g;
    s[0] = s[0] * alpha + one_minus_alpha * g * g;
    // The lerp taken out of the select: nested in it, GCC merges the two conditions into one
    // loop-invariant bool, and does not vectorize a select on that.
    C averaged = AdamUpdate<C>::lerp(s[1], g, one_minus_alpha);
    s[1] = is_set(centered) ? averaged : s[1];
    C variance = is_set(centered) ? s[0] + C(-1) * s[1] * s[1] : s[0];
    C avg = std::sqrt(variance) + eps;
    s[2] = is_set(has_momentum) ? s[2] * momentum + g / avg : s[2];
    p = is_set(has_momentum) ? p + neg_lr * s[2] : p + neg_lr * (g / avg);
  }
};

struct RmspropRule {
  static constexpr int kStates = 3;
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true;
  double lr = 0, alpha = 0, eps = 0, weight_decay = 0, momentum = 0;
  bool centered = false, maximize = false;

  // The update does not depend on the step count.
  GENESIS_HD StepFactors factors(double) const { return {}; }

  template <typename C>
  GENESIS_HD RmspropUpdate<C> update(const StepFactors&) const {
    return {C(-lr),
            C(alpha),
            C(1 - alpha),
            C(eps),
            C(weight_decay),
            C(momentum),
            as_option<C>(weight_decay != 0),
            as_option<C>(centered),
            as_option<C>(momentum > 0),
            as_option<C>(maximize)};
  }
};

// Adagrad: the running sum of squared gradients scales the step.
// a: lr / (1 + (step - 1) * lr_decay).
template <typename C>
struct AdagradUpdate {
  C neg_lr, eps, weight_decay;
  C has_decay, maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    g = is_set(has_decay) ? g + weight_decay * p : g;
    s[0] = s[0] + g * g;
    C std = std::sqrt(s[0]) + eps;
    p = p + neg_lr * (g / std);
  }
};

struct AdagradRule {
  static constexpr int kStates = 1;  // sum
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = false, kLrOnDevice = false;
  double eps = 0, weight_decay = 0;
  bool maximize = false;

  template <typename C>
  GENESIS_HD AdagradUpdate<C> update(const StepFactors& f) const {
    return {C(-f.a), C(eps), C(weight_decay), as_option<C>(weight_decay != 0),
            as_option<C>(maximize)};
  }
};

// Adamax: Adam with the infinity norm in place of the second moment.
// a: lr / (1 - beta1^step).
template <typename C>
struct AdamaxUpdate {
  C one_minus_beta1, beta2, eps, weight_decay, neg_step_size;
  C has_decay, maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    g = is_set(has_decay) ? g + weight_decay * p : g;
    s[0] = AdamUpdate<C>::lerp(s[0], g, one_minus_beta1);
    C decayed = s[1] * beta2;
    C magnitude = (g < C(0) ? -g : g) + eps;
    s[1] = decayed > magnitude ? decayed : magnitude;
    p = p + neg_step_size * (s[0] / s[1]);
  }
};

struct AdamaxRule {
  static constexpr int kStates = 2;  // exp_avg, exp_inf
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true;
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  bool maximize = false;

  GENESIS_HD StepFactors factors(double step) const {
    return {lr / (1 - std::pow(beta1, step)), 0};
  }

  template <typename C>
  GENESIS_HD AdamaxUpdate<C> update(const StepFactors& f) const {
    return {C(1 - beta1),          C(beta2), C(eps),
            C(weight_decay),       C(-f.a),  as_option<C>(weight_decay != 0),
            as_option<C>(maximize)};
  }
};

// Adadelta: steps of the running RMS of past steps over that of the gradients.
template <typename C>
struct AdadeltaUpdate {
  C neg_lr, rho, one_minus_rho, eps, weight_decay;
  C has_decay, maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    g = is_set(has_decay) ? g + weight_decay * p : g;
    s[0] = s[0] * rho + one_minus_rho * g * g;
    C std = std::sqrt(s[0] + eps);
    C delta = std::sqrt(s[1] + eps) / std * g;
    s[1] = s[1] * rho + one_minus_rho * delta * delta;
    p = p + neg_lr * delta;
  }
};

struct AdadeltaRule {
  static constexpr int kStates = 2;  // square_avg, acc_delta
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true;
  double lr = 0, rho = 0, eps = 0, weight_decay = 0;
  bool maximize = false;

  // The update does not depend on the step count.
  GENESIS_HD StepFactors factors(double) const { return {}; }

  template <typename C>
  GENESIS_HD AdadeltaUpdate<C> update(const StepFactors&) const {
    return {C(-lr),
            C(rho),
            C(1 - rho),
            C(eps),
            C(weight_decay),
            as_option<C>(weight_decay != 0),
            as_option<C>(maximize)};
  }
};

// NAdam: Adam with Nesterov momentum whose coefficient mu warms up with the step.
// a: -lr (1 - mu) / (1 - mu_product), b: -lr mu_next / (1 - mu_product mu_next),
// c: 1 - beta2^step.
template <typename C>
struct NadamUpdate {
  C shrink, weight_decay, one_minus_beta1, beta2, one_minus_beta2, eps, gradient_step,
      momentum_step, bias_correction2;
  C coupled_decay, maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    p = p * shrink;
    g = is_set(coupled_decay) ? g + weight_decay * p : g;
    s[0] = AdamUpdate<C>::lerp(s[0], g, one_minus_beta1);
    s[1] = s[1] * beta2 + one_minus_beta2 * g * g;
    C denom = std::sqrt(s[1] / bias_correction2) + eps;
    p = p + gradient_step * (g / denom);
    p = p + momentum_step * (s[0] / denom);
  }
};

struct NadamRule {
  static constexpr int kStates = 2;  // exp_avg, exp_avg_sq
  // Note [Capturable steps]: factors(step, states) on the device, states[0] the tensor's
  // mu_product; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true, kAdvanceAfterStep = false;
  static constexpr int kDeviceStates = 1;
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0, momentum_decay = 0;
  bool decoupled = false, maximize = false;

  // The momentum coefficient of step `step`.
  GENESIS_HD double mu(double step) const {
    return beta1 * (1.0 - 0.5 * std::pow(0.96, step * momentum_decay));
  }

  // The product takes this step's coefficient, rounded to float32 as PyTorch's 0-d tensor is.
  GENESIS_HD void advance(double step, float* const* states) const {
    *states[0] = *states[0] * static_cast<float>(mu(step));
  }

  GENESIS_HD StepFactors factors(double step, const float* const* states) const {
    double now = mu(step), next = mu(step + 1), product = *states[0];
    return {-lr * (1.0 - now) / (1.0 - product), -lr * next / (1.0 - product * next),
            1 - std::pow(beta2, step)};
  }

  template <typename C>
  GENESIS_HD NadamUpdate<C> update(const StepFactors& f) const {
    bool decay = weight_decay != 0;
    return {decay && decoupled ? C(1 - lr * weight_decay) : C(1),
            C(weight_decay),
            C(1 - beta1),
            C(beta2),
            C(1 - beta2),
            C(eps),
            C(f.a),
            C(f.b),
            C(f.c),
            as_option<C>(decay && !decoupled),
            as_option<C>(maximize)};
  }
};

// RAdam: Adam whose adaptive step is rectified by the variance of its estimate, and plain
// momentum SGD while that variance is undefined (the first steps).
// a: the rectification, 0 for a step without it; b: std::sqrt(1 - beta2^step); c: 1 - beta1^step.
template <typename C>
struct RadamUpdate {
  C shrink, weight_decay, one_minus_beta1, beta2, one_minus_beta2, eps, lr, rectification,
      bias_correction2_sqrt, bias_correction1;
  C coupled_decay, maximize, rectified;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    p = p * shrink;
    g = is_set(coupled_decay) ? g + weight_decay * p : g;
    s[0] = AdamUpdate<C>::lerp(s[0], g, one_minus_beta1);
    s[1] = s[1] * beta2 + one_minus_beta2 * g * g;
    C corrected = s[0] / bias_correction1 * lr;
    C adaptive = bias_correction2_sqrt / (std::sqrt(s[1]) + eps);
    p = p - (is_set(rectified) ? corrected * adaptive * rectification : corrected);
  }
};

struct RadamRule {
  static constexpr int kStates = 2;  // exp_avg, exp_avg_sq
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true;
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  bool decoupled = false, maximize = false;

  GENESIS_HD StepFactors factors(double step) const {
    double correction1 = 1 - std::pow(beta1, step);
    double correction2 = 1 - std::pow(beta2, step);
    // The length of the approximated simple moving average, and its limit.
    double rho_inf = 2 / (1 - beta2) - 1;
    double rho = rho_inf - 2 * step * std::pow(beta2, step) / correction2;
    double rectification =
        rho > 5.0
            ? std::sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            : 0.0;
    return {rectification, std::sqrt(correction2), correction1};
  }

  template <typename C>
  GENESIS_HD RadamUpdate<C> update(const StepFactors& f) const {
    bool decay = weight_decay != 0;
    return {decay && decoupled ? C(1 - lr * weight_decay) : C(1),
            C(weight_decay),
            C(1 - beta1),
            C(beta2),
            C(1 - beta2),
            C(eps),
            C(lr),
            C(f.a),
            C(f.b),
            C(f.c),
            as_option<C>(decay && !decoupled),
            as_option<C>(maximize),
            as_option<C>(f.a != 0)};
  }
};

// Lion (Chen et al., 2023, "Symbolic Discovery of Optimization Algorithms"; beyond PyTorch):
// the step is the sign of an interpolation of the momentum and the gradient, and the momentum
// then follows the gradient with another rate. Decoupled weight decay shrinks the parameter.
template <typename C>
struct LionUpdate {
  C shrink, neg_lr, beta1, one_minus_beta1, beta2, one_minus_beta2;
  C maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    p = p * shrink;
    C c = s[0] * beta1 + one_minus_beta1 * g;
    C sign = C(c > C(0)) - C(c < C(0));  // 0 for 0 (and NaN)
    p = p + neg_lr * sign;
    s[0] = s[0] * beta2 + one_minus_beta2 * g;
  }
};

struct LionRule {
  static constexpr int kStates = 1;  // exp_avg
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = false, kLrOnDevice = false;
  double lr = 0, beta1 = 0, beta2 = 0, weight_decay = 0;
  bool maximize = false;

  template <typename C>
  GENESIS_HD LionUpdate<C> update(const StepFactors&) const {
    return {C(1 - lr * weight_decay), C(-lr), C(beta1), C(1 - beta1), C(beta2), C(1 - beta2),
            as_option<C>(maximize)};
  }
};

// Rprop: each element's own step size grows by etaplus while its gradient keeps its sign and
// shrinks by etaminus when it flips (clamped to [step_size_min, step_size_max]); the parameter
// moves by the step size against the gradient's sign, and after a flip the gradient is
// forgotten (stored as 0, so the next step neither grows nor shrinks). s[0]: prev, s[1]:
// step_size.
template <typename C>
struct RpropUpdate {
  C etaminus, etaplus, step_min, step_max;
  C maximize;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    C product = g * s[0];
    // PyTorch's sign tensor overwritten in place: > 0 etaplus, < 0 etaminus, else 1.
    C factor = product > C(0) ? etaplus : product < C(0) ? etaminus : C(1);
    C size = s[1] * factor;
    size = size < step_min ? step_min : size;
    size = size > step_max ? step_max : size;
    g = factor == etaminus ? C(0) : g;
    C sign = C(g > C(0)) - C(g < C(0));
    p = p - sign * size;
    s[0] = g;
    s[1] = size;
  }
};

struct RpropRule {
  static constexpr int kStates = 2;  // prev, step_size
  // Note [Capturable steps]: factors(step) on the device; lr from a device tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = false;
  double etaminus = 0, etaplus = 0, step_size_min = 0, step_size_max = 0;
  bool maximize = false;

  // The update does not depend on the step count (PyTorch counts it all the same).
  GENESIS_HD StepFactors factors(double) const { return {}; }

  template <typename C>
  GENESIS_HD RpropUpdate<C> update(const StepFactors&) const {
    return {C(etaminus), C(etaplus), C(step_size_min), C(step_size_max), as_option<C>(maximize)};
  }
};

// ASGD (averaged SGD): SGD with a step size eta that decays with the step count and a decay
// term, and a running average `ax` of the parameters (Polyak averaging from step t0 on).
// a: this tensor's eta, b: its mu (both the float32 values PyTorch keeps, before this step
// updates them).
template <typename C>
struct AsgdUpdate {
  C shrink, neg_eta, weight_decay, mu;
  C has_decay, maximize, averaging;  // options: as_option(), is_set()

  GENESIS_HD void operator()(C& p, C g, C* s) const {
    g = is_set(maximize) ? -g : g;
    g = is_set(has_decay) ? g + weight_decay * p : g;
    p = p * shrink;
    p = p + neg_eta * g;
    s[0] = is_set(averaging) ? s[0] + (p - s[0]) * mu : p;
  }
};

struct AsgdRule {
  static constexpr int kStates = 1;  // ax
  // Note [Capturable steps]: factors(step, states) on the device, states[0] and [1] the
  // tensor's eta and mu, advanced after the step; lr (read only for the next eta) from a device
  // tensor.
  static constexpr bool kCountsOnDevice = true, kLrOnDevice = true, kAdvanceAfterStep = true;
  static constexpr int kDeviceStates = 2;
  double lr = 0, lambd = 0, alpha = 0, t0 = 0, weight_decay = 0;
  bool maximize = false;

  GENESIS_HD StepFactors factors(double, const float* const* states) const {
    return {*states[0], *states[1], 0};
  }

  // The eta and mu of the next step, from this step's count, in double and stored as float32
  // (PyTorch's Python arithmetic and 0-d tensors).
  GENESIS_HD void advance(double step, float* const* states) const {
    *states[0] = static_cast<float>(lr / std::pow(1 + lambd * lr * step, alpha));
    double since = step - t0;
    *states[1] = static_cast<float>(1 / (since > 1.0 ? since : 1.0));
  }

  template <typename C>
  GENESIS_HD AsgdUpdate<C> update(const StepFactors& f) const {
    return {C(1 - lambd * f.a),
            C(-f.a),
            C(weight_decay),
            C(f.b),
            as_option<C>(weight_decay != 0),
            as_option<C>(maximize),
            as_option<C>(f.b != 1)};
  }
};

}  // namespace genesis
