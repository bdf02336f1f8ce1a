"""LBFGS: limited-memory BFGS, with a fixed step or a strong Wolfe line search.

L-BFGS treats the parameters as one flat vector x. Each iteration turns the flat gradient g into
a direction d by the two-loop recursion over the last ``history_size`` pairs (s, y) of steps
and gradient changes (Nocedal & Wright, Numerical Optimization, algorithm 7.4), then moves
x += t * d with t the learning rate (the first iteration scales it down to at most 1 / |g|_1)
or the step a strong Wolfe line search finds. The vectors (d, g, s, y) are tensors on the
parameters' device; the scalars (dot products, t, the losses) are Python floats, read once each
with ``.item()``, as PyTorch's ``if`` tests read them. The flat gradient is one ``cat`` and
every move of the parameters along d is one fused SGD call (Note [Optimizer steps] in
csrc/ops/optimizer_step.cpp) with the direction split into views shaped as the parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import _C
from .._C import Tensor
from ..autograd import no_grad
from .optimizer import Optimizer, _check_lr, _closure_loss

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS, as ``torch.optim.LBFGS`` (after minFunc): each ``step(closure)`` runs up to
    ``max_iter`` quasi-Newton iterations, re-evaluating the loss through the closure.

    The direction is the gradient multiplied by an inverse Hessian built from the last
    ``history_size`` steps and gradient changes; the step along it is ``lr`` (at the first
    iteration at most ``lr / |grad|_1``) or, with ``line_search_fn="strong_wolfe"``, a step
    meeting the strong Wolfe conditions. A step ends early when the largest gradient entry is at
    most ``tolerance_grad``, or the step or the loss changes by less than ``tolerance_change``.

    There is one parameter group, and its parameters share a device and a dtype. The state (the
    history, the last direction and step, counts of iterations and evaluations) is the
    optimizer's, kept as PyTorch keeps it: in ``state`` under the first parameter, with keys
    ``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``,
    ``prev_flat_grad``, ``prev_loss`` and ``al``; the vectors are tensors, the scalars Python
    floats. It takes ``(history_size + 1)`` times the parameters' memory, and more.

    Args:
        params (iterable): parameters or ``(name, parameter)`` pairs (one group only).
        lr (float or Tensor): learning rate. Default: 1.
        max_iter (int): the most iterations per ``step``. Default: 20.
        max_eval (int, optional): the most evaluations of the closure per ``step``.
            Default: None (``max_iter * 5 // 4``).
        tolerance_grad (float): stop when the largest gradient entry is at most this.
            Default: 1e-7.
        tolerance_change (float): stop when the step or the loss changes by less than this.
            Default: 1e-9.
        history_size (int): how many steps the inverse Hessian remembers. Default: 100.
        line_search_fn (str, optional): ``"strong_wolfe"`` or None (a fixed step).
            Default: None.

    Example::

        >>> x = genesis.nn.Parameter(genesis.tensor([-1.5, 2.0], dtype=genesis.float64))
        >>> opt = genesis.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2  # Rosenbrock
        ...     loss.backward()
        ...     return loss
        >>> for _ in range(5):
        ...     _ = opt.step(closure)
        >>> [round(v, 4) for v in x.tolist()]
        [1.0, 1.0]
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    @property
    def _params(self) -> list[Tensor]:
        """The parameters, the one group's (a property, so that it survives pickling and
        ``load_state_dict``)."""
        return self.param_groups[0]["params"]

    # -- the flat vector's helpers --------------------------------------------------------------

    def _gather_flat_grad(self) -> Tensor:
        """The gradients flattened into one new vector, zeros for a parameter without one."""
        return _C.cat(
            [
                p.grad.reshape(-1)
                if p.grad is not None
                else _C.zeros(p.numel(), dtype=p.dtype, device=p.device)
                for p in self._params
            ]
        )

    def _split(self, flat: Tensor) -> list[Tensor]:
        """Views of a flat vector, one per parameter, shaped as it."""
        params = self._params
        return [v.view_as(p) for v, p in zip(flat.split([p.numel() for p in params]), params)]

    def _add_grad(self, step_size: float, direction: Tensor) -> None:
        """params += step_size * direction: one fused SGD call (p -= lr * g with lr =
        -step_size)."""
        _C._optim._sgd_step(
            self._params,
            self._split(direction),
            [],
            lr=-step_size,
            momentum=0,
            dampening=0,
            weight_decay=0,
            nesterov=False,
            maximize=False,
        )

    def _clone_params(self) -> Tensor:
        """The parameters' values as one flat vector (a copy)."""
        return _C.cat([p.reshape(-1) for p in self._params])

    def _set_params(self, flat: Tensor) -> None:
        """Copies a flat vector of ``_clone_params`` back into the parameters, exactly (no
        arithmetic: a fused step's ``p + (x - p)`` would round). genesis has no copy over lists
        of tensors, so this is one ``copy_`` per parameter."""
        for p, v in zip(self._params, self._split(flat)):
            p.copy_(v)

    def _directional_evaluate(
        self, closure: Callable[[], Any], x: Tensor, t: float, d: Tensor
    ) -> tuple[float, Tensor]:
        """The loss and flat gradient at x + t * d; the parameters are x again afterwards."""
        self._add_grad(t, d)
        loss = float(_closure_loss(closure))
        flat_grad = self._gather_flat_grad()
        self._set_params(x)
        return loss, flat_grad

    # -- the step -------------------------------------------------------------------------------

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Performs up to ``max_iter`` L-BFGS iterations, calling the closure for the loss and
        gradient at each point tried.

        Args:
            closure (Callable): clears the gradients, re-evaluates the model, calls
                ``backward`` and returns the loss; run with gradients enabled.

        Returns:
            The loss the closure returned at the first evaluation (before the step).

        Example::

            >>> x = genesis.nn.Parameter(genesis.tensor([3.0, -1.0], dtype=genesis.float64))
            >>> opt = genesis.optim.LBFGS([x])
            >>> def closure():
            ...     opt.zero_grad()
            ...     loss = ((x - 2) ** 2).sum()
            ...     loss.backward()
            ...     return loss
            >>> opt.step(closure).item()
            10.0
            >>> x.tolist()
            [2.0, 2.0]
        """
        if closure is None:
            raise TypeError(
                "LBFGS.step() needs a closure that re-evaluates the model and returns the loss"
            )
        if self.param_groups[0]["line_search_fn"] not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        with no_grad():
            return self._minimize(closure)

    def _minimize(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = _host_scalar(group["lr"])
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        history_size = group["history_size"]
        line_search = group["line_search_fn"] is not None

        # The state is the optimizer's; it lives under the first parameter, as PyTorch keeps it
        # (load_state_dict then moves its tensors to the parameters' device and dtype).
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = _closure_loss(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if _abs_max(flat_grad) <= tolerance_grad:
            return orig_loss

        # Copies of the history's lists: the state changes only when the step is done.
        d: Tensor | None = state.get("d")
        t = _host_scalar(state.get("t"))
        old_dirs: list[Tensor] = list(state.get("old_dirs") or [])
        old_stps: list[Tensor] = list(state.get("old_stps") or [])
        ro: list[float] = [_host_scalar(r) for r in state.get("ro") or []]
        H_diag = _host_scalar(state.get("H_diag", 1))
        prev_flat_grad: Tensor | None = state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # The direction: steepest descent at first, then the L-BFGS one.
            if state["n_iter"] == 1 or d is None or prev_flat_grad is None or t is None:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1  # an int, as PyTorch's state holds it until the first pair
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s).item()
                if ys > 1e-10:  # keep the pair only where the curvature is positive
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y).item()
                if "al" not in state:
                    state["al"] = [None] * history_size
                d = _two_loop(flat_grad, old_dirs, old_stps, ro, H_diag, state["al"])
            # flat_grad is a new tensor that nothing writes to: kept without a copy.
            prev_flat_grad = flat_grad
            prev_loss = loss

            # The step: lr, scaled down by the gradient's 1-norm at the very first iteration.
            if state["n_iter"] == 1:
                t = min(1.0, _divide(1.0, flat_grad.abs().sum().item())) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d).item()  # the directional derivative
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search:
                x_init = self._clone_params()

                def obj_func(x: Tensor, step: float, direction: Tensor) -> tuple[float, Tensor]:
                    return self._directional_evaluate(closure, x, step, direction)

                # PyTorch passes its line search no tolerance_change: the default 1e-9 holds.
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = _abs_max(flat_grad) <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    # Not at the last iteration: a stochastic loss gains nothing from it.
                    loss = float(_closure_loss(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = _abs_max(flat_grad) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if _abs_max(d) * abs(t) <= tolerance_change:  # the step is too small
                break
            if abs(loss - prev_loss) < tolerance_change:  # the loss no longer changes
                break

        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss


def _abs_max(v: Tensor) -> float:
    """The largest absolute entry of a flat vector (its infinity norm)."""
    return v.abs().max().item()


def _host_scalar(value: Any) -> Any:
    """A scalar of the state as a Python number: a 0-d tensor (PyTorch's state holds some)
    read with ``.item()``, a number or None as it is."""
    return value.item() if isinstance(value, Tensor) else value


def _divide(a: float, b: float) -> float:
    """a / b with IEEE's answers where b is 0 (infinity or NaN), as PyTorch's 0-d tensors
    divide."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _two_loop(
    flat_grad: Tensor,
    old_dirs: list[Tensor],
    old_stps: list[Tensor],
    ro: list[float],
    H_diag: float,
    al: list[Any],
) -> Tensor:
    """The L-BFGS direction -H g: the inverse Hessian of the pairs (s = old_stps[i], y =
    old_dirs[i], ro[i] = 1 / y.s) applied to -g by the two-loop recursion, in one buffer."""
    num_old = len(old_dirs)
    q = flat_grad.neg()
    for i in range(num_old - 1, -1, -1):
        al[i] = old_stps[i].dot(q).item() * ro[i]
        q.add_(old_dirs[i], alpha=-al[i])
    r = q.mul(H_diag)
    for i in range(num_old):
        be_i = old_dirs[i].dot(r).item() * ro[i]
        r.add_(old_stps[i], alpha=al[i] - be_i)
    return r


def _cubic_interpolate(
    x1: float,
    f1: float,
    g1: float,
    x2: float,
    f2: float,
    g2: float,
    bounds: tuple[float, float] | None = None,
) -> float:
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped
    to ``bounds`` (by default [min(x1, x2), max(x1, x2)]); the bounds' midpoint where the cubic
    has no minimum (minFunc's polyinterp for two points)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * _divide(f1 - f2, x1 - x2)
    d2_square = d1**2 - g1 * g2
    if not d2_square >= 0:  # negative or NaN
        return (xmin_bound + xmax_bound) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * _divide(g2 + d2 - d1, g2 - g1 + 2 * d2)
    else:
        min_pos = x1 - (x1 - x2) * _divide(g1 + d2 - d1, g1 - g2 + 2 * d2)
    return min(max(min_pos, xmin_bound), xmax_bound)


def _strong_wolfe(
    obj_func: Callable[[Tensor, float, Tensor], tuple[float, Tensor]],
    x: Tensor,
    t: float,
    d: Tensor,
    f: float,
    g: Tensor,
    gtd: float,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Tensor, float, int]:
    """A step t along d from x meeting the strong Wolfe conditions (sufficient decrease,
    f(x + t d) <= f + c1 t gtd, and |g(x + t d) . d| <= -c2 gtd), found by bracketing and
    zooming with cubic interpolation within ``max_ls`` evaluations (minFunc's WolfeLineSearch).
    Returns the loss, flat gradient and step of the best point, and the evaluations made."""
    d_norm = _abs_max(d)
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d).item()

    # Bracket an interval holding a point that meets the conditions.
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[Tensor] = []
    bracket_gtd: list[float] = []
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # Extrapolate: a cubic step between 1.01 t (relative to t_prev) and 10 t.
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_next = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d).item()
        ls_iter += 1
    if ls_iter >= max_ls:  # out of evaluations: the bracket is [0, t]
        bracket, bracket_f = [0.0, t], [f, f_new]
        bracket_g, bracket_gtd = [g, g_new], [gtd, gtd_new]

    # Zoom: shrink the bracket around a point that meets the conditions.
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break  # the bracket is too small
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # A trial within 10% of the bracket's length of an end makes little progress: the
        # second time in a row, or at or past an end, move it to 10% from the nearer end.
        hi, lo = max(bracket), min(bracket)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            if insuf_progress or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d).item()
        ls_iter += 1

        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low_pos]:
            # No sufficient decrease, or not below the low end: t becomes the high end.
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new, gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True  # the strong Wolfe conditions hold
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # The old low end becomes the high end.
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new, gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals
