"""CUDA matmul through cuBLASLt (Note [cuBLASLt matmul]): every dtype and layout against NumPy,
with cuBLASLt and with cuBLAS alone; addmm's bias epilogue; TF32 on and off; the settings of
genesis.backends.cuda (those tests run on the CPU too)."""

import numpy as np
import pytest
import torch
from conftest import check_message, dtype_id, random_array, requires_cuda, to_numpy

import genesis

LT_DTYPES = [genesis.float16, genesis.bfloat16, genesis.float32]
# Error allowed relative to |a| @ |b|: 16-bit results round once to 11 or 8 bits (and cuBLAS may
# reduce split-K partial sums in 16 bits); float32 without TF32 is full precision.
RTOL = {genesis.float16: 1e-2, genesis.bfloat16: 2e-2, genesis.float32: 1e-5}
LIBRARIES = ["cublaslt", "cublas"]


@pytest.fixture
def library(request):
    """Runs the test with the preferred BLAS library set to request.param, then restores it."""
    before = genesis.backends.cuda.preferred_blas_library()
    genesis.backends.cuda.preferred_blas_library(request.param)
    try:
        yield request.param
    finally:
        genesis.backends.cuda.preferred_blas_library(before)


@pytest.fixture
def tf32():
    """Restores allow_tf32 after the test."""
    before = genesis.backends.cuda.matmul.allow_tf32
    try:
        yield genesis.backends.cuda.matmul
    finally:
        genesis.backends.cuda.matmul.allow_tf32 = before


def data(shape, dtype, seed):
    """Values in [-4, 4] at the dtype's precision (as float32/float64 NumPy)."""
    return random_array(shape, dtype, seed=seed, low=-4, high=4)


def cuda_tensor(an, dtype):
    return genesis.tensor(an, dtype=dtype, device="cuda")


def check(got, want64, scale64, dtype, rtol=None):
    """got (a genesis tensor) against the float64 product want64, within rtol * |a| @ |b|."""
    assert got.dtype is dtype and got.is_cuda
    assert got.shape == want64.shape, (got.shape, want64.shape)
    err = np.abs(to_numpy(got).astype(np.float64) - want64)
    bound = (RTOL[dtype] if rtol is None else rtol) * scale64 + 1e-6
    assert (err <= bound).all(), f"max error {err.max()} (bound there {bound.flat[err.argmax()]})"


def product(an, bn):
    """The float64 product and the scale of its rounding error, |a| @ |b|."""
    a64, b64 = an.astype(np.float64), bn.astype(np.float64)
    return np.matmul(a64, b64), np.matmul(np.abs(a64), np.abs(b64))


def lt_calls():
    return genesis._C._cuda.blaslt_stats()["calls"]


# --- genesis.backends.cuda (any device) ------------------------------------------------------


def test_allow_tf32_defaults_off_and_round_trips(tf32):
    assert genesis.backends.cuda.matmul is tf32
    assert tf32.allow_tf32 is False
    tf32.allow_tf32 = True
    assert tf32.allow_tf32 is True and genesis._C._cuda.allow_tf32() is True
    assert repr(tf32) == "MatmulSettings(allow_tf32=True)"
    tf32.allow_tf32 = False
    assert genesis._C._cuda.allow_tf32() is False


def test_allow_tf32_refuses_non_bools_and_unknown_settings(tf32):
    with pytest.raises(TypeError) as e:
        tf32.allow_tf32 = 1
    check_message(e, "allow_tf32")
    with pytest.raises(AttributeError) as e:
        tf32.allow_tf16 = True  # a typo is not silently ignored
    check_message(e, "backends.cuda.matmul")
    assert tf32.allow_tf32 is False


@pytest.mark.parametrize("library", ["cublas"], indirect=True)
def test_preferred_blas_library(library):
    prefer = genesis.backends.cuda.preferred_blas_library
    assert prefer() == "cublas" and genesis._C._cuda.prefer_cublaslt() is False
    assert prefer("CUBLASLT") == "cublaslt"
    assert prefer("default") == "cublaslt" and prefer(None) == "cublaslt"
    with pytest.raises(ValueError) as e:
        prefer("mkl")
    check_message(e, "preferred_blas_library")
    with pytest.raises(TypeError) as e:
        prefer(1)
    check_message(e, "preferred_blas_library")
    assert prefer() == "cublaslt"


def test_stats_have_their_keys():
    stats = genesis._C._cuda.blaslt_stats()
    assert set(stats) == {"available", "calls", "fallbacks", "cached", "aux_calls"}
    if not genesis.cuda.is_available():
        assert stats == {
            "available": False,
            "calls": 0,
            "fallbacks": 0,
            "cached": 0,
            "aux_calls": 0,
        }


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
@pytest.mark.parametrize(
    "bias_shape, expand",
    [((5,), False), ((1, 5), False), ((5,), True), ((4, 5), False), ((4, 1), False), ((), False)],
)
@pytest.mark.parametrize("alpha, beta", [(1, 1), (0.5, 1), (-2, 1), (1, 0.5), (1, 0)])
def test_addmm_bias_forms(device, bias_shape, expand, alpha, beta):
    # Only (5,), (1, 5) and a row expanded down the rows take the epilogue on CUDA (beta == 1);
    # the others compose. Every form agrees with NumPy on both devices.
    dtype = genesis.float32
    an, bn = data((4, 3), dtype, 1), data((3, 5), dtype, 2)
    cn = data(bias_shape, dtype, 3)
    c = genesis.tensor(cn, device=device)
    if expand:
        c = c.expand(4, 5)
    got = genesis.addmm(
        c,
        genesis.tensor(an, device=device),
        genesis.tensor(bn, device=device),
        beta=beta,
        alpha=alpha,
    )
    want = beta * np.broadcast_to(cn, (4, 5)) + alpha * (an.astype(np.float64) @ bn)
    assert got.shape == (4, 5) and got.device.type == device
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
@pytest.mark.parametrize(
    "x_shape, w_shape, b_shape",
    [
        ((6, 4), (5, 4), (5,)),
        ((2, 3, 4), (5, 4), (5,)),
        ((2, 0, 4), (5, 4), (5,)),
        ((3, 0), (5, 0), (5,)),
        ((4,), (5, 4), (5,)),
        ((3, 4), (5, 4), ()),
        ((2, 3, 4), (5, 4), None),
        ((2, 3, 4), (5, 4), (3, 5)),
    ],
)
def test_linear_matches_torch(device, x_shape, w_shape, b_shape):
    import genesis.nn.functional as F

    xn, wn = data(x_shape, genesis.float32, 1), data(w_shape, genesis.float32, 2)
    bn = None if b_shape is None else data(b_shape, genesis.float32, 3)
    tensors = [genesis.tensor(a, device=device, requires_grad=True) for a in (xn, wn)]
    refs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (xn, wn)]
    if bn is not None:
        tensors.append(genesis.tensor(bn, device=device, requires_grad=True))
        refs.append(torch.tensor(bn, dtype=torch.float64, requires_grad=True))
    got, want = F.linear(*tensors), torch.nn.functional.linear(*refs)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(to_numpy(got), want.detach().numpy(), rtol=1e-5, atol=1e-4)
    got.sum().backward()
    want.sum().backward()
    for t, r in zip(tensors, refs):
        np.testing.assert_allclose(to_numpy(t.grad), r.grad.numpy(), rtol=1e-5, atol=1e-4)


def test_linear_errors():
    import genesis.nn.functional as F

    with pytest.raises(RuntimeError) as e:
        F.linear(genesis.ones(2, 3), genesis.ones(1, 4, 3))
    check_message(e, "linear")
    with pytest.raises(TypeError) as e:
        F.linear(genesis.ones(2, 3), [[1.0, 2.0, 3.0]])
    check_message(e, "linear")
    with pytest.raises(RuntimeError) as e:
        F.linear(genesis.ones(2, 3), genesis.ones(4, 2), genesis.ones(4))
    check_message(e)


# --- CUDA ------------------------------------------------------------------------------------


@requires_cuda
def test_cublaslt_loads_and_runs_products():
    a = genesis.ones(64, 64, device="cuda", dtype=genesis.bfloat16)
    before = lt_calls()
    (a @ a).sum().item()
    stats = genesis._C._cuda.blaslt_stats()
    assert stats["available"], "cuBLASLt did not load (libcublasLt.so.12/13 on the path?)"
    assert stats["calls"] == before + 1 and stats["cached"] >= 1


def layouts(m, n, k):
    """(name, make): make(an, bn, dtype) -> genesis operands on CUDA holding an and bn in
    layouts that reach the library uncopied: contiguous, transposed views (column-major), rows
    with a leading dimension past their width, and views at a 2-element offset (unaligned)."""

    def plain(an, bn, dt):
        return cuda_tensor(an, dt), cuda_tensor(bn, dt)

    def transposed(an, bn, dt):
        return cuda_tensor(an.T.copy(), dt).t(), cuda_tensor(bn.T.copy(), dt).t()

    def a_transposed(an, bn, dt):
        return cuda_tensor(an.T.copy(), dt).t(), cuda_tensor(bn, dt)

    def padded(an, bn, dt):
        wide_a = np.zeros((m, k + 8), an.dtype)
        wide_a[:, 3 : 3 + k] = an
        wide_b = np.zeros((k, n + 5), bn.dtype)
        wide_b[:, :n] = bn
        return cuda_tensor(wide_a, dt)[:, 3 : 3 + k], cuda_tensor(wide_b, dt)[:, :n]

    def offset(an, bn, dt):
        fa = cuda_tensor(np.concatenate([[0, 0], an.ravel()]).astype(an.dtype), dt)
        fb = cuda_tensor(np.concatenate([[0, 0], bn.ravel()]).astype(bn.dtype), dt)
        return fa[2:].view(m, k), fb[2:].view(k, n)

    return [
        ("plain", plain),
        ("transposed", transposed),
        ("a_transposed", a_transposed),
        ("padded", padded),
        ("offset", offset),
    ]


LAYOUT_NAMES = [name for name, _ in layouts(1, 1, 1)]


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
@pytest.mark.parametrize("dtype", LT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("layout", LAYOUT_NAMES)
@pytest.mark.parametrize("m, n, k", [(64, 48, 80), (1, 33, 7), (129, 1, 65), (256, 256, 1024)])
def test_mm_layouts(library, dtype, layout, m, n, k):
    an, bn = data((m, k), dtype, 1), data((k, n), dtype, 2)
    make = dict(layouts(m, n, k))[layout]
    a, b = make(an, bn, dtype)
    np.testing.assert_array_equal(to_numpy(a), an)  # the view holds the data
    before = lt_calls()
    got = a @ b
    check(got, *product(an, bn), dtype)
    if library == "cublas":
        assert lt_calls() == before


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
@pytest.mark.parametrize("dtype", LT_DTYPES, ids=dtype_id)
def test_bmm_and_broadcast_matmul(library, dtype):
    an, bn = data((6, 40, 24), dtype, 1), data((6, 24, 56), dtype, 2)
    a, b = cuda_tensor(an, dtype), cuda_tensor(bn, dtype)
    check(genesis.bmm(a, b), *product(an, bn), dtype)
    # Transposed batches: column-major matrices with a batch stride.
    at = cuda_tensor(an.transpose(0, 2, 1).copy(), dtype).transpose(1, 2)
    check(genesis.bmm(at, b), *product(an, bn), dtype)
    # One left matrix for the whole batch (batch stride 0), and broadcast batch dims.
    shared = data((40, 24), dtype, 3)
    check(cuda_tensor(shared, dtype) @ b, *product(shared, bn), dtype)
    xn, yn = data((3, 1, 8, 16), dtype, 4), data((5, 16, 12), dtype, 5)
    check(cuda_tensor(xn, dtype) @ cuda_tensor(yn, dtype), *product(xn, yn), dtype)
    # A batch against one right matrix (stacked into one taller product).
    wn = data((24, 10), dtype, 6)
    check(a @ cuda_tensor(wn, dtype), *product(an, wn), dtype)


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
def test_bmm_64_batches_of_512(library):
    an, bn = data((64, 512, 512), genesis.bfloat16, 1), data((64, 512, 512), genesis.bfloat16, 2)
    got = genesis.bmm(cuda_tensor(an, genesis.bfloat16), cuda_tensor(bn, genesis.bfloat16))
    check(got, *product(an, bn), genesis.bfloat16)


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
@pytest.mark.parametrize("dtype", LT_DTYPES, ids=dtype_id)
def test_zero_sizes_and_empty_inner_dim(library, dtype):
    z = genesis.zeros(0, 7, device="cuda", dtype=dtype)
    assert (z @ genesis.ones(7, 3, device="cuda", dtype=dtype)).shape == (0, 3)
    k0 = genesis.ones(4, 0, device="cuda", dtype=dtype) @ genesis.ones(
        0, 3, device="cuda", dtype=dtype
    )
    assert k0.shape == (4, 3) and to_numpy(k0).tolist() == [[0.0] * 3] * 4
    bias = genesis.arange(3.0, device="cuda").to(dtype)
    got = genesis.addmm(
        bias,
        genesis.ones(4, 0, device="cuda", dtype=dtype),
        genesis.ones(0, 3, device="cuda", dtype=dtype),
        alpha=2,
    )
    assert to_numpy(got).tolist() == [[0.0, 1.0, 2.0]] * 4
    assert genesis.bmm(
        genesis.ones(0, 2, 3, device="cuda", dtype=dtype),
        genesis.ones(0, 3, 4, device="cuda", dtype=dtype),
    ).shape == (0, 2, 4)


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
@pytest.mark.parametrize("dtype", LT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("layout", LAYOUT_NAMES)
@pytest.mark.parametrize("alpha", [1.0, 0.5, -3.0])
def test_addmm_bias_epilogue(library, dtype, layout, alpha):
    m, n, k = 96, 72, 136  # multiples of 8: 16-byte aligned rows, which every kernel takes
    an, bn, cn = data((m, k), dtype, 1), data((k, n), dtype, 2), data((n,), dtype, 3)
    a, b = dict(layouts(m, n, k))[layout](an, bn, dtype)
    before = genesis._C._cuda.blaslt_stats()
    got = genesis.addmm(cuda_tensor(cn, dtype), a, b, alpha=alpha)
    after = genesis._C._cuda.blaslt_stats()
    want, scale = product(an, bn)
    # The bias is added in float32 before the one rounding to the output dtype.
    check(got, alpha * want + cn, abs(alpha) * scale + np.abs(cn), dtype)
    if library == "cublas":
        assert after["calls"] == before["calls"]
    elif after["available"] and layout in ("plain", "transposed", "a_transposed"):
        # Aligned operands: one cuBLASLt call, none declined (a declined epilogue would count
        # a fallback, then the product's own call).
        assert (after["calls"], after["fallbacks"]) == (before["calls"] + 1, before["fallbacks"])


@requires_cuda
@pytest.mark.parametrize("dtype", LT_DTYPES, ids=dtype_id)
def test_addmm_bias_views_and_in_place(dtype):
    m, n, k = 33, 17, 9
    an, bn = data((m, k), dtype, 1), data((k, n), dtype, 2)
    rows = data((3, 2 * n), dtype, 3)  # the bias: every other element of a row, then packed
    a, b = cuda_tensor(an, dtype), cuda_tensor(bn, dtype)
    want, scale = product(an, bn)
    strided = cuda_tensor(rows, dtype)[1, ::2]
    check(genesis.addmm(strided, a, b), want + rows[1, ::2], scale + np.abs(rows[1, ::2]), dtype)
    row = cuda_tensor(rows[:, :n], dtype)[2:3]  # (1, n), at an offset
    check(genesis.addmm(row, a, b), want + rows[2, :n], scale + np.abs(rows[2, :n]), dtype)
    out = cuda_tensor(np.broadcast_to(rows[0, :n], (m, n)).copy(), dtype)
    out.addmm_(a, b)  # (m, n) input: composed, and written into out
    check(out, want + rows[0, :n], scale + np.abs(rows[0, :n]), dtype)


@requires_cuda
def test_addmm_alpha_zero_keeps_nan_of_the_operands():
    a = genesis.ones(4, 3, device="cuda")
    a[1, 2] = float("nan")
    got = to_numpy(
        genesis.addmm(genesis.ones(5, device="cuda"), a, genesis.ones(3, 5, device="cuda"), alpha=0)
    )
    assert np.isnan(got[1]).all() and (got[[0, 2, 3]] == 1).all()  # 0 * NaN, as PyTorch


@requires_cuda
def test_addmm_bias_autograd():
    an, bn, cn = (
        data((8, 6), genesis.float32, 1),
        data((6, 5), genesis.float32, 2),
        data((5,), genesis.float32, 3),
    )
    a = genesis.tensor(an, device="cuda", requires_grad=True)
    b = genesis.tensor(bn, device="cuda", requires_grad=True)
    c = genesis.tensor(cn, device="cuda", requires_grad=True)
    genesis.addmm(c, a, b, alpha=2).sum().backward()
    ones = np.ones((8, 5))
    np.testing.assert_allclose(to_numpy(a.grad), 2 * ones @ bn.T, rtol=1e-5)
    np.testing.assert_allclose(to_numpy(b.grad), 2 * an.T @ ones, rtol=1e-5)
    np.testing.assert_allclose(to_numpy(c.grad), np.full(5, 8.0), rtol=1e-6)


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
def test_tf32_off_is_exact_float32_and_on_rounds(library, tf32):
    # 1 + 2**-12 is exact in float32 but rounds to 1 in TF32 (10 mantissa bits): the alternating
    # sum keeps only the 2**-12 parts, exactly, in float32, and is 0 with TF32.
    k = 256
    xn = np.tile(np.where(np.arange(k) % 2 == 0, 1 + 2.0**-12, -1.0).astype(np.float32), (512, 1))
    x, y = genesis.tensor(xn, device="cuda"), genesis.ones(k, 512, device="cuda")
    exact = np.full((512, 512), (k // 2) * 2.0**-12, np.float32)
    tf32.allow_tf32 = False
    np.testing.assert_array_equal(to_numpy(x @ y), exact)
    tf32.allow_tf32 = True
    assert (to_numpy(x @ y) == 0).all(), "allow_tf32 = True did not reach the library"
    # Random data: TF32 is within its rounding of the float64 product.
    an, bn = data((300, 500), genesis.float32, 1), data((500, 200), genesis.float32, 2)
    got = genesis.tensor(an, device="cuda") @ genesis.tensor(bn, device="cuda")
    check(got, *product(an, bn), genesis.float32, rtol=2e-3)
    tf32.allow_tf32 = False
    got = genesis.tensor(an, device="cuda") @ genesis.tensor(bn, device="cuda")
    check(got, *product(an, bn), genesis.float32)
    # float16 and bfloat16 are not affected by the setting: same bits either way.
    h = cuda_tensor(data((64, 96), genesis.bfloat16, 3), genesis.bfloat16)
    before = to_numpy(h @ h.t())
    tf32.allow_tf32 = True
    np.testing.assert_array_equal(to_numpy(h @ h.t()), before)


@requires_cuda
def test_heuristic_cache_keys():
    a = genesis.ones(40, 24, device="cuda", dtype=genesis.float16)
    b = genesis.ones(24, 56, device="cuda", dtype=genesis.float16)
    a @ b
    cached = genesis._C._cuda.blaslt_stats()["cached"]
    for _ in range(3):
        a @ b  # same key: no new plan
    assert genesis._C._cuda.blaslt_stats()["cached"] == cached
    genesis.ones(41, 24, device="cuda", dtype=genesis.float16) @ b  # another m: a new key
    assert genesis._C._cuda.blaslt_stats()["cached"] in (cached + 1, 1)  # 1: the cache started over


@requires_cuda
@pytest.mark.parametrize("library", LIBRARIES, indirect=True)
def test_two_streams_at_once(library):
    # Long k and few outputs: split-K kernels, which use a workspace; each stream has its own.
    an, bn = data((64, 32768), genesis.float32, 1), data((32768, 64), genesis.float32, 2)
    cn, dn = data((64, 32768), genesis.float32, 3), data((32768, 64), genesis.float32, 4)
    s1, s2 = genesis.cuda.Stream(), genesis.cuda.Stream()
    with genesis.cuda.stream(s1):
        a, b = genesis.tensor(an, device="cuda"), genesis.tensor(bn, device="cuda")
    with genesis.cuda.stream(s2):
        c, d = genesis.tensor(cn, device="cuda"), genesis.tensor(dn, device="cuda")
    results = []
    for _ in range(4):
        with genesis.cuda.stream(s1):
            results.append((a @ b, an, bn))
        with genesis.cuda.stream(s2):
            results.append((c @ d, cn, dn))
    genesis.cuda.synchronize()
    for got, x, y in results:
        check(got, *product(x, y), genesis.float32)


@requires_cuda
@pytest.mark.parametrize("dtype", LT_DTYPES, ids=dtype_id)
def test_linear_bias_is_one_cublaslt_call(dtype):
    import genesis.nn.functional as F

    xn, wn, bn = data((4, 16, 64), dtype, 1), data((48, 64), dtype, 2), data((48,), dtype, 3)
    before = genesis._C._cuda.blaslt_stats()
    got = F.linear(cuda_tensor(xn, dtype), cuda_tensor(wn, dtype), cuda_tensor(bn, dtype))
    after = genesis._C._cuda.blaslt_stats()
    want, scale = product(xn, wn.T)
    check(got, want + bn, scale + np.abs(bn), dtype)
    if after["available"]:
        assert (after["calls"], after["fallbacks"]) == (before["calls"] + 1, before["fallbacks"])


@requires_cuda
def test_float64_stays_on_cublas():
    an, bn = data((30, 20), genesis.float64, 1), data((20, 10), genesis.float64, 2)
    before = genesis._C._cuda.blaslt_stats()
    got = genesis.tensor(an, device="cuda") @ genesis.tensor(bn, device="cuda")
    np.testing.assert_allclose(to_numpy(got), an @ bn, rtol=1e-12)
    after = genesis._C._cuda.blaslt_stats()
    assert after["calls"] == before["calls"] and after["fallbacks"] == before["fallbacks"]
