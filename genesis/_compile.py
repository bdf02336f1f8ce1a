"""genesis.compile: chains of elementwise ops run as fused passes over memory.

The compiled function runs its Python code on every call, as eager code does; inside it, the
elementwise ops that produce new tensors are deferred into fused groups, which run when their
values are needed (Note [Fusing by deferring elementwise ops] in csrc/fusion/group.h). The user
guide's chapter "Compiling" says what fuses and how it differs from torch.compile.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

from . import _C

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_BACKENDS = ("genesis", "inductor", "eager")


_searched = False


def _nvrtc_dirs() -> list[str]:
    """The nvidia-cuda-nvrtc wheels' library directories on sys.path (CUDA 13's and 12's layout)."""
    dirs = []
    for entry in sys.path:
        for sub in (("cu13", "lib"), ("cuda_nvrtc", "lib")):
            lib = os.path.join(entry or ".", "nvidia", *sub)
            found = any(os.path.isfile(os.path.join(lib, f"libnvrtc.so.{m}")) for m in (13, 12))
            if found and lib not in dirs:
                dirs.append(lib)
    return dirs


def _find_nvrtc() -> None:
    """Hands the wheel directories to the loader once (Note [Loading NVRTC])."""
    global _searched
    if not _searched:
        _C._fusion.set_nvrtc_search_dirs(_nvrtc_dirs())
        _searched = True


class _Region:
    """A compiled region on this thread (regions nest; the outermost runs what is deferred)."""

    __slots__ = ("debug", "fullgraph")

    def __init__(self, debug: bool, fullgraph: bool) -> None:
        self.debug = debug
        self.fullgraph = fullgraph

    def __enter__(self) -> None:
        if self.debug:
            _C._fusion.set_logging(True)
        _C._fusion.enter_region(self.fullgraph)

    def __exit__(self, *exc: object) -> None:
        try:
            _C._fusion.exit_region()
        finally:
            if self.debug and not _LOGS:
                _C._fusion.set_logging(False)


def _logs_requested() -> bool:
    return "compile" in os.environ.get("GENESIS_LOGS", "").replace(" ", "").split(",")


# GENESIS_LOGS=compile, read when genesis is imported (as torch reads TORCH_LOGS).
_LOGS = _logs_requested()


def _check(fullgraph: bool, backend: Any, mode: Any, options: Any) -> tuple[bool, bool]:
    """The arguments checked as torch.compile checks them; returns (fuse, debug)."""
    if backend is None:
        backend = "genesis"
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise RuntimeError(
            f"compile: unknown backend {backend!r}; genesis compiles with 'genesis' (the default;"
            " 'inductor', torch's default name, means the same) or 'eager' (no fusion)"
        )
    if mode not in _MODES:
        raise RuntimeError(f"compile: unrecognized mode={mode!r}, should be one of {_MODES[1:]}")
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"compile: options must be a dict, got {type(options).__name__}")
    if options is not None and mode is not None:
        raise RuntimeError("compile: either mode or options can be specified, but both can't")
    debug = bool(options.get("debug", False)) if options else False
    return backend != "eager", debug


def compile(  # noqa: A001 - torch.compile's name
    model: Callable[..., Any] | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: Any = "genesis",
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    disable: bool = False,
    debug: bool = False,
) -> Any:
    """Compile a function or module: its chains of elementwise ops run as fused passes.

    Used as torch.compile is: ``genesis.compile(fn)``, ``@genesis.compile``,
    ``@genesis.compile(mode=...)``, ``genesis.compile(model)`` or ``model.compile()``. The
    function's Python code runs on every call; inside it, elementwise ops (arithmetic,
    comparisons, activations, where) that make new tensors are deferred and run together, in one
    pass, when their values are needed: each input is read once and only the results still
    referenced are written. The answers are eager's, bit for bit where the eager op is exact.

    Args:
        model: the function or genesis.nn.Module to compile. Default: None (returns a decorator).
        fullgraph: raise RuntimeError where the function reads a tensor's value into Python
            (``item()``, ``bool()``, ``float()``, ``int()``, indexing with a tensor, ``tolist()``,
            ``numpy()``): the graph breaks there. Default: False (the read runs the ops
            deferred so far and the function goes on).
        dynamic: accepted; genesis never specializes on shapes, so every shape runs the same way.
            Default: None.
        backend: ``"genesis"`` (or torch's ``"inductor"``) fuses; ``"eager"`` does not.
            Default: "genesis".
        mode: torch's modes; ``"reduce-overhead"`` also replays calls whose arguments are CUDA
            tensors as CUDA graphs, forward and backward, one capture per argument signature
            (Note [Replaying compiled calls] in genesis/_graph_replay.py: a replayed call's
            outputs are overwritten by the next call of that signature; clone one to keep it).
            Default: None.
        options: a dict; ``{"debug": True}`` is ``debug=True``. Default: None.
        disable: return ``model`` itself. Default: False.
        debug: describe each fused group on stderr as it runs (as ``GENESIS_LOGS=compile``).
            Default: False.

    Returns:
        the compiled function, or for a Module an ``OptimizedModule`` whose ``_orig_mod`` is the
        module (as torch.compile's).

    Example::

        >>> import genesis
        >>> @genesis.compile
        ... def gelu(x):
        ...     return x * 0.5 * (1.0 + genesis.tanh(0.79788456 * (x + 0.044715 * x * x * x)))
        >>> x = genesis.randn(1000)
        >>> bool((gelu(x) - genesis.nn.functional.gelu(x, approximate="tanh")).abs().max() < 1e-5)
        True
    """
    del dynamic  # every shape runs the same way: there is nothing to specialize
    if model is None:

        def decorate(fn: Callable[..., Any]) -> Any:
            return compile(
                fn,
                fullgraph=fullgraph,
                backend=backend,
                mode=mode,
                options=options,
                disable=disable,
                debug=debug,
            )

        return decorate
    if not callable(model):
        raise TypeError(f"compile: expected a callable or a Module, got {type(model).__name__}")
    fuse, option_debug = _check(fullgraph, backend, mode, options)
    if disable:
        return model
    _find_nvrtc()
    from .nn.modules.module import Module

    replay = mode == "reduce-overhead"
    if isinstance(model, Module):
        from .nn.modules._compiled import OptimizedModule

        call = compiled_call(model.__call__, fuse, debug or option_debug, fullgraph)
        if replay:
            call = _replayed(call, model.parameters)
        return OptimizedModule(model, call)
    call = compiled_call(model, fuse, debug or option_debug, fullgraph)
    return _replayed(call, None) if replay else call


def _replayed(call: Callable[..., Any], parameters: Any) -> Callable[..., Any]:
    """call's CUDA calls replayed as CUDA graphs (mode="reduce-overhead")."""
    from ._graph_replay import GraphReplay

    replay = GraphReplay(call, (lambda: list(parameters())) if parameters else None)

    @functools.wraps(call)
    def replayed(*args: Any, **kwargs: Any) -> Any:
        return replay(*args, **kwargs)

    replayed._genesis_compiled = True  # type: ignore[attr-defined]
    replayed._genesis_replay = replay  # type: ignore[attr-defined]
    return replayed


def compiled_call(
    fn: Callable[..., Any], fuse: bool, debug: bool, fullgraph: bool = False
) -> Callable[..., Any]:
    """fn run inside a compiled region (fuse False: fn itself, called through)."""

    enter, leave = _C._fusion.enter_region, _C._fusion.exit_region

    @functools.wraps(fn)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        if not fuse:
            return fn(*args, **kwargs)
        if debug or _LOGS:
            with _Region(True, fullgraph):
                return fn(*args, **kwargs)
        enter(fullgraph)  # the common path without a context manager: a call costs ~1 us less
        try:
            return fn(*args, **kwargs)
        finally:
            leave()

    compiled._genesis_compiled = True  # type: ignore[attr-defined]
    return compiled


def is_compiling() -> bool:
    """Whether this thread is inside a compiled function (torch.compiler.is_compiling)."""
    return bool(_C._fusion.region_active())
