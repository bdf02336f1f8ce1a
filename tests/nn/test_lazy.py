"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*)
and their placeholders (UninitializedParameter, UninitializedBuffer) against torch.nn's: the
shapes, dtype and device they materialize to, the class they become, outputs on the same
parameters, default initialization, state_dict both ways, and the errors of using a placeholder."""

import copy
import pickle

import numpy as np
import pytest
from torch_reference import skip_unless_reference_torch

import genesis
import genesis.nn as nn
from genesis.nn.modules.lazy import LazyModuleMixin
from genesis.nn.parameter import is_lazy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)

# (lazy class, constructor keywords, input shape); torch.nn has the same class and keywords.
CASES = [
    ("LazyLinear", {"out_features": 3}, (2, 5)),
    ("LazyLinear", {"out_features": 3, "bias": False}, (4, 2, 5)),
    ("LazyConv1d", {"out_channels": 4, "kernel_size": 3}, (2, 2, 10)),
    ("LazyConv1d", {"out_channels": 4, "kernel_size": 3, "padding": "same"}, (2, 10)),
    (
        "LazyConv2d",
        {"out_channels": 4, "kernel_size": 3, "padding": 1, "groups": 2, "bias": False},
        (1, 6, 5, 5),
    ),
    (
        "LazyConv2d",
        {"out_channels": 2, "kernel_size": 3, "padding": 1, "padding_mode": "reflect"},
        (2, 3, 4, 4),
    ),
    ("LazyConv3d", {"out_channels": 2, "kernel_size": 2, "stride": 2}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", {"out_channels": 3, "kernel_size": 2, "stride": 2}, (1, 2, 4)),
    (
        "LazyConvTranspose2d",
        {"out_channels": 4, "kernel_size": 3, "stride": 2, "output_padding": 1, "groups": 2},
        (1, 2, 4, 4),
    ),
    ("LazyConvTranspose3d", {"out_channels": 1, "kernel_size": 2}, (2, 3, 3, 3)),
    ("LazyBatchNorm1d", {}, (8, 3)),
    ("LazyBatchNorm1d", {"momentum": None, "bias": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", {}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", {"affine": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", {"track_running_stats": False}, (2, 3, 2, 2, 2)),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def _np(t):
    return t.detach().cpu().numpy()


def _device(device):
    """The device a tensor made on ``device`` reports ("cuda" resolves to "cuda:0")."""
    return genesis.zeros(1, device=device).device


def _become(name):
    return getattr(nn, name.replace("Lazy", ""))


def _tensors(module):
    return {**dict(module.named_parameters()), **dict(module.named_buffers())}


def _torch_state(module):
    return {k: torch.from_dlpack(v.cpu()) for k, v in module.state_dict().items()}


def _assert_same_repr(g, t):
    if t.__dict__.get("num_features") == 0 and g.num_features:
        # torch 2.13 leaves num_features 0 when there is nothing to materialize (an instance
        # norm without affine or running statistics) and warns at each call; genesis takes it
        # from the input.
        t.num_features = g.num_features
    assert repr(g) == repr(t)


@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("name, kwargs, shape", CASES, ids=IDS)
def test_materializes_like_torch_and_becomes_the_layer(name, kwargs, shape, device):
    if "Norm" in name:
        skip_unless_reference_torch(torch, "the norm layers' bias= argument and reprs")
    g, t = getattr(nn, name)(**kwargs).to(device), getattr(torch.nn, name)(**kwargs)
    assert type(g) is getattr(nn, name)
    assert g.has_uninitialized_params() == any(map(is_lazy, _tensors(g).values()))
    assert repr(g) == repr(t)
    assert sorted(g.state_dict()) == sorted(t.state_dict())
    assert all(isinstance(p, nn.UninitializedParameter) for p in g.parameters())
    x = RNG.normal(size=shape).astype(np.float32)
    out_g, out_t = g(genesis.tensor(x, device=device)), t(torch.tensor(x))
    assert type(g) is _become(name) and not any(map(is_lazy, _tensors(g).values()))
    assert not g._forward_pre_hooks and not g._load_state_dict_pre_hooks
    _assert_same_repr(g, t)
    assert tuple(out_g.shape) == tuple(out_t.shape)
    t_tensors = {**dict(t.named_parameters()), **dict(t.named_buffers())}
    for key, value in _tensors(g).items():
        assert type(value) in (nn.Parameter, genesis.Tensor), key
        assert tuple(value.shape) == tuple(t_tensors[key].shape), key
        assert value.device == _device(device), key
        if value.is_floating_point():
            assert value.dtype == genesis.float32, key
    for key, value in g.named_parameters():
        assert type(value) is nn.Parameter and value.requires_grad, key
    # The same parameters give the same outputs, in training and in eval.
    g.load_state_dict(t.state_dict())
    x2 = RNG.normal(size=shape).astype(np.float32)
    for mode in (True, False):
        g.train(mode), t.train(mode)
        out_g, out_t = g(genesis.tensor(x2, device=device)), t(torch.tensor(x2))
        np.testing.assert_allclose(_np(out_g), _np(out_t), rtol=1e-4, atol=1e-5)


@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("name, kwargs, shape", CASES, ids=IDS)
def test_uninitialized_module_loads_torchs_checkpoint(name, kwargs, shape, device):
    if "Norm" in name:
        skip_unless_reference_torch(torch, "the norm layers' bias= argument and reprs")
    t = getattr(torch.nn, name)(**kwargs)
    x = RNG.normal(size=shape).astype(np.float32)
    t(torch.tensor(x))  # initialized, and the running statistics updated once
    g = getattr(nn, name)(**kwargs).to(device)
    g.load_state_dict(t.state_dict())  # materializes from the checkpoint's shapes
    assert type(g) is getattr(nn, name) and not g.has_uninitialized_params()
    for key, value in _tensors(g).items():
        np.testing.assert_array_equal(_np(value), _np(t.state_dict()[key]), err_msg=key)
        assert value.device == _device(device), key
    g.eval(), t.eval()
    out_g, out_t = g(genesis.tensor(x, device=device)), t(torch.tensor(x))
    assert type(g) is _become(name)
    _assert_same_repr(g, t)
    np.testing.assert_allclose(_np(out_g), _np(out_t), rtol=1e-4, atol=1e-5)


def test_torch_loads_a_materialized_genesis_checkpoint(device):
    g = nn.LazyConv2d(4, 3).to(device)
    g(genesis.randn(1, 2, 5, 5, device=device))
    t = torch.nn.LazyConv2d(4, 3)
    t.load_state_dict(_torch_state(g))
    np.testing.assert_array_equal(_np(t.weight), _np(g.weight))
    assert tuple(t.weight.shape) == (4, 2, 3, 3)


def test_to_dtype_and_device_before_the_first_call(device):
    m = nn.LazyBatchNorm2d().to(device).to(genesis.float64)
    for key, value in _tensors(m).items():
        if key != "num_batches_tracked":
            assert is_lazy(value) and value.dtype == genesis.float64, key
            assert value.device == _device(device), key
    m(genesis.randn(2, 3, 4, 4, device=device, dtype=genesis.float64))
    assert m.weight.dtype == m.running_var.dtype == genesis.float64
    assert m.num_batches_tracked.dtype == genesis.int64
    assert m.running_mean.device == _device(device)
    lin = nn.LazyLinear(2, device=device).double()
    weight = lin.weight
    out = lin(genesis.randn(3, 4, device=device, dtype=genesis.float64))
    assert lin.weight is weight  # the same Parameter object, materialized in place
    assert out.dtype == lin.bias.dtype == genesis.float64 and lin.weight.shape == (2, 4)
    conv = nn.LazyConvTranspose2d(3, 2, device=device, dtype=genesis.float64)
    conv(genesis.zeros(1, 2, 3, 3, device=device, dtype=genesis.float64))
    assert conv.weight.dtype == genesis.float64 and conv.weight.device == _device(device)
    half = nn.LazyLinear(2).half()
    assert half.weight.dtype == genesis.float16 and is_lazy(half.weight)


@pytest.mark.parametrize(
    "lazy, eager, shape",
    [
        (lambda d: nn.LazyLinear(3, device=d), lambda d: nn.Linear(5, 3, device=d), (2, 5)),
        (
            lambda d: nn.LazyConv2d(4, 3, groups=2, device=d),
            lambda d: nn.Conv2d(6, 4, 3, groups=2, device=d),
            (1, 6, 5, 5),
        ),
        (
            lambda d: nn.LazyConvTranspose1d(3, 2, device=d),
            lambda d: nn.ConvTranspose1d(2, 3, 2, device=d),
            (1, 2, 4),
        ),
    ],
)
def test_default_initialization_is_the_layers(lazy, eager, shape, device):
    x = genesis.randn(*shape, device=device)
    genesis.manual_seed(3)
    reference = eager(device)
    genesis.manual_seed(3)
    m = lazy(device)
    m(x)
    for (key, value), (_, expected) in zip(m.named_parameters(), reference.named_parameters()):
        np.testing.assert_array_equal(_np(value), _np(expected), err_msg=key)


@pytest.mark.parametrize("name", ["LazyBatchNorm1d", "LazyInstanceNorm1d"])
def test_norm_initialization_is_the_layers(name, device):
    m = getattr(nn, name)().to(device).eval()  # eval: the running statistics stay as reset
    m(genesis.randn(2, 3, 4, device=device))
    np.testing.assert_array_equal(_np(m.weight), np.ones(3, np.float32))
    np.testing.assert_array_equal(_np(m.bias), np.zeros(3, np.float32))
    np.testing.assert_array_equal(_np(m.running_mean), np.zeros(3, np.float32))
    np.testing.assert_array_equal(_np(m.running_var), np.ones(3, np.float32))
    assert int(m.num_batches_tracked) == 0


def test_unbatched_input_gives_the_channels(device):
    conv = nn.LazyConv1d(4, 3).to(device)
    conv(genesis.zeros(2, 10, device=device))
    assert conv.in_channels == 2 and conv.weight.shape == (4, 2, 3)
    # Unlike torch 2.13 (which reads dim 1 of any input), an unbatched instance norm takes
    # its features from dim 0, the channels.
    norm = nn.LazyInstanceNorm1d().to(device)
    norm(genesis.randn(3, 5, device=device))
    assert norm.num_features == 3 and norm.weight.shape == (3,)


def test_sequential_of_lazy_layers_trains(device):
    model = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU())
    model.append(nn.Flatten())
    model.append(nn.LazyLinear(2))
    model.to(device)
    out = model(genesis.randn(2, 3, 4, 4, device=device))
    assert [type(m).__name__ for m in model] == [
        "Conv2d",
        "BatchNorm2d",
        "ReLU",
        "Flatten",
        "Linear",
    ]
    assert model[4].in_features == 64
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_forward_keywords_reach_initialize_parameters(device):
    m = nn.LazyLinear(2).to(device)
    assert m(input=genesis.zeros(3, 4, device=device)).shape == (3, 2)
    deconv = nn.LazyConvTranspose1d(1, 3, stride=2).to(device)
    out = deconv(genesis.zeros(1, 2, 4, device=device), output_size=[10])
    assert out.shape == (1, 1, 10)


def test_state_dict_of_an_uninitialized_module():
    m = nn.LazyBatchNorm1d()
    state = m.state_dict()
    assert list(state) == list(torch.nn.LazyBatchNorm1d().state_dict())
    assert [is_lazy(v) for v in state.values()] == [True, True, True, True, False]
    assert repr(state["weight"]) == "<UninitializedParameter>"
    assert repr(state["running_mean"]) == "<UninitializedBuffer>"
    # An uninitialized checkpoint into an uninitialized module (genesis's or torch's): no-op.
    fresh = nn.LazyBatchNorm1d()
    assert tuple(fresh.load_state_dict(state)) == ([], [])
    assert fresh.has_uninitialized_params() and list(fresh.state_dict()) == list(state)
    fresh.load_state_dict(torch.nn.LazyBatchNorm1d().state_dict())
    assert fresh.has_uninitialized_params()
    # Missing keys with strict=False leave the placeholders.
    missing, unexpected = nn.LazyLinear(2).load_state_dict({}, strict=False)
    assert missing == ["weight", "bias"] and unexpected == []


def test_state_dict_round_trip_between_genesis_modules(device):
    src = nn.LazyBatchNorm2d().to(device)
    src(genesis.randn(2, 3, 4, 4, device=device))
    dst = nn.LazyBatchNorm2d().to(device)
    dst.load_state_dict(src.state_dict())
    assert type(dst) is nn.LazyBatchNorm2d and not dst.has_uninitialized_params()
    for key, value in src.state_dict().items():
        np.testing.assert_array_equal(_np(dst.state_dict()[key]), _np(value), err_msg=key)
    dst.eval(), src.eval()
    x = genesis.randn(2, 3, 4, 4, device=device)
    np.testing.assert_array_equal(_np(dst(x)), _np(src(x)))  # loaded values are kept
    assert type(dst) is nn.BatchNorm2d and dst.num_features == 3
    # A plain layer's checkpoint loads into a lazy one too.
    lin = nn.Linear(4, 3).to(device)
    lazy = nn.LazyLinear(3).to(device)
    lazy.load_state_dict(lin.state_dict())
    x = genesis.randn(2, 4, device=device)
    np.testing.assert_array_equal(_np(lazy(x)), _np(lin(x)))
    assert lazy.in_features == 4 and repr(lazy) == repr(lin)


def test_uninitialized_checkpoint_into_an_initialized_module_raises():
    with pytest.raises(RuntimeError, match=r"\[UninitializedParameter\] Can't access the shape"):
        nn.Linear(4, 3).load_state_dict(nn.LazyLinear(3).state_dict())


def test_placeholders_refuse_math():
    p = nn.UninitializedParameter()
    assert isinstance(p, nn.Parameter) and isinstance(p, genesis.Tensor) and p.requires_grad
    assert repr(p) == "<UninitializedParameter>" and is_lazy(p)
    uses = [
        lambda: p + 1,
        lambda: 2 * p,
        lambda: p @ genesis.ones(3),
        lambda: p.sum(),
        lambda: p.exp_(),
        lambda: p[0],
        lambda: p.view(-1),
        lambda: p.dim(),
        lambda: p.numel(),
        lambda: len(p),
        lambda: bool(p),
        lambda: p == p,
        lambda: np.asarray(p),
    ]
    for use in uses:
        with pytest.raises(ValueError, match=r"^\[UninitializedParameter\] Attempted to use"):
            use()
    for attribute in ("shape", "ndim", "T"):
        with pytest.raises(RuntimeError, match=r"^\[UninitializedParameter\] Can't access"):
            getattr(p, attribute)
    b = nn.UninitializedBuffer()
    assert not b.requires_grad and b.persistent
    with pytest.raises(ValueError, match=r"^\[UninitializedBuffer\] Attempted to use"):
        b.mul(2)
    with pytest.raises(RuntimeError, match=r"\[UninitializedBuffer\] Can't share memory"):
        b.share_memory_()
    with pytest.raises((ValueError, RuntimeError), match=r"^\[UninitializedParameter\]"):
        nn.init.kaiming_uniform_(nn.LazyLinear(2).weight)


def test_materialize(device):
    p = nn.UninitializedParameter(device=device, dtype=genesis.float64)
    assert p.dtype == genesis.float64 and p.device == _device(device)
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.requires_grad
    assert p.dtype == genesis.float64 and p.device == _device(device)
    q = nn.UninitializedParameter(requires_grad=False)
    q.materialize(4, dtype=genesis.float16)
    assert q.shape == (4,) and q.dtype == genesis.float16 and not q.requires_grad
    b = nn.UninitializedBuffer(device=device)
    b.materialize([3])
    assert type(b) is genesis.Tensor and b.shape == (3,) and b.device == _device(device)
    assert (b.zero_() + 1).sum().item() == 3


def test_uninitialized_module_parameters_and_module_methods():
    m = nn.LazyLinear(3)
    params = list(m.parameters())
    assert len(params) == 2 and all(type(p) is nn.UninitializedParameter for p in params)
    with pytest.raises(ValueError, match=r"^\[UninitializedParameter\]"):
        m.weight * 2
    m.requires_grad_(False)
    m.zero_grad()
    assert not m.weight.requires_grad
    m(genesis.zeros(2, 4))
    assert not m.weight.requires_grad and m.weight.shape == (3, 4)
    with pytest.raises(RuntimeError, match=r"\[UninitializedParameter\] Can't share memory"):
        nn.LazyLinear(3).share_memory()


def test_copies_and_pickles_of_an_uninitialized_module():
    m = nn.LazyLinear(3)
    c = copy.deepcopy(m)
    c(genesis.zeros(1, 5))
    assert type(c) is nn.Linear and c.in_features == 5
    assert type(m) is nn.LazyLinear and m.has_uninitialized_params() and m._forward_pre_hooks
    m(genesis.zeros(1, 2))
    assert type(m) is nn.Linear and m.in_features == 2
    r = pickle.loads(pickle.dumps(nn.LazyConv1d(2, 3)))
    assert type(r) is nn.LazyConv1d and r.has_uninitialized_params()
    r(genesis.zeros(1, 4, 6))
    assert type(r) is nn.Conv1d and r.weight.shape == (2, 4, 3)


def test_input_errors():
    with pytest.raises(RuntimeError, match=r"\[LazyConv2d\] expected 3D or 4D input"):
        nn.LazyConv2d(4, 3)(genesis.zeros(2, 3))
    with pytest.raises(ValueError, match=r"\[LazyConv2d\] in_channels must be divisible by"):
        nn.LazyConv2d(4, 3, groups=2)(genesis.zeros(1, 3, 5, 5))
    with pytest.raises(ValueError, match=r"\[LazyConv2d\] out_channels must be divisible"):
        nn.LazyConv2d(3, 3, groups=2)
    with pytest.raises(ValueError, match=r"\[LazyConvTranspose1d\] Only \"zeros\" padding"):
        nn.LazyConvTranspose1d(3, 3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match=r"\[LazyLinear\] .* got a 0-d tensor"):
        nn.LazyLinear(2)(genesis.tensor(1.0))
    with pytest.raises(TypeError, match=r"\[LazyLinear\] input must be a genesis.Tensor"):
        nn.LazyLinear(2)([1.0, 2.0])
    with pytest.raises(ValueError, match=r"\[BatchNorm1d\] expected 2D or 3D input"):
        nn.LazyBatchNorm1d()(genesis.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"\[LazyInstanceNorm2d\] expected 3D or 4D input"):
        nn.LazyInstanceNorm2d()(genesis.zeros(2, 3))
    m = nn.LazyLinear(2)
    with pytest.raises(RuntimeError, match=r"\[Linear\] expected input with 4 features"):
        m.load_state_dict(nn.Linear(4, 2).state_dict())
        m(genesis.zeros(1, 5))

    class Incomplete(LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.UninitializedParameter()

        def initialize_parameters(self, input):
            pass

    with pytest.raises(RuntimeError, match=r"\[Incomplete\] module has not been fully"):
        Incomplete()(genesis.zeros(1))

    class NoInit(LazyModuleMixin, nn.Module):
        pass

    with pytest.raises(NotImplementedError, match=r"\[NoInit\] initialize_parameters"):
        NoInit()(genesis.zeros(1))
