"""The process-wide defaults of factories: the float dtype and the device (as PyTorch's
``set_default_dtype`` and ``set_default_device``)."""

from . import _C


def set_default_dtype(d):
    """Sets the float dtype of values that bring none of their own.

    It is the dtype of ``tensor([1.5])``, of float factories without ``dtype=`` (``zeros``,
    ``rand``, ``linspace`` ...), of Python floats beside integer tensors (``int_t * 0.5``) and
    of integer division (``int_t / 2``). float32 at start; process-wide, as in PyTorch.

    Args:
        d (genesis.dtype): a floating point dtype (float32, float64, float16 or bfloat16).

    Returns:
        None

    Raises:
        TypeError: ``d`` is not a floating point dtype.

    Example::

        >>> genesis.set_default_dtype(genesis.float64)
        >>> genesis.tensor([1.5]).dtype
        genesis.float64
        >>> genesis.set_default_dtype(genesis.float32)
    """
    _C._set_default_dtype(d)


def get_default_dtype():
    """Returns the float dtype factories use without ``dtype=`` (see ``set_default_dtype``).

    Returns:
        genesis.dtype: float32 unless changed.

    Example::

        >>> genesis.get_default_dtype()
        genesis.float32
    """
    return _C._get_default_dtype()


def set_default_device(device):
    """Sets the device of factories called without ``device=``.

    ``tensor``, ``zeros``, ``ones``, ``full``, ``empty``, ``arange``, ``linspace``, ``eye``,
    ``rand``, ``randn``, ``randint`` and the other factories make tensors there; ``*_like``
    factories keep their input's device, and ``from_numpy`` shares host memory as always.
    ``"cuda"`` without an index means the current CUDA device when the factory runs.

    Args:
        device (str, genesis.device, int or None): the device; None restores the CPU.

    Returns:
        None

    Example::

        >>> genesis.set_default_device("cpu")
        >>> genesis.zeros(2).device
        device(type='cpu')
    """
    _C._set_default_device(device)


def get_default_device():
    """Returns the device factories use without ``device=`` (see ``set_default_device``).

    Returns:
        genesis.device: the CPU unless changed.

    Example::

        >>> genesis.get_default_device()
        device(type='cpu')
    """
    return _C._get_default_device()
