"""genesis._addmm_activation (Note [Fused matmul epilogues] in csrc/ops/products.cpp): against
torch._addmm_activation on the CPU, against its CUDA definition (addmm, then relu or the tanh
GELU) in float64 on CUDA, bit-for-bit against genesis's own composition wherever nothing is
fused, cuBLASLt's RELU_BIAS / GELU_BIAS epilogues taken when they should be (GELU_AUX_BIAS when
a gradient is wanted), the errors, and the gradients (genesis's op is differentiable; PyTorch's
is not)."""

import doctest

import numpy as np
import pytest
import torch
from conftest import HAS_CUDA, check_message, dtype_id, random_array, requires_cuda, to_numpy

import genesis

DEVICES = ["cpu", pytest.param("cuda", marks=requires_cuda)]
FLOATS = [genesis.float16, genesis.bfloat16, genesis.float32, genesis.float64]
# Error allowed relative to |beta * input| + |alpha| * |a| @ |b|: one rounding of a 16-bit
# result (11 or 8 bits), float32's accumulation, float64's.
RTOL = {
    genesis.float16: 1e-2,
    genesis.bfloat16: 2e-2,
    genesis.float32: 1e-5,
    genesis.float64: 1e-12,
}
TORCH_DTYPE = {
    genesis.float16: torch.float16,
    genesis.bfloat16: torch.bfloat16,
    genesis.float32: torch.float32,
    genesis.float64: torch.float64,
}


def dtypes_on(device):
    # float64 on CUDA is cuBLAS's (no epilogue); tested too, but the point there is 16/32-bit.
    return FLOATS


def data(shape, dtype, seed):
    """Values in [-2, 2] at the dtype's precision (float32/float64 NumPy)."""
    return random_array(shape, dtype, seed=seed, low=-2, high=2)


def gelu_of(device):
    """The approximate= of _addmm_activation's GELU on device: PyTorch's choice per device."""
    return "tanh" if device == "cuda" else "none"


def reference(cn, an, bn, beta, alpha, use_gelu, device):
    """float64 (result, error scale) of the op as PyTorch defines it on device."""
    c, a, b = (torch.tensor(np.asarray(x, dtype=np.float64)) for x in (cn, an, bn))
    z = torch.addmm(c, a, b, beta=beta, alpha=alpha)
    out = torch.nn.functional.gelu(z, approximate=gelu_of(device)) if use_gelu else torch.relu(z)
    scale = abs(beta) * c.abs().expand_as(z) + abs(alpha) * (a.abs() @ b.abs())
    return out.numpy(), scale.numpy()


def slack(device, use_gelu):
    """Absolute error allowed on top of RTOL: cuBLASLt's GELU epilogue may evaluate tanh with
    a fast approximation; 5e-5 still tells the tanh GELU from the exact one (up to 4.7e-4
    apart near |x| = 2.7)."""
    return 5e-5 if device == "cuda" and use_gelu else 1e-6


def check_close(got, want, scale, dtype, atol=1e-6):
    assert got.dtype is dtype
    assert got.shape == want.shape, (got.shape, want.shape)
    err = np.abs(to_numpy(got).astype(np.float64) - want)
    bound = RTOL[dtype] * scale + atol
    assert (err <= bound).all(), f"max error {err.max()} (bound there {bound.flat[err.argmax()]})"


def lt_calls():
    return genesis._C._cuda.blaslt_stats()["calls"]


def lt_counts():
    """(calls, fallbacks, aux_calls) of cuBLASLt so far, after the queued work ran."""
    genesis.cuda.synchronize()
    s = genesis._C._cuda.blaslt_stats()
    return s["calls"], s["fallbacks"], s["aux_calls"]


def quarters(shape, seed):
    """Multiples of 1/4 in [-1, 1] (float64 NumPy). With k <= 8 every partial sum of a product,
    alpha = 0.5 times it and the bias added are exact in float32 and in the 16-bit types alike
    (multiples of 1/32 below 6 in size: 8 significant bits), so the pre-activation has the same
    bits whichever kernel or order computed it."""
    return np.random.default_rng(seed).integers(-4, 5, size=shape) / 4.0


def compose(c, a, b, beta, alpha, use_gelu):
    """genesis's own unfused composition: what _addmm_activation must equal bit for bit."""
    z = genesis.addmm(c, a, b, beta=beta, alpha=alpha)
    approx = gelu_of(z.device.type)
    return genesis.nn.functional.gelu(z, approximate=approx) if use_gelu else genesis.relu(z)


def assert_bitwise(got, want):
    assert got.dtype is want.dtype and got.shape == want.shape
    g, w = (np.ascontiguousarray(to_numpy(x)) for x in (got, want))  # a gradient may be a view
    np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


USE_GELU = pytest.mark.parametrize("use_gelu", [False, True], ids=["relu", "gelu"])


# --- Values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@USE_GELU
@pytest.mark.parametrize(
    "bias_shape, expand",
    [((5,), False), ((1, 5), False), ((5,), True), ((4, 5), False), ((4, 1), False), ((), False)],
)
@pytest.mark.parametrize("alpha, beta", [(1, 1), (0.5, 1), (-2, 1), (1, 0.5), (1, 0), (0, 1)])
def test_matches_definition(device, dtype, use_gelu, bias_shape, expand, alpha, beta):
    an, bn, cn = data((4, 3), dtype, 1), data((3, 5), dtype, 2), data(bias_shape, dtype, 3)
    c = genesis.tensor(cn, dtype=dtype, device=device)
    if expand:
        c = c.expand(4, 5)
    a = genesis.tensor(an, dtype=dtype, device=device)
    b = genesis.tensor(bn, dtype=dtype, device=device)
    got = genesis._addmm_activation(c, a, b, beta=beta, alpha=alpha, use_gelu=use_gelu)
    assert got.device.type == device
    want, scale = reference(np.broadcast_to(cn, (4, 5)), an, bn, beta, alpha, use_gelu, device)
    check_close(got, want, scale, dtype, slack(device, use_gelu))


@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@USE_GELU
@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (6, 5), (6, 1), ()])
@pytest.mark.parametrize("alpha, beta", [(1, 1), (0.5, 1), (1, 0.5), (-1.5, 0)])
def test_matches_torch_on_cpu(dtype, use_gelu, bias_shape, alpha, beta):
    an, bn, cn = data((6, 7), dtype, 4), data((7, 5), dtype, 5), data(bias_shape, dtype, 6)
    td = TORCH_DTYPE[dtype]
    got = genesis._addmm_activation(
        genesis.tensor(cn, dtype=dtype),
        genesis.tensor(an, dtype=dtype),
        genesis.tensor(bn, dtype=dtype),
        beta=beta,
        alpha=alpha,
        use_gelu=use_gelu,
    )
    want = torch._addmm_activation(
        torch.tensor(cn).to(td),
        torch.tensor(an).to(td),
        torch.tensor(bn).to(td),
        beta=beta,
        alpha=alpha,
        use_gelu=use_gelu,
    )
    _, scale = reference(np.broadcast_to(cn, (6, 5)), an, bn, beta, alpha, use_gelu, "cpu")
    check_close(got, want.double().numpy(), 2 * scale, dtype)  # two roundings: theirs and ours


@requires_cuda
@pytest.mark.skipif(not (HAS_CUDA and torch.cuda.is_available()), reason="torch without CUDA")
@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.bfloat16, genesis.float32], ids=dtype_id
)
@USE_GELU
@pytest.mark.parametrize("bias_shape, beta", [((5,), 1), ((4, 5), 1), ((5,), 0.5)])
def test_matches_torch_on_cuda(dtype, use_gelu, bias_shape, beta):
    # When the lead's machine has a CUDA torch: its _addmm_activation on the same data.
    an, bn, cn = data((4, 64), dtype, 7), data((64, 5), dtype, 8), data(bias_shape, dtype, 9)
    td = TORCH_DTYPE[dtype]
    got = genesis._addmm_activation(
        *(genesis.tensor(x, dtype=dtype, device="cuda") for x in (cn, an, bn)),
        beta=beta,
        use_gelu=use_gelu,
    )
    want = torch._addmm_activation(
        *(torch.tensor(x).to(td).cuda() for x in (cn, an, bn)), beta=beta, use_gelu=use_gelu
    )
    _, scale = reference(np.broadcast_to(cn, (4, 5)), an, bn, beta, 1, use_gelu, "cuda")
    check_close(got, want.double().cpu().numpy(), 2 * scale, dtype, 2 * slack("cuda", use_gelu))


def layouts(m, k, n, dtype, device):
    """(name, mat1, mat2, mat1 values, mat2 values): contiguous, transposed and strided mats."""
    an, bn = data((m, k), dtype, 11), data((k, n), dtype, 12)
    wide_a, wide_b = data((m, 2 * k), dtype, 13), data((k, 2 * n), dtype, 14)

    def t(x):
        return genesis.tensor(x, dtype=dtype, device=device)

    return [
        ("contiguous", t(an), t(bn), an, bn),
        ("transposed", t(an.T.copy()).t(), t(bn.T.copy()).t(), an, bn),
        ("sliced", t(wide_a)[:, ::2], t(wide_b)[:, 1::2], wide_a[:, ::2], wide_b[:, 1::2]),
        ("narrowed", t(wide_a)[:, :k], t(wide_b)[:, n:], wide_a[:, :k], wide_b[:, n:]),
    ]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@USE_GELU
def test_layouts(device, dtype, use_gelu):
    cn = data((6,), dtype, 15)
    c = genesis.tensor(cn, dtype=dtype, device=device)
    for name, a, b, an, bn in layouts(5, 8, 6, dtype, device):
        got = genesis._addmm_activation(c, a, b, use_gelu=use_gelu)
        want, scale = reference(np.broadcast_to(cn, (5, 6)), an, bn, 1, 1, use_gelu, device)
        try:
            check_close(got, want, scale, dtype, slack(device, use_gelu))
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [genesis.float32, genesis.bfloat16], ids=dtype_id)
@USE_GELU
@pytest.mark.parametrize("m, k, n", [(0, 3, 5), (4, 3, 0), (4, 0, 5), (0, 0, 0)])
def test_zero_sizes(device, dtype, use_gelu, m, k, n):
    # k == 0: the activation of beta * input, on CUDA too (PyTorch's CUDA kernel returns
    # beta * input there without the activation; genesis keeps the definition).
    cn = data((n,), dtype, 16)
    got = genesis._addmm_activation(
        genesis.tensor(cn, dtype=dtype, device=device),
        genesis.zeros(m, k, dtype=dtype, device=device),
        genesis.zeros(k, n, dtype=dtype, device=device),
        beta=0.5,
        use_gelu=use_gelu,
    )
    want, scale = reference(np.broadcast_to(cn, (m, n)), np.zeros((m, k)), np.zeros((k, n)), 0.5, 1,
                            use_gelu, device)  # fmt: skip
    check_close(got, want, scale, dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@USE_GELU
@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (4, 5), ()])
@pytest.mark.parametrize("alpha, beta", [(1, 1), (0.5, 1), (2, 0.25)])
def test_cpu_is_the_composition_bit_for_bit(dtype, use_gelu, bias_shape, alpha, beta):
    args = [
        genesis.tensor(data(s, dtype, i), dtype=dtype)
        for i, s in enumerate([bias_shape, (4, 9), (9, 5)])
    ]
    got = genesis._addmm_activation(*args, beta=beta, alpha=alpha, use_gelu=use_gelu)
    assert_bitwise(got, compose(*args, beta, alpha, use_gelu))


@pytest.mark.parametrize("device", DEVICES)
def test_out_and_integer_relu(device):
    dtype = genesis.float32
    args = [
        genesis.tensor(data(s, dtype, i), device=device)
        for i, s in enumerate([(3,), (2, 4), (4, 3)])
    ]
    out = genesis.empty(2, 3, device=device)
    r = genesis._addmm_activation(*args, out=out)
    assert r is out
    assert_bitwise(out, genesis._addmm_activation(*args))
    if device == "cpu":  # PyTorch's CPU op takes integers for ReLU
        ints = [genesis.tensor(x) for x in ([1, -5, 2], [[1, 2], [-3, 4]], [[1, 0, -1], [2, 1, 0]])]
        want = torch._addmm_activation(*(torch.tensor(x.tolist()) for x in ints))
        got = genesis._addmm_activation(*ints)
        assert got.dtype is genesis.int64 and got.tolist() == want.tolist()


def test_private_name_reachable_not_public():
    # PyTorch exports it as torch._addmm_activation; genesis keeps it out of __all__ and off
    # Tensor (PyTorch has no method), but runs its docstring example here (test_docstrings
    # skips private names).
    assert "_addmm_activation" not in genesis.__all__
    assert not hasattr(genesis.Tensor, "_addmm_activation")
    assert genesis._addmm_activation is genesis._C._addmm_activation
    doc = genesis._addmm_activation.__doc__
    assert doc and "Example::" in doc and "Default: False" in doc
    finder = doctest.DocTestFinder(verbose=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(
        genesis._addmm_activation, "_addmm_activation", globs={"genesis": genesis}
    ):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


# --- Errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_errors(device):
    op = "_addmm_activation"
    f = genesis._addmm_activation

    def t(*shape, dtype=genesis.float32):
        return genesis.ones(*shape, dtype=dtype, device=device)

    cases = [
        (RuntimeError, lambda: f(t(5), t(4, 3), t(4, 5))),  # inner sizes differ
        (RuntimeError, lambda: f(t(5), t(3), t(3, 5))),  # mat1 not 2-D
        (RuntimeError, lambda: f(t(5), t(4, 3), t(2, 3, 5))),  # mat2 not 2-D
        (RuntimeError, lambda: f(t(6), t(4, 3), t(3, 5))),  # input does not broadcast
        (RuntimeError, lambda: f(t(3, 5), t(4, 3), t(3, 5))),  # input does not broadcast
        (RuntimeError, lambda: f(t(5), t(4, 3), t(3, 5, dtype=genesis.float64))),
        (RuntimeError, lambda: f(t(5, dtype=genesis.float64), t(4, 3), t(3, 5))),
        (RuntimeError, lambda: f(t(5, dtype=genesis.float16), t(4, 3), t(3, 5), use_gelu=True)),
        (TypeError, lambda: f(t(5), t(4, 3), t(3, 5), beta="one")),
        (TypeError, lambda: f(t(5), t(4, 3), t(3, 5), alpha=None)),
    ]
    bools = [t(s, dtype=genesis.bool) for s in [(5,)]] + [
        t(4, 3, dtype=genesis.bool),
        t(3, 5, dtype=genesis.bool),
    ]
    cases.append((TypeError, lambda: f(*bools)))
    ints = (t(5, dtype=genesis.int64), t(4, 3, dtype=genesis.int64), t(3, 5, dtype=genesis.int64))
    cases.append((TypeError, lambda: f(*ints, use_gelu=True)))  # GELU of integers
    if device == "cuda":
        cases.append((TypeError, lambda: f(*ints)))  # no integer matmul on CUDA
        cpu = genesis.ones(5)
        cases.append((RuntimeError, lambda: f(cpu, t(4, 3), t(3, 5))))
        cases.append((RuntimeError, lambda: f(t(5), genesis.ones(4, 3), t(3, 5))))
    for i, (kind, call) in enumerate(cases):
        with pytest.raises(kind) as e:
            call()
        try:
            check_message(e, op)
        except AssertionError as err:
            raise AssertionError(f"case {i}: {err}") from None


def test_no_positional_beta_alpha_or_keyword_activation():
    a = genesis.ones(2, 2)
    with pytest.raises(TypeError):
        genesis._addmm_activation(a, a, a, 1, 1)  # beta/alpha are keyword-only, as PyTorch's
    with pytest.raises(TypeError):
        genesis._addmm_activation(a, a, a, activation="relu")  # PyTorch's names only


# --- CUDA: the epilogue is taken -------------------------------------------------------------


@requires_cuda
@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.bfloat16, genesis.float32], ids=dtype_id
)
@USE_GELU
@pytest.mark.parametrize("bias_form", ["1d", "row", "expanded"])
def test_cuda_bias_row_is_one_cublaslt_call(dtype, use_gelu, bias_form):
    an, bn, cn = data((64, 32), dtype, 21), data((32, 48), dtype, 22), data((48,), dtype, 23)
    a, b = (genesis.tensor(x, dtype=dtype, device="cuda") for x in (an, bn))
    c = genesis.tensor(cn, dtype=dtype, device="cuda")
    c = {"1d": c, "row": c.reshape(1, 48), "expanded": c.expand(64, 48)}[bias_form]
    genesis.cuda.synchronize()
    before = lt_calls()
    got = genesis._addmm_activation(c, a, b, alpha=0.75, use_gelu=use_gelu)
    genesis.cuda.synchronize()
    assert lt_calls() == before + 1, "expected the fused cuBLASLt epilogue (one call, no other)"
    want, scale = reference(np.broadcast_to(cn, (64, 48)), an, bn, 1, 0.75, use_gelu, "cuda")
    check_close(got, want, scale, dtype, slack("cuda", use_gelu))


@requires_cuda
@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.bfloat16, genesis.float32], ids=dtype_id
)
@USE_GELU
def test_cuda_epilogue_uses_the_tanh_gelu(dtype, use_gelu):
    # Pre-activations spread over [-4, 4], where the exact and tanh GELUs differ by up to ~5e-4
    # (more than float32's bound): the fused result must be the tanh one, as PyTorch's on CUDA.
    m, n = 16, 64
    a = genesis.eye(m, dtype=dtype, device="cuda")
    zn = random_array((m, n), dtype, seed=24, low=-4, high=4)
    b = genesis.tensor(zn, dtype=dtype, device="cuda")
    got = genesis._addmm_activation(
        genesis.zeros(n, dtype=dtype, device="cuda"), a, b, use_gelu=use_gelu
    )
    want, scale = reference(np.zeros(n), np.eye(m), zn, 1, 1, use_gelu, "cuda")
    check_close(got, want, scale + np.abs(want), dtype, slack("cuda", use_gelu))
    if use_gelu and dtype is genesis.float32:
        exact, _ = reference(np.zeros(n), np.eye(m), zn, 1, 1, True, "cpu")
        assert np.abs(exact - want).max() > 1e-4  # the test tells the two GELUs apart


@requires_cuda
@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.bfloat16, genesis.float32], ids=dtype_id
)
@USE_GELU
@pytest.mark.parametrize("library", ["cublaslt", "cublas"])
def test_cuda_unfused_cases_are_the_composition(dtype, use_gelu, library):
    # With cuBLAS preferred (no epilogue), or an input that is not a bias row, or beta != 1: the
    # composition, bit for bit.
    before = genesis.backends.cuda.preferred_blas_library()
    genesis.backends.cuda.preferred_blas_library(library)
    try:
        cases = [((48,), 0.5, 1.0), ((32, 48), 1.0, 1.0), ((32, 1), 1.0, 2.0), ((48,), 1.0, 0.0)]
        if library == "cublas":
            cases.append(((48,), 1.0, 1.0))
        for shape, beta, alpha in cases:
            args = [
                genesis.tensor(data(s, dtype, 30 + j), dtype=dtype, device="cuda")
                for j, s in enumerate([shape, (32, 16), (16, 48)])
            ]
            got = genesis._addmm_activation(*args, beta=beta, alpha=alpha, use_gelu=use_gelu)
            assert_bitwise(got, compose(*args, beta, alpha, use_gelu))
    finally:
        genesis.backends.cuda.preferred_blas_library(before)


# --- Autograd --------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@USE_GELU
@pytest.mark.parametrize("bias_shape", [(4,), (1, 4), (3, 4), (3, 1), ()])
@pytest.mark.parametrize("alpha, beta", [(1, 1), (0.5, 1), (-1.5, 0.25)])
def test_gradcheck_float64(device, use_gelu, bias_shape, alpha, beta):
    def t(shape, seed):
        x = data(shape, genesis.float64, seed)
        return genesis.tensor(x, dtype=genesis.float64, device=device, requires_grad=True)

    c, a, b = t(bias_shape, 41), t((3, 5), 42), t((5, 4), 43)

    def fn(c, a, b):
        return genesis._addmm_activation(c, a, b, beta=beta, alpha=alpha, use_gelu=use_gelu)

    assert genesis.autograd.gradcheck(fn, (c, a, b))
    assert genesis.autograd.gradgradcheck(fn, (c, a, b))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.bfloat16, genesis.float32], ids=dtype_id
)
@USE_GELU
@pytest.mark.parametrize("bias_kind", ["row", "full"])
@pytest.mark.parametrize("n", [6, 16])
def test_gradients_match_torch(device, dtype, use_gelu, bias_kind, n):
    # In the training dtypes, through the fused forward on CUDA (the ReLU mask read from the
    # output; GELU from the pre-activation GELU_AUX_BIAS kept for n = 16, or from the BIAS
    # epilogue's addmm for n = 6, whose width Lt's aux rule refuses), against float64 torch with
    # the device's GELU.
    bias_shape = (n,) if bias_kind == "row" else (5, n)
    an, bn, cn, gn = (
        data(s, dtype, 50 + i) for i, s in enumerate([(5, 7), (7, n), bias_shape, (5, n)])
    )
    ts = [genesis.tensor(x, dtype=dtype, device=device, requires_grad=True) for x in (cn, an, bn)]
    out = genesis._addmm_activation(*ts, alpha=0.5, use_gelu=use_gelu)
    name = "GeluBackward0" if use_gelu else "AddmmActivationBackward0"
    assert out.grad_fn.name() == name
    out.backward(genesis.tensor(gn, dtype=dtype, device=device))
    refs = [torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True) for x in (cn, an, bn)]
    z = torch.addmm(*refs, alpha=0.5)
    want = torch.nn.functional.gelu(z, approximate=gelu_of(device)) if use_gelu else torch.relu(z)
    want.backward(torch.tensor(np.asarray(gn, dtype=np.float64)))
    tol = 1e-4 if dtype is genesis.float32 else 5e-2 if dtype is genesis.bfloat16 else 1e-2
    for got_t, ref in zip(ts, refs):
        assert got_t.grad.dtype is dtype and got_t.grad.shape == tuple(ref.shape)
        np.testing.assert_allclose(to_numpy(got_t.grad), ref.grad.numpy(), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("device", DEVICES)
def test_relu_gradient_at_nan_and_zero_follows_torch(device):
    # The fused ReLU's backward is relu's (PyTorch's threshold_backward): the gradient passes
    # where the output is NaN, and is 0 where it is 0, whether or not the bias made it so.
    cn = np.array([np.nan, 0.0, -1.0, 2.0])
    an = np.array([[1.0, 0.0], [0.0, 0.0], [np.nan, 1.0]])
    bn = np.array([[0.5, 0.0, -2.0, 1.0], [1.0, 0.0, 3.0, -3.0]])
    gn = np.arange(1.0, 13.0).reshape(3, 4)
    ts = [genesis.tensor(x, device=device, requires_grad=True) for x in (cn, an, bn)]
    out = genesis._addmm_activation(*ts)
    out.backward(genesis.tensor(gn, device=device))
    refs = [torch.tensor(x, requires_grad=True) for x in (cn, an, bn)]
    torch.relu(torch.addmm(*refs)).backward(torch.tensor(gn))
    np.testing.assert_array_equal(to_numpy(out), torch.relu(torch.addmm(*refs)).detach().numpy())
    # the bias gradient is the upstream one where it passes; mat1/mat2 gradients carry NaN rows
    for got_t, ref in zip(ts, refs):
        np.testing.assert_array_equal(to_numpy(got_t.grad), ref.grad.numpy())


def test_no_grad_and_partial_requires_grad():
    a = genesis.tensor(data((3, 4), genesis.float64, 60), dtype=genesis.float64, requires_grad=True)
    b = genesis.tensor(data((4, 2), genesis.float64, 61), dtype=genesis.float64)
    c = genesis.tensor(data((2,), genesis.float64, 62), dtype=genesis.float64)
    with genesis.no_grad():
        assert genesis._addmm_activation(c, a, b).grad_fn is None
    for use_gelu in (False, True):
        out = genesis._addmm_activation(c, a, b, use_gelu=use_gelu)
        assert out.requires_grad
        out.sum().backward()
        assert b.grad is None and c.grad is None and a.grad is not None
        a.grad = None


@requires_cuda
@pytest.mark.parametrize("dtype", [genesis.bfloat16, genesis.float32], ids=dtype_id)
@USE_GELU
def test_cuda_training_forward_is_one_cublaslt_call(dtype, use_gelu):
    # With a gradient wanted, ReLU still runs the RELU_BIAS epilogue (its backward reads the
    # output), GELU the GELU_AUX_BIAS epilogue (its backward reads the pre-activation that the
    # same call kept): one cuBLASLt call in the forward either way, nothing declined; the
    # gradients are checked in test_gradients_match_torch.
    an, bn, cn = data((64, 32), dtype, 70), data((32, 48), dtype, 71), data((48,), dtype, 72)
    ts = [genesis.tensor(x, dtype=dtype, device="cuda", requires_grad=True) for x in (cn, an, bn)]
    calls, fallbacks, aux = lt_counts()
    out = genesis._addmm_activation(*ts, use_gelu=use_gelu)
    assert lt_counts() == (calls + 1, fallbacks, aux + use_gelu)
    assert out.grad_fn.name() == ("GeluBackward0" if use_gelu else "AddmmActivationBackward0")
    want, scale = reference(np.broadcast_to(cn, (64, 48)), an, bn, 1, 1, use_gelu, "cuda")
    check_close(out.detach(), want, scale, dtype, slack("cuda", use_gelu))


@requires_cuda
@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.bfloat16, genesis.float32], ids=dtype_id
)
@pytest.mark.parametrize("bias_form", ["1d", "row", "expanded"])
def test_cuda_gelu_training_forward_keeps_the_preactivation(dtype, bias_form):
    # GELU_AUX_BIAS: one cuBLASLt call writes the output and the pre-activation z. On data whose
    # z is exact (quarters), the output has the bits of the no-grad GELU_BIAS call (the same
    # epilogue math on the same float32 z), and the graph is the composition's: GeluBackward0
    # over AddmmBackward0, whose gradients, first and second order, have the bits of the
    # composition's (addmm with cuBLAS alone, then a GELU pass), since both GELU nodes read the
    # same z and the backward runs the same ops.
    m, k, n = 64, 8, 48
    an, bn, cn, gn = (quarters(s, 80 + i) for i, s in enumerate([(m, k), (k, n), (n,), (m, n)]))

    def leaves():
        c = genesis.tensor(cn, dtype=dtype, device="cuda", requires_grad=True)
        a = genesis.tensor(an, dtype=dtype, device="cuda", requires_grad=True)
        b = genesis.tensor(bn, dtype=dtype, device="cuda", requires_grad=True)
        shaped = {"1d": c, "row": c.reshape(1, n), "expanded": c.expand(m, n)}[bias_form]
        return [c, a, b], [shaped, a, b]

    def gradients(out, leafs):
        g = genesis.tensor(gn, dtype=dtype, device="cuda")
        first = genesis.autograd.grad(out, leafs, g, create_graph=True)
        # Second order: through GeluBackward0's own graph (its formula reads z) and addmm's.
        total = (first[0] * first[0]).sum() + (first[1] * first[1]).sum()
        total = total + (first[2] * first[2]).sum()
        second = genesis.autograd.grad(total, leafs)
        return list(first) + list(second)

    with genesis.no_grad():
        plain = genesis._addmm_activation(*leaves()[1], alpha=0.5, use_gelu=True)  # GELU_BIAS
    leafs, args = leaves()
    calls, fallbacks, aux = lt_counts()
    out = genesis._addmm_activation(*args, alpha=0.5, use_gelu=True)
    assert lt_counts() == (calls + 1, fallbacks, aux + 1), "expected one GELU_AUX_BIAS call"
    assert out.grad_fn.name() == "GeluBackward0"
    assert [f[0].name() for f in out.grad_fn.next_functions] == ["AddmmBackward0"]
    assert_bitwise(out.detach(), plain)
    want, scale = reference(np.broadcast_to(cn, (m, n)), an, bn, 1, 0.5, True, "cuda")
    check_close(out.detach(), want, scale + np.abs(want), dtype, slack("cuda", True))

    library = genesis.backends.cuda.preferred_blas_library()
    genesis.backends.cuda.preferred_blas_library("cublas")
    try:
        leafs2, args2 = leaves()
        composed = genesis._addmm_activation(*args2, alpha=0.5, use_gelu=True)
    finally:
        genesis.backends.cuda.preferred_blas_library(library)
    assert composed.grad_fn.name() == "GeluBackward0"
    # Both backwards with the library setting of the fused one.
    for got, ref in zip(gradients(out, leafs), gradients(composed, leafs2)):
        assert_bitwise(got.detach(), ref.detach())


@requires_cuda
@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@pytest.mark.parametrize("n", [6, 12, 20])
def test_cuda_gelu_training_forward_falls_back(dtype, n):
    # Widths that are not a multiple of 8 break Lt's rule for the kept pre-activation's leading
    # dimension: the GELU_AUX_BIAS call is declined before Lt is asked (one fallback counted),
    # and the forward is addmm (the BIAS epilogue) then a GELU pass, bit for bit the
    # composition. float64 never reaches cuBLASLt.
    an, bn, cn = data((16, 32), dtype, 90), data((32, n), dtype, 91), data((n,), dtype, 92)
    ts = [genesis.tensor(x, dtype=dtype, device="cuda", requires_grad=True) for x in (cn, an, bn)]
    calls, fallbacks, aux = lt_counts()
    out = genesis._addmm_activation(*ts, use_gelu=True)
    calls2, fallbacks2, aux2 = lt_counts()
    assert aux2 == aux
    if dtype is genesis.float64:
        assert (calls2, fallbacks2) == (calls, fallbacks)
    elif dtype is genesis.float32 and n % 4 == 0:
        # Rows of 16-byte multiples, which every kernel takes: the BIAS call runs.
        assert (calls2, fallbacks2) == (calls + 1, fallbacks + 1)
    else:
        # The declined GELU_AUX_BIAS; narrower rows may send the BIAS call to cuBLAS too.
        assert fallbacks2 >= fallbacks + 1
    assert out.grad_fn.name() == "GeluBackward0"
    with genesis.no_grad():
        assert_bitwise(out.detach(), compose(*ts, 1, 1, True))
