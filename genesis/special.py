"""Special functions with torch.special's names.

Most are genesis's own ops under torch.special's names (``erf``, ``expit`` = ``sigmoid``,
``psi`` = ``digamma``, ``gammaln`` = ``lgamma``, ``softmax`` ...: the same functions). The rest
are composed of genesis ops, as PyTorch composes them, so they run on both devices and
differentiate: ``ndtr``, ``logit``, ``xlogy``, ``xlog1py``, ``entr``, ``sinc`` and
``multigammaln``. Integer and bool inputs compute in float32, as PyTorch's.

Not here yet: the Bessel, Airy and orthogonal-polynomial functions, ``zeta``, ``gammainc``/
``gammaincc``, ``i0``/``i1`` and their scaled forms, ``erfcx``, ``log_ndtr`` and ``ndtri``
(each needs an accurate kernel of its own).

Example::

    >>> genesis.special.expit(genesis.tensor([0.0]))
    tensor([0.5000])
    >>> genesis.special.xlogy(genesis.tensor([0.0, 2.0]), genesis.tensor([0.0, 3.0]))
    tensor([0.0000, 2.1972])
"""

import math as _math

from ._C import (
    Tensor,
    _finish_out,
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    isnan,
    lgamma,
    log,
    log1p,
    log_softmax,
    logsumexp,
    polygamma,
    round,
    sigmoid,
    sin,
    softmax,
    where,
)
from ._C import float32 as _float32

__all__ = [
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammaln",
    "log1p",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "softmax",
    "xlog1py",
    "xlogy",
]

expit = sigmoid
psi = digamma
gammaln = lgamma


def _tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"[special.{name}] expected a genesis.Tensor, got {type(x).__name__}")
    return x if x.is_floating_point() else x.to(_float32)


def _write(result, out, name):
    """The result, or out holding it: the compiled ops' out= rules (dtype check, resize and
    PyTorch's warning for resizing a non-empty out)."""
    return _finish_out(result, out, f"special.{name}")


def ndtr(input, *, out=None):
    """The standard normal distribution function: ``P(Z <= input)`` for ``Z ~ N(0, 1)``.

    Computed as ``erfc(-input / sqrt(2)) / 2``, accurate in both tails.

    Args:
        input (Tensor): the values.
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the probabilities, float32 for integer and bool input.

    Example::

        >>> genesis.special.ndtr(genesis.tensor([-1.0, 0.0, 2.0]))
        tensor([0.1587, 0.5000, 0.9772])
    """
    x = _tensor(input, "ndtr")
    return _write(erfc(x * (-1.0 / _math.sqrt(2.0))) * 0.5, out, "ndtr")


def logit(input, eps=None, *, out=None):
    """The log-odds ``log(p / (1 - p))``, the inverse of ``expit``.

    Args:
        input (Tensor): probabilities.
        eps (float, optional): clamps the input to ``[eps, 1 - eps]`` first. Default: None (no
            clamp: 0 gives -inf, 1 gives inf, outside [0, 1] NaN).
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the log-odds, float32 for integer and bool input.

    Example::

        >>> genesis.special.logit(genesis.tensor([0.25, 0.5]))
        tensor([-1.0986,  0.0000])
        >>> genesis.special.logit(genesis.tensor([0.0]), eps=1e-6)
        tensor([-13.8155])
    """
    p = _tensor(input, "logit")
    if eps is not None:
        p = p.clamp(eps, 1.0 - eps)
    return _write(log(p / (1.0 - p)), out, "logit")


def _x_log(x, y, name, log_fn, out):
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise TypeError(f"[special.{name}] expected at least one genesis.Tensor operand")
    like = x if isinstance(x, Tensor) else y
    # A number operand as a 0-d tensor: it takes part in promotion as a number does.
    x = x if isinstance(x, Tensor) else like.new_tensor(x)
    y = y if isinstance(y, Tensor) else like.new_tensor(y)
    # 0 where x is 0, unless y is NaN (0 * log(0) is 0, as in PyTorch and SciPy); the log reads
    # 1 there, so the gradients stay finite.
    zero = (x == 0) & ~isnan(y)
    product = x * log_fn(where(zero, 1.0, y))
    return _write(where(zero, 0.0, product), out, name)


def xlogy(input, other, *, out=None):
    """``input * log(other)``, and 0 where ``input`` is 0 (unless ``other`` is NaN).

    Args:
        input (Tensor or Number): the factor.
        other (Tensor or Number): the argument of the log; either operand may be a number.
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the broadcast result, in the promoted floating dtype.

    Example::

        >>> genesis.special.xlogy(genesis.tensor([0.0, 1.0, 2.0]), genesis.tensor([0.0, 1.0, 3.0]))
        tensor([0.0000, 0.0000, 2.1972])
    """
    return _x_log(input, other, "xlogy", log, out)


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, and 0 where ``input`` is 0 (unless ``other`` is NaN).

    Args:
        input (Tensor or Number): the factor.
        other (Tensor or Number): the argument of log1p; either operand may be a number.
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the broadcast result, in the promoted floating dtype.

    Example::

        >>> genesis.special.xlog1py(genesis.tensor([0.0, 2.0]), genesis.tensor([-1.0, 1.0]))
        tensor([0.0000, 1.3863])
    """
    return _x_log(input, other, "xlog1py", log1p, out)


def entr(input, *, out=None):
    """The entropy term ``-input * log(input)``: 0 at 0, -inf below 0, NaN for NaN.

    Args:
        input (Tensor): the values.
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the elementwise entropy terms, float32 for integer and bool input.

    Example::

        >>> genesis.special.entr(genesis.tensor([0.0, 0.5, 1.0, -1.0]))
        tensor([0.0000, 0.3466, -0.0000,   -inf])
    """
    x = _tensor(input, "entr")
    positive = x > 0
    # The log reads 1 where x is not positive, so its gradient there is finite (and masked).
    safe = where(positive, x, 1.0)
    terms = where(positive, -safe * log(safe), where(x == 0, 0.0, -_math.inf))
    return _write(where(isnan(x), x, terms), out, "entr")


def sinc(input, *, out=None):
    """The normalized sinc: ``sin(pi * input) / (pi * input)``, and 1 at 0.

    Args:
        input (Tensor): the values.
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the elementwise sinc, float32 for integer and bool input.

    Example::

        >>> genesis.special.sinc(genesis.tensor([0.0, 0.5, -1.5]))
        tensor([ 1.0000,  0.6366, -0.2122])
    """
    x = _tensor(input, "sinc")
    at_zero = x == 0
    # Away from 0 where x is 0, so the unused branch's gradient is finite (and masked).
    scaled = where(at_zero, 1.0, x) * _math.pi
    return _write(where(at_zero, 1.0, sin(scaled) / scaled), out, "sinc")


def multigammaln(input, p, *, out=None):
    """The log of the multivariate gamma function of dimension ``p``.

    ``sum(lgamma(input - j / 2) for j in range(p)) + p * (p - 1) / 4 * log(pi)``; every
    element must be greater than ``(p - 1) / 2``.

    Args:
        input (Tensor): the values, floating point.
        p (int): the dimension, at least 1.
        out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

    Returns:
        Tensor: the elementwise results.

    Example::

        >>> genesis.special.multigammaln(genesis.tensor([2.0, 3.5]), 2)
        tensor([0.4516, 2.4665])
    """
    if not isinstance(input, Tensor) or not input.is_floating_point():
        raise RuntimeError("[special.multigammaln] expected a floating point tensor")
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"[special.multigammaln] p must be an int of at least 1, got {p!r}")
    if input.numel() and not bool((input > (p - 1) / 2).all()):
        raise RuntimeError(
            f"[special.multigammaln] all elements must be greater than (p-1)/2 = {(p - 1) / 2}"
        )
    total = lgamma(input)
    for j in range(1, p):  # p terms, not one per element
        total = total + lgamma(input - j / 2)
    return _write(total + p * (p - 1) / 4 * _math.log(_math.pi), out, "multigammaln")
