"""genesis.finfo and genesis.iinfo: the limits of the floating and integer dtypes.

The numbers are the IEEE 754 formats' (bfloat16: float32's exponent with 8 significand bits),
written out as constants; ``resolution`` is 10**-digits as in NumPy and PyTorch.
"""

from ._C import bfloat16, float16, float32, float64, int8, int16, int32, int64, uint8

# dtype: (bits, eps, max, smallest_normal, resolution)
_FLOATS = {
    float16: (16, 2.0**-10, 65504.0, 2.0**-14, 1e-3),
    bfloat16: (16, 2.0**-7, 3.3895313892515355e38, 2.0**-126, 1e-2),
    float32: (32, 2.0**-23, 3.4028234663852886e38, 2.0**-126, 1e-6),
    float64: (64, 2.0**-52, 1.7976931348623157e308, 2.0**-1022, 1e-15),
}
_INTS = {
    uint8: (8, False),
    int8: (8, True),
    int16: (16, True),
    int32: (32, True),
    int64: (64, True),
}


class finfo:
    """The limits of a floating point dtype, as ``torch.finfo``.

    Attributes are ``bits``, ``eps`` (the gap between 1 and the next number), ``max``, ``min``
    (``-max``), ``tiny`` and ``smallest_normal`` (the smallest positive normal number),
    ``resolution`` and ``dtype``.

    Args:
        type (genesis.dtype): a floating point dtype. Default: None (float32).

    Example::

        >>> genesis.finfo(genesis.float16).max, genesis.finfo().eps
        (65504.0, 1.1920928955078125e-07)
    """

    def __init__(self, type=None):  # noqa: A002  (PyTorch's argument name)
        type = float32 if type is None else type
        if type not in _FLOATS:
            raise TypeError(f"[finfo] expects a floating point dtype, got {type!r}")
        self.bits, self.eps, self.max, self.smallest_normal, self.resolution = _FLOATS[type]
        self.min = -self.max
        self.tiny = self.smallest_normal
        self.dtype = repr(type).replace("genesis.", "")

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``, ``max``, ``dtype``.

    Args:
        type (genesis.dtype): an integer dtype (not bool).

    Example::

        >>> genesis.iinfo(genesis.uint8).max, genesis.iinfo(genesis.int32).min
        (255, -2147483648)
    """

    def __init__(self, type):  # noqa: A002  (PyTorch's argument name)
        if type not in _INTS:
            raise TypeError(f"[iinfo] expects an integer dtype, got {type!r}")
        self.bits, signed = _INTS[type]
        self.min = -(2 ** (self.bits - 1)) if signed else 0
        self.max = 2 ** (self.bits - 1) - 1 if signed else 2**self.bits - 1
        self.dtype = repr(type).replace("genesis.", "")

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


__all__ = ["finfo", "iinfo"]
