"""nn.Module and nn.Parameter against torch.nn: registration, traversal and dotted names,
state_dict and load_state_dict (both directions, strict and not, assign, errors), moves and
casts, train/eval, zero_grad, hooks (forward pre/post, full backward), repr, copies and pickles."""

import copy
import io
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def _build(lib, device="cpu"):
    """The same small model in genesis or torch: nested modules, a tied submodule, buffers."""
    n = lib.nn

    class Block(n.Module):
        def __init__(self):
            super().__init__()
            self.fc = n.Linear(4, 4)
            self.register_buffer("scale", lib.ones(4))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def forward(self, x):
            return self.fc(x) * self.scale

    class Net(n.Module):
        def __init__(self):
            super().__init__()
            self.embed = n.Linear(3, 4, bias=False)
            self.blocks = n.ModuleList([Block(), Block()])
            self.head = n.Sequential(n.Linear(4, 2))
            self.alias = self.head  # a tied module: one set of parameters, two names
            self.gain = n.Parameter(lib.ones(1))

        def forward(self, x):
            x = self.embed(x)
            for b in self.blocks:
                x = b(x)
            return self.head(x) * self.gain

    return Net().to(device)


def _copy_torch_into_genesis(t_model, g_model):
    g_model.load_state_dict(t_model.state_dict())


def test_names_match_torch():
    g, t = _build(genesis), _build(torch)
    assert [k for k, _ in g.named_parameters()] == [k for k, _ in t.named_parameters()]
    assert [k for k, _ in g.named_buffers()] == [k for k, _ in t.named_buffers()]
    assert [k for k, _ in g.named_modules()] == [k for k, _ in t.named_modules()]
    assert [k for k, _ in g.named_children()] == [k for k, _ in t.named_children()]
    assert list(g.state_dict()) == list(t.state_dict())
    assert len(list(g.parameters())) == len(list(t.parameters()))
    assert [k for k, _ in g.named_parameters(remove_duplicate=False)] == [
        k for k, _ in t.named_parameters(remove_duplicate=False)
    ]
    assert [k for k, _ in g.named_parameters(prefix="m", recurse=False)] == ["m.gain"]
    assert g.get_submodule("blocks.1.fc") is g.blocks[1].fc
    assert g.get_parameter("blocks.0.fc.bias") is g.blocks[0].fc.bias
    assert g.get_buffer("blocks.0.scale") is g.blocks[0].scale
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        g.get_submodule("blocks.nope")
    with pytest.raises(AttributeError, match="not an nn.Parameter"):
        g.get_parameter("blocks.0.scale")


def test_repr_matches_torch():
    g, t = _build(genesis), _build(torch)
    assert repr(g).replace("genesis.", "torch.") == repr(t)
    assert repr(genesis.nn.Linear(2, 3, bias=False)) == repr(torch.nn.Linear(2, 3, bias=False))
    ml = (
        genesis.nn.ModuleList([genesis.nn.Linear(2, 2) for _ in range(3)]),
        torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)]),
    )
    assert repr(ml[0]) == repr(ml[1])


def test_forward_matches_torch_after_loading_its_state_dict(device):
    t = _build(torch)
    g = _build(genesis, device)
    result = g.load_state_dict(t.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    out_g = g(genesis.tensor(x, device=device))
    out_t = t(torch.tensor(x))
    np.testing.assert_allclose(_np(out_g), _np(out_t), rtol=1e-5, atol=1e-6)
    out_g.sum().backward()
    out_t.sum().backward()
    for (name, pg), (_, pt) in zip(g.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(_np(pg.grad), _np(pt.grad), rtol=1e-5, atol=1e-6, err_msg=name)


def test_torch_loads_a_genesis_state_dict():
    g, t = _build(genesis), _build(torch)
    t.load_state_dict({k: torch.from_dlpack(v) for k, v in g.state_dict().items()})
    for k, v in g.state_dict().items():
        np.testing.assert_array_equal(_np(v), _np(t.state_dict()[k]))


def test_state_dict_is_detached_and_keeps_vars_on_request():
    g = _build(genesis)
    sd = g.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not sd["embed.weight"].requires_grad
    assert type(sd["embed.weight"]) is genesis.Tensor
    assert sd["blocks.0.scale"] is not None and "blocks.0.scratch" not in sd
    kept = g.state_dict(keep_vars=True)
    assert kept["embed.weight"] is g.embed.weight
    assert list(g.state_dict(prefix="model.")) == ["model." + k for k in sd]


def test_load_state_dict_reports_every_problem():
    g = _build(genesis)
    sd = g.state_dict()
    bad = dict(sd)
    del bad["gain"]
    bad["extra.weight"] = genesis.zeros(1)
    bad["embed.weight"] = genesis.zeros(4, 4)
    with pytest.raises(RuntimeError) as info:
        g.load_state_dict(bad)
    text = str(info.value)
    assert text.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "gain"' in text
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in text
    assert "size mismatch for embed.weight" in text and "[4, 4]" in text and "[4, 3]" in text
    # strict=False: the key lists come back; a shape mismatch is still an error
    del bad["embed.weight"]
    result = g.load_state_dict(bad, strict=False)
    t = _build(torch)
    expected = t.load_state_dict({k: torch.from_dlpack(v) for k, v in bad.items()}, strict=False)
    assert result.missing_keys == expected.missing_keys == ["gain", "embed.weight"]
    assert result.unexpected_keys == expected.unexpected_keys == ["extra.weight"]
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        g.load_state_dict([1, 2])


def test_load_state_dict_copies_in_place_or_assigns():
    g = _build(genesis)
    weight = g.embed.weight
    new = {k: v.clone() + 1 for k, v in g.state_dict().items()}
    g.load_state_dict(new)
    assert g.embed.weight is weight  # the same Parameter object, new values
    np.testing.assert_array_equal(_np(weight), _np(new["embed.weight"]))
    g.load_state_dict(new, assign=True)
    assert g.embed.weight is not weight and isinstance(g.embed.weight, nn.Parameter)
    assert g.embed.weight.requires_grad
    assert g.embed.weight.data_ptr() == new["embed.weight"].data_ptr()


def test_state_dict_survives_save_and_load_with_weights_only():
    g = _build(genesis)
    buf = io.BytesIO()
    genesis.save(g.state_dict(), buf)
    buf.seek(0)
    loaded = genesis.load(buf)
    assert list(loaded) == list(g.state_dict())
    fresh = _build(genesis)
    fresh.load_state_dict(loaded)
    for k, v in fresh.state_dict().items():
        np.testing.assert_array_equal(_np(v), _np(g.state_dict()[k]))
    # a Parameter saved on its own comes back as one
    buf = io.BytesIO()
    genesis.save(g.gain, buf)
    buf.seek(0)
    p = genesis.load(buf)
    assert isinstance(p, nn.Parameter) and p.requires_grad


def test_attribute_registration_rules():
    m = nn.Module()
    m.w = nn.Parameter(genesis.ones(2))
    m.sub = nn.Linear(2, 2)
    m.register_buffer("b", genesis.zeros(2))
    m.plain = 3
    assert set(m._parameters) == {"w"} and set(m._modules) == {"sub"} and set(m._buffers) == {"b"}
    assert "w" not in m.__dict__ and m.plain == 3
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'w'"):
        m.w = genesis.zeros(2)
    m.w = None
    assert m._parameters["w"] is None and "w" not in dict(m.named_parameters())
    with pytest.raises(TypeError, match="as child module 'sub'"):
        m.sub = 3
    m.b = genesis.ones(2)
    with pytest.raises(TypeError, match="as buffer 'b'"):
        m.b = [1, 2]
    m.x = nn.Buffer(genesis.ones(3), persistent=False)
    assert "x" in m._buffers and "x" not in m.state_dict()
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("plain", genesis.zeros(1))
    with pytest.raises(KeyError, match=r'contain "\."'):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("q", 3)
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nothing'"):
        m.nothing  # noqa: B018
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(TypeError, match="cannot assign 'Tensor' object to parameter 'y'"):
        m.register_parameter("y", nn.Parameter(genesis.ones(1)) * 2)
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        m(genesis.ones(1))


def test_assigning_before_init_raises():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(genesis.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_parameter_is_a_tensor_that_requires_grad():
    data = genesis.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, genesis.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert p.data_ptr() == data.data_ptr()  # shares the data's memory, as torch's does
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert type(p * 2) is genesis.Tensor
    (p * p).sum().backward()
    np.testing.assert_array_equal(_np(p.grad), [2.0, 4.0])
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.data_ptr() != p.data_ptr()
    np.testing.assert_array_equal(_np(q.grad), [2.0, 4.0])
    assert nn.Parameter().shape == (0,)
    with pytest.raises(TypeError, match=r"\[Parameter\] data must be a genesis.Tensor"):
        nn.Parameter([1.0])


def test_train_eval_requires_grad_and_zero_grad():
    g = _build(genesis)
    assert g.training and g.blocks[0].fc.training
    assert g.eval() is g and not g.training and not g.blocks[1].fc.training
    g.train()
    assert g.blocks[1].fc.training
    with pytest.raises(ValueError, match="boolean"):
        g.train("yes")
    g(genesis.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in g.parameters())
    g.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in g.parameters())
    g.zero_grad()
    assert all(p.grad is None for p in g.parameters())
    g.requires_grad_(False)
    assert not any(p.requires_grad for p in g.parameters())


def test_to_casts_floating_tensors_and_keeps_parameter_objects(device):
    g = _build(genesis)
    g.register_buffer("steps", genesis.zeros(1, dtype=genesis.int64))
    weight = g.embed.weight
    g(genesis.randn(2, 3)).sum().backward()
    assert g.to(device, genesis.float64) is g
    assert g.embed.weight is weight and weight.dtype == genesis.float64
    assert weight.device.type == device and weight.grad.dtype == genesis.float64
    assert g.steps.dtype == genesis.int64 and g.blocks[0].scale.dtype == genesis.float64
    g.half()
    assert weight.dtype == genesis.float16 and g.steps.dtype == genesis.int64
    g.float().bfloat16()
    assert weight.dtype == genesis.bfloat16
    g.double()
    g.to(genesis.zeros(1, dtype=genesis.float32))
    assert weight.dtype == genesis.float32
    g.to(dtype=genesis.float64, non_blocking=True)
    assert weight.dtype == genesis.float64
    g.cpu()
    assert weight.device.type == "cpu"
    with pytest.raises(TypeError, match="only accepts floating point"):
        g.to(genesis.int32)


def test_apply_and_share_memory():
    g = _build(genesis)
    seen = []
    assert g.apply(lambda m: seen.append(type(m).__name__)) is g
    assert seen[-1] == "Net" and seen.count("Linear") == 4


def test_forward_hooks():
    g = nn.Linear(3, 2)
    calls = []

    def pre(module, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(module, args, output):
        calls.append("post")
        return output + 1

    h1 = g.register_forward_pre_hook(pre)
    h2 = g.register_forward_hook(post)
    h3 = g.register_forward_hook(lambda m, a, o: calls.append("first"), prepend=True)
    out = g(genesis.randn(4, 3))
    assert calls == ["pre", "first", "post"]
    np.testing.assert_allclose(_np(out), _np(g.bias + 1).reshape(1, 2).repeat(4, 0), rtol=1e-6)
    for h in (h1, h2, h3):
        h.remove()
    calls.clear()
    g(genesis.randn(4, 3))
    assert calls == []

    kw = []
    with g.register_forward_pre_hook(lambda m, a, k: kw.append(k), with_kwargs=True):
        g(input=genesis.randn(1, 3))
    assert kw == [{"input": kw[0]["input"]}]
    assert not g._forward_pre_hooks and not g._forward_pre_hooks_with_kwargs

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    b = Boom()
    always = []
    b.register_forward_hook(lambda m, a, o: always.append(o), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        b(genesis.ones(1))
    assert always == [None]


def _hooked_grads(lib, x_requires_grad):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Identity(), lib.nn.Linear(4, 2))
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append(
            (
                "hook",
                [None if g is None else _np(g) for g in grad_input],
                [_np(g) for g in grad_output],
            )
        )
        return tuple(None if g is None else g * 2 for g in grad_input)

    def pre_hook(module, grad_output):
        seen.append(("pre", [_np(g) for g in grad_output]))

    model[0].register_full_backward_hook(hook)
    model[0].register_full_backward_pre_hook(pre_hook)
    return model, seen


@pytest.mark.filterwarnings("ignore:Full backward hook")
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_full_backward_hooks_match_torch(x_requires_grad):
    g, seen_g = _hooked_grads(genesis, x_requires_grad)
    t, seen_t = _hooked_grads(torch, x_requires_grad)
    g.load_state_dict(t.state_dict())
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    gx = genesis.tensor(x, requires_grad=x_requires_grad)
    tx = torch.tensor(x, requires_grad=x_requires_grad)
    g(gx).sum().backward()
    t(tx).sum().backward()
    assert [s[0] for s in seen_g] == [s[0] for s in seen_t]
    for a, b in zip(seen_g, seen_t):
        for ga, gb in zip(a[1:], b[1:]):
            for va, vb in zip(ga, gb):
                if vb is None:
                    assert va is None
                else:
                    np.testing.assert_allclose(va, vb, rtol=1e-5, atol=1e-6)
    if x_requires_grad:  # the hook doubled grad_input
        np.testing.assert_allclose(_np(gx.grad), _np(tx.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(g[0].weight.grad), _np(t[0].weight.grad), rtol=1e-5)


def test_state_dict_and_load_hooks():
    g = nn.Linear(2, 2)
    g.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd.__setitem__("x", 1))
    assert g.state_dict()["x"] == 1
    post = []
    g.register_load_state_dict_post_hook(lambda m, keys: post.append(list(keys.missing_keys)))
    g.load_state_dict({"weight": genesis.zeros(2, 2)}, strict=False)
    assert post == [["bias"]]


def test_extra_state_round_trips():
    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    a, b = WithState(), WithState()
    a.count = 7
    sd = a.state_dict()
    assert sd["_extra_state"] == {"count": 7}
    b.load_state_dict(sd)
    assert b.count == 7


def test_deepcopy_and_pickle():
    g = _build(genesis)
    c = copy.deepcopy(g)
    assert c.alias is c.head  # ties survive
    assert c.embed.weight is not g.embed.weight and isinstance(c.embed.weight, nn.Parameter)
    for (_, v), (_, w) in zip(g.state_dict().items(), c.state_dict().items()):
        np.testing.assert_array_equal(_np(v), _np(w))
    p = pickle.loads(pickle.dumps(nn.Sequential(nn.Linear(2, 3))))
    assert isinstance(p[0].weight, nn.Parameter) and p[0].weight.shape == (3, 2)


def test_dir_lists_registered_names():
    g = _build(genesis)
    names = dir(g)
    assert {"embed", "blocks", "gain", "forward", "state_dict"} <= set(names)
