"""genesis._C._nn._mm_accumulate (ops::mm_accumulate): out += a @ b in one cuBLASLt call that
reads and writes a float32 out (beta 1), the weight gradient's sum of Note [Chunked linear
cross-entropy]. On CUDA it adds, in float32, for 16-bit and float32 operands of any BLAS layout;
everywhere it does not apply it returns False and leaves out alone, so the caller composes.
"""

import numpy as np
import pytest
from conftest import requires_cuda

import genesis
from genesis._C import _nn


def _operands(m, k, n, dtype, device, transposed, seed=0):
    rng = np.random.default_rng(seed)
    an, bn = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    a = genesis.tensor(an, device=device).to(dtype)
    b = genesis.tensor(bn, device=device).to(dtype)
    if transposed:  # a column-major view, as the chunk's dlogits.t()
        a = genesis.tensor(an.T.copy(), device=device).to(dtype).t()
    return a, b


def _exact(t):
    return t.to(genesis.float64).cpu().numpy()


@requires_cuda
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("transposed", [False, True])
def test_adds_in_float32_on_cuda(dtype, transposed):
    dt = getattr(genesis, dtype)
    a, b = _operands(96, 40, 72, dt, "cuda", transposed)
    start = np.random.default_rng(1).standard_normal((96, 72))
    out = genesis.tensor(start, dtype=genesis.float32, device="cuda")
    want = start.astype(np.float32).astype(np.float64)
    for _ in range(3):  # three chunks summed
        assert _nn._mm_accumulate(out, a, b) is True
        want = want + _exact(a) @ _exact(b)
    assert out.dtype == genesis.float32
    # float32 products of exact 16-bit inputs: float32 rounding only (TF32 is off by default)
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-5, atol=1e-4)


@requires_cuda
def test_sums_chunks_of_a_linear_cross_entropy_weight_gradient():
    # The chunked weight gradient: dlogits.t() @ x over row chunks equals the whole product.
    rng = np.random.default_rng(2)
    dl, x = rng.standard_normal((64, 48)), rng.standard_normal((64, 16))
    gdl = genesis.tensor(dl, device="cuda").to(genesis.bfloat16)
    gx = genesis.tensor(x, device="cuda").to(genesis.bfloat16)
    gw = genesis.zeros((48, 16), dtype=genesis.float32, device="cuda")
    for start in range(0, 64, 24):
        assert _nn._mm_accumulate(gw, gdl[start : start + 24].t(), gx[start : start + 24])
    want = _exact(gdl).T @ _exact(gx)
    np.testing.assert_allclose(gw.cpu().numpy(), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    "device", ["cpu", pytest.param("cuda", marks=requires_cuda)], ids=["cpu", "cuda"]
)
def test_declines_what_it_does_not_take(device):
    a, b = _operands(8, 4, 6, genesis.bfloat16, device, False)
    out = genesis.ones((8, 6), dtype=genesis.float32, device=device)
    if device == "cpu":
        assert _nn._mm_accumulate(out, a, b) is False  # CUDA only
    # a float64 product, a 16-bit out, mismatched shapes, mixed dtypes, k == 0, a strided out
    cases = [
        (out.double(), a.double(), b.double()),
        (out.to(genesis.bfloat16), a, b),
        (genesis.ones((8, 5), dtype=genesis.float32, device=device), a, b),
        (out, a, b.float()),
        (out, a[:, :0], b[:0]),
        (genesis.ones((8, 12), dtype=genesis.float32, device=device)[:, ::2], a, b),
    ]
    for o, x, y in cases:
        before = o.float().cpu().numpy().copy()
        assert _nn._mm_accumulate(o, x, y) is False
        np.testing.assert_array_equal(o.float().cpu().numpy(), before)
