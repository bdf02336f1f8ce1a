"""torch.nn.functional's pointwise activations and softmax, with PyTorch's signatures
(``inplace=`` included), so ``import genesis.nn.functional as F`` runs code written for
``torch.nn.functional``. The activations are compiled functions (``genesis._C._nn``); at their
default parameters each is one fused pass over the data.

Example::

    >>> import genesis.nn.functional as F
    >>> F.gelu(genesis.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
"""

from .._C import log_softmax, sigmoid, softmax, tanh
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
    "log_softmax",
    "mish",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
]
