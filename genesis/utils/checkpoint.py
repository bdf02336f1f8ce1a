"""genesis.utils.checkpoint: activation checkpointing (torch.utils.checkpoint's names, signatures
and defaults, PyTorch 2.13).

``checkpoint(function, *args)`` runs ``function`` without keeping the activations it makes for
backward; backward runs it again, with the random state of the first run, and differentiates the
recomputed outputs. ``checkpoint_sequential(functions, segments, input)`` does so for all but the
last of ``segments`` chunks of a sequential model. Memory falls from every activation of the
function to its inputs and outputs, for the price of a second forward.

Note [How checkpoint is built]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
PyTorch's recommended variant (``use_reentrant=False``) rests on saved-tensor hooks
(``torch.autograd.graph.saved_tensors_hooks``): the function runs with grad on, every tensor the
graph saves is packed into a placeholder, and unpacking it in backward recomputes the function.
genesis's autograd has no saved-tensor hooks (saving is C++, Note [Saved tensors] in
csrc/autograd/node.h), so checkpoint is one custom Function, ``_CheckpointFunction``, built as
PyTorch's reentrant variant is:

* forward runs the function under ``no_grad`` (nothing is recorded, so nothing is saved), keeping
  only its tensor arguments (``save_for_backward``: version-checked, as for any op), the non-tensor
  ones, and the random state (``get_rng_state``) taken before the call;
* backward puts that random state back (``fork_rng`` keeps the caller's), runs the function again
  under ``enable_grad`` on detached copies of the arguments, and calls
  ``genesis.autograd.backward`` on the recomputed outputs with the gradients it was given. That
  inner backward fills the copies' ``.grad`` (returned as the arguments' gradients) and adds into
  the ``.grad`` of every parameter the function used, as an ordinary backward would.

genesis has one default generator for every device (Note [Generators]), so restoring its state
makes dropout draw the same masks on CPU and CUDA alike. ``use_reentrant=True`` and ``False`` run
this same implementation; they differ only in the argument checks PyTorch makes (keyword arguments,
``context_fn``, ``debug`` and the determinism check are refused or ignored with ``True``).

What it supports, as the non-reentrant variant does: arguments and outputs nested in tuples, lists
and dicts (their tensors are found and differentiated), keyword arguments, non-tensor arguments
and outputs, parameters captured by the function (they get gradients even when no argument
requires grad: the node gets a hidden argument that requires grad, so it is recorded whenever grad
mode is on), nesting (a checkpointed function may call checkpoint), and ``retain_graph=True`` (each
backward recomputes).

Where it differs from PyTorch's non-reentrant variant:

* the outputs' ``requires_grad`` is not known without recording, so every floating-point
  output requires grad while grad mode is on; integer and bool outputs never do. An output that
  depends on nothing requiring grad gets no gradient into anything, and no error;
* double backward (``create_graph=True``) raises: the gradients would not be recorded;
* ``genesis.autograd.grad`` and ``backward(inputs=...)`` give the right gradients for the
  arguments, but the recomputation's inner backward also adds into the ``.grad`` of the
  parameters the function captured (PyTorch's reentrant variant refuses both calls);
* the determinism check compares the recomputed outputs (their number, shapes, dtypes and
  devices) with the first run's, where PyTorch compares the saved tensors.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager as ContextManager
from typing import Any

from genesis._C import Tensor as _Tensor
from genesis._C import empty as _empty
from genesis._C import get_rng_state as _get_rng_state
from genesis._C import set_rng_state as _set_rng_state
from genesis._random import fork_rng as _fork_rng
from genesis.autograd import backward as _autograd_backward
from genesis.autograd.function import Function as _Function
from genesis.autograd.function import FunctionCtx as _FunctionCtx
from genesis.autograd.grad_mode import enable_grad as _enable_grad
from genesis.autograd.grad_mode import is_grad_enabled as _is_grad_enabled

__all__ = [
    "CheckpointError",
    "checkpoint",
    "checkpoint_sequential",
    "noop_context_fn",
]

_DETERMINISM_CHECKS = ("default", "none")

_USE_REENTRANT_WARNING = (
    "[checkpoint] {name}: the use_reentrant parameter should be passed explicitly. Starting in "
    "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. In genesis both run the same implementation "
    "(Note [How checkpoint is built] in genesis/utils/checkpoint.py)."
)

_DEBUG_TIP = (
    "Tip: pass debug=True to checkpoint(...) to see every output's metadata and the function "
    "that was recomputed."
)


class CheckpointError(RuntimeError):
    """Raised when a checkpointed function's recomputation does not match its first run
    (``torch.utils.checkpoint.CheckpointError``; a RuntimeError).

    Example::

        >>> from genesis.utils.checkpoint import CheckpointError
        >>> issubclass(CheckpointError, RuntimeError)
        True
    """


def noop_context_fn() -> tuple[ContextManager[Any], ContextManager[Any]]:
    """The default ``context_fn`` of checkpoint: two contexts that do nothing.

    Returns:
        tuple: a context for the first run and one for the recomputation (both
        ``contextlib.nullcontext()``).

    Example::

        >>> from genesis.utils.checkpoint import noop_context_fn
        >>> fwd, recompute = noop_context_fn()
        >>> with fwd, recompute:
        ...     pass
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


# Arguments and outputs as a structure with the tensors taken out: a _Slot(i) stands for the
# i-th tensor of the flat list (tuples, namedtuples, lists and dicts are walked; anything else is
# a constant kept as it is).
class _Slot:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def _flatten(obj: Any, tensors: list[_Tensor]) -> Any:
    if isinstance(obj, _Tensor):
        tensors.append(obj)
        return _Slot(len(tensors) - 1)
    if isinstance(obj, tuple):
        items = [_flatten(o, tensors) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, list):
        return [_flatten(o, tensors) for o in obj]
    if isinstance(obj, dict):
        return type(obj)((k, _flatten(v, tensors)) for k, v in obj.items())
    return obj


def _unflatten(spec: Any, tensors: Sequence[Any]) -> Any:
    if isinstance(spec, _Slot):
        return tensors[spec.index]
    if isinstance(spec, tuple):
        items = [_unflatten(s, tensors) for s in spec]
        return type(spec)(*items) if hasattr(spec, "_fields") else type(spec)(items)
    if isinstance(spec, list):
        return [_unflatten(s, tensors) for s in spec]
    if isinstance(spec, dict):
        return type(spec)((k, _unflatten(v, tensors)) for k, v in spec.items())
    return spec


def _metadata(t: _Tensor) -> tuple[Any, ...]:
    return (tuple(t.shape), t.dtype, t.device)


def _describe(meta: tuple[Any, ...]) -> str:
    shape, dtype, device = meta
    return f"shape={list(shape)}, dtype={dtype}, device={device}"


def _differentiable(t: _Tensor) -> bool:
    return bool(t.dtype.is_floating_point)


class _Run:
    """What one checkpoint call needs again in backward (held by the node's ctx, never holding
    an output: Note [Custom Functions] in csrc/python/autograd_function.cpp)."""

    def __init__(
        self,
        function: Callable[..., Any],
        spec: tuple[Any, Any],
        preserve_rng_state: bool,
        recompute_context: ContextManager[Any],
        determinism_check: str,
        debug: bool,
    ) -> None:
        self.function = function
        self.spec = spec  # (args, kwargs) with _Slot for each tensor
        self.preserve_rng_state = preserve_rng_state
        self.rng_state: _Tensor | None = _get_rng_state() if preserve_rng_state else None
        self.recompute_context = recompute_context
        self.determinism_check = determinism_check
        self.debug = debug
        self.out_spec: Any = None
        self.out_meta: list[tuple[Any, ...]] = []

    def call(self, tensors: Sequence[_Tensor]) -> Any:
        args, kwargs = _unflatten(self.spec, tensors)
        return self.function(*args, **kwargs)

    def check(self, recomputed: list[_Tensor]) -> None:
        """Raises CheckpointError when the recomputation's tensors differ from the first run's."""
        name = getattr(self.function, "__qualname__", type(self.function).__name__)
        first = self.out_meta
        again = [_metadata(t) for t in recomputed]
        if len(first) != len(again):
            detail = ""
            if self.debug:
                detail = (
                    f"\nfunction: {name}\nforward outputs: {[_describe(m) for m in first]}\n"
                    f"recomputed outputs: {[_describe(m) for m in again]}"
                )
            raise CheckpointError(
                "[checkpoint] a different number of tensors was returned during the original "
                "forward and the recomputation.\n"
                f"Number of tensors returned during forward: {len(first)}\n"
                f"Number of tensors returned during recomputation: {len(again)}.{detail}\n"
                f"{_DEBUG_TIP}"
            )
        if self.determinism_check == "none":
            return
        different = [(i, a, b) for i, (a, b) in enumerate(zip(first, again)) if a != b]
        if different:
            lines = "".join(
                f"tensor at position {i}:\nsaved metadata: {_describe(a)}\n"
                f"recomputed metadata: {_describe(b)}\n"
                for i, a, b in different
            )
            detail = f"function: {name}\n" if self.debug else ""
            raise CheckpointError(
                "[checkpoint] recomputed values for the following tensors have different "
                f"metadata than during the forward pass.\n{lines}{detail}{_DEBUG_TIP}"
            )


class _CheckpointFunction(_Function):
    """The node of one checkpoint call (Note [How checkpoint is built])."""

    @staticmethod
    def forward(ctx: _FunctionCtx, _anchor: _Tensor | None, run: _Run, *tensors: _Tensor) -> Any:
        ctx.run = run  # type: ignore[attr-defined]
        ctx.save_for_backward(*tensors)
        out = run.call(tensors)
        flat: list[_Tensor] = []
        run.out_spec = _flatten(out, flat)
        run.out_meta = [_metadata(t) for t in flat]
        ctx.mark_non_differentiable(*[t for t in flat if not _differentiable(t)])
        return tuple(flat)

    @staticmethod
    def backward(ctx: _FunctionCtx, *grads: _Tensor | None) -> Any:
        if _is_grad_enabled():
            raise RuntimeError(
                "[checkpoint] double backward through a checkpointed function is not supported: "
                "backward(create_graph=True) and grad(create_graph=True) cannot record the "
                "gradients of the recomputation. Call the function without checkpoint where a "
                "gradient must be differentiated again."
            )
        run: _Run = ctx.run  # type: ignore[attr-defined]
        saved = ctx.saved_tensors
        detached: list[_Tensor] = []
        for t in saved:
            assert t is not None
            d = t.detach()
            if t.requires_grad:
                d.requires_grad_(True)
            detached.append(d)
        with _fork_rng(enabled=run.preserve_rng_state):
            if run.rng_state is not None:
                _set_rng_state(run.rng_state)
            with _enable_grad(), run.recompute_context:
                out = run.call(detached)
        recomputed: list[_Tensor] = []
        _flatten(out, recomputed)
        run.check(recomputed)
        roots = []
        root_grads = []
        for o, g in zip(recomputed, grads):
            if o.requires_grad and g is not None and _differentiable(o):
                roots.append(o)
                root_grads.append(g)
        if roots:
            _autograd_backward(roots, root_grads)
        return (None, None, *[d.grad if d.requires_grad else None for d in detached])


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[ContextManager[Any], ContextManager[Any]]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """Runs ``function(*args, **kwargs)`` without keeping its activations for backward.

    Backward runs ``function`` again (with the random state of the first run when
    ``preserve_rng_state``, so dropout draws the same masks) and differentiates the recomputed
    outputs: the tensors among the arguments get their gradients, and the parameters the function
    uses get theirs added into ``.grad``, as without checkpoint. Only the arguments are kept, so
    memory falls from every activation inside the function to its inputs and outputs, for the
    price of a second forward (Note [How checkpoint is built] in this module).

    The function must compute the same tensors when run again: a recomputation that returns a
    different number of tensors, or tensors of other shapes, dtypes or devices, raises
    :class:`CheckpointError` (``determinism_check="default"``). Arguments must not be modified
    in place between forward and backward (backward raises, as for any saved tensor). Double
    backward (``create_graph=True``) is not supported and raises.

    Args:
        function (callable): what to run; takes ``*args`` and ``**kwargs`` and returns a tensor,
            or tuples / lists / dicts of tensors and other values.
        *args: its positional arguments; tensors, possibly nested in tuples, lists and dicts,
            get gradients.
        use_reentrant (bool, optional): PyTorch's choice of variant. Both run the same
            implementation in genesis; ``True`` refuses keyword arguments, ``context_fn`` and
            ``debug``, and skips the shape check, as PyTorch's reentrant variant does. ``None``
            warns (pass it explicitly) and means ``True``, as in PyTorch 2.13. Default: None.
        context_fn (callable): returns two context managers: the first run happens inside the
            first, the recomputation inside the second. ``use_reentrant=False`` only.
            Default: :func:`noop_context_fn`.
        determinism_check (str): ``"default"`` compares the recomputed outputs' shapes, dtypes
            and devices with the first run's; ``"none"`` compares only their number.
            Default: ``"default"``.
        debug (bool): put the function's name and every output's metadata in the errors.
            ``use_reentrant=False`` only. Default: False.
        early_stop (bool): accepted for PyTorch's signature (the recomputation always runs the
            whole function). Default: True.
        preserve_rng_state (bool): restore the random state of the first run for the
            recomputation. Default: True.
        **kwargs: keyword arguments of ``function`` (``use_reentrant=False`` only).

    Returns:
        What ``function`` returned; its tensors are part of the graph while grad mode is on.

    Example::

        >>> from genesis.utils.checkpoint import checkpoint
        >>> lin = genesis.nn.Linear(4, 4)
        >>> x = genesis.randn(2, 4, requires_grad=True)
        >>> y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad.shape, lin.weight.grad.shape
        (genesis.Size([2, 4]), genesis.Size([4, 4]))
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING.format(name="checkpoint"), stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "[checkpoint] Passing `context_fn` or `debug` is only supported when "
                "use_reentrant=False."
            )
        determinism_check = "none"  # PyTorch's reentrant variant checks nothing
    elif determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"[checkpoint] determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
            f"but got {determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    if not _is_grad_enabled():
        # Nothing is recorded, so there is nothing to recompute.
        with forward_context:
            return function(*args, **kwargs)
    tensors: list[_Tensor] = []
    spec = _flatten((args, kwargs), tensors)
    run = _Run(function, spec, preserve_rng_state, recompute_context, determinism_check, debug)
    # When no argument requires grad, an anchor that does makes the node recorded all the same
    # (parameters captured by the function still need their gradients); it gets none itself.
    anchor = None if any(t.requires_grad for t in tensors) else _empty(0, requires_grad=True)
    with forward_context:
        flat = _CheckpointFunction.apply(anchor, run, *tensors)
    return _unflatten(run.out_spec, flat)


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: _Tensor,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Checkpoints a sequential model in ``segments`` chunks.

    The functions (or modules) run in order; each chunk but the last runs under
    :func:`checkpoint`, so only the chunks' inputs are kept for backward and each chunk is
    recomputed there. With ``segments`` chunks of ``len(functions) // segments`` functions, the
    last chunk takes the rest and runs normally. Like ``nn.Sequential``, each function takes one
    tensor and returns one.

    Args:
        functions: an ``nn.Sequential`` or a list of modules or functions.
        segments (int): the number of chunks (from 1 to ``len(functions)``).
        input (Tensor): the input of the first function.
        use_reentrant (bool, optional): as for :func:`checkpoint` (``None`` warns and means
            ``True``). Default: None.
        **kwargs: only ``preserve_rng_state`` (bool, default True), as for :func:`checkpoint`.

    Returns:
        Tensor: the output of the last function.

    Example::

        >>> from genesis.utils.checkpoint import checkpoint_sequential
        >>> model = genesis.nn.Sequential(
        ...     genesis.nn.Linear(4, 8), genesis.nn.ReLU(), genesis.nn.Linear(8, 2)
        ... )
        >>> x = genesis.randn(3, 4, requires_grad=True)
        >>> out = checkpoint_sequential(model, 2, x, use_reentrant=False)
        >>> out.sum().backward()
        >>> x.grad.shape
        genesis.Size([3, 4])
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING.format(name="checkpoint_sequential"), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    from genesis.nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    if not isinstance(segments, int) or not 1 <= segments <= max(len(functions), 1):
        raise ValueError(
            f"[checkpoint] segments must be an int from 1 to the number of functions "
            f"({len(functions)}), got {segments!r}"
        )

    def run_function(start: int, end: int, functions: Sequence[Any]) -> Callable[[Any], Any]:
        def forward(input: Any) -> Any:
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
