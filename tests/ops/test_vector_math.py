"""The CPU's vector float32 erf and tanh (Note [Vector erf and tanh] in csrc/cpu/vector_math.cpp)
and the GELUs over them: within 1 ulp of float64's result rounded to float32, special values as
IEEE and PyTorch give them, every run length (the vector loops' tails)."""

import math

import numpy as np
import pytest

import genesis

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-30, 1.0, -1.0, 0.0625, -0.0625]
SPECIAL += [
    3.9,
    4.0,
    4.1,
    -4.0,
    9.0,
    -9.0,
    20.0,
    88.0,
    -100.0,
    1e30,
    np.float32(np.nextafter(1, 0)),
]


def _ordered(bits):
    """float32 bit patterns as integers whose difference counts ulps across zero."""
    b = bits.astype(np.int64)
    return np.where(b < 0, -(b & 0x7FFFFFFF), b)


def _ulps(got, want):
    return np.abs(_ordered(got.view(np.int32)) - _ordered(want.view(np.int32)))


def _inputs(seed):
    rng = np.random.default_rng(seed)
    parts = [rng.uniform(-6, 6, 200_003), rng.uniform(-1.1, 1.1, 50_000)]
    parts += [rng.uniform(-1e-3, 1e-3, 5_000), np.asarray(SPECIAL)]
    return np.concatenate(parts).astype(np.float32)


def _quiet(f, x):
    """f(x) without numpy's overflow warnings (inf is the reference there)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return f(x)


REFERENCE = {
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "expm1": lambda x: _quiet(np.expm1, x),
    "log": lambda x: _quiet(np.log, x),
    "log1p": lambda x: _quiet(np.log1p, x),
    "tanh": np.tanh,
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_vector_float32_within_one_ulp(name):
    x = _inputs(seed=len(name))
    got = getattr(genesis, name)(genesis.tensor(x)).numpy()
    want = REFERENCE[name](x.astype(np.float64)).astype(np.float32)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    assert _ulps(got[~nan], want[~nan]).max() <= 1
    # The sign of every result, zeros included, as the reference's.
    np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("n", [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1023, 1025])
def test_vector_float32_every_run_length(name, n):
    x = _inputs(seed=n)[-n:].copy()
    x[np.isnan(x)] = 0.5
    got = getattr(genesis, name)(genesis.tensor(x)).numpy()
    want = REFERENCE[name](x.astype(np.float64)).astype(np.float32)
    _within_one_ulp(got, want)
    # In place, and through a non-contiguous view (an item at a time or a run per row).
    t = genesis.tensor(np.stack([x, x]))
    getattr(t, name + "_")()
    _within_one_ulp(t.numpy()[1], want)
    strided = genesis.tensor(np.repeat(x, 2))[::2]
    _within_one_ulp(getattr(genesis, name)(strided).numpy(), want)


def _within_one_ulp(got, want):
    """NaN where the reference is NaN (log of a negative), within 1 ulp elsewhere."""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    assert _ulps(got[~nan], want[~nan]).max(initial=0) <= 1


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_matches_its_float64_formula(approximate):
    torch = pytest.importorskip("torch")
    x = _inputs(seed=7)
    got = genesis.nn.functional.gelu(genesis.tensor(x), approximate=approximate).numpy()
    want = torch.nn.functional.gelu(torch.from_numpy(x).double(), approximate=approximate)
    want = want.numpy()
    ok = ~np.isnan(want) & (np.abs(x) < 1e30)  # x^3 of the tanh form overflows float32 there
    np.testing.assert_array_equal(np.isnan(got[ok]), False)
    # The float32 formula cancels where 1 + erf (or 1 + tanh) is small: absolute error there.
    np.testing.assert_allclose(got[ok], want[ok], rtol=2e-6, atol=2e-6)
    # 16-bit inputs go through the same float32 runs.
    half = genesis.nn.functional.gelu(genesis.tensor(x).half(), approximate=approximate)
    np.testing.assert_allclose(half.float().numpy()[ok], want[ok], rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 1023, 1025, 5000])
def test_logsumexp_rows_through_the_vector_exp(dtype, n):
    # Note [Vector exp in logsumexp]: rows of every length, with -inf items, an all -inf row and a
    # row holding +inf, against float64 on the same (rounded) inputs.
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((6, n)) * 8).astype(np.float32)
    x[1, :: max(1, n // 3)] = -np.inf
    x[2] = -np.inf
    x[3, n // 2] = np.inf
    t = genesis.tensor(x).to(getattr(genesis, dtype))
    exact = t.double().numpy()
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = exact.max(1, keepdims=True)
        shift = np.where(np.isfinite(m), m, 0.0)
        want = (np.log(np.exp(exact - shift).sum(1, keepdims=True)) + shift)[:, 0]
    got = t.logsumexp(1).double().numpy()
    tol = 1e-6 if dtype == "float32" else 1e-2
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


NARROWER_ISA_CHECK = r"""
import math, sys, numpy as np, genesis
# glibc's tanhf and erff (the plain body) are within 2 ulps; the vector bodies within 1.
tol = int(sys.argv[1])
rng = np.random.default_rng(3)
x = np.concatenate([rng.uniform(-6, 6, 100_003), [0.0, -0.0, np.inf, -np.inf, 1e-40, 4.0, 90.0]])
x = x.astype(np.float32)
g = genesis.tensor(x)
def ulps(a, b):
    o = lambda v: np.where(v < 0, -(v & 0x7FFFFFFF), v)
    return np.abs(o(a.view(np.int32).astype(np.int64)) - o(b.view(np.int32).astype(np.int64)))
erf = np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(np.float32)
assert ulps(genesis.erf(g).numpy(), erf).max() <= tol
assert ulps(genesis.tanh(g).numpy(), np.tanh(x.astype(np.float64)).astype(np.float32)).max() <= tol
e = genesis.exp(g).numpy()
assert ulps(e, np.exp(x.astype(np.float64)).astype(np.float32)).max() <= tol
np.testing.assert_allclose(genesis.sigmoid(g).numpy(), 1 / (1 + np.exp(-x.astype(np.float64))),
                           rtol=1e-6, atol=1e-7)
a = rng.standard_normal((67, 129)).astype(np.float32)
b = rng.standard_normal((129, 45)).astype(np.float32)
np.testing.assert_allclose((genesis.tensor(a) @ genesis.tensor(b)).numpy(), a @ b, rtol=1e-4,
                           atol=1e-4)
np.testing.assert_allclose(genesis.tensor(a).sum(1).numpy(), a.astype(np.float64).sum(1),
                           rtol=1e-5, atol=1e-5)
r = rng.standard_normal((5, 1001)).astype(np.float32) * 8
w = np.log(np.exp(r.astype(np.float64) - r.max(1, keepdims=True)).sum(1)) + r.max(1)
np.testing.assert_allclose(genesis.tensor(r).logsumexp(1).numpy(), w, rtol=1e-6, atol=1e-6)
# norm() and var's second pass: the float32 row kernels of SumSquares, with and without a centre
np.testing.assert_allclose(genesis.tensor(r).norm(dim=1).numpy(),
                           np.linalg.norm(r.astype(np.float64), axis=1), rtol=1e-6)
np.testing.assert_allclose(genesis.tensor(r).var(1).numpy(), r.astype(np.float64).var(1, ddof=1),
                           rtol=1e-5)
np.testing.assert_allclose(genesis.tensor(x[np.isfinite(x)]).norm().item(),
                           np.linalg.norm(x[np.isfinite(x)].astype(np.float64)), rtol=1e-6)
# layer norm's rows (Note [Norm rows per instruction set]): forward and every gradient
r64 = r.astype(np.float64)
mu, sd = r64.mean(1, keepdims=True), np.sqrt(r64.var(1, keepdims=True) + 1e-5)
wn, gn = rng.standard_normal(1001), rng.standard_normal((5, 1001))
xt = genesis.tensor(r).requires_grad_()
wt = genesis.tensor(wn.astype(np.float32)).requires_grad_()
y = genesis.nn.functional.layer_norm(xt, (1001,), wt, None)
np.testing.assert_allclose(y.detach().numpy(), (r64 - mu) / sd * wn, rtol=1e-4, atol=1e-4)
y.backward(genesis.tensor(gn.astype(np.float32)))
xhat, gw = (r64 - mu) / sd, gn * wn
dx = (gw - gw.mean(1, keepdims=True) - xhat * (gw * xhat).mean(1, keepdims=True)) / sd
np.testing.assert_allclose(xt.grad.numpy(), dx, rtol=1e-4, atol=1e-4)
np.testing.assert_allclose(wt.grad.numpy(), (gn * xhat).sum(0), rtol=1e-4, atol=1e-4)
# bfloat16 products without the tile unit: both operands widened to the float32 GEMM
ab, bb = genesis.tensor(a).bfloat16(), genesis.tensor(b).bfloat16()
want = ab.double().numpy() @ bb.double().numpy()
np.testing.assert_allclose((ab @ bb).double().numpy(), want, rtol=1e-2, atol=1e-2)
print("ok")
"""


@pytest.mark.parametrize("isa", ["avx2", "base"])
def test_narrower_instruction_sets(isa):
    # The AVX2 and plain bodies of the vector math, gemm, reductions and norm rows, which a CPU with
    # AVX-512 never picks by itself (GENESIS_CPU_ISA caps the choice).
    import os
    import subprocess
    import sys

    env = dict(os.environ, GENESIS_CPU_ISA=isa)
    done = subprocess.run(
        [sys.executable, "-c", NARROWER_ISA_CHECK, "1" if isa == "avx2" else "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
