"""genesis.special against torch.special: the names for genesis's own ops are the same functions,
and the composed ones (ndtr, logit, xlogy, xlog1py, entr, sinc, multigammaln) give PyTorch's
values on random data and at their edges (0, NaN, infinities, the domain's ends), in float32,
float64 and from integer input, on the CPU and CUDA, with PyTorch's gradients."""

import math

import numpy as np
import pytest
from test_autograd import check_grads

import genesis
import genesis.special as S

torch = pytest.importorskip("torch")

NAMES_OF_OPS = {
    "digamma": genesis.digamma,
    "erf": genesis.erf,
    "erfc": genesis.erfc,
    "erfinv": genesis.erfinv,
    "exp2": genesis.exp2,
    "expit": genesis.sigmoid,
    "expm1": genesis.expm1,
    "gammaln": genesis.lgamma,
    "log1p": genesis.log1p,
    "log_softmax": genesis.log_softmax,
    "logsumexp": genesis.logsumexp,
    "polygamma": genesis.polygamma,
    "psi": genesis.digamma,
    "round": genesis.round,
    "softmax": genesis.softmax,
}


def test_every_name_is_torchs_and_the_ops_are_genesiss():
    assert set(S.__all__) <= set(torch.special.__all__)
    for name, fn in NAMES_OF_OPS.items():
        assert getattr(S, name) is fn, name
    assert len(S.__all__) == 22


RNG = np.random.default_rng(5)
WIDE = RNG.normal(0.0, 3.0, (4, 5))
UNIT = RNG.uniform(0.0, 1.0, (4, 5))
EDGES = np.array([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e-30, 38.0, -38.0])


def _same(got, want, rtol, atol=1e-12):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(
        got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=rtol, atol=atol
    )


UNARY = [
    ("ndtr", WIDE),
    ("ndtr", EDGES),
    ("logit", UNIT),
    ("logit", np.array([0.0, 1.0, 0.5, -0.5, 1.5, math.nan])),
    ("entr", np.abs(WIDE)),
    ("entr", EDGES),
    ("sinc", WIDE),
    ("sinc", EDGES),
]


@pytest.mark.parametrize("name,values", UNARY, ids=[f"{n}-{i}" for i, (n, _) in enumerate(UNARY)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_composed_unary_functions_match_torch(name, values, dtype, device):
    x = genesis.tensor(values, dtype=getattr(genesis, dtype), device=device)
    want = getattr(torch.special, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    _same(getattr(S, name)(x), want, rtol=2e-6 if dtype == "float32" else 1e-12, atol=1e-7)


@pytest.mark.parametrize("name", ["ndtr", "logit", "entr", "sinc"])
def test_integer_input_computes_in_float32(name, device):
    values = np.array([0, 1, 2, -1])
    got = getattr(S, name)(genesis.tensor(values, device=device))
    _same(got, getattr(torch.special, name)(torch.tensor(values)), rtol=1e-6)


def test_logit_eps_clamps(device):
    values = np.array([0.0, 1e-9, 0.5, 1.0])
    got = S.logit(genesis.tensor(values, device=device), eps=1e-6)
    _same(got, torch.special.logit(torch.tensor(values), eps=1e-6), rtol=1e-12)


X_LOG_CASES = [
    (WIDE, np.abs(WIDE)),
    (
        np.array([0.0, 0.0, 0.0, 1.0, 2.0, -0.0]),
        np.array([0.0, math.nan, -1.0, 0.0, math.inf, 5.0]),
    ),
    (RNG.normal(size=(3, 1)), np.abs(RNG.normal(size=(1, 4)))),  # broadcasting
]


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
@pytest.mark.parametrize("case", range(len(X_LOG_CASES)))
def test_x_log_functions_match_torch(name, case, device):
    a, b = X_LOG_CASES[case]
    got = getattr(S, name)(genesis.tensor(a, device=device), genesis.tensor(b, device=device))
    _same(got, getattr(torch.special, name)(torch.tensor(a), torch.tensor(b)), rtol=1e-12)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_functions_take_a_number_and_promote_as_torch(name, device):
    t = genesis.tensor([0.0, 1.0, 3.0], device=device)
    tt = torch.tensor([0.0, 1.0, 3.0])
    fn, tfn = getattr(S, name), getattr(torch.special, name)
    _same(fn(2.0, t), tfn(2.0, tt), rtol=1e-6)
    _same(fn(t, 2), tfn(tt, 2), rtol=1e-6)
    ints = genesis.tensor([1, 2], device=device), genesis.tensor([3, 4], device=device)
    _same(fn(*ints), tfn(torch.tensor([1, 2]), torch.tensor([3, 4])), rtol=1e-6)
    with pytest.raises(TypeError, match=rf"\[special.{name}\]"):
        fn(1.0, 2.0)


def test_multigammaln_matches_torch_and_checks_its_domain(device):
    values = RNG.uniform(2.0, 6.0, (3, 4))
    for p in (1, 2, 4):
        got = S.multigammaln(genesis.tensor(values, device=device), p)
        _same(got, torch.special.multigammaln(torch.tensor(values), p), rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"\[special.multigammaln\] all elements"):
        S.multigammaln(genesis.tensor([1.0, 3.0], device=device), 4)
    with pytest.raises(ValueError, match=r"\[special.multigammaln\] p must"):
        S.multigammaln(genesis.tensor([3.0], device=device), 0)
    with pytest.raises(RuntimeError, match="floating point"):
        S.multigammaln(genesis.tensor([3], device=device), 1)


def test_out_is_written_and_resized(device):
    x = genesis.tensor([-1.0, 0.0, 1.0], device=device)
    out = genesis.empty(0, device=device)
    assert S.ndtr(x, out=out) is out and out.shape == (3,)
    _same(out, torch.special.ndtr(torch.tensor([-1.0, 0.0, 1.0])), rtol=1e-6)


def test_out_follows_the_compiled_ops_rules(device):
    x = genesis.tensor([-1.0, 0.0, 1.0], device=device)
    with pytest.warns(UserWarning, match=r"special.sinc.*resized"):  # a non-empty out resized
        S.sinc(x, out=genesis.empty(2, device=device))
    with pytest.raises(RuntimeError, match=r"special.logit"):  # float result into an int out
        S.logit(x, out=genesis.empty(3, dtype=genesis.int64, device=device))


def test_bad_input_raises_naming_the_function():
    with pytest.raises(TypeError, match=r"\[special.ndtr\] expected a genesis.Tensor"):
        S.ndtr([1.0, 2.0])


def test_zero_size_and_0d(device):
    for name in ["ndtr", "logit", "entr", "sinc"]:
        assert getattr(S, name)(genesis.empty(0, 3, device=device)).shape == (0, 3)
        _same(
            getattr(S, name)(genesis.tensor(0.25, device=device)),
            getattr(torch.special, name)(torch.tensor(0.25)),
            rtol=1e-6,
        )


POSITIVE = np.abs(RNG.normal(1.0, 0.5, (3, 4))) + 0.1
GRADS = [
    pytest.param(lambda m, x: m.special.ndtr(x), [WIDE], id="ndtr"),
    pytest.param(lambda m, x: m.special.logit(x), [UNIT * 0.9 + 0.05], id="logit"),
    pytest.param(lambda m, x: m.special.logit(x, eps=0.2), [UNIT], id="logit_eps"),
    pytest.param(lambda m, x, y: m.special.xlogy(x, y), [WIDE[:3, :4], POSITIVE], id="xlogy"),
    pytest.param(lambda m, x, y: m.special.xlog1py(x, y), [WIDE[:3, :4], POSITIVE], id="xlog1py"),
    pytest.param(lambda m, x: m.special.entr(x), [POSITIVE], id="entr"),
    pytest.param(lambda m, x: m.special.sinc(x), [WIDE], id="sinc"),
    pytest.param(lambda m, x: m.special.multigammaln(x, 3), [POSITIVE + 2.0], id="multigammaln"),
]


@pytest.mark.parametrize("fn, arrays", GRADS)
def test_gradients_match_torch(fn, arrays, device):
    check_grads(fn, arrays, device)


def test_gradients_stay_finite_at_the_masked_points():
    x = genesis.tensor([0.0, 0.0, 1.0], dtype=genesis.float64, requires_grad=True)
    y = genesis.tensor([0.0, 2.0, 0.0], dtype=genesis.float64, requires_grad=True)
    S.xlogy(x, y).sum().backward()
    assert x.grad.tolist()[:2] == [0.0, 0.0]
    z = genesis.tensor([0.0, -1.0, 2.0], dtype=genesis.float64, requires_grad=True)
    S.sinc(z).sum().backward()
    assert z.grad is not None and z.grad.tolist()[0] == 0.0
    w = genesis.tensor([0.0, 1.0], dtype=genesis.float64, requires_grad=True)
    S.entr(w).sum().backward()
    assert w.grad is not None and math.isfinite(w.grad.tolist()[1])
