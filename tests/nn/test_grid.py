"""affine_grid and grid_sample against torch: every mode, padding mode and align_corners, 2-D and
3-D, values and the gradients to both the input and the grid (float64), and bad input."""

import numpy as np
import pytest
from test_autograd import check_grads

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(21)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(nd, align_corners, device):
    theta = RNG.normal(size=(2, nd, nd + 1))
    size = (2, 3, 5, 4) if nd == 2 else (2, 3, 4, 3, 5)
    check_grads(
        lambda m, t: m.nn.functional.affine_grid(t, size, align_corners=align_corners),
        [theta],
        device,
    )


CASES = [(2, mode) for mode in ("bilinear", "nearest", "bicubic")] + [
    (3, mode) for mode in ("bilinear", "nearest")
]


@pytest.mark.parametrize("nd, mode", CASES)
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(nd, mode, padding_mode, align_corners, device):
    x = RNG.normal(size=(2, 3, 6, 7) if nd == 2 else (2, 3, 4, 5, 6))
    grid = RNG.uniform(-1.3, 1.3, size=(2, 4, 5, 2) if nd == 2 else (2, 3, 4, 2, 3))

    def sample(m, x, grid):
        return m.nn.functional.grid_sample(x, grid, mode, padding_mode, align_corners)

    if mode == "nearest":  # no gradient to the grid

        def fixed_grid(m, x):
            g = genesis.tensor(grid, device=device) if m is genesis else torch.tensor(grid)
            return sample(m, x, g)

        check_grads(fixed_grid, [x], device)
    else:
        check_grads(sample, [x, grid], device)


def test_grid_errors_and_warnings():
    x = genesis.zeros(1, 1, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, genesis.zeros(1, 1, 1, 2))
    with pytest.raises(ValueError, match=r"\[grid_sample\] .* expected mode"):
        F.grid_sample(x, genesis.zeros(1, 1, 1, 2), mode="area", align_corners=False)
    with pytest.raises(RuntimeError, match=r"\[grid_sample\] bicubic interpolation only"):
        F.grid_sample(
            genesis.zeros(1, 1, 2, 2, 2),
            genesis.zeros(1, 1, 1, 1, 3),
            "bicubic",
            align_corners=False,
        )
    with pytest.raises(ValueError, match=r"\[affine_grid\] Expected a batch of 2D affine"):
        F.affine_grid(genesis.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False)


def test_conv_tbc_matches_torch(device):
    x, w, b = RNG.normal(size=(5, 2, 3)), RNG.normal(size=(3, 3, 4)), RNG.normal(size=(4,))
    check_grads(
        lambda m, x, w, b: (
            m.conv_tbc(x, w, b, 1) if m is torch else m.nn.functional.conv_tbc(x, w, b, 1)
        ),
        [x, w, b],
        device,
    )
