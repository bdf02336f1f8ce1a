"""make_graphed_callables: functions captured into CUDA graphs, forward and backward.

Each function is captured twice, as in PyTorch: its forward graph, and the graph of the autograd
engine's backward pass from its outputs to its inputs that require grad. The returned callable
is a ``genesis.autograd.Function`` whose forward replays the first graph and whose backward
replays the second (Note [Graphed callables]).
"""

from .. import _C
from .graphs import CUDAGraph, graph, graph_pool_handle
from .streams import Stream, current_stream
from .streams import stream as _stream_scope

_OP = "make_graphed_callables"

# Note [Graphed callables]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# A graph replays fixed kernels on fixed memory, so each function gets static tensors: its
# sample arguments are its static inputs (a parameter passed as itself is never copied), what
# the forward capture returned its static outputs, and, when some input requires grad, a
# static grad_output per differentiable output and the backward capture's results, the static
# input grads. The forward capture runs with grad on, so it records an autograd graph over
# those tensors; the backward capture runs genesis.autograd.grad over it (no .grad is
# touched, the engine waits for nothing: Note [Backward engine]) and frees it.
#
# Calling the result with grad on and an argument that requires grad goes through an autograd
# Function: forward copies the arguments into the static inputs, replays and returns detached
# aliases of the static outputs (new tensors each call, which the Function's node owns);
# backward copies the incoming grads into the static grad_outputs, replays and returns aliases
# of the static input grads. The engine then adds them into .grad outside the graph, as for any
# node: AccumulateGrad copies a grad whose storage someone else holds (can_take in
# csrc/autograd/node.cpp), so .grad never aliases graph memory. Otherwise (no_grad, or no
# argument requiring grad) only the forward graph is replayed and the static outputs
# themselves are returned.
#
# Several functions share one private pool: forward graphs are captured in order, backward
# graphs in reverse order, so memory one capture freed (a temporary, or the saved tensors the
# backward capture released) is reused only by later captures; replaying in the same order
# (forwards in order, then backwards in reverse, as a training step does) never overwrites
# memory a later replay still reads. Warm-up runs forward and autograd.grad on a side stream,
# as in PyTorch, so its grads never reach .grad.


def _flatten_outputs(out):
    if isinstance(out, _C.Tensor):
        return (out,), "tensor"
    if isinstance(out, (tuple, list)) and all(isinstance(o, _C.Tensor) for o in out):
        return tuple(out), type(out).__name__
    raise TypeError(
        f"[{_OP}] a graphed callable must return a tensor or a tuple or list of tensors, "
        f"got {type(out).__name__}"
    )


def _describe(t):
    return f"a {t.device} {t.dtype} tensor of shape {tuple(t.shape)}"


def _check_samples(args, what):
    if not isinstance(args, tuple):
        raise TypeError(f"[{_OP}] {what} must be a tuple of tensors, got {type(args).__name__}")
    for i, a in enumerate(args):
        if not isinstance(a, _C.Tensor):
            raise TypeError(f"[{_OP}] {what}[{i}] must be a tensor, got {type(a).__name__}")
        if a.requires_grad and not a.is_leaf:
            raise ValueError(
                f"[{_OP}] {what}[{i}] requires grad but is not a leaf: the samples become the "
                "static inputs, pass a leaf (x.detach().requires_grad_())"
            )
        _check_device(a, f"{what}[{i}]")


def _check_device(t, what):
    if t.device.type != "cuda":
        raise ValueError(f"[{_OP}] {what} must be a CUDA tensor, got {_describe(t)}")


def _capture(body, pool):
    """Captures body() into a new CUDAGraph in pool; returns the graph and body's result."""
    g = CUDAGraph()
    with graph(g, pool=pool):
        out = body()
    return g, out


def _input_grads(outputs, inputs, grad_outputs, allow_unused):
    """The engine's grads of outputs (those that require grad) w.r.t. inputs that require grad.

    Returns one entry per input: its grad, or None (it needs none, or allow_unused and unused).
    """
    from ..autograd import grad

    diff_inputs = [s for s in inputs if s.requires_grad]
    got = iter(
        grad(
            [o for o in outputs if o.requires_grad],
            diff_inputs,
            grad_outputs=[g for g in grad_outputs if g is not None],
            allow_unused=allow_unused,
        )
    )
    return tuple(next(got) if s.requires_grad else None for s in inputs)


class _GraphedCallable:
    """One captured function: its graphs and static tensors (Note [Graphed callables])."""

    def __init__(self, fn, static_inputs):
        self.__name__ = getattr(fn, "__name__", "callable")
        self.static_inputs = static_inputs
        self.fwd_graph = None
        self.bwd_graph = None  # None: nothing to differentiate
        self.static_outputs = ()
        self.static_grad_outputs = ()  # one per output; None for one that needs no grad
        self.static_grad_inputs = ()  # one per input; None for one that gets no grad
        self._kind = "tensor"
        self._function = None

    def _capture_forward(self, fn, pool):
        self.fwd_graph, out = _capture(lambda: fn(*self.static_inputs), pool)
        self.static_outputs, self._kind = _flatten_outputs(out)

    def _capture_backward(self, pool, allow_unused):
        outputs = self.static_outputs
        differentiable = any(o.requires_grad for o in outputs)
        if differentiable and any(s.requires_grad for s in self.static_inputs):
            self.static_grad_outputs = tuple(
                _C.zeros_like(o) if o.requires_grad else None for o in outputs
            )
            self.bwd_graph, self.static_grad_inputs = _capture(
                lambda: _input_grads(
                    outputs, self.static_inputs, self.static_grad_outputs, allow_unused
                ),
                pool,
            )
            self._function = _graphed_function(self)
        # The capture freed the autograd graph's saved tensors; drop the rest of it.
        self.static_outputs = tuple(o.detach() for o in outputs)

    def _copy_inputs(self, args):
        from ..autograd.grad_mode import no_grad

        with no_grad():  # a sample that requires grad is a leaf
            for a, s in zip(args, self.static_inputs):
                if a is not s:
                    s.copy_(a)

    def __call__(self, *args):
        from ..autograd.grad_mode import is_grad_enabled

        if len(args) != len(self.static_inputs):
            raise TypeError(
                f"[{_OP}] {self.__name__} was captured with {len(self.static_inputs)} "
                f"argument(s), got {len(args)}"
            )
        tracking = is_grad_enabled()
        for i, (a, s) in enumerate(zip(args, self.static_inputs)):
            if not isinstance(a, _C.Tensor):
                raise TypeError(f"[{_OP}] argument {i} must be a tensor, got {type(a).__name__}")
            if a.shape != s.shape or a.dtype != s.dtype or a.device != s.device:
                raise ValueError(
                    f"[{_OP}] argument {i} must be {_describe(s)} as captured, got {_describe(a)}"
                )
            if tracking and a.requires_grad and not s.requires_grad:
                raise ValueError(
                    f"[{_OP}] argument {i} requires grad but its sample did not, so no backward "
                    "was captured for it: give the sample the same requires_grad"
                )
        if tracking and self._function is not None and any(a.requires_grad for a in args):
            out = self._function.apply(*args)
        else:
            self._copy_inputs(args)
            self.fwd_graph.replay()
            out = self.static_outputs
        if self._kind == "tensor":
            return out[0]
        return list(out) if self._kind == "list" else tuple(out)


def _graphed_function(graphed):
    """The autograd Function that replays graphed's forward and backward graphs."""
    from ..autograd.function import Function, once_differentiable

    class Graphed(Function):
        @staticmethod
        def forward(ctx, *args):
            graphed._copy_inputs(args)
            graphed.fwd_graph.replay()
            outs = tuple(o.detach() for o in graphed.static_outputs)
            fixed = [o for o, g in zip(outs, graphed.static_grad_outputs) if g is None]
            ctx.mark_non_differentiable(*fixed)
            return outs

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            for s, g in zip(graphed.static_grad_outputs, grads):
                if s is not None and g is not None and g is not s:
                    s.copy_(g)
            graphed.bwd_graph.replay()
            return tuple(None if g is None else g.detach() for g in graphed.static_grad_inputs)

    return Graphed


def make_graphed_callables(
    callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None
):
    """Captures plain functions of tensors into CUDA graphs, forward and backward.

    ``torch.cuda.make_graphed_callables`` for functions (genesis has no modules: parameters
    that require grad are arguments, and must be among the samples). Each function is warmed
    up ``num_warmup_iters`` times on a side stream (forward and, when some sample requires
    grad, ``genesis.autograd.grad``, so ``.grad`` is untouched), then captured twice: its
    forward graph, and its backward graph (the gradients of its outputs with respect to its
    samples that require grad). Several functions share one private pool; their forward graphs
    are captured in order and their backward graphs in reverse order, so call them in that
    order (as a training step does), each once per backward.

    The returned callable copies its arguments into the samples (an argument that is its
    sample, such as a parameter, is not copied) and replays the forward graph. With grad on
    and an argument that requires grad it is an autograd Function: its outputs carry a
    ``grad_fn``, and backward replays the backward graph and returns the gradients to
    autograd, which adds them into ``.grad`` outside the graph. Otherwise it returns the
    captured outputs themselves. Either way the outputs share memory with the graph and are
    overwritten by the next call (clone them to keep a result). Arguments must match the
    samples' shapes, dtypes and devices, and may require grad only where the sample does.

    Args:
        callables (callable or tuple of callables): the functions; each takes tensors and
            returns a tensor or a tuple or list of tensors.
        sample_args (tuple of tensors, or a tuple of such tuples for several callables): CUDA
            tensors with the shapes, dtypes, devices and ``requires_grad`` of the real
            arguments; they become the captured inputs. One that requires grad must be a leaf.
        num_warmup_iters (int): warm-up runs of each function before its capture. Default: 3.
        allow_unused_input (bool): whether an input that requires grad may be unused by the
            outputs (its gradient is then None), as in ``genesis.autograd.grad``. Default:
            False (an unused one raises).
        pool (tuple, optional): a pool handle to capture into. Default: None (a new pool).

    Returns:
        callable or tuple of callables: the graphed versions, one per function.

    Example::

        >>> def step(x, w, b):  # doctest: +SKIP
        ...     return (x @ w + b).relu().sum()
        >>> x = genesis.randn(64, 32, device="cuda")  # doctest: +SKIP
        >>> w = genesis.randn(32, 16, device="cuda").requires_grad_()  # doctest: +SKIP
        >>> b = genesis.zeros(16, device="cuda").requires_grad_()  # doctest: +SKIP
        >>> graphed = genesis.cuda.make_graphed_callables(step, (x, w, b))  # doctest: +SKIP
        >>> loss = graphed(genesis.randn(64, 32, device="cuda"), w, b)  # doctest: +SKIP
        >>> loss.backward()  # doctest: +SKIP
        >>> w.grad.shape  # doctest: +SKIP
        genesis.Size([32, 16])
    """
    from ..autograd.grad_mode import set_grad_enabled
    from .graphs import _pool_id

    just_one = callable(callables)
    if just_one:
        callables, sample_args = (callables,), (sample_args,)
    if not isinstance(callables, tuple) or not all(callable(c) for c in callables):
        raise TypeError(f"[{_OP}] callables must be a callable or a tuple of callables")
    if not isinstance(sample_args, tuple) or len(sample_args) != len(callables):
        raise TypeError(
            f"[{_OP}] sample_args must hold one tuple of tensors per callable ({len(callables)})"
        )
    if isinstance(num_warmup_iters, bool) or not isinstance(num_warmup_iters, int):
        raise TypeError(f"[{_OP}] num_warmup_iters must be an int, got {num_warmup_iters!r}")
    if num_warmup_iters < 0:
        raise ValueError(f"[{_OP}] num_warmup_iters must be >= 0, got {num_warmup_iters}")
    for i, args in enumerate(sample_args):
        _check_samples(args, "sample_args" if just_one else f"sample_args[{i}]")
    _pool_id(pool, _OP)

    # Grad on only where some input needs it: a forward-only function records no graph.
    modes = [any(a.requires_grad for a in args) for args in sample_args]
    side = Stream()
    side.wait_stream(current_stream())
    with _stream_scope(side):
        for fn, args, needs_grad in zip(callables, sample_args, modes):
            with set_grad_enabled(needs_grad):
                for _ in range(num_warmup_iters):
                    outputs, _ = _flatten_outputs(fn(*args))
                    if needs_grad and any(o.requires_grad for o in outputs):
                        zeros = [_C.zeros_like(o) if o.requires_grad else None for o in outputs]
                        _input_grads(outputs, args, zeros, allow_unused_input)
    current_stream().wait_stream(side)

    mempool = graph_pool_handle() if pool is None else pool
    graphed = [_GraphedCallable(fn, args) for fn, args in zip(callables, sample_args)]
    for fn, g, needs_grad in zip(callables, graphed, modes):
        with set_grad_enabled(needs_grad):
            g._capture_forward(fn, mempool)
    for g in reversed(graphed):
        g._capture_backward(mempool, allow_unused_input)
    return graphed[0] if just_one else tuple(graphed)
