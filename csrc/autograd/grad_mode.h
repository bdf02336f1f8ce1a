#pragma once
// Whether ops record a graph, per thread (genesis.no_grad / enable_grad / set_grad_enabled;
// inference_mode turns recording off the same way, Note [Inference mode] in genesis/autograd).

namespace genesis::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets the mode for a scope and restores the previous one.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : previous_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~GradModeGuard() { GradMode::set_enabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace genesis::autograd
