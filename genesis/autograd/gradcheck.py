"""Gradient checks: ``gradcheck`` and ``gradgradcheck`` (``torch.autograd``'s, slow mode).

Both compare the gradients autograd computes (the *analytical* Jacobian, one
``autograd.grad`` call per output element) with central finite differences (the *numerical*
Jacobian, two evaluations of the function per input element), as PyTorch's do.

Note [Perturbing inputs]: the numerical Jacobian writes ``x[j] +- eps`` into each input that
requires grad, in place, through ``x.detach()`` (which shares its memory) under ``no_grad``, and
writes the original value back after. The write goes through the input's own strides, so
non-contiguous inputs (a transpose, a slice) work; inputs with a stride of 0 (``expand``) are
refused, as in PyTorch, since one write would move several elements. PyTorch writes through
``x.data``, whose version counter is separate from ``x``'s; ``x.detach()`` shares it, so here
the inputs' version counters advance, and a graph recorded from them *before* the check can no
longer backward ("modified by an inplace operation"). gradcheck itself computes the analytical
Jacobian before perturbing anything and evaluates the function again for its later checks.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from genesis import _C
from genesis._C import Tensor
from genesis._C._autograd import grad as _grad
from genesis.autograd.grad_mode import no_grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised when gradcheck or gradgradcheck finds a wrong gradient (a ``RuntimeError``)."""


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _refuse_unsupported(name: str, check_batched_grad: bool, fast_mode: bool) -> None:
    if check_batched_grad:
        raise NotImplementedError(
            f"[{name}] check_batched_grad=True is not supported: genesis has no vmap to compute "
            "batched gradients with; pass check_batched_grad=False"
        )
    if fast_mode:
        raise NotImplementedError(
            f"[{name}] fast_mode=True is not implemented: only the slow mode (the full "
            "Jacobians) is; pass fast_mode=False"
        )


def _diff_positions(inputs: tuple, name: str) -> list[int]:
    """The positions of the inputs that require grad; a ValueError when there is none."""
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError(
            f"[{name}] gradcheck expects at least one input tensor to require gradient, but "
            "none of them have requires_grad=True."
        )
    return diff


def _check_inputs(inputs: tuple, name: str) -> list[int]:
    """The positions of the inputs that require grad; warns and raises as PyTorch does."""
    diff = _diff_positions(inputs, name)
    for idx in diff:
        x = inputs[idx]
        if x.dtype != _C.float64:
            warnings.warn(
                f"[{name}] Input #{idx} requires gradient and is not a double precision floating "
                "point. This check will likely fail if all the inputs are not of double "
                "precision floating point.",
                UserWarning,
                stacklevel=4,  # _check_inputs < _run_gradcheck < gradcheck < the caller
            )
        if not all(st > 0 or sz <= 1 for st, sz in zip(x.stride(), x.shape)):
            raise RuntimeError(
                f"[{name}] The {idx}th input has a dimension with stride 0. gradcheck only "
                "supports inputs that are non-overlapping to be able to compute the numerical "
                "gradients correctly. You should call .contiguous on the input before passing "
                "it to gradcheck."
            )
    return diff


def _outputs_of(func: Callable[..., Any], inputs: tuple, name: str) -> tuple:
    """func(*inputs) as a tuple of Tensors; a TypeError for anything else."""
    out = func(*inputs)
    outputs = _as_tuple(out)
    for k, o in enumerate(outputs):
        if isinstance(o, Tensor):
            continue
        got = type(out).__name__
        if outputs is out or isinstance(out, list):
            got = f"a {got} holding {type(o).__name__} at position {k}"
        raise TypeError(f"[{name}] func must return a Tensor or a tuple of Tensors, got {got}")
    return outputs


def _evaluate(func: Callable[..., Any], inputs: tuple, name: str) -> tuple:
    """Detached copies of func's outputs (an output may alias an input that is then changed)."""
    outputs = _outputs_of(func, inputs, name)
    with no_grad():
        return tuple(o.detach().clone() for o in outputs)


def _numpy(t: Tensor) -> np.ndarray:
    with no_grad():
        return np.array(t.detach().to(_C.float64).cpu().numpy(), copy=True)


def _zeros_jacobian(rows: int, cols: int, like: Tensor) -> Tensor:
    return _C.zeros(rows, cols, dtype=like.dtype, device=like.device)


# ----------------------------------------------------------------------------------------------
# Jacobians
# ----------------------------------------------------------------------------------------------


def _analytical_jacobians_once(
    output: Tensor, diff_inputs: list
) -> tuple[list[Tensor], bool, bool]:
    """The analytical Jacobians of output with respect to each of diff_inputs, as
    (numel(input), numel(output)) tensors: column i is the gradient for output element i
    (autograd.grad with a one-hot grad_output). Also whether every gradient had its input's
    shape, and its dtype."""
    n_out = output.numel()
    columns: list[list[Tensor]] = [[] for _ in diff_inputs]
    sizes_ok = types_ok = True
    for i in range(n_out):
        with no_grad():
            onehot = _C.zeros(n_out, dtype=output.dtype, device=output.device)
            onehot[i] = 1.0
            onehot = onehot.view(tuple(output.shape))
        grads = _grad(output, diff_inputs, onehot, retain_graph=True, allow_unused=True)
        for column, x, g in zip(columns, diff_inputs, grads):
            if g is None:
                column.append(_C.zeros(x.numel(), dtype=x.dtype, device=x.device))
                continue
            if tuple(g.shape) != tuple(x.shape):
                sizes_ok = False
                column.append(_C.zeros(x.numel(), dtype=x.dtype, device=x.device))
                continue
            types_ok = types_ok and g.dtype == x.dtype
            with no_grad():
                column.append(g.detach().to(x.dtype).to(x.device).reshape(-1))
    jacobians = [
        _C.stack(column, 1) if column else _zeros_jacobian(x.numel(), 0, x)
        for column, x in zip(columns, diff_inputs)
    ]
    return jacobians, sizes_ok, types_ok


def _analytical_jacobians(
    output: Tensor,
    output_idx: int,
    diff_inputs: list,
    nondet_tol: float,
    check_grad_dtypes: bool,
    name: str,
) -> list[Tensor]:
    """_analytical_jacobians_once, computed twice to check that backward is deterministic."""
    first, sizes_ok, types_ok = _analytical_jacobians_once(output, diff_inputs)
    second, _, _ = _analytical_jacobians_once(output, diff_inputs)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError(
            f"[{name}] Gradient has dtype mismatch: a gradient for output {output_idx} does "
            "not have the dtype of its input"
        )
    if not sizes_ok:
        raise GradcheckError(
            f"[{name}] Analytical gradient has incorrect size: a gradient for output "
            f"{output_idx} does not have the shape of its input"
        )
    for a, b in zip(first, second):
        if a.numel() and float(np.abs(_numpy(a) - _numpy(b)).max()) > nondet_tol:
            raise GradcheckError(
                f"[{name}] Backward is not reentrant, i.e., running backward with same input "
                "and grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient. The tolerance for nondeterminism was "
                f"{nondet_tol}."
            )
    return first


def _numerical_jacobians(
    func: Callable[..., Any],
    inputs: tuple,
    diff_idx: list[int],
    outputs: tuple,
    float_out_idx: list[int],
    eps: float,
    name: str,
) -> dict[tuple[int, int], Tensor]:
    """{(output k, input j): (numel(input), numel(output)) tensor} by central differences:
    row e is (f(x + eps e) - f(x - eps e)) / (2 eps), x[e] written in place (Note [Perturbing
    inputs])."""
    jacobians = {}
    for j in diff_idx:
        x = inputs[j]
        alias = x.detach()  # shares x's memory and strides
        rows: dict[int, list[Tensor]] = {k: [] for k in float_out_idx}
        # One evaluation of func per perturbation: the loop is the finite differences.
        for index in itertools.product(*(range(s) for s in x.shape)):
            with no_grad():
                original = alias[index].item()
            try:
                with no_grad():
                    alias[index] = original + eps
                plus = _evaluate(func, inputs, name)
                with no_grad():
                    alias[index] = original - eps
                minus = _evaluate(func, inputs, name)
            finally:
                with no_grad():
                    alias[index] = original
            with no_grad():
                for k in float_out_idx:
                    rows[k].append(((plus[k] - minus[k]) / (2 * eps)).reshape(-1))
        for k in float_out_idx:
            jacobians[k, j] = (
                _C.stack(rows[k]) if rows[k] else _zeros_jacobian(0, outputs[k].numel(), outputs[k])
            )
    return jacobians


def _check_backward_mul_by_grad_output(
    func: Callable[..., Any], inputs: tuple, diff_idx: list[int], name: str
) -> None:
    """A zero grad_output gives zero gradients, of the inputs' dtype, device and shape.

    func runs again: the graph of the first call saw the inputs before they were perturbed."""
    outputs = [o for o in _outputs_of(func, inputs, name) if o.requires_grad]
    if not outputs:
        return
    diff_inputs = [inputs[j] for j in diff_idx]
    zeros = [_C.zeros_like(o) for o in outputs]
    grads = _grad(outputs, diff_inputs, zeros, allow_unused=True)
    for j, x, g in zip(diff_idx, diff_inputs, grads):
        if g is None:
            continue
        if not bool(np.all(_numpy(g) == 0)):
            raise GradcheckError(
                f"[{name}] backward not multiplied by grad_output: the gradient for input {j} "
                "is not zero for a zero grad_output"
            )
        if g.dtype != x.dtype:
            raise GradcheckError(
                f"[{name}] grad is incorrect type: {g.dtype} for input {j} of {x.dtype}"
            )
        if g.device != x.device:
            raise GradcheckError(
                f"[{name}] grad is incorrect device: {g.device} for input {j} on {x.device}"
            )
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError(
                f"[{name}] grad is incorrect size: {tuple(g.shape)} for input {j} of shape "
                f"{tuple(x.shape)}"
            )


def _gradcheck(
    func: Callable[..., Any],
    inputs: tuple,
    diff_idx: list[int],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_grad_dtypes: bool,
    name: str,
) -> bool:
    diff_inputs = [inputs[j] for j in diff_idx]
    outputs = _outputs_of(func, inputs, name)
    float_out_idx = [k for k, o in enumerate(outputs) if o.is_floating_point()]
    # Before the inputs are perturbed: the graph of `outputs` saved them (Note [Perturbing
    # inputs]).
    analytical = {
        k: _analytical_jacobians(o, k, diff_inputs, nondet_tol, check_grad_dtypes, name)
        for k, o in enumerate(outputs)
        if o.requires_grad
    }
    numerical = _numerical_jacobians(func, inputs, diff_idx, outputs, float_out_idx, eps, name)
    for k in float_out_idx:
        for pos, j in enumerate(diff_idx):
            n = numerical[k, j]
            if k not in analytical:
                if bool(np.any(_numpy(n) != 0)):
                    raise GradcheckError(
                        f"[{name}] Numerical gradient for function expected to be zero: "
                        f"output {k} does not require grad (recorded by no graph), but it "
                        f"changes with input {j},\nnumerical:{n}\n"
                    )
                continue
            a = analytical[k][pos]
            if not np.allclose(_numpy(a), _numpy(n), rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"[{name}] Jacobian mismatch for output {k} with respect to input {j},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
    if analytical:
        _check_backward_mul_by_grad_output(func, inputs, diff_idx, name)
    return True


def _run_gradcheck(
    func: Callable[..., Any],
    inputs: tuple,
    name: str,
    *,
    eps: float,
    atol: float,
    rtol: float,
    raise_exception: bool,
    nondet_tol: float,
    check_grad_dtypes: bool,
) -> bool:
    """gradcheck's work, its messages starting with [name] (gradcheck or gradgradcheck)."""
    diff_idx = _check_inputs(inputs, name)
    try:
        return _gradcheck(
            func, inputs, diff_idx, eps, atol, rtol, nondet_tol, check_grad_dtypes, name
        )
    except GradcheckError:
        if raise_exception:
            raise
        return False


# ----------------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------------


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    fast_mode: bool = False,
) -> bool:
    """Checks the gradients of ``func`` against finite differences (``torch.autograd.gradcheck``).

    For every output of ``func`` and every input that requires grad, the Jacobian autograd
    computes (one ``autograd.grad`` per output element) must match the central differences
    ``(f(x + eps) - f(x - eps)) / (2 eps)`` elementwise: ``|analytical - numerical| <= atol +
    rtol * |numerical|``. Also checked, as in PyTorch: backward run twice gives the same
    Jacobian (within ``nondet_tol``); gradients have their inputs' shapes; a zero grad_output
    gives zero gradients of the inputs' dtype and device. An output that does not require grad
    must not change with the inputs (genesis checks this for each such floating output, PyTorch
    only when no output requires grad): that catches a gradient lost to a ``detach`` or to an
    op that records no graph.

    The inputs that require grad should be float64 (a ``UserWarning`` says so otherwise: float32
    is too coarse for ``eps``). They are perturbed in place and restored (Note [Perturbing
    inputs] in this file: their version counters advance). Each element costs two calls of
    ``func``: keep the inputs small.

    Args:
        func: a function of the inputs that returns a Tensor or a tuple (or list) of Tensors.
        inputs: a Tensor or a tuple of arguments for ``func``; Tensors with
            ``requires_grad=True`` are checked, the other arguments are passed through.
        eps: the finite-difference step. Default: 1e-6.
        atol: the absolute tolerance. Default: 1e-5.
        rtol: the relative tolerance. Default: 1e-3.
        raise_exception: raise ``GradcheckError`` on a failed check; ``False`` returns
            ``False`` instead (bad arguments still raise). Default: True.
        nondet_tol: how far two backward passes may differ. Default: 0.0.
        check_undefined_grad: accepted for PyTorch's signature and ignored (PyTorch then also
            backpropagates undefined output gradients; genesis does not test that).
            Default: True.
        check_grad_dtypes: also fail when a gradient's dtype differs from its input's in the
            Jacobian pass. Default: False.
        check_batched_grad: only ``False``; ``True`` raises ``NotImplementedError`` (no vmap).
            Default: False.
        fast_mode: only ``False``; ``True`` raises ``NotImplementedError``. Default: False.

    Returns:
        True when every check passes; False when one fails and ``raise_exception`` is False.

    Raises:
        GradcheckError: a check failed (with ``raise_exception=True``); the message names the
            output and input (their positions) and prints both Jacobians, laid out as
            (input elements, output elements).
        ValueError: no input requires grad.
        TypeError: ``func`` returned something other than Tensors.

    Example::

        >>> x = genesis.randn(2, 3, dtype=genesis.float64, requires_grad=True)
        >>> genesis.autograd.gradcheck(lambda t: (t * t.sin()).sum(0), x)
        True
    """
    _refuse_unsupported("gradcheck", check_batched_grad, fast_mode)
    return _run_gradcheck(
        func,
        _as_tuple(inputs),
        "gradcheck",
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_grad_dtypes=check_grad_dtypes,
    )


def _random_grad_output(output: Tensor, non_contiguous: bool) -> Tensor:
    """Uniform in [-1, 1) with output's shape (torch.testing.make_tensor's range), requiring
    grad; a strided view of a wider tensor when non_contiguous (and it has 2+ elements)."""
    dtype = output.dtype if output.is_floating_point() else _C.float64
    shape = tuple(output.shape)
    with no_grad():
        if non_contiguous and output.numel() > 1:
            wide = _C.rand(*shape[:-1], 2 * shape[-1], dtype=dtype, device=output.device)
            g = (wide * 2 - 1)[..., ::2]
        else:
            g = _C.rand(*shape, dtype=dtype, device=output.device) * 2 - 1
    return g.detach().requires_grad_()


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    fast_mode: bool = False,
) -> bool:
    """Checks second derivatives of ``func`` against finite differences (``torch.autograd``'s).

    It runs ``gradcheck`` on the function of ``(*inputs, *grad_outputs)`` that returns
    ``autograd.grad(outputs, inputs, grad_outputs, create_graph=True, allow_unused=True)``
    (the unused gradients left out), with ``outputs`` the outputs of ``func`` that require
    grad and ``inputs`` those that require grad: so the backward of ``func``'s backward is
    checked, with respect to the inputs and to ``grad_outputs``. In its messages, "output k" is
    the k-th of those gradients and "input j" the j-th of ``(*inputs, *grad_outputs)``.

    Args:
        func: a function of the inputs that returns a Tensor or a tuple (or list) of Tensors.
        inputs: a Tensor or a tuple of arguments for ``func``; Tensors with
            ``requires_grad=True`` are checked, the other arguments are passed through.
        grad_outputs: a Tensor or tuple of Tensors, one for each output of ``func`` that
            requires grad; ``None`` draws them uniformly in [-1, 1) with ``requires_grad=True``
            (float64 where the output is not floating). Default: None.
        eps: the finite-difference step. Default: 1e-6.
        atol: the absolute tolerance. Default: 1e-5.
        rtol: the relative tolerance. Default: 1e-3.
        gen_non_contig_grad_outputs: make the random ``grad_outputs`` non-contiguous.
            Default: False.
        raise_exception: raise ``GradcheckError`` on a failed check; ``False`` returns
            ``False`` instead. Default: True.
        nondet_tol: how far two backward passes may differ. Default: 0.0.
        check_undefined_grad: accepted for PyTorch's signature and ignored, as in gradcheck.
            Default: True.
        check_grad_dtypes: passed to gradcheck. Default: False.
        check_batched_grad: only ``False``, as in gradcheck. Default: False.
        fast_mode: only ``False``, as in gradcheck. Default: False.

    Returns:
        True when every check passes; False when one fails and ``raise_exception`` is False.

    Raises:
        GradcheckError: a check failed (with ``raise_exception=True``).
        ValueError: no input requires grad, or ``grad_outputs`` does not have one Tensor for
            each output of ``func`` that requires grad.
        TypeError: ``func`` returned something other than Tensors, or ``grad_outputs`` holds
            something other than Tensors.

    Example::

        >>> x = genesis.randn(3, dtype=genesis.float64, requires_grad=True)
        >>> genesis.autograd.gradgradcheck(lambda t: t**3, x)
        True
    """
    _refuse_unsupported("gradgradcheck", check_batched_grad, fast_mode)
    name = "gradgradcheck"
    tupled_inputs = _as_tuple(inputs)
    diff_idx = _diff_positions(tupled_inputs, name)
    if grad_outputs is None:
        outputs = _outputs_of(func, tupled_inputs, name)
        tupled_grad_outputs = tuple(
            _random_grad_output(o, gen_non_contig_grad_outputs) for o in outputs if o.requires_grad
        )
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
        for i, g in enumerate(tupled_grad_outputs):
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"[{name}] grad_outputs must be Tensors, got {type(g).__name__} at position {i}"
                )
    n_inputs, n_grads = len(tupled_inputs), len(tupled_grad_outputs)

    def first_derivatives(*args: Any) -> tuple:
        input_args, grads = args[:n_inputs], list(args[n_inputs:])
        outputs = [o for o in _outputs_of(func, input_args, name) if o.requires_grad]
        if len(outputs) != n_grads:
            raise ValueError(
                f"[{name}] grad_outputs has {n_grads} tensors but func returns {len(outputs)} "
                "outputs that require grad"
            )
        if not outputs:
            return ()
        diff_inputs = [input_args[j] for j in diff_idx]
        gradients = _grad(outputs, diff_inputs, grads, create_graph=True, allow_unused=True)
        return tuple(g for g in gradients if g is not None)

    return _run_gradcheck(
        first_derivatives,
        tupled_inputs + tupled_grad_outputs,
        name,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_grad_dtypes=check_grad_dtypes,
    )
