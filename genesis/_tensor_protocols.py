"""Python protocols of Tensor written in Python: ``x in t`` and NumPy's ufunc protocol."""

import numbers

import numpy as np

from ._C import Tensor, tensor


def tensor_contains(self, element):
    """``element in t``: whether any element of ``t`` equals ``element`` (a number or a
    tensor, compared with broadcasting), as PyTorch's ``Tensor.__contains__``."""
    if isinstance(element, (Tensor, numbers.Number, np.generic)):
        return bool((self == element).any().item())
    raise RuntimeError(
        "[__contains__] Tensor.__contains__ only supports Tensor or scalar, but you passed in "
        f"a {type(element).__name__}"
    )


def _host_array(x, ufunc_name, writable=False):
    if not isinstance(x, Tensor):
        return x
    if x.is_cuda:
        raise TypeError(
            f"[{ufunc_name}] NumPy ufuncs take CPU tensors; this one is on {x.device}: "
            "use .cpu() first"
        )
    a = x.numpy()
    if writable and not a.flags.writeable:
        raise RuntimeError(f"[{ufunc_name}] out= is a tensor NumPy may not write to")
    return a


def _as_tensor(r):
    if isinstance(r, (np.ndarray, np.generic)):
        return tensor(r)
    return r


# Note [NumPy ufuncs on tensors]
# A NumPy ufunc given a CPU tensor (np.sin(t), np.add(t, 1), and array + t, which NumPy runs as
# np.add(array, t)) runs NumPy's loop on the tensor's memory and returns a genesis tensor, as
# PyTorch does through __array__/__array_wrap__; with out= it writes there and returns out, as
# NumPy does. A CUDA tensor raises TypeError: NumPy computes on the host only. genesis does not
# compute its own ops through this path: the ufunc is NumPy's, at the interop boundary.
def tensor_array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NumPy's ufunc protocol: a NumPy ufunc given CPU tensors runs on their memory and returns
    genesis tensors (``np.sin(t)``, ``np.add(t, 1)``, ``array + t``); with ``out=`` it writes
    there and returns ``out``. CUDA tensors raise TypeError (NumPy computes on the host).

    Args:
        ufunc (numpy.ufunc): the ufunc NumPy calls.
        method (str): ``"__call__"``, ``"reduce"``, ... as NumPy passes it.
        *inputs: the operands (tensors, arrays, numbers).
        **kwargs: the ufunc's keywords (``out=``, ``where=`` ...).

    Returns:
        Tensor: the result (a tuple of them for ufuncs with several outputs).

    Example::

        >>> import numpy as np
        >>> np.sqrt(genesis.tensor([4.0, 9.0]))
        tensor([2., 3.])
    """
    name = ufunc.__name__
    args = [_host_array(x, name) for x in inputs]
    out = kwargs.get("out")
    if out is not None:
        kwargs["out"] = tuple(_host_array(o, name, writable=True) for o in out)
    result = getattr(ufunc, method)(*args, **kwargs)
    if out is not None:
        return out[0] if len(out) == 1 else out
    if isinstance(result, tuple):
        return tuple(_as_tensor(r) for r in result)
    return _as_tensor(result)
