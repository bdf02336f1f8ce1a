#pragma once
// The backward pass (Note [Backward engine] in engine.cpp).
#include <vector>

#include "core/tensor.h"

namespace genesis::autograd {

// Tensor.backward / genesis.autograd.backward: adds the gradients of `roots` into the .grad of
// the leaves they depend on, or only of `inputs` when that is not empty. An undefined entry of
// `grad_roots` stands for ones (a one-element root only).
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              bool keep_graph, bool create_graph, const std::vector<Tensor>& inputs);

// genesis.autograd.grad: the gradients of `roots` with respect to `inputs`, touching no .grad;
// an undefined result for an input the roots do not depend on (with allow_unused).
std::vector<Tensor> grad(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                         const std::vector<Tensor>& inputs, bool keep_graph, bool create_graph,
                         bool allow_unused);

}  // namespace genesis::autograd
