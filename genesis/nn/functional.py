"""torch.nn.functional's pointwise activations, softmax and ``linear``, with PyTorch's
signatures (``inplace=`` included), so ``import genesis.nn.functional as F`` runs code written
for ``torch.nn.functional``. The activations are compiled functions (``genesis._C._nn``); at
their default parameters each is one fused pass over the data. ``linear`` with a bias is
``addmm``, which on CUDA adds the bias in the product's own cuBLASLt call.

Example::

    >>> import genesis.nn.functional as F
    >>> F.gelu(genesis.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
"""

from __future__ import annotations

import math

from .._C import Tensor, addmm, log_softmax, matmul, sigmoid, softmax, tanh
from .._C._nn import (
    elu,
    elu_,
    gelu,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    mish,
    relu,
    silu,
    softplus,
)

__all__ = [
    "elu",
    "elu_",
    "gelu",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "mish",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Returns ``input @ weight.T + bias``: PyTorch's ``torch.nn.functional.linear``.

    ``input`` is (..., in_features), ``weight`` (out_features, in_features) and ``bias``
    (out_features,) or anything that broadcasts to the result. With a 1-D (or 0-d) bias the
    leading dims of ``input`` are flattened into the rows of one ``addmm``, so on CUDA the bias
    is added by cuBLASLt as it writes the product (one call, no second pass; Note [cuBLASLt
    matmul]). All tensors need one dtype and device, as for ``matmul``; gradients flow to all
    three.

    Args:
        input (Tensor): the (..., in_features) input.
        weight (Tensor): the (out_features, in_features) weight.
        bias (Tensor, optional): added to every row of the product. Default: ``None``.

    Returns:
        Tensor: the (..., out_features) result.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> F.linear(x, genesis.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]]),
        ...          genesis.tensor([0.5, 0.0, -1.0]))
        tensor([[1.5000, 3.0000, 3.0000],
                [3.5000, 7.0000, 7.0000]])
    """
    for name, t in (("input", input), ("weight", weight), ("bias", bias)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"[linear] {name} must be a Tensor, got {type(t).__name__}")
    if weight.ndim != 2:
        raise RuntimeError(
            f"[linear] weight must be 2-D (out_features, in_features), got {weight.ndim}-D"
        )
    if bias is None:
        return matmul(input, weight.t())
    if input.ndim >= 2 and bias.ndim <= 1:
        # The rows of every leading dim form one (rows, in_features) matrix: one addmm.
        k = input.shape[-1]
        rows = input if input.ndim == 2 else input.reshape(math.prod(input.shape[:-1]), k)
        out = addmm(bias, rows, weight.t())
        return out if input.ndim == 2 else out.view(*input.shape[:-1], out.shape[-1])
    return matmul(input, weight.t()) + bias
