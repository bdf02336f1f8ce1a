"""genesis.amp.GradScaler and its fused ops against torch.amp.GradScaler.

What it checks, each time against torch running the same sequence (torch on the CPU: its scale
sequences and unscaled gradients do not depend on the device, so CUDA cases of genesis are
compared with torch's CPU results):

- the fused ops, called directly: ``genesis._amp_foreach_non_finite_check_and_unscale_`` (grads
  of several shapes, 0-d, zero-size and non-contiguous, in float32/float16/bfloat16/float64;
  inf, -inf and NaN in one tensor of many; found_inf accumulating) and
  ``genesis._amp_update_scale_`` (growth every growth_interval steps, backoff, growth that would
  reach inf not applied, factors applied in double as torch does);
- training loops with a Linear model where some iterations get an inf or NaN in a gradient: the
  parameters, get_scale() and the growth tracker step by step; unscale_ + gradient clipping;
  two optimizers sharing one scaler;
- the API: scale() of nested outputs, step()'s forwarding, update(new_scale=...), the getters and
  setters, enabled=False as a pass-through, the errors and their messages, state_dict() /
  load_state_dict(), pickling, genesis.cuda.amp.GradScaler's deprecation, and device="cuda"
  without CUDA;
- a checkpoint (model, optimizer and scaler through genesis.save / genesis.load) that resumes
  bit for bit.

Tests that run one action on both libraries take ``lib`` (the torch or the genesis module) so the
same code drives both.
"""

from __future__ import annotations

import copy
import pickle
import re
import warnings

import numpy as np
import pytest
from conftest import HAS_CUDA, no_cuda, requires_cuda, to_numpy

import genesis
import genesis.amp

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")
FLOAT_NAMES = ["float32", "float16", "bfloat16", "float64"]


# ----------------------------------------------------------------------------------- helpers


def _g(t, device="cpu"):
    """A genesis copy of a torch tensor: same dtype, shape and values."""
    if t.dtype == torch.bfloat16:
        return genesis.tensor(t.detach().float().numpy(), device=device).to(genesis.bfloat16)
    return genesis.tensor(t.detach().numpy(), device=device)


def _np(t):
    """A float64 NumPy copy of a genesis or torch tensor."""
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach()).astype(np.float64)
    return t.detach().double().numpy()


def _assert_same(g, t):
    """g (genesis) holds exactly t's (torch) dtype, shape and values, NaN where t has NaN."""
    assert g.dtype == getattr(genesis, str(t.dtype).split(".")[1])
    assert tuple(g.shape) == tuple(t.shape)
    np.testing.assert_array_equal(_np(g), _np(t))


def _relative_error(g, t):
    a, b = _np(t), _np(g)
    scale = np.linalg.norm(a)
    return np.linalg.norm(a - b) / (scale if scale else 1.0)


def _assert_params_close(gparams, tparams, tol):
    for gp, tp in zip(list(gparams), list(tparams)):
        assert _relative_error(gp, tp) <= tol


def _scalers(device, **kwargs):
    """(genesis scaler on device, torch scaler on the CPU) with the same options."""
    return genesis.amp.GradScaler(device, **kwargs), torch.amp.GradScaler("cpu", **kwargs)


def _linear_pair(device, dtype="float64", seed=0, shape=(4, 3)):
    """A genesis and a torch Linear(*shape) with equal random parameters."""
    gen = torch.Generator().manual_seed(seed)
    tmodel = torch.nn.Linear(*shape, dtype=getattr(torch, dtype))
    with torch.no_grad():
        for p in tmodel.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64))
    gmodel = genesis.nn.Linear(*shape, device=device, dtype=getattr(genesis, dtype))
    gmodel.load_state_dict({k: _g(v, device) for k, v in tmodel.state_dict().items()})
    return gmodel, tmodel


def _batches(n, dtype="float64", seed=1, shape=(4, 3)):
    """n (input, target) pairs of torch tensors for a Linear(*shape)."""
    gen = torch.Generator().manual_seed(seed)
    return [
        (
            torch.randn(8, shape[0], generator=gen, dtype=torch.float64).to(getattr(torch, dtype)),
            torch.randn(8, shape[1], generator=gen, dtype=torch.float64).to(getattr(torch, dtype)),
        )
        for _ in range(n)
    ]


def _backward(lib, model, scaler, x, y, bad=None):
    """Zero-grad-free forward and scaled backward of an MSE loss; bad (inf or NaN), if given, is
    then put into one element of the weight's gradient, as an overflow would."""
    loss = lib.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    if bad is not None:
        with lib.no_grad():
            model.weight.grad[1, 2] = bad


def _train_step(lib, model, opt, scaler, x, y, bad=None):
    """One iteration of torch's documented loop: scale, backward, step, update."""
    opt.zero_grad()
    _backward(lib, model, scaler, x, y, bad)
    scaler.step(opt)
    scaler.update()


def _ready(lib, device, dtype="float32", init_scale=4.0, **kwargs):
    """A parameter with a scaled gradient, its SGD, and a scaler that has scaled a loss (so its
    scale exists): (p, opt, scaler)."""
    dt = getattr(lib, dtype)
    p = lib.nn.Parameter(lib.ones(3, dtype=dt, device=device))
    p.grad = lib.full((3,), 2.0 * init_scale, dtype=dt, device=device)
    opt = lib.optim.SGD([p], lr=0.5)
    scaler = lib.amp.GradScaler(device, init_scale=init_scale, **kwargs)
    scaler.scale(lib.ones((), device=device))
    return p, opt, scaler


def _raises_like_torch(exc, message, action, device, **ready_kwargs):
    """action(lib, device, p, opt, scaler) raises exc with message, for torch on the CPU and for
    genesis on device (each on fresh objects from _ready)."""
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        p, opt, scaler = _ready(lib, dev, **ready_kwargs)
        with pytest.raises(exc, match=re.escape(message)):
            action(lib, dev, p, opt, scaler)


def _one_iteration(lib, p, opt, scaler, bad=None):
    """Backward of 0.5 * sum(p**2), scaled (gradient p * scale), bad put into the gradient if
    given, then step and update."""
    opt.zero_grad()
    scaler.scale((p * p).sum() * 0.5).backward()
    if bad is not None:
        with lib.no_grad():
            p.grad[0] = bad
    scaler.step(opt)
    scaler.update()


# ------------------------------------------------------------ _amp_foreach_non_finite_check...

# (shape of a base tensor, the view of it that is the gradient): contiguous, 0-d, zero-size and
# non-contiguous layouts; the ops must write through the views into the bases.
GRAD_LAYOUTS = [
    ((3, 4), lambda x: x),
    ((), lambda x: x),
    ((0, 3), lambda x: x),
    ((37,), lambda x: x),
    ((5, 6), lambda x: x.t()),  # transposed
    ((10,), lambda x: x[::2]),  # strided
    ((2, 3, 4), lambda x: x.permute(2, 0, 1)[1:]),  # permuted, with an offset
    ((4, 0), lambda x: x.t()),  # zero-size and transposed
]
NON_EMPTY = [i for i, (shape, _) in enumerate(GRAD_LAYOUTS) if 0 not in shape]


def _grad_lists(dtype_name, device, bad=None, where=None, seed=0):
    """torch and genesis copies of GRAD_LAYOUTS' gradients: (tbases, tgrads, gbases, ggrads).
    bad, if given, is put into the last element of gradient number `where`."""
    gen = torch.Generator().manual_seed(seed)
    tdtype = getattr(torch, dtype_name)
    tbases = [
        (torch.randn(shape, generator=gen, dtype=torch.float64) * 1000).to(tdtype)
        for shape, _ in GRAD_LAYOUTS
    ]
    tgrads = [view(b) for b, (_, view) in zip(tbases, GRAD_LAYOUTS)]
    if bad is not None:
        tgrads[where][tuple(s - 1 for s in tgrads[where].shape)] = bad  # writes the base too
    gbases = [_g(b, device) for b in tbases]
    ggrads = [view(b) for b, (_, view) in zip(gbases, GRAD_LAYOUTS)]
    return tbases, tgrads, gbases, ggrads


def _found_inf_and_inv_scale(inv_scale, device, found=0.0):
    """(torch found_inf, torch inv_scale, genesis found_inf, genesis inv_scale): 0-d float32,
    as GradScaler makes them."""
    return (
        torch.full((), found),
        torch.full((), inv_scale),
        genesis.full((), found, dtype=genesis.float32, device=device),
        genesis.full((), inv_scale, dtype=genesis.float32, device=device),
    )


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES)
@pytest.mark.parametrize("inv_scale", [2.0**-16, 1 / 3, 1.0, 1e-6])
def test_unscale_matches_torch(dtype_name, inv_scale, device):
    # 1/3 and 1e-6 are inexact in float32: torch multiplies in float for 16-bit grads and in
    # double for float64 ones; 1e-6 pushes float16 values into subnormals.
    tbases, tgrads, gbases, ggrads = _grad_lists(dtype_name, device)
    tfound, tinv, gfound, ginv = _found_inf_and_inv_scale(inv_scale, device)
    torch._amp_foreach_non_finite_check_and_unscale_(tgrads, tfound, tinv)
    genesis._amp_foreach_non_finite_check_and_unscale_(ggrads, gfound, ginv)
    for g, t in zip(ggrads + gbases, tgrads + tbases):
        _assert_same(g, t)
    assert gfound.item() == tfound.item() == 0.0
    assert gfound.dtype == genesis.float32 and gfound.shape == ()
    assert ginv.item() == tinv.item()  # inv_scale is only read


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES)
@pytest.mark.parametrize("bad", [INF, -INF, NAN], ids=["inf", "-inf", "nan"])
@pytest.mark.parametrize("where", NON_EMPTY)
def test_unscale_finds_a_non_finite_value(dtype_name, bad, where, device):
    tbases, tgrads, gbases, ggrads = _grad_lists(dtype_name, device, bad, where)
    tfound, tinv, gfound, ginv = _found_inf_and_inv_scale(2.0**-10, device)
    torch._amp_foreach_non_finite_check_and_unscale_(tgrads, tfound, tinv)
    genesis._amp_foreach_non_finite_check_and_unscale_(ggrads, gfound, ginv)
    assert gfound.item() == tfound.item() == 1.0
    # Every gradient is still unscaled; the bad value stays inf (sign kept) or NaN.
    for g, t in zip(ggrads + gbases, tgrads + tbases):
        _assert_same(g, t)


def test_found_inf_accumulates(device):
    # found_inf is only ever set to 1, never cleared: a 1 stays 1 over finite gradients (which
    # are still unscaled), and a flag set by one list survives a later finite list, as when
    # GradScaler unscales one list per dtype into one found_inf.
    for found in (0.0, 1.0):
        tbases, tgrads, gbases, ggrads = _grad_lists("float32", device)
        tfound, tinv, gfound, ginv = _found_inf_and_inv_scale(0.25, device, found)
        torch._amp_foreach_non_finite_check_and_unscale_(tgrads, tfound, tinv)
        genesis._amp_foreach_non_finite_check_and_unscale_(ggrads, gfound, ginv)
        assert gfound.item() == tfound.item() == found
        for g, t in zip(ggrads, tgrads):
            _assert_same(g, t)

    _, tbad, _, gbad = _grad_lists("float64", device, NAN, 0)
    _, tgood, _, ggood = _grad_lists("bfloat16", device, seed=1)
    tfound, tinv, gfound, ginv = _found_inf_and_inv_scale(0.5, device)
    for tlist, glist in ((tbad, gbad), (tgood, ggood)):
        torch._amp_foreach_non_finite_check_and_unscale_(tlist, tfound, tinv)
        genesis._amp_foreach_non_finite_check_and_unscale_(glist, gfound, ginv)
        assert gfound.item() == tfound.item() == 1.0
        for g, t in zip(glist, tlist):
            _assert_same(g, t)


def test_unscale_of_no_or_empty_gradients(device):
    for tlist, glist in (
        ([], []),
        ([torch.empty(0)], [genesis.empty(0, device=device)]),
    ):
        tfound, tinv, gfound, ginv = _found_inf_and_inv_scale(0.5, device)
        torch._amp_foreach_non_finite_check_and_unscale_(tlist, tfound, tinv)
        genesis._amp_foreach_non_finite_check_and_unscale_(glist, gfound, ginv)
        assert gfound.item() == tfound.item() == 0.0


def test_unscale_checks_found_inf_and_inv_scale(device):
    grads = [genesis.ones(3, device=device)]
    ok = genesis.zeros((), device=device)
    for found, inv in (
        (genesis.zeros((), dtype=genesis.float64, device=device), ok),  # not float32
        (ok, genesis.ones((), dtype=genesis.float64, device=device)),
        (genesis.zeros(2, device=device), ok),  # not one element
        (ok, genesis.ones(2, device=device)),
    ):
        with pytest.raises(RuntimeError):
            genesis._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
    assert (grads[0] == 1).all()


# ---------------------------------------------------------------------------- _amp_update_scale_

# found_inf after each step: 2.0 is what update() passes when two optimizers both found one.
FOUND_INF_SEQUENCE = [0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]


def _update_pair(device, scale, tracker):
    """torch and genesis (scale, growth_tracker) pairs: 0-d float32 and int32."""
    return (
        torch.full((), scale),
        torch.full((), tracker, dtype=torch.int32),
        genesis.full((), scale, dtype=genesis.float32, device=device),
        genesis.full((), tracker, dtype=genesis.int32, device=device),
    )


def _update_both(pairs, found, growth, backoff, interval, device):
    tscale, ttracker, gscale, gtracker = pairs
    tresult = torch._amp_update_scale_(
        tscale, ttracker, torch.full((), float(found)), growth, backoff, interval
    )
    gfound = genesis.full((), float(found), dtype=genesis.float32, device=device)
    gresult = genesis._amp_update_scale_(gscale, gtracker, gfound, growth, backoff, interval)
    assert tresult is tscale
    # The scale itself, updated in place, is returned.
    assert gresult.data_ptr() == gscale.data_ptr() and gresult.item() == gscale.item()
    assert gscale.dtype == genesis.float32 and gtracker.dtype == genesis.int32
    assert gscale.item() == tscale.item() and gtracker.item() == ttracker.item()


# (growth_factor, backoff_factor): torch multiplies the float32 scale by the factors in double
# and rounds the product to float32 once, so 0.3 (inexact) and 1.0001 give other scales than a
# float32 multiplication would.
FACTORS = [(2.0, 0.5), (3.0, 0.3), (1.0001, 0.9999)]


@pytest.mark.parametrize("factors", FACTORS, ids=str)
@pytest.mark.parametrize("interval", [1, 3, 4])
def test_update_scale_sequence(factors, interval, device):
    pairs = _update_pair(device, 1000.0, 0)
    for found in FOUND_INF_SEQUENCE:
        _update_both(pairs, found, *factors, interval, device)


@pytest.mark.parametrize(
    "scale, growth",
    [(2.0**127, 2.0), (3e38, 1.5), (1.0, 1e39)],
    ids=["2**127*2", "3e38*1.5", "1*1e39"],
)
def test_update_scale_does_not_grow_to_inf(scale, growth, device):
    # The grown scale is rounded to float32 before the isfinite check (1 * 1e39 is finite in
    # double, inf in float32); the scale is kept and the tracker still resets.
    pairs = _update_pair(device, scale, 2)
    _update_both(pairs, 0, growth, 0.5, 3, device)
    assert pairs[2].item() == np.float32(scale) and pairs[3].item() == 0
    _update_both(pairs, 1, growth, 0.5, 3, device)  # backoff still applies
    assert pairs[2].item() == np.float32(np.float32(scale) * 0.5)


def test_update_scale_backoff_resets_the_tracker(device):
    pairs = _update_pair(device, 65536.0, 2)
    _update_both(pairs, 1, 2.0, 0.5, 3, device)
    assert pairs[2].item() == 32768.0 and pairs[3].item() == 0


def test_update_scale_tracker_past_the_interval_never_grows(device):
    # torch compares tracker + 1 == growth_interval: a tracker already past the interval (the
    # interval lowered by set_growth_interval) keeps counting and the scale does not grow until
    # a backoff resets it.
    pairs = _update_pair(device, 8.0, 5)
    for found in (0, 0, 0, 0, 1, 0, 0, 0):
        _update_both(pairs, found, 2.0, 0.5, 3, device)
    assert pairs[2].item() == 8.0  # 8 -> 4 by the backoff, then grown back at 3 steps


def test_update_scale_checks_its_tensors(device):
    good = _update_pair(device, 4.0, 0)[2:]
    found = genesis.zeros((), device=device)
    for scale, tracker in (
        (genesis.full((), 4.0, dtype=genesis.float64, device=device), good[1]),
        (good[0], genesis.zeros((), dtype=genesis.int64, device=device)),
        (genesis.full((2,), 4.0, device=device), good[1]),
    ):
        with pytest.raises(RuntimeError):
            genesis._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 3)
    found64 = genesis.zeros((), dtype=genesis.float64, device=device)
    with pytest.raises(RuntimeError):
        genesis._amp_update_scale_(*good, found64, 2.0, 0.5, 3)
    assert good[0].item() == 4.0 and good[1].item() == 0


# ---------------------------------------------------------------------------- training loops

# iteration -> the value put into a gradient after backward (the step is skipped, the scale
# backs off); with growth_interval=3 the scale also grows several times in between.
INJECT = {2: INF, 3: -INF, 9: NAN, 10: INF, 17: NAN, 27: -INF}
OPTIMIZERS = [("SGD", {"lr": 0.05, "momentum": 0.9}), ("Adam", {"lr": 0.01})]


@pytest.mark.parametrize("opt_name, opt_kwargs", OPTIMIZERS, ids=[n for n, _ in OPTIMIZERS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_loop_matches_torch(opt_name, opt_kwargs, dtype, device):
    tol = 1e-12 if dtype == "float64" else 1e-5
    gmodel, tmodel = _linear_pair(device, dtype)
    gopt = getattr(genesis.optim, opt_name)(gmodel.parameters(), **opt_kwargs)
    topt = getattr(torch.optim, opt_name)(tmodel.parameters(), **opt_kwargs)
    gscaler, tscaler = _scalers(device, init_scale=2.0**8, growth_interval=3)
    scales = []
    for i, (x, y) in enumerate(_batches(32, dtype)):
        before = [p.detach().clone() for p in gmodel.parameters()]
        _train_step(torch, tmodel, topt, tscaler, x, y, INJECT.get(i))
        _train_step(genesis, gmodel, gopt, gscaler, _g(x, device), _g(y, device), INJECT.get(i))
        assert gscaler.get_scale() == tscaler.get_scale(), i
        assert gscaler.state_dict() == tscaler.state_dict(), i  # incl. _growth_tracker
        _assert_params_close(gmodel.parameters(), tmodel.parameters(), tol)
        if i in INJECT:  # a skipped step leaves the parameters exactly as they were
            for b, p in zip(before, gmodel.parameters()):
                assert (b == p).all(), i
        scales.append(gscaler.get_scale())
    # The sequence both grew and backed off the scale.
    steps = np.diff(scales)
    assert (steps > 0).any() and (steps < 0).any() and max(scales) > 2.0**8
    if opt_name == "Adam":  # Adam counted only the steps that were taken
        for gp, tp in zip(gmodel.parameters(), tmodel.parameters()):
            assert gopt.state[gp]["step"].item() == topt.state[tp]["step"].item() == 32 - 6


def test_unscale_then_clip_then_step(device):
    # torch's documented pattern: the gradients are unscaled before clipping, and step() does
    # not unscale them a second time.
    gmodel, tmodel = _linear_pair(device)
    gopt = genesis.optim.SGD(gmodel.parameters(), lr=0.1)
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.1)
    gscaler, tscaler = _scalers(device, init_scale=2.0**12, growth_interval=2)
    inject = {3: INF, 6: NAN}
    for i, (x, y) in enumerate(_batches(10)):
        norms = []
        for lib, model, opt, scaler, xx, yy in (
            (torch, tmodel, topt, tscaler, x, y),
            (genesis, gmodel, gopt, gscaler, _g(x, device), _g(y, device)),
        ):
            opt.zero_grad()
            _backward(lib, model, scaler, xx, yy, inject.get(i))
            scaler.unscale_(opt)
            norms.append(lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5))
            scaler.step(opt)
            scaler.update()
        if i not in inject:  # (else the norms are inf and the clipped gradients NaN)
            assert _relative_error(norms[1], norms[0]) <= 1e-12
            for gp, tp in zip(gmodel.parameters(), tmodel.parameters()):
                # Unscaled once, then clipped: torch's gradients.
                assert _relative_error(gp.grad, tp.grad) <= 1e-12
        _assert_params_close(gmodel.parameters(), tmodel.parameters(), 1e-12)
        assert gscaler.state_dict() == tscaler.state_dict(), i


def test_two_optimizers_one_scaler(device):
    # One scaler over two models, each with its own optimizer (torch's "multiple models"
    # example): an inf in one model's gradients skips only that optimizer's step, and update()
    # backs the shared scale off.
    (g0, t0), (g1, t1) = _linear_pair(device, seed=0), _linear_pair(device, seed=1)
    gopts = [genesis.optim.SGD(g0.parameters(), lr=0.1), genesis.optim.Adam(g1.parameters())]
    topts = [torch.optim.SGD(t0.parameters(), lr=0.1), torch.optim.Adam(t1.parameters())]
    gscaler, tscaler = _scalers(device, init_scale=2.0**10, growth_interval=2)
    inject = {2: (INF, None), 4: (None, NAN), 5: (INF, NAN)}  # iteration -> bad value per model
    for i, (x, y) in enumerate(_batches(9)):
        bad = inject.get(i, (None, None))
        for lib, models, opts, scaler, xx, yy in (
            (torch, (t0, t1), topts, tscaler, x, y),
            (genesis, (g0, g1), gopts, gscaler, _g(x, device), _g(y, device)),
        ):
            for opt in opts:
                opt.zero_grad()
            losses = [lib.nn.functional.mse_loss(m(xx), yy) for m in models]
            scaled = scaler.scale(losses)  # a list in, a list out
            (scaled[0] + scaled[1]).backward()
            with lib.no_grad():
                for m, b in zip(models, bad):
                    if b is not None:
                        m.weight.grad[0, 0] = b
            if i % 2:
                scaler.unscale_(opts[0])  # optional, for one optimizer only
            for opt in opts:
                scaler.step(opt)
            scaler.update()
        assert gscaler.state_dict() == tscaler.state_dict(), i
        _assert_params_close(g0.parameters(), t0.parameters(), 1e-12)
        _assert_params_close(g1.parameters(), t1.parameters(), 1e-12)


def test_mixed_parameter_dtypes_and_missing_grads(device):
    # unscale_ groups the gradients by dtype (and device); a parameter without a gradient is
    # left out; bfloat16 gradients are unscaled (only float16 ones are refused).
    gen = torch.Generator().manual_seed(3)
    tparams = [
        torch.nn.Parameter(torch.randn(5, generator=gen, dtype=torch.float64).to(dt))
        for dt in (torch.float32, torch.float64, torch.bfloat16, torch.float32)
    ]
    gparams = [genesis.nn.Parameter(_g(p, device)) for p in tparams]
    topt, gopt = torch.optim.SGD(tparams, lr=0.1), genesis.optim.SGD(gparams, lr=0.1)
    gscaler, tscaler = _scalers(device, init_scale=1024.0)
    for tp, gp in zip(tparams[:3], gparams[:3]):  # the last one has no gradient
        grad = (torch.randn(5, generator=gen, dtype=torch.float64) * 1024).to(tp.dtype)
        tp.grad, gp.grad = grad, _g(grad, device)
    tscaler.scale(torch.ones(()))
    gscaler.scale(genesis.ones((), device=device))
    tscaler.unscale_(topt)
    gscaler.unscale_(gopt)
    for tp, gp in zip(tparams, gparams):
        if tp.grad is None:
            assert gp.grad is None
        else:
            _assert_same(gp.grad, tp.grad)
    tscaler.step(topt)
    gscaler.step(gopt)
    for tp, gp in zip(tparams, gparams):
        assert _relative_error(gp, tp) <= (1e-2 if tp.dtype == torch.bfloat16 else 1e-6)


def test_growth_stops_below_inf(device):
    gscaler, tscaler = _scalers(device, init_scale=2.0**127, growth_interval=1)
    for lib, scaler, dev in ((torch, tscaler, "cpu"), (genesis, gscaler, device)):
        p = lib.nn.Parameter(lib.full((3,), 2.0**-120, device=dev))
        opt = lib.optim.SGD([p], lr=0.1)
        for bad in (None, None, INF, None):
            _one_iteration(lib, p, opt, scaler, bad)
        assert scaler.get_scale() == 2.0**127  # kept twice, halved, grown back
    assert gscaler.state_dict() == tscaler.state_dict()


def test_setters_change_the_updates(device):
    gscaler, tscaler = _scalers(device, init_scale=64.0, growth_interval=10)
    params = {}
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        p = lib.nn.Parameter(lib.ones(3, device=dev))
        params[lib] = (p, lib.optim.SGD([p], lr=0.01))
    # A tracker of 4 and then an interval of 2: torch's tracker is already past it, so the
    # scale does not grow until the backoff at the 8th iteration resets it.
    schedule = [None] * 4 + ["set"] + [None] * 3 + [INF] + [None] * 5
    for i, bad in enumerate(schedule):
        for lib, scaler in ((torch, tscaler), (genesis, gscaler)):
            if bad == "set":
                scaler.set_growth_factor(4.0)
                scaler.set_backoff_factor(0.25)
                scaler.set_growth_interval(2)
                continue
            _one_iteration(lib, *params[lib], scaler, bad)
        assert gscaler.state_dict() == tscaler.state_dict(), i
    assert gscaler.get_growth_factor() == tscaler.get_growth_factor() == 4.0
    assert gscaler.get_backoff_factor() == tscaler.get_backoff_factor() == 0.25
    assert gscaler.get_growth_interval() == tscaler.get_growth_interval() == 2
    assert gscaler.get_scale() == tscaler.get_scale() == 64.0 * 0.25 * 4.0 * 4.0


# ------------------------------------------------------------------------- the scaler's API


def test_constructor_defaults_and_getters():
    for lib, dev in ((torch, "cpu"), (genesis, "cpu")):
        scaler = lib.amp.GradScaler(dev)
        assert scaler.is_enabled() is True
        assert scaler.get_scale() == 65536.0
        assert scaler.get_growth_factor() == 2.0 and scaler.get_backoff_factor() == 0.5
        assert scaler.get_growth_interval() == 2000
        assert scaler.state_dict() == {
            "scale": 65536.0,
            "growth_factor": 2.0,
            "backoff_factor": 0.5,
            "growth_interval": 2000,
            "_growth_tracker": 0,
        }


def test_constructor_errors():
    for lib in (torch, genesis):
        with pytest.raises(AssertionError, match=re.escape("The growth factor must be > 1.0.")):
            lib.amp.GradScaler("cpu", growth_factor=1.0)
        with pytest.raises(AssertionError, match=re.escape("The backoff factor must be < 1.0.")):
            lib.amp.GradScaler("cpu", backoff_factor=1.0)
        lib.amp.GradScaler("cpu", growth_factor=0.5, enabled=False)  # not checked when disabled


def test_unsupported_device_raises():
    # torch accepts any string here; genesis has only "cpu" and "cuda".
    for device in ("tpu", "bogus"):
        with pytest.raises((ValueError, RuntimeError)):
            genesis.amp.GradScaler(device)


def test_get_scale_before_and_after_the_first_scale(device):
    # Before scale() the scale is the Python float given; scale() stores it as float32.
    gscaler, tscaler = _scalers(device, init_scale=1000.3)
    assert gscaler.get_scale() == tscaler.get_scale() == 1000.3
    assert gscaler.state_dict() == tscaler.state_dict()
    tscaler.scale(torch.ones(2))
    gscaler.scale(genesis.ones(2, device=device))
    assert gscaler.get_scale() == tscaler.get_scale() == float(np.float32(1000.3))
    assert gscaler.state_dict() == tscaler.state_dict()


def test_scale_outputs(device):
    gscaler, tscaler = _scalers(device, init_scale=3.0)
    t = [torch.arange(4, dtype=torch.float64), torch.tensor(2.0), torch.ones(2, 2)]
    g = [_g(x, device) for x in t]
    # One tensor: same dtype (the float32 scale is 0-d), values times the scale.
    for i in range(3):
        _assert_same(gscaler.scale(g[i]), tscaler.scale(t[i]))
    # Nested lists and tuples keep their structure and types.
    tout = tscaler.scale([t[0], (t[1], [t[2]])])
    gout = gscaler.scale([g[0], (g[1], [g[2]])])
    assert type(gout) is list and type(gout[1]) is tuple and type(gout[1][1]) is list
    _assert_same(gout[0], tout[0])
    _assert_same(gout[1][0], tout[1][0])
    _assert_same(gout[1][1][0], tout[1][1][0])
    assert type(gscaler.scale(tuple(g))) is tuple
    # Another iterable comes back as an iterator over the scaled tensors (torch: a map).
    gmap = gscaler.scale(x for x in g)
    assert iter(gmap) is gmap
    for gx, tx in zip(gmap, tscaler.scale(x for x in t)):
        _assert_same(gx, tx)
    # Anything else is refused.
    for scaler, x in ((tscaler, t[0]), (gscaler, g[0])):
        for bad in (3.0, [x, 3.0]):
            with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable"):
                scaler.scale(bad)


def test_scale_of_16_bit_outputs_and_gradient_flow(device):
    gscaler, tscaler = _scalers(device)  # scale 65536
    for name in ("float16", "bfloat16"):
        t = torch.tensor([1e-3, 0.5, 2.0]).to(getattr(torch, name))
        _assert_same(gscaler.scale(_g(t, device)), tscaler.scale(t))  # float16: 2 * 65536 = inf
    # The scaled output is differentiable: its gradient is the scale.
    tx = torch.ones(3, requires_grad=True)
    gx = genesis.ones(3, device=device, requires_grad=True)
    tscaler.scale(tx.sum()).backward()
    gscaler.scale(gx.sum()).backward()
    _assert_same(gx.grad, tx.grad)


def test_step_forwards_arguments_and_returns_the_result(device):
    # step() passes *args and **kwargs to optimizer.step and returns what it returns; a skipped
    # step returns None and does not call it.
    for lib, dev in ((torch, "cpu"), (genesis, device)):

        class Recording(lib.optim.SGD):
            calls: list = []

            def step(self, *args, **kwargs):
                self.calls.append((args, kwargs))
                return "stepped"

        p = lib.nn.Parameter(lib.ones(3, device=dev))
        opt = Recording([p], lr=0.1)
        scaler = lib.amp.GradScaler(dev)
        scaler.scale((p * p).sum()).backward()
        assert scaler.step(opt, 1, flag=True) == "stepped"
        scaler.update()
        scaler.scale((p * p).sum()).backward()
        with lib.no_grad():
            p.grad[0] = INF
        assert scaler.step(opt, 2) is None
        scaler.update()
        assert Recording.calls == [((1,), {"flag": True})]


def test_update_with_a_new_scale(device):
    # update(new_scale) sets the scale (a float, or a one-element tensor that is copied), leaves
    # the growth tracker alone, and ends the iteration like update().
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        p, opt, scaler = _ready(lib, dev, init_scale=4.0)
        scaler.step(opt)
        scaler.update()  # tracker 1
        scaler.scale((p * p).sum()).backward()
        scaler.step(opt)
        scaler.update(new_scale=1024.0)
        assert scaler.get_scale() == 1024.0 and scaler.state_dict()["_growth_tracker"] == 1
        scaler.unscale_(opt)  # a new iteration
        new = lib.full((), 512.0, device=dev)
        scaler.update(new_scale=new)
        new.fill_(7.0)  # copied, not kept
        assert scaler.get_scale() == 512.0 and scaler.state_dict()["_growth_tracker"] == 1
        # No inf checks are needed for a new scale.
        scaler.update(new_scale=lib.full((), 0.5, device=dev))
        assert scaler.get_scale() == 0.5


def test_update_with_a_bad_new_scale(device):
    message = "new_scale should be a float or a 1-element"
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        _, _, scaler = _ready(lib, dev)
        for bad in (
            lib.full((2,), 8.0, device=dev),
            lib.full((), 8.0, device=dev, requires_grad=True),
        ):
            with pytest.raises(AssertionError, match=message):
                scaler.update(new_scale=bad)
        assert scaler.get_scale() == 4.0


@requires_cuda
def test_update_with_a_new_scale_on_another_device():
    _, _, scaler = _ready(genesis, "cuda")
    with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
        scaler.update(new_scale=genesis.full((), 8.0))


def test_unscale_twice_raises(device):
    _raises_like_torch(
        RuntimeError,
        "unscale_() has already been called on this optimizer since the last update().",
        lambda lib, dev, p, opt, s: (s.unscale_(opt), s.unscale_(opt)),
        device,
    )


def test_unscale_after_step_raises(device):
    _raises_like_torch(
        RuntimeError,
        "unscale_() is being called after step().",
        lambda lib, dev, p, opt, s: (s.step(opt), s.unscale_(opt)),
        device,
    )


def test_step_twice_raises(device):
    _raises_like_torch(
        RuntimeError,
        "step() has already been called since the last update().",
        lambda lib, dev, p, opt, s: (s.step(opt), s.step(opt)),
        device,
    )


@pytest.mark.parametrize("closure", [lambda: 1.0, None], ids=["closure", "None"])
def test_step_with_a_closure_raises(closure, device):
    # Any closure= keyword, even None, when enabled.
    _raises_like_torch(
        RuntimeError,
        "Closure use is not currently supported if GradScaler is enabled.",
        lambda lib, dev, p, opt, s: s.step(opt, closure=closure),
        device,
    )


def test_update_without_inf_checks_raises(device):
    _raises_like_torch(
        AssertionError,
        "No inf checks were recorded prior to update.",
        lambda lib, dev, p, opt, s: s.update(),
        device,
    )


def test_step_without_gradients_raises(device):
    def action(lib, dev, p, opt, s):
        p.grad = None
        s.step(opt)

    _raises_like_torch(
        AssertionError, "No inf checks were recorded for this optimizer.", action, device
    )


@pytest.mark.parametrize("method", ["unscale_", "step", "update"])
def test_use_before_scale_raises(method, device):
    # Nothing was scaled, so there is no scale tensor yet.
    def action(lib, dev, p, opt, s):
        fresh = lib.amp.GradScaler(dev)
        getattr(fresh, method)(*([] if method == "update" else [opt]))

    _raises_like_torch(AssertionError, f"Attempted {method} but _scale is None.", action, device)


@pytest.mark.parametrize("method", ["unscale_", "step"])
def test_float16_gradients_raise(method, device):
    # The gradients of float16 parameters are refused (bfloat16 ones are not: see
    # test_mixed_parameter_dtypes_and_missing_grads).
    _raises_like_torch(
        ValueError,
        "Attempting to unscale FP16 gradients.",
        lambda lib, dev, p, opt, s: getattr(s, method)(opt),
        device,
        dtype="float16",
    )


def test_an_error_does_not_end_the_iteration(device):
    # After "step twice" the optimizer's stage stays stepped until update(), which then starts a
    # new iteration normally.
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        p, opt, scaler = _ready(lib, dev)
        scaler.step(opt)
        with pytest.raises(RuntimeError):
            scaler.step(opt)
        scaler.update()
        scaler.scale((p * p).sum()).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        assert scaler.state_dict()["_growth_tracker"] == 2


# ----------------------------------------------------------------------------- enabled=False


def test_disabled_is_a_pass_through(device):
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        scaler = lib.amp.GradScaler(dev, enabled=False)
        assert scaler.is_enabled() is False
        out = lib.ones(2, device=dev)
        outs = [out, (out,)]
        assert scaler.scale(out) is out and scaler.scale(outs) is outs
        assert scaler.get_scale() == 1.0
        assert scaler.state_dict() == {}
        scaler.load_state_dict({})  # a no-op, no error
        scaler.load_state_dict({"scale": 8.0})
        assert scaler.get_scale() == 1.0
        # unscale_ and update do nothing; step is optimizer.step, closure included, and runs
        # even on an inf gradient.
        p = lib.nn.Parameter(lib.zeros(2, device=dev))
        p.grad = lib.tensor([1.0, INF], device=dev)
        opt = lib.optim.SGD([p], lr=1.0)
        scaler.unscale_(opt)
        scaler.unscale_(opt)
        assert p.grad[0].item() == 1.0
        assert scaler.step(opt) is None
        assert p[0].item() == -1.0 and p[1].item() == -INF
        assert scaler.step(opt, closure=lambda: 5.0) == 5.0
        scaler.update()
        scaler.update(new_scale=8.0)
        assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}
        assert pickle.loads(pickle.dumps(scaler)).is_enabled() is False


# -------------------------------------------------------------------- state_dict and pickling


def _trained_scalers(device, iterations=7, **kwargs):
    """A genesis and a torch scaler after the same iterations (with two skipped steps)."""
    kwargs = {"init_scale": 2.0**10, "growth_interval": 3, **kwargs}
    gscaler, tscaler = _scalers(device, **kwargs)
    for lib, scaler, dev in ((torch, tscaler, "cpu"), (genesis, gscaler, device)):
        p = lib.nn.Parameter(lib.ones(3, device=dev))
        opt = lib.optim.SGD([p], lr=0.01)
        for i in range(iterations):
            _one_iteration(lib, p, opt, scaler, INF if i in (1, 5) else None)
    return gscaler, tscaler


def _continue(lib, scaler, device, iterations=5):
    """A few more iterations (one skipped) on a new parameter; returns the scaler's states."""
    p = lib.nn.Parameter(lib.ones(3, device=device))
    opt = lib.optim.SGD([p], lr=0.01)
    states = []
    for i in range(iterations):
        _one_iteration(lib, p, opt, scaler, NAN if i == 2 else None)
        states.append(scaler.state_dict())
    return states


def test_state_dict_matches_torch(device):
    gscaler, tscaler = _trained_scalers(device, growth_factor=3.0, backoff_factor=0.25)
    gstate, tstate = gscaler.state_dict(), tscaler.state_dict()
    assert list(gstate) == list(tstate)
    keys = ["scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"]
    assert list(gstate) == keys
    assert gstate == tstate
    assert [type(v) for v in gstate.values()] == [float, float, float, int, int]
    assert tstate["_growth_tracker"] == 1 and tstate["scale"] == 2.0**10 * 0.25 * 3.0 * 0.25


@pytest.mark.parametrize("scaled_first", [False, True], ids=["fresh", "used"])
def test_load_state_dict_both_ways(scaled_first, device):
    # A state saved by torch loads into genesis and the other way round; the loading scaler is
    # fresh (its scale made later, from the state) or already used (its scale filled in).
    gtrained, ttrained = _trained_scalers(device)
    gscaler, tscaler = _scalers(device, init_scale=7.0, growth_factor=5.0, growth_interval=50)
    if scaled_first:
        gscaler.scale(genesis.ones(1, device=device))
        tscaler.scale(torch.ones(1))
    gscaler.load_state_dict(ttrained.state_dict())
    tscaler.load_state_dict(gtrained.state_dict())
    assert gscaler.state_dict() == tscaler.state_dict() == ttrained.state_dict()
    gstates, tstates = _continue(genesis, gscaler, device), _continue(torch, tscaler, "cpu")
    assert gstates == tstates == _continue(torch, ttrained, "cpu")


def test_load_an_empty_state_dict_raises(device):
    for lib, dev in ((torch, "cpu"), (genesis, device)):
        with pytest.raises(RuntimeError, match=re.escape("The source state dict is empty")):
            lib.amp.GradScaler(dev).load_state_dict({})


def test_pickle_round_trip(device):
    gscaler, tscaler = _trained_scalers(device)
    for copied in (pickle.loads(pickle.dumps(gscaler)), copy.deepcopy(gscaler)):
        assert type(copied) is genesis.amp.GradScaler
        assert copied.state_dict() == gscaler.state_dict() == tscaler.state_dict()
        assert copied.is_enabled()
        assert _continue(genesis, copied, device) == _continue(torch, copy.deepcopy(tscaler), "cpu")
    # A scaler that has not scaled anything yet pickles too.
    fresh = pickle.loads(pickle.dumps(genesis.amp.GradScaler(device, init_scale=5.0)))
    assert fresh.get_scale() == 5.0


def test_pickle_mid_iteration_raises(device):
    _raises_like_torch(
        AssertionError,
        "A GradScaler instance may only be pickled at the beginning of an iteration, "
        "or at the end after scaler.update().",
        lambda lib, dev, p, opt, s: (s.unscale_(opt), pickle.dumps(s)),
        device,
    )


# ------------------------------------------------------------------ checkpoints and resuming


def test_checkpoint_resume_is_bit_for_bit(tmp_path, device):
    # Train N steps, save model, optimizer and scaler with genesis.save, train M more; a fresh
    # model, optimizer and scaler loaded from the file and trained the same M steps end with
    # the same parameters, bit for bit, and the same scaler state.
    n, m = 7, 9
    batches = [(_g(x, device), _g(y, device)) for x, y in _batches(n + m, "float32")]
    inject = {2: INF, 5: NAN, 9: INF, 10: -INF}  # skipped steps before and after the save

    def make(seed, **scaler_kwargs):
        model, _ = _linear_pair(device, "float32", seed=seed)
        opt = genesis.optim.AdamW(model.parameters(), lr=0.01)
        return model, opt, genesis.amp.GradScaler(device, **scaler_kwargs)

    model, opt, scaler = make(0, init_scale=2.0**12, growth_interval=2)
    for i in range(n):
        _train_step(genesis, model, opt, scaler, *batches[i], inject.get(i))
    genesis.save(
        {
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "scaler": scaler.state_dict(),
            "epoch": n,
        },
        tmp_path / "checkpoint.pt",
    )
    for i in range(n, n + m):
        _train_step(genesis, model, opt, scaler, *batches[i], inject.get(i))

    # Other initial weights and scaler options: everything must come from the checkpoint.
    resumed_model, resumed_opt, resumed_scaler = make(5)
    checkpoint = genesis.load(tmp_path / "checkpoint.pt")
    resumed_model.load_state_dict(checkpoint["model"])
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    resumed_scaler.load_state_dict(checkpoint["scaler"])
    assert checkpoint["epoch"] == n
    for i in range(checkpoint["epoch"], n + m):
        _train_step(genesis, resumed_model, resumed_opt, resumed_scaler, *batches[i], inject.get(i))
    for p, q in zip(model.parameters(), resumed_model.parameters()):
        assert bool((p == q).all())
    assert resumed_scaler.state_dict() == scaler.state_dict()


# ---------------------------------------------------------------------- CUDA and deprecation


@no_cuda
def test_cuda_scaler_without_cuda_warns_and_disables():
    for make in (lambda: genesis.amp.GradScaler(), lambda: genesis.amp.GradScaler("cuda")):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            scaler = make()
        assert scaler.is_enabled() is False and scaler.get_scale() == 1.0
        assert scaler.state_dict() == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # disabled on purpose: no warning
        assert genesis.amp.GradScaler("cuda", enabled=False).is_enabled() is False


def test_cuda_amp_grad_scaler_is_deprecated():
    import genesis.cuda.amp

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = genesis.cuda.amp.GradScaler(8.0, growth_interval=5)  # init_scale first
    assert isinstance(scaler, genesis.amp.GradScaler)
    categories = [w.category for w in caught]
    assert FutureWarning in categories
    assert any("deprecated" in str(w.message) for w in caught if w.category is FutureWarning)
    if HAS_CUDA:
        assert scaler.is_enabled() and scaler.get_scale() == 8.0
        assert scaler.get_growth_interval() == 5
    else:  # and, as genesis.amp.GradScaler("cuda"), disabled with a warning
        assert UserWarning in categories and not scaler.is_enabled()


@requires_cuda
def test_cuda_scaler_end_to_end():
    p, opt, scaler = _ready(genesis, "cuda")
    scaled = scaler.scale(genesis.ones(2, device="cuda"))
    assert scaled.device.type == "cuda"
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 4.0 and scaler.state_dict()["_growth_tracker"] == 1
    assert p.device.type == "cuda" and (p == 0.0).all()  # 1 - 0.5 * (8 / 4)
