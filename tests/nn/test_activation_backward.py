"""The fused backward of silu and the gelus (Note [Fused activation backward]): g * f'(x) in one
pass computed in float for 16-bit floats, so each result is rounded once, as PyTorch's
SiluBackward and GeluBackward kernels round it. Checked against torch for every floating dtype on
CPU and CUDA, non-contiguous and zero-size input, special values, and the second derivative
(create_graph, which takes the recorded chain) in float64.
"""

import numpy as np
import pytest
from conftest import requires_cuda
from test_autograd import grads_both

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DEVICES = ["cpu", pytest.param("cuda", marks=requires_cuda)]
ACTIVATIONS = {
    "silu": (lambda m, x: m.nn.functional.silu(x)),
    "gelu": (lambda m, x: m.nn.functional.gelu(x)),
    "gelu_tanh": (lambda m, x: m.nn.functional.gelu(x, approximate="tanh")),
}
# float32: 1 + tanh(inner) cancels near x = -4.5, where libraries differ by a few 1e-6
DTYPES = {"float64": 1e-12, "float32": 1e-5, "float16": 1e-3, "bfloat16": 8e-3}


def _gradients(name, x_np, g_np, dtype, device, view=lambda t: t):
    """(genesis's x.grad, torch's x.grad) as float64 arrays, both from the same x and g."""
    fn = ACTIVATIONS[name]
    gx = genesis.tensor(x_np, device=device).to(getattr(genesis, dtype)).requires_grad_()
    tx = torch.tensor(x_np).to(getattr(torch, dtype)).requires_grad_()
    gy, ty = fn(genesis, view(gx)), fn(torch, view(tx))
    gy.backward(genesis.tensor(g_np, device=device).to(gy.dtype))
    ty.backward(torch.tensor(g_np).to(ty.dtype))
    return (
        gx.grad.to(genesis.float64).cpu().numpy(),
        tx.grad.to(torch.float64).numpy(),
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_gradient_matches_torch(name, dtype, device):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((37, 129)) * 3
    g = rng.standard_normal((37, 129))
    got, want = _gradients(name, x, g, dtype, device)
    np.testing.assert_allclose(got, want, rtol=DTYPES[dtype], atol=DTYPES[dtype])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_16_bit_gradient_is_rounded_once(name, dtype, device):
    # Computed in float and rounded once, nearly every element equals torch's exactly; the chain
    # of 16-bit ops it replaced rounded a dozen times and agreed on far fewer.
    rng = np.random.default_rng(4)
    x = rng.standard_normal(20000) * 2.5
    g = rng.standard_normal(20000)
    got, want = _gradients(name, x, g, dtype, device)
    assert np.mean(got == want) >= 0.97
    ulp = 2.0**-7 if dtype == "bfloat16" else 2.0**-10
    np.testing.assert_allclose(got, want, rtol=2 * ulp, atol=1e-5)  # 1e-5: cancellation near 0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_non_contiguous_and_zero_size(name, device):
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((9, 14)), rng.standard_normal((7, 9))
    got, want = _gradients(name, x, g, "float32", device, view=lambda t: t.t()[2:9])
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    got, want = _gradients(name, np.zeros((0, 3)), np.zeros((0, 3)), "float32", device)
    assert got.shape == want.shape == (0, 3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_special_values(name, device):
    x = np.array([0.0, -0.0, 1e-30, -1e-30, 20.0, -20.0, 80.0, -80.0, np.inf, -np.inf, np.nan])
    g = np.ones_like(x)
    got, want = _gradients(name, x, g, "float32", device)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_second_derivative_matches_torch(name, device):
    x = np.random.default_rng(6).standard_normal((5, 7)) * 2
    grads_both(ACTIVATIONS[name], [x], device, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("device", DEVICES)
def test_fused_backward_under_autocast(device):
    # The GPT-2 MLP's form: a bfloat16 product under autocast, then the tanh gelu.
    rng = np.random.default_rng(7)
    xn, wn = rng.standard_normal((16, 24)), rng.standard_normal((32, 24)) * 0.2
    x = genesis.tensor(xn, dtype=genesis.float32, device=device, requires_grad=True)
    w = genesis.tensor(wn, dtype=genesis.float32, device=device, requires_grad=True)
    tx = torch.tensor(xn, dtype=torch.float32, requires_grad=True)
    tw = torch.tensor(wn, dtype=torch.float32, requires_grad=True)
    with genesis.autocast(device, dtype=genesis.bfloat16):
        y = F.gelu(F.linear(x, w), approximate="tanh")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ty = TF.gelu(TF.linear(tx, tw), approximate="tanh")
    assert y.dtype == genesis.bfloat16 and y.grad_fn.name() == "GeluBackward0"
    y.float().sum().backward()
    ty.float().sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(w.grad.cpu().numpy(), tw.grad.numpy(), rtol=3e-2, atol=3e-2)
