"""nn.utils against torch.nn.utils: clip_grad_norm_ (every norm type, nonfinite handling),
clip_grad_value_, get_total_norm, parameters_to_vector and vector_to_parameters."""

import numpy as np
import pytest

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


def _np(t):
    return t.detach().cpu().numpy()


def _params(device, grads):
    g_params, t_params = [], []
    for a in grads:
        gp = nn.Parameter(genesis.zeros(a.shape, device=device))
        gp.grad = genesis.tensor(a, device=device)
        tp = torch.nn.Parameter(torch.zeros(a.shape))
        tp.grad = torch.tensor(a)
        g_params.append(gp)
        t_params.append(tp)
    return g_params, t_params


GRADS = [
    RNG.normal(size=(3, 4)).astype(np.float32),
    RNG.normal(size=(5,)).astype(np.float32),
    RNG.normal(size=()).astype(np.float32),
]


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.1, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, device):
    gp, tp = _params(device, GRADS)
    total_g = nn.utils.clip_grad_norm_(gp, max_norm, norm_type)
    total_t = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    assert total_g.shape == () and total_g.device.type == device
    np.testing.assert_allclose(_np(total_g), _np(total_t), rtol=1e-5)
    for a, b in zip(gp, tp):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_edge_cases():
    p = nn.Parameter(genesis.zeros(2))
    assert float(nn.utils.clip_grad_norm_([p], 1.0)) == 0.0  # no gradients at all
    p.grad = genesis.tensor([3.0, 4.0])
    assert float(nn.utils.clip_grad_norm_(p, 1.0)) == 5.0  # a lone tensor
    np.testing.assert_allclose(_np(p.grad), [0.6, 0.8], rtol=1e-5)
    p.grad = genesis.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert np.isnan(float(nn.utils.clip_grad_norm_([p], 1.0)))
    total = nn.utils.get_total_norm([genesis.tensor([3.0]), genesis.tensor([4.0])])
    assert float(total) == 5.0


def test_clip_grad_value_matches_torch(device):
    gp, tp = _params(device, GRADS)
    nn.utils.clip_grad_value_(gp, 0.3)
    torch.nn.utils.clip_grad_value_(tp, 0.3)
    for a, b in zip(gp, tp):
        np.testing.assert_array_equal(_np(a.grad), _np(b.grad))
    with pytest.raises(ValueError, match="NaN"):
        nn.utils.clip_grad_value_(gp, float("nan"))


def test_parameters_to_vector_and_back(device):
    g = nn.Linear(3, 2).to(device)
    t = torch.nn.Linear(3, 2)
    t.load_state_dict({k: torch.from_dlpack(v.cpu()) for k, v in g.state_dict().items()})
    vec = nn.utils.parameters_to_vector(g.parameters())
    np.testing.assert_array_equal(
        _np(vec), _np(torch.nn.utils.parameters_to_vector(t.parameters()))
    )
    nn.utils.vector_to_parameters(vec * 2, g.parameters())
    np.testing.assert_array_equal(_np(g.weight), 2 * _np(t.weight))
    (nn.utils.parameters_to_vector(g.parameters()) ** 2).sum().backward()  # differentiable
    np.testing.assert_allclose(_np(g.weight.grad), 4 * _np(t.weight), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"\[vector_to_parameters\] vec has shape \(3,\)"):
        nn.utils.vector_to_parameters(genesis.zeros(3, device=device), g.parameters())
    with pytest.raises(TypeError, match="expected genesis.Tensor"):
        nn.utils.vector_to_parameters([1.0], g.parameters())
