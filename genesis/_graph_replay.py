"""``genesis.compile(..., mode="reduce-overhead")``: a compiled function's calls replayed as CUDA
graphs, one pair of graphs (forward, backward) per signature of its arguments.

Note [Replaying compiled calls]: a call whose positional arguments are all CUDA tensors (and
which has no keywords) is keyed by each argument's shape, dtype, device and requires_grad, grad
mode and the CUDA autocast state. The first calls of a key run the compiled function as the
default mode does; the next waits for their fused kernels to be built and captures it with
``genesis.cuda.make_graphed_callables`` (Note [Graphed callables]) and later calls of the key
replay: the arguments are copied into the captured inputs, one graph launch runs the whole
forward, and backward replays the captured backward. With grad on, the parameters of a
compiled module that require grad are passed as extra inputs (as themselves, never copied), so
backward delivers their gradients through autograd as for any op. The capture runs with
autocast's weight cache off, so that the casts of the weights are recorded in the graph (a cast
cached by the warm-up would be read, not recomputed, by every replay). Other calls (CPU
tensors, keywords, other Python values) run as the default mode. A function whose capture fails
(it returns something other than tensors, or syncs with the host) runs as the default mode from
then on, with a warning.

As in PyTorch, the outputs of a replayed call live in the graph's memory and the next replay of
the same key overwrites them: clone an output to keep it past the next call.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from . import _C

_WARMUP_CALLS = 2  # compiled runs of a key before its capture
_FAILED = "failed"


def _autocast_key() -> tuple:
    import genesis

    return (genesis.is_autocast_enabled("cuda"), genesis.get_autocast_dtype("cuda"))


class GraphReplay:
    """The calls of ``compiled`` replayed per argument signature (Note [Replaying compiled
    calls]); ``parameters()`` gives a compiled module's parameters (none for a function)."""

    def __init__(
        self, compiled: Callable[..., Any], parameters: Callable[[], list] | None = None
    ) -> None:
        self.compiled = compiled
        self.parameters = parameters or (lambda: [])
        self.entries: dict[tuple, Any] = {}  # key -> calls so far (int), graphed callable, or
        # _FAILED

    def _key(self, args: tuple) -> tuple | None:
        from .autograd.grad_mode import is_grad_enabled

        parts: list = []
        for a in args:
            if not isinstance(a, _C.Tensor) or a.device.type != "cuda":
                return None
            parts.append((tuple(a.shape), a.dtype, a.device.index, a.requires_grad))
        grad = is_grad_enabled()
        params = tuple(p for p in self.parameters() if p.requires_grad) if grad else ()
        return (tuple(parts), grad, _autocast_key(), tuple(id(p) for p in params)), params

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        keyed = None if kwargs or not args else self._key(args)
        if keyed is None:
            return self.compiled(*args, **kwargs)
        key, params = keyed
        entry = self.entries.get(key, 0)
        if entry is _FAILED:
            return self.compiled(*args)
        if isinstance(entry, int):
            if entry < _WARMUP_CALLS:
                self.entries[key] = entry + 1
                return self.compiled(*args)
            entry = self._capture(key, args, params)
            if entry is _FAILED:
                return self.compiled(*args)
        return entry(*args, *params)

    def _capture(self, key: tuple, args: tuple, params: tuple) -> Any:
        from .cuda.graphed_callables import make_graphed_callables

        n = len(args)
        # The captured inputs: a leaf like each argument (a non-leaf that requires grad becomes
        # one), then the parameters as themselves.
        samples = tuple(a.detach().clone().requires_grad_(a.requires_grad) for a in args)

        def call(*inputs: Any) -> Any:
            return self.compiled(*inputs[:n])

        # No cached weight casts: a cast the warm-up left in autocast's cache would be read by
        # the capture instead of being recorded, and replays would read that step's weights.
        cache_was = _C._amp._is_cache_enabled()
        _C._amp._set_cache_enabled(False)
        # The warm-up's new programs finish building first, so the graph records their kernels
        # rather than the op-by-op runs meanwhile (Note [Building programs in the background]).
        _C._fusion.wait_for_builds()
        try:
            graphed = make_graphed_callables(call, samples + params, num_warmup_iters=1)
        except (TypeError, ValueError, RuntimeError) as e:
            warnings.warn(
                f"compile: mode='reduce-overhead' could not capture "
                f"{getattr(self.compiled, '__name__', 'the function')} as a CUDA graph ({e}); "
                "it runs as the default mode",
                UserWarning,
                stacklevel=3,
            )
            self.entries[key] = _FAILED
            return _FAILED
        finally:
            _C._amp._set_cache_enabled(cache_was)
        self.entries[key] = graphed
        return graphed
