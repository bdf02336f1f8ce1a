#pragma once
// torch.einsum: an equation of subscripts ("ij,jk->ik", "...ii->...i", "bij,bjk") over any
// number of operands. Note [Einsum plan] in einsum.cpp.
#include <string>
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace genesis::ops
