"""The activation layers of torch.nn (MultiheadAttention aside): thin modules over
``genesis.nn.functional``, with PyTorch's constructor arguments, attribute names and reprs."""

from __future__ import annotations

import warnings
from typing import Any

from ..._C import Tensor, empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "PReLU",
    "ReLU",
    "ReLU6",
    "RReLU",
    "SELU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
]


def _inplace_repr(inplace: bool, lead: str = "") -> str:
    """PyTorch's ``inplace`` suffix: ``", inplace=True"`` after other fields, else nothing."""
    if not inplace:
        return lead
    return f"{lead}, inplace=True" if lead else "inplace=True"


class Threshold(Module):
    """Replaces each element that is not greater than ``threshold`` with ``value``.

    Args:
        threshold (float): the value to compare with.
        value (float): what replaces the elements at or below ``threshold``.
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.Threshold(0.5, -9.0)(genesis.tensor([0.0, 1.0]))
        tensor([-9.,  1.])
    """

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, f"threshold={self.threshold}, value={self.value}")


class ReLU(Module):
    """Applies ``max(x, 0)`` elementwise.

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.ReLU()(genesis.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class RReLU(Module):
    """Applies the randomized leaky ReLU: random slopes in U(lower, upper) below zero while
    training, their mean in evaluation.

    Args:
        lower (float): the lower bound of the slope. Default: 1/8.
        upper (float): the upper bound of the slope. Default: 1/3.
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.RReLU(0.25, 0.75).eval()(genesis.tensor([-4.0, 2.0]))
        tensor([-2.,  2.])
    """

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, f"lower={self.lower}, upper={self.upper}")


class Hardtanh(Module):
    """Clamps each element to ``[min_val, max_val]``.

    Args:
        min_val (float): the lower bound. Default: -1.
        max_val (float): the upper bound, greater than ``min_val``. Default: 1.
        inplace (bool): transform the input in place. Default: False.
        min_value, max_value: deprecated names of ``min_val`` and ``max_val``.

    Example::

        >>> genesis.nn.Hardtanh(-2.0, 2.0)(genesis.tensor([-3.0, 1.0, 3.0]))
        tensor([-2.,  1.,  2.])
    """

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"[{type(self).__name__}] max_val ({self.max_val}) must be greater than min_val "
                f"({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, f"min_val={self.min_val}, max_val={self.max_val}")


class ReLU6(Hardtanh):
    """Applies ``min(max(x, 0), 6)`` elementwise (a ``Hardtanh(0, 6)``).

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.ReLU6()(genesis.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input: Tensor) -> Tensor:
        return F.relu6(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Sigmoid(Module):
    """Applies the logistic sigmoid, ``1 / (1 + exp(-x))``, elementwise.

    Example::

        >>> genesis.nn.Sigmoid()(genesis.tensor([0.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Hardsigmoid(Module):
    """Applies ``min(max(x + 3, 0), 6) / 6`` elementwise.

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.Hardsigmoid()(genesis.tensor([-4.0, 0.0, 4.0]))
        tensor([0.0000, 0.5000, 1.0000])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Applies the hyperbolic tangent elementwise.

    Example::

        >>> genesis.nn.Tanh()(genesis.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class SiLU(Module):
    """Applies SiLU (swish), ``x * sigmoid(x)``, elementwise.

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.SiLU()(genesis.tensor([0.0, 2.0]))
        tensor([0.0000, 1.7616])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Mish(Module):
    """Applies Mish, ``x * tanh(softplus(x))``, elementwise.

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.Mish()(genesis.tensor([0.0, 2.0]))
        tensor([0.0000, 1.9440])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardswish(Module):
    """Applies ``x * min(max(x + 3, 0), 6) / 6`` elementwise.

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.Hardswish()(genesis.tensor([-4.0, 1.5, 4.0]))
        tensor([-0.0000, 1.1250, 4.0000])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """Applies ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        alpha (float): the value the negative side tends to, negated. Default: 1.0.
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.ELU()(genesis.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, f"alpha={self.alpha}")


class CELU(Module):
    """Applies ``x`` where ``x > 0``, ``alpha * (exp(x / alpha) - 1)`` elsewhere.

    Args:
        alpha (float): the scale of the negative side, not 0. Default: 1.0.
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.CELU(2.0)(genesis.tensor([-1.0, 2.0]))
        tensor([-0.7869,  2.0000])
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, f"alpha={self.alpha}")


class SELU(Module):
    """Applies ``scale * elu(x, alpha)`` with PyTorch's SELU constants.

    Args:
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.SELU()(genesis.tensor([-1.0, 2.0]))
        tensor([-1.1113,  2.1014])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class GLU(Module):
    """Applies the gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the halves along ``dim``.

    Args:
        dim (int): the dimension to split. Default: -1.

    Example::

        >>> genesis.nn.GLU()(genesis.tensor([[1.0, 2.0, 0.0, 100.0]]))
        tensor([[0.5000, 2.0000]])
    """

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """Applies GELU, ``x * Phi(x)``, exactly or with the tanh approximation.

    Args:
        approximate (str): ``'none'`` or ``'tanh'``. Default: ``'none'``.

    Example::

        >>> genesis.nn.GELU()(genesis.tensor([-1.0, 1.0]))
        tensor([-0.1587,  0.8413])
    """

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """Applies hard shrinkage: 0 where ``|x| <= lambd``, ``x`` elsewhere.

    Args:
        lambd (float): the half-width of the zeroed band. Default: 0.5.

    Example::

        >>> genesis.nn.Hardshrink()(genesis.tensor([-1.0, 0.3]))
        tensor([-1.,  0.])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class LeakyReLU(Module):
    """Applies ``x`` where ``x > 0``, ``negative_slope * x`` elsewhere.

    Args:
        negative_slope (float): the slope below zero. Default: 0.01.
        inplace (bool): transform the input in place. Default: False.

    Example::

        >>> genesis.nn.LeakyReLU(0.1)(genesis.tensor([-2.0, 3.0]))
        tensor([-0.2000,  3.0000])
    """

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, f"negative_slope={self.negative_slope}")


class LogSigmoid(Module):
    """Applies ``log(sigmoid(x))`` elementwise, computed stably.

    Example::

        >>> genesis.nn.LogSigmoid()(genesis.tensor([0.0]))
        tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    """Applies ``log(1 + exp(beta * x)) / beta``; linear where ``beta * x > threshold``.

    Args:
        beta (float): the sharpness. Default: 1.0.
        threshold (float): above this ``beta * x`` the result is ``x``. Default: 20.0.

    Example::

        >>> genesis.nn.Softplus()(genesis.tensor([0.0, 30.0]))
        tensor([ 0.6931, 30.0000])
    """

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """Applies soft shrinkage: ``x -/+ lambd`` outside ``[-lambd, lambd]``, 0 inside.

    Args:
        lambd (float): the amount of shrinkage (>= 0). Default: 0.5.

    Example::

        >>> genesis.nn.Softshrink()(genesis.tensor([-1.0, 0.3, 2.0]))
        tensor([-0.5000,  0.0000,  1.5000])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class PReLU(Module):
    """Applies ``x`` where ``x > 0``, ``weight * x`` elsewhere, with learnable slopes.

    Args:
        num_parameters (int): 1 (one slope shared by all channels) or the number of channels
            (dim 1 of the input). Default: 1.
        init (float): the initial slope. Default: 0.25.
        device, dtype: where and in which dtype the weight is made.

    The parameter is ``weight``, of shape (num_parameters,), filled with ``init``.

    Example::

        >>> genesis.nn.PReLU()(genesis.tensor([-4.0, 2.0]))
        tensor([-1.,  2.], grad_fn=<WhereBackward0>)
    """

    __constants__ = ["num_parameters"]

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Fills the weight with ``init`` again."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """Applies ``x / (1 + |x|)`` elementwise.

    Example::

        >>> genesis.nn.Softsign()(genesis.tensor([-3.0, 1.0]))
        tensor([-0.7500,  0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """Applies ``x - tanh(x)`` elementwise.

    Example::

        >>> genesis.nn.Tanhshrink()(genesis.tensor([0.0, 1.0]))
        tensor([0.0000, 0.2384])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    """Softmin, Softmax and LogSoftmax: one optional ``dim``."""

    __constants__ = ["dim"]

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """Applies ``softmax(-x)`` along ``dim``.

    Args:
        dim (int, optional): the dimension to normalize over; ``None`` is PyTorch's deprecated
            implicit choice (with its warning). Default: None.

    Example::

        >>> genesis.nn.Softmin(dim=0)(genesis.tensor([0.0, 2.0]))
        tensor([0.8808, 0.1192])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_SoftmaxBase):
    """Applies softmax along ``dim``: each slice becomes positive and sums to 1.

    Args:
        dim (int, optional): the dimension to normalize over; ``None`` is PyTorch's deprecated
            implicit choice (with its warning). Default: None.

    Example::

        >>> genesis.nn.Softmax(dim=-1)(genesis.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """Applies ``log(softmax(x))`` along ``dim``, computed stably.

    Args:
        dim (int, optional): the dimension to normalize over; ``None`` is PyTorch's deprecated
            implicit choice (with its warning). Default: None.

    Example::

        >>> genesis.nn.LogSoftmax(dim=0)(genesis.tensor([0.0, 0.0]))
        tensor([-0.6931, -0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Applies softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input.

    Example::

        >>> genesis.nn.Softmax2d()(genesis.zeros(1, 2, 1, 1)).flatten()
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"[Softmax2d] input must be a genesis.Tensor, got {type(input).__name__}"
            )
        if input.dim() not in (3, 4):
            raise ValueError(
                f"[Softmax2d] expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)
