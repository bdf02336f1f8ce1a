"""Custom differentiable operations: ``genesis.autograd.Function`` (PyTorch's API).

A subclass defines ``forward`` and ``backward`` as static methods; ``apply`` runs forward
under ``no_grad`` and records one node whose backward is the subclass's (the node itself is
C++: Note [Custom Functions] in ``csrc/python/autograd_function.cpp``).
"""

import functools
from typing import Any, Callable, Optional

from genesis._C import Tensor
from genesis._C._autograd import _record_function
from genesis.autograd.grad_mode import is_grad_enabled, no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` a custom Function's forward and backward share.

    Besides any attribute forward sets on it, it carries the tensors saved for backward
    (``save_for_backward`` / ``saved_tensors``) and ``needs_input_grad``, a tuple with one bool
    per argument of forward: whether that argument is a tensor that needs a gradient.

    Keep tensors for backward with ``save_for_backward``, not as attributes of ctx: an output
    of forward stored as an attribute keeps its own graph alive (a cycle through C++ that the
    garbage collector does not see), so its memory is never freed.

    Example:
        >>> import genesis
        >>> class Square(genesis.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * g
        >>> x = genesis.tensor([3.0]).requires_grad_()
        >>> Square.apply(x).backward()
        >>> x.grad.tolist()
        [6.0]
    """

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self._to_save: tuple[Optional[Tensor], ...] = ()
        self._non_differentiable: list[Tensor] = []
        self._handle: Any = None
        self.materialize_grads = True

    def save_for_backward(self, *tensors: Optional[Tensor]) -> None:
        """Keeps tensors for backward (read them back there with ``saved_tensors``).

        Saved tensors are version-checked: writing one in place before backward runs makes
        backward raise, as in PyTorch. Call it at most once, from forward or setup_context.

        Args:
            *tensors: Tensors (inputs, outputs or intermediates) or None.

        Returns:
            None.

        Example:
            >>> import genesis
            >>> ctx = genesis.autograd.FunctionCtx()
            >>> ctx.save_for_backward(genesis.ones(2), None)
        """
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "[save_for_backward] save_for_backward can only save tensors or None, "
                    f"got {type(t).__name__}"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Optional[Tensor], ...]:
        """The tensors ``save_for_backward`` kept, in order (read them in backward)."""
        if self._handle is None:
            return self._to_save
        return self._handle.saved_tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Marks outputs of forward that have no gradient (their results never require grad).

        Args:
            *tensors: Outputs of forward.

        Returns:
            None.

        Example:
            >>> import genesis
            >>> ctx = genesis.autograd.FunctionCtx()
            >>> ctx.mark_non_differentiable(genesis.ones(2))
        """
        self._non_differentiable.extend(tensors)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Not supported: a custom Function cannot modify its inputs in place (yet).

        Args:
            *tensors: The inputs forward modified.

        Returns:
            Never returns.

        Example:
            >>> import genesis
            >>> ctx = genesis.autograd.FunctionCtx()
            >>> try:
            ...     ctx.mark_dirty(genesis.ones(1))
            ... except NotImplementedError:
            ...     pass
        """
        raise NotImplementedError(
            "[mark_dirty] in-place custom Functions are not supported in genesis yet; "
            "return a new tensor from forward instead"
        )

    def set_materialize_grads(self, value: bool) -> None:
        """Accepted for PyTorch compatibility: backward always gets tensors (zeros for outputs
        that received no gradient), never None.

        Args:
            value: PyTorch's flag (ignored: gradients are always materialized).

        Returns:
            None.

        Example:
            >>> import genesis
            >>> genesis.autograd.FunctionCtx().set_materialize_grads(False)
        """
        self.materialize_grads = bool(value)


def _is_overridden(cls: type, name: str) -> bool:
    return getattr(cls, name) is not getattr(Function, name)


class Function:
    """Base class of custom differentiable operations (``torch.autograd.Function``).

    Define ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` as static methods,
    then call ``MyFunction.apply(*args)``. forward runs under ``no_grad``; backward receives
    one gradient per output of forward (a tensor; None for a non-tensor output) and returns
    one per argument of forward (None for arguments that need none). Alternatively forward
    may take no ctx and a static ``setup_context(ctx, inputs, output)`` saves what backward
    needs. Gradients computed in backward with genesis ops are differentiable again under
    ``create_graph=True`` (unless backward is decorated with ``once_differentiable``).

    Example:
        >>> import genesis
        >>> class Exp(genesis.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (y,) = ctx.saved_tensors
        ...         return g * y
        >>> x = genesis.tensor([0.0, 1.0]).requires_grad_()
        >>> y = Exp.apply(x)
        >>> y.grad_fn.name()
        'ExpBackward'
        >>> y.sum().backward()
        >>> [round(v, 4) for v in x.grad.tolist()]
        [1.0, 2.7183]
    """

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Computes the outputs (override it; runs under no_grad).

        Args:
            *args: ctx first (unless setup_context is defined), then the arguments of apply.
            **kwargs: Keyword arguments of apply (never differentiated).

        Returns:
            A tensor, or a tuple of outputs.

        Example:
            >>> import genesis
            >>> genesis.autograd.Function.forward is not None
            True
        """
        raise NotImplementedError(
            "[Function] you must implement the forward function for custom autograd.Function"
        )

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple[Any, ...], output: Any) -> None:
        """Saves what backward needs, for a forward that takes no ctx (optional override).

        Args:
            ctx: The context backward will get.
            inputs: The arguments apply was called with.
            output: What forward returned.

        Returns:
            None.

        Example:
            >>> import genesis
            >>> genesis.autograd.Function.setup_context is not None
            True
        """
        raise NotImplementedError("[Function] setup_context is not overridden")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """The gradients of forward's arguments from those of its outputs (override it).

        Args:
            ctx: The context forward filled.
            *grad_outputs: One gradient per output of forward.

        Returns:
            One gradient (a tensor or None) per argument of forward, as a tuple or alone.

        Example:
            >>> import genesis
            >>> genesis.autograd.Function.backward is not None
            True
        """
        raise NotImplementedError(
            "[Function] you must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Runs forward and records backward for the arguments that require grad.

        Args:
            *args: forward's arguments (tensors, or any other values).
            **kwargs: forward's keyword arguments (never differentiated).

        Returns:
            What forward returned, its tensors part of the graph.

        Example:
            >>> import genesis
            >>> class Double(genesis.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         return x * 2
            ...     @staticmethod
            ...     def backward(ctx, g):
            ...         return g * 2
            >>> Double.apply(genesis.ones(2)).tolist()
            [2.0, 2.0]
        """
        ctx = FunctionCtx()
        tracking = is_grad_enabled()
        ctx.needs_input_grad = tuple(
            tracking and isinstance(a, Tensor) and a.requires_grad for a in args
        )
        custom_setup = _is_overridden(cls, "setup_context")
        with no_grad():
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not any(ctx.needs_input_grad):
            return output
        return _record(cls, ctx, args, kwargs, output)


def _record(
    cls: type[Function],
    ctx: FunctionCtx,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    output: Any,
) -> Any:
    is_tuple = isinstance(output, tuple)
    items = list(output) if is_tuple else [output]
    returned = list(items)  # before the aliasing below: what mark_non_differentiable saw
    # An input returned as it is becomes an alias with the node's history; the input keeps its own.
    # Keyword arguments count as inputs here (as in PyTorch), though they get no gradient.
    originals = [*args, *kwargs.values()]
    for i, item in enumerate(items):
        if isinstance(item, Tensor) and any(item is a for a in originals):
            items[i] = item.detach()
    positions = [i for i, item in enumerate(items) if isinstance(item, Tensor)]
    outputs = [items[i] for i in positions]
    saved = list(ctx._to_save)
    saved_output = [next((k for k, o in enumerate(outputs) if s is o), -1) for s in saved]
    saved = [items[positions[k]] if k >= 0 else s for s, k in zip(saved, saved_output)]
    non_differentiable = [any(returned[i] is n for n in ctx._non_differentiable) for i in positions]
    n_items, n_args = len(items), len(args)
    not_tensors = [i for i, a in enumerate(args) if not isinstance(a, Tensor)]
    name = cls.__name__ + "Backward"

    def run_backward(*grads: Tensor) -> tuple[Any, ...]:
        full: list[Any] = [None] * n_items
        for k, g in zip(positions, grads):
            full[k] = g
        result = cls.backward(ctx, *full)
        result = result if isinstance(result, tuple) else (result,)
        # Trailing Nones past forward's arguments are allowed, as in PyTorch.
        while len(result) > n_args and result[-1] is None:
            result = result[:-1]
        # (A wrong count is the node's error, raised after this returns.)
        for i in not_tensors if len(result) == n_args else ():
            if result[i] is not None:
                raise RuntimeError(
                    f"[backward] function {name} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Tensor"
                )
        return result

    inputs = [a if isinstance(a, Tensor) else None for a in args]
    ctx._handle = _record_function(
        name, run_backward, inputs, outputs, saved, saved_output, non_differentiable
    )
    # The node holds ctx (through run_backward) and its saved tensors now: ctx keeping the
    # outputs too would be a cycle through C++ (output -> node -> ctx -> output) that gc never
    # sees, so the graph would never be freed.
    ctx._to_save = ()
    ctx._non_differentiable = []
    return tuple(items) if is_tuple else items[0]


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorates a custom Function's backward that is not differentiable itself.

    backward then runs under no_grad: under ``create_graph=True`` its gradients do not
    require grad (PyTorch raises when they are differentiated; genesis gives results outside
    the graph).

    Args:
        fn: The backward static method.

    Returns:
        The wrapped backward.

    Example:
        >>> import genesis
        >>> from genesis.autograd.function import once_differentiable
        >>> class Cube(genesis.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x**3
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 3 * x * x * g
        >>> x = genesis.tensor([2.0]).requires_grad_()
        >>> Cube.apply(x).backward()
        >>> x.grad.tolist()
        [12.0]
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            return fn(ctx, *args)

    return wrapper
