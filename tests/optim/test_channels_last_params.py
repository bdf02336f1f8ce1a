"""Optimizers step channels-last parameters where they lie (Note [Optimizer steps] in
csrc/ops/optimizer_step.cpp): a convolution weight moved to channels_last, its gradient and
its states made by zeros_like / clone all share one dense order, so the step reads them as
flat arrays; the values match torch's and the parameter keeps its layout. A state in another
layout (loaded from a contiguous state_dict) still steps correctly through a stand-in."""

import numpy as np
import pytest

import genesis

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(2)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
        lambda lib, p: lib.optim.AdamW(p, lr=0.01),
        lambda lib, p: lib.optim.Adam(p, lr=0.01, amsgrad=True),
    ],
    ids=["sgd", "adamw", "adam_amsgrad"],
)
def test_channels_last_weights_step_as_torch(device, make):
    w0 = RNG.normal(size=(6, 4, 3, 3)).astype(np.float32)
    grads = [RNG.normal(size=w0.shape).astype(np.float32) for _ in range(4)]
    out = {}
    for lib in (genesis, torch):
        w = lib.tensor(w0) if lib is torch else lib.tensor(w0, device=device)
        w = w.contiguous(memory_format=lib.channels_last).requires_grad_()
        opt = make(lib, [w])
        for g in grads:
            gt = lib.tensor(g) if lib is torch else lib.tensor(g, device=device)
            w.grad = gt.contiguous(memory_format=lib.channels_last)
            opt.step()
        assert w.is_contiguous(memory_format=lib.channels_last) and not w.is_contiguous()
        out[lib.__name__] = w.detach().cpu().numpy() if lib is genesis else w.detach().numpy()
    np.testing.assert_allclose(out["genesis"], out["torch"], rtol=1e-5, atol=1e-6)


def test_mixed_layouts_step_through_stand_ins(device):
    # a channels-last parameter whose gradient is contiguous
    w0 = RNG.normal(size=(5, 3, 2, 2)).astype(np.float32)
    g0 = RNG.normal(size=w0.shape).astype(np.float32)
    w = genesis.tensor(w0, device=device).contiguous(memory_format=genesis.channels_last)
    w.requires_grad_()
    w.grad = genesis.tensor(g0, device=device)
    genesis.optim.SGD([w], lr=0.5, momentum=0.9).step()
    np.testing.assert_allclose(w.detach().cpu().numpy(), w0 - 0.5 * g0, rtol=1e-6, atol=1e-6)
    assert w.is_contiguous(memory_format=genesis.channels_last)
