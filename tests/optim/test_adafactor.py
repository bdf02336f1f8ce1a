"""genesis.optim.Adafactor against torch.optim.Adafactor: 50 steps on identical parameters and
gradients with the options that change the arithmetic, on the CPU and CUDA (torch on the CPU),
float32 and float64; state and state_dict both ways, parameter groups, bad options with
PyTorch's messages, bad state, non-contiguous and empty parameters."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import DEVICES, to_numpy

import genesis
from genesis import optim

torch = pytest.importorskip("torch")

DTYPES = {"float32": torch.float32, "float64": torch.float64}
SHAPES = [(7, 5), (33,), (2, 3, 4), (), (0, 3)]
EMPTY = (0, 3)  # torch divides by its RMS, a ZeroDivisionError: only genesis steps it

# eps1 None (the dtype's machine epsilon) or large enough to clamp some elements of the estimate
# (0.7) or every row mean as well (1.5); weight decay; maximize: all combinations. Then d,
# beta2_decay, lr (a float, a 0-d tensor, 0), eps2 above the parameters' RMS, and all at once.
OPTIONS = [
    {"eps": (eps1, 1e-3), "weight_decay": wd, "maximize": maximize}
    for eps1, wd, maximize in itertools.product([None, 0.7], [0.0, 0.1], [False, True])
] + [
    {"eps": (1.5, 1e-3)},
    {"d": 1.3},
    {"beta2_decay": -0.5},
    {"beta2_decay": 0.0},
    {"lr": 0.2},
    {"lr": "tensor"},
    {"lr": 0.0, "weight_decay": 0.5},
    {"eps": (None, 3.0)},
    {"lr": 0.05, "beta2_decay": -0.6, "eps": (1e-2, 0.5), "d": 1.5, "weight_decay": 0.05},
]


def _case_id(options):
    return "-".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def _g(t, device="cpu"):
    """A genesis copy of a torch tensor."""
    return genesis.tensor(t.detach().numpy()).to(
        device=device, dtype=getattr(genesis, str(t.dtype).split(".")[1])
    )


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(device="cpu", dtype=genesis.float64))
    return t.detach().double().numpy()


def _relative_error(a, b):
    """|a - b| / |a| over the whole tensor (the 2-norm), 0 for two empty or zero tensors."""
    a, b = _np(a), _np(b)
    scale = np.linalg.norm(a)
    diff = np.linalg.norm(a - b)
    return diff if scale == 0 else diff / scale


def _options(options, lib, dtype_name="float32"):
    """The options for torch or genesis: lr "tensor" is a 0-d tensor of 0.01 of that library,
    in the parameters' dtype (torch computes the step size in the tensor's dtype: a float32 lr
    rounds a float64 parameter's step size to float32, test_float32_tensor_lr_on_float64)."""
    if options.get("lr") == "tensor":
        return {**options, "lr": lib.tensor(0.01, dtype=getattr(lib, dtype_name))}
    return options


def _pair(options, dtypes, device, steps=50, shapes=SHAPES, seed=0):
    """Steps a torch and a genesis Adafactor side by side (torch without the empty parameters);
    returns both parameter lists (genesis's with its empty ones) and both optimizers."""
    gen = torch.Generator().manual_seed(seed)
    if not isinstance(dtypes, list):
        dtypes = [dtypes] * len(shapes)
    tparams = [
        torch.nn.Parameter(torch.randn(s, generator=gen, dtype=torch.float64).to(dt))
        for s, dt in zip(shapes, dtypes)
    ]
    gparams = [genesis.nn.Parameter(_g(p, device)) for p in tparams]
    stepped = [p for p in tparams if p.numel() > 0]
    lr_dtype = str(dtypes[0]).split(".")[1]
    topt = torch.optim.Adafactor(stepped, **_options(options, torch, lr_dtype))
    gopt = optim.Adafactor(gparams, **_options(options, genesis, lr_dtype))
    for _ in range(steps):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen, dtype=torch.float64).to(tp.dtype)
            tp.grad = grad
            gp.grad = _g(grad, device)
        topt.step()
        gopt.step()
    return tparams, gparams, topt, gopt


def _assert_states_match(topt, gopt, tparams, gparams, dtype_name):
    rtol, atol = (1e-5, 1e-7) if dtype_name == "float32" else (1e-10, 1e-14)
    for tp, gp in zip(tparams, gparams):
        if tp.numel() == 0:
            continue
        tstate, gstate = topt.state[tp], gopt.state[gp]
        assert sorted(tstate) == sorted(gstate)
        for key in tstate:
            assert tuple(gstate[key].shape) == tuple(tstate[key].shape)
            np.testing.assert_allclose(_np(gstate[key]), _np(tstate[key]), rtol=rtol, atol=atol)
        assert gstate["step"].dtype == genesis.float32 and gstate["step"].device.type == "cpu"


@pytest.mark.parametrize("options", OPTIONS, ids=_case_id)
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("device", DEVICES)
def test_matches_torch(options, dtype_name, device):
    tol = 1e-6 if dtype_name == "float32" else 1e-12
    tparams, gparams, topt, gopt = _pair(options, DTYPES[dtype_name], device)
    for tp, gp in zip(tparams, gparams):
        assert gp.dtype == getattr(genesis, dtype_name) and gp.device.type == device
        assert tuple(gp.shape) == tuple(tp.shape)
        assert _relative_error(tp, gp) <= tol
    _assert_states_match(topt, gopt, tparams, gparams, dtype_name)


def test_float32_tensor_lr_on_float64():
    """torch keeps a tensor lr as a tensor, so with a float32 lr its step size (alpha, and its
    division by the clipping divisor) is a float32 tensor even for float64 parameters; genesis
    reads the lr as a float and works in the parameter's dtype: they agree to float32's rounding
    of the step size, not to float64's."""
    gen = torch.Generator().manual_seed(2)
    tparams = [
        torch.nn.Parameter(torch.randn(s, generator=gen, dtype=torch.float64)) for s in SHAPES[:-1]
    ]
    gparams = [genesis.nn.Parameter(_g(p)) for p in tparams]
    topt = torch.optim.Adafactor(tparams, lr=torch.tensor(0.01))
    gopt = optim.Adafactor(gparams, lr=genesis.tensor(0.01))
    for _ in range(20):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen, dtype=torch.float64)
            tp.grad, gp.grad = grad, _g(grad)
        topt.step()
        gopt.step()
    for tp, gp in zip(tparams, gparams):
        assert _relative_error(tp, gp) <= 1e-7


@pytest.mark.parametrize("device", DEVICES)
def test_empty_parameter_is_left_alone(device):
    """PyTorch raises ZeroDivisionError (the RMS of no elements); genesis counts the step and
    leaves the parameter and its zero state alone."""
    t = torch.nn.Parameter(torch.zeros(EMPTY))
    t.grad = torch.zeros(EMPTY)
    with pytest.raises(ZeroDivisionError):
        torch.optim.Adafactor([t]).step()
    p = genesis.nn.Parameter(genesis.zeros(EMPTY, device=device))
    p.grad = genesis.zeros(EMPTY, device=device)
    opt = optim.Adafactor([p])
    opt.step()
    opt.step()
    state = opt.state[p]
    assert state["step"].item() == 2.0
    assert tuple(state["row_var"].shape) == (0, 1) and tuple(state["col_var"].shape) == (1, 3)
    assert state["col_var"].tolist() == [[0.0, 0.0, 0.0]]


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_dtypes_take_eps1_from_the_first_parameter(device):
    """eps1 None: PyTorch's default implementation takes the machine epsilon of the first
    parameter's dtype for the whole group; genesis does the same."""
    dtypes = [torch.float32, torch.float64, torch.float64, torch.float32]
    shapes = [(4, 3), (5,), (3, 2), ()]
    tparams, gparams, _, _ = _pair({}, dtypes, device, steps=20, shapes=shapes)
    for tp, gp, dt in zip(tparams, gparams, dtypes):
        assert _relative_error(tp, gp) <= (1e-6 if dt == torch.float32 else 1e-12)


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
def test_half_precision_close_to_torch(dtype_name):
    """16-bit parameters compute in their dtype, op by op, as PyTorch's Adafactor."""
    dtype, gdtype = getattr(torch, dtype_name), getattr(genesis, dtype_name)
    gen = torch.Generator().manual_seed(3)
    tparams = [torch.nn.Parameter(torch.randn(s, generator=gen).to(dtype)) for s in SHAPES[:4]]
    gparams = [
        genesis.nn.Parameter(genesis.tensor(p.detach().float().numpy()).to(gdtype)) for p in tparams
    ]
    topt, gopt = torch.optim.Adafactor(tparams, lr=0.05), optim.Adafactor(gparams, lr=0.05)
    for _ in range(10):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen).to(dtype)
            tp.grad = grad
            gp.grad = genesis.tensor(grad.float().numpy()).to(gp.dtype)
        topt.step()
        gopt.step()
    for tp, gp in zip(tparams, gparams):
        assert gp.dtype == getattr(genesis, dtype_name)
        assert _relative_error(tp, gp) <= (2e-2 if dtype_name == "bfloat16" else 3e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_parameters(device):
    """A transposed parameter (with a transposed gradient) and a strided slice step as
    contiguous ones, and stay views of their storage."""
    gen = torch.Generator().manual_seed(5)
    base = torch.randn(9, 6, generator=gen)
    vector = torch.randn(40, generator=gen)
    t = [torch.nn.Parameter(base.clone().t()), torch.nn.Parameter(vector.clone()[::2])]
    gbase, gvector = _g(base, device), _g(vector, device)
    g = [genesis.nn.Parameter(gbase.t()), genesis.nn.Parameter(gvector[::2])]
    assert not g[0].is_contiguous() and not g[1].is_contiguous()
    topt = torch.optim.Adafactor(t, lr=0.05, weight_decay=0.1)
    gopt = optim.Adafactor(g, lr=0.05, weight_decay=0.1)
    for _ in range(10):
        grads = [torch.randn(9, 6, generator=gen).t(), torch.randn(20, generator=gen)]
        for tp, gp, grad in zip(t, g, grads):
            tp.grad = grad
            gp.grad = _g(grad.t(), device).t() if grad.dim() == 2 else _g(grad, device)
        assert not g[0].grad.is_contiguous()
        topt.step()
        gopt.step()
    for tp, gp in zip(t, g):
        assert _relative_error(tp, gp) <= 1e-6
    # The views were stepped in place: their storages hold the new values.
    np.testing.assert_allclose(_np(gbase).T, _np(t[0]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(gvector)[::2], _np(t[1]), rtol=1e-5, atol=1e-6)


def test_groups_and_parameters_without_grad():
    gen = torch.Generator().manual_seed(1)
    t = [torch.nn.Parameter(torch.randn(4, 3, generator=gen)) for _ in range(3)]
    g = [genesis.nn.Parameter(_g(p)) for p in t]

    def groups(ps):
        return [
            {"params": ps[:2], "lr": 0.1, "maximize": True},
            {"params": ps[2:], "eps": (1e-3, 1e-2), "d": 2.0},
        ]

    topt, gopt = torch.optim.Adafactor(groups(t)), optim.Adafactor(groups(g))
    for step in range(6):
        for i, (tp, gp) in enumerate(zip(t, g)):
            if i == 1 and step < 3:  # no gradient yet: not stepped, no state
                tp.grad = gp.grad = None
                continue
            grad = torch.randn(4, 3, generator=gen)
            tp.grad, gp.grad = grad, _g(grad)
        topt.step()
        gopt.step()
        assert len(topt.state) == len(gopt.state)
    for tp, gp in zip(t, g):
        assert _relative_error(tp, gp) <= 1e-6
    assert gopt.state[g[1]]["step"].item() == 3.0
    assert gopt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]
    assert repr(gopt) == repr(topt)


# -- state_dict -------------------------------------------------------------------------------


def _to_torch(value):
    if isinstance(value, genesis.Tensor):
        return torch.from_numpy(to_numpy(value.cpu()).copy())
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_torch(v) for v in value]
    return value


def _to_genesis(value):
    if isinstance(value, torch.Tensor):
        return genesis.tensor(value.numpy())
    if isinstance(value, dict):
        return {k: _to_genesis(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_genesis(v) for v in value]
    return value


@pytest.mark.parametrize("dtype_name", list(DTYPES))
def test_state_dict_matches_torch_and_loads_both_ways(dtype_name):
    options = {"lr": 0.05, "eps": (1e-3, 1e-3), "weight_decay": 0.01, "maximize": True}
    tparams, gparams, topt, gopt = _pair(
        options, DTYPES[dtype_name], "cpu", steps=4, shapes=SHAPES[:-1]
    )
    tsd, gsd = topt.state_dict(), gopt.state_dict()
    assert gsd["param_groups"] == tsd["param_groups"]
    assert sorted(gsd["state"]) == sorted(tsd["state"])
    for k in tsd["state"]:
        assert sorted(gsd["state"][k]) == sorted(tsd["state"][k])
        for key, value in tsd["state"][k].items():
            assert gsd["state"][k][key].dtype == getattr(genesis, str(value.dtype)[6:])
            assert tuple(gsd["state"][k][key].shape) == tuple(value.shape)
    # torch's state into genesis and genesis's into torch: both continue as one run.
    gfresh = optim.Adafactor(gparams, lr=123.0)
    gfresh.load_state_dict(_to_genesis(tsd))
    tfresh = torch.optim.Adafactor(tparams, lr=123.0)
    tfresh.load_state_dict(_to_torch(gsd))
    assert gfresh.param_groups[0]["lr"] == options["lr"]
    assert tfresh.param_groups[0]["eps"] == options["eps"]
    gen = torch.Generator().manual_seed(7)
    for _ in range(5):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen, dtype=tp.dtype)
            tp.grad, gp.grad = grad, _g(grad)
        tfresh.step()
        gfresh.step()
    tol = 1e-6 if dtype_name == "float32" else 1e-12
    for tp, gp in zip(tparams, gparams):
        assert _relative_error(tp, gp) <= tol
    _assert_states_match(tfresh, gfresh, tparams, gparams, dtype_name)


def test_genesis_run_continues_in_torch():
    """A genesis optimizer's state_dict, loaded into a new torch optimizer, continues the
    genesis run: torch's next steps are genesis's."""
    tparams, gparams, _, gopt = _pair(
        {"weight_decay": 0.1}, torch.float64, "cpu", steps=6, shapes=SHAPES[:-1]
    )
    with torch.no_grad():
        for tp, gp in zip(tparams, gparams):
            tp.copy_(torch.from_numpy(_np(gp)))
    other = torch.optim.Adafactor(tparams, weight_decay=0.1)
    other.load_state_dict(_to_torch(gopt.state_dict()))
    assert other.state[tparams[0]]["step"].item() == 6.0
    assert other.state[tparams[0]]["step"].dtype == torch.float32
    gen = torch.Generator().manual_seed(8)
    for _ in range(4):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen, dtype=tp.dtype)
            tp.grad, gp.grad = grad, _g(grad)
        other.step()
        gopt.step()
    for tp, gp in zip(tparams, gparams):
        assert _relative_error(tp, gp) <= 1e-12


@pytest.mark.parametrize("device", DEVICES)
def test_state_dict_casts_state_to_the_parameters(device):
    p = genesis.nn.Parameter(genesis.zeros(2, 3, device=device, dtype=genesis.float64))
    opt = optim.Adafactor([p])
    saved = {
        "state": {
            0: {
                "step": genesis.tensor(2.0),
                "row_var": genesis.ones(2, 1),
                "col_var": genesis.ones(1, 3),
            }
        },
        "param_groups": [dict(opt.state_dict()["param_groups"][0])],
    }
    opt.load_state_dict(saved)
    state = opt.state[p]
    assert state["row_var"].dtype == genesis.float64 and state["row_var"].device == p.device
    assert state["step"].dtype == genesis.float32 and state["step"].device.type == "cpu"
    p.grad = genesis.ones(2, 3, device=device, dtype=genesis.float64)
    opt.step()
    assert state["step"].item() == 3.0


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": -1.0},
        {"beta2_decay": 0.5},
        {"eps": (-1e-3, 1e-3)},
        {"eps": (None, -1.0)},
        {"d": 0.5},
        {"weight_decay": -0.1},
    ],
    ids=lambda kwargs: next(iter(kwargs)),
)
def test_bad_options_raise_as_torch(kwargs):
    with pytest.raises(ValueError) as expected:
        torch.optim.Adafactor([torch.nn.Parameter(torch.zeros(2))], **kwargs)
    with pytest.raises(ValueError) as got:
        optim.Adafactor([genesis.nn.Parameter(genesis.zeros(2))], **kwargs)
    assert str(got.value) == str(expected.value)


def test_bad_tensor_lr():
    p = genesis.nn.Parameter(genesis.zeros(2))
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        optim.Adafactor([p], lr=genesis.tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is"):
        optim.Adafactor([p], lr=genesis.tensor(-0.1))


def test_step_errors_name_the_tensor():
    p = genesis.nn.Parameter(genesis.zeros(2, 3))
    p.grad = genesis.ones(2, 3)
    opt = optim.Adafactor([p])
    opt.step()
    opt.state[p]["col_var"] = genesis.zeros(2, 1)
    with pytest.raises(RuntimeError, match=r"\[adafactor_step\] col_var 0 .*does not match"):
        opt.step()
    assert opt.state[p]["step"].item() == 1.0  # nothing was stepped
    del opt.state[p]["row_var"]
    with pytest.raises(RuntimeError, match=r"\[adafactor_step\] row_var 0 is undefined"):
        opt.step()
    step = genesis.tensor(0.0)
    v = genesis.zeros(2)
    with pytest.raises(ValueError, match=r"\[adafactor_step\] expected 1 gradients, got 0"):
        genesis._C._optim._adafactor_step(
            [v], [], [None], [None], [v], [step], 0.01, -0.8, None, 1e-3, 1.0, 0.0, False
        )
    with pytest.raises(TypeError, match=r"\[adafactor_step\] expected grad 0 to be a tensor"):
        genesis._C._optim._adafactor_step(
            [v], [1.0], [None], [None], [v], [step], 0.01, -0.8, None, 1e-3, 1.0, 0.0, False
        )
    with pytest.raises(RuntimeError, match=r"\[adafactor_step\] expected each step count"):
        genesis._C._optim._adafactor_step(
            [v],
            [v],
            [None],
            [None],
            [v],
            [genesis.tensor(0)],
            0.01,
            -0.8,
            None,
            1e-3,
            1.0,
            0.0,
            False,
        )
    q = genesis.nn.Parameter(genesis.zeros(2, dtype=genesis.int64), requires_grad=False)
    q.grad = genesis.zeros(2, dtype=genesis.int64)
    with pytest.raises(TypeError, match=r"\[adafactor_step\] param 0 must be a floating point"):
        optim.Adafactor([q]).step()


def test_step_under_grad_mode_leaves_no_graph_and_converges():
    gen = np.random.default_rng(0)
    x = genesis.tensor(gen.standard_normal((64, 3)).astype(np.float32))
    y = x @ genesis.tensor([[1.5], [-2.0], [0.5]])
    model = genesis.nn.Linear(3, 1)
    opt = optim.Adafactor(model.parameters(), lr=0.1)
    first = None
    for _ in range(200):
        opt.zero_grad()
        loss = genesis.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < 1e-2 * first
    assert model.weight.grad_fn is None and model.weight.is_leaf
