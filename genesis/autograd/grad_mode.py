"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each is a context manager and a decorator, as in PyTorch; the mode itself is a per-thread flag
in the C++ core (``autograd/grad_mode.h``), so these classes only set and restore it.
"""

from __future__ import annotations

import functools

from genesis import _C


class _GradModeContext:
    """Sets grad mode to ``self._enabled`` on entry and restores it on exit."""

    _enabled = False

    def __new__(cls, *args, **kwargs):
        # Used bare as a decorator (@genesis.no_grad, as PyTorch allows): decorate at once.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        """Used as a decorator: runs ``fn`` under this mode."""

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)

        return wrapper

    def _args(self):
        return ()


class no_grad(_GradModeContext):
    """Ops run without recording a graph (``torch.no_grad``).

    Inside it, results never require grad, and in-place updates of leaves that require grad are
    allowed (the step of an optimizer).

    Example::

        >>> w = genesis.ones(3, requires_grad=True)
        >>> with genesis.no_grad():
        ...     (w * 2).requires_grad
        False
    """

    _enabled = False


class enable_grad(_GradModeContext):
    """Ops record a graph again, inside ``no_grad`` (``torch.enable_grad``).

    Example::

        >>> with genesis.no_grad(), genesis.enable_grad():
        ...     genesis.is_grad_enabled()
        True
    """

    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Turns recording on or off; at once, and as a context manager or decorator.

    Args:
        mode: whether ops record a graph.

    Example::

        >>> with genesis.set_grad_enabled(False):
        ...     genesis.is_grad_enabled()
        False
    """

    def __init__(self, mode: bool):
        self._enabled = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def _args(self):
        return (self._enabled,)

    def __call__(self, fn):
        """Used as a decorator: runs ``fn`` with the mode (undoing the constructor's)."""
        _C._set_grad_enabled(self._previous)
        return super().__call__(fn)


class inference_mode(_GradModeContext):
    """Ops run without recording a graph (``torch.inference_mode``).

    Note [Inference mode]: genesis implements it as ``no_grad`` (PyTorch additionally marks the
    results as inference tensors, which it then refuses in recorded ops; genesis does not).

    Args:
        mode: ``False`` makes it a no-op, as in PyTorch. Default: ``True``.

    Example::

        >>> with genesis.inference_mode():
        ...     genesis.is_grad_enabled()
        False
    """

    def __init__(self, mode: bool = True):
        self._enabled = not mode if mode else _C.is_grad_enabled()
        self._mode = mode

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        if self._mode:
            _C._set_grad_enabled(False)
        return self

    def _args(self):
        return (self._mode,)


def is_grad_enabled() -> bool:
    """Whether ops record a graph in this thread (``torch.is_grad_enabled``).

    Returns:
        True unless inside ``no_grad``/``set_grad_enabled(False)``/``inference_mode``.

    Example::

        >>> genesis.is_grad_enabled()
        True
    """
    return _C.is_grad_enabled()
