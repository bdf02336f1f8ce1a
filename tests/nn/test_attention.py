"""scaled_dot_product_attention, multi_head_attention_forward and MultiheadAttention against
torch on the same data and parameters: outputs, attention weights and every gradient (inputs,
float masks, parameters), each mask kind, causal, GQA, fully masked rows, the projection paths
(self-attention, shared key/value, separate kdim/vdim), bias_kv, zero attention, batch_first,
unbatched input, dtypes, dropout, repr, state_dict keys, default init and the input checks."""

import importlib
import warnings

import numpy as np
import pytest
from test_autograd import check_grads

import genesis

torch = pytest.importorskip("torch")

# Bool key padding masks beside float attention masks: both libraries warn (as tested once).
pytestmark = pytest.mark.filterwarnings("ignore:.*Support for mismatched")

RNG = np.random.default_rng(11)


def _gfn(name):
    """A genesis functional, from genesis.nn.functional once exported there."""
    return getattr(genesis.nn.functional, name, None) or getattr(
        importlib.import_module("genesis.nn.functional._attention"), name
    )


def _gcls(name):
    return getattr(genesis.nn, name, None) or getattr(
        importlib.import_module("genesis.nn.modules.attention"), name
    )


MultiheadAttention = _gcls("MultiheadAttention")


def sdpa(m):
    if m is torch:
        return torch.nn.functional.scaled_dot_product_attention
    return _gfn("scaled_dot_product_attention")


def mha_forward(m):
    if m is torch:
        return torch.nn.functional.multi_head_attention_forward
    return _gfn("multi_head_attention_forward")


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, genesis.Tensor) else t.detach().numpy()


def _rand(*shape, dtype=np.float64):
    return RNG.normal(size=shape).astype(dtype)


def _close(g, t, rtol, atol):
    assert tuple(g.shape) == tuple(t.shape), (g.shape, t.shape)
    np.testing.assert_allclose(_np(g), _np(t), rtol=rtol, atol=atol)


# --------------------------------------------------------------------------------------------
# scaled_dot_product_attention


def _bool_mask(shape, dead_row=False):
    m = RNG.random(shape) < 0.7
    m[..., 0] = True  # every row keeps a key
    if dead_row:
        m[..., 1, :] = False
    return m


def _float_mask(shape, dead_row=False):
    m = RNG.normal(size=shape)
    m[RNG.random(shape) < 0.3] = -np.inf
    m[..., 0] = 0.5
    if dead_row:
        m[..., 1, :] = -np.inf
    return m


@pytest.mark.parametrize(
    "mask_kind, mask_shape",
    [
        (None, None),
        ("bool", (3, 5)),
        ("bool", (2, 1, 1, 5)),  # a key padding mask
        ("bool", (2, 4, 3, 5)),
        ("float", (3, 5)),
        ("float", (2, 4, 3, 5)),
        ("float", (4, 1, 5)),
    ],
)
def test_sdpa_matches_torch_with_masks(mask_kind, mask_shape, device):
    q, k, v = _rand(2, 4, 3, 8), _rand(2, 4, 5, 8), _rand(2, 4, 5, 6)
    if mask_kind is None:
        check_grads(lambda m, q, k, v: sdpa(m)(q, k, v), [q, k, v], device)
    elif mask_kind == "bool":
        mask = _bool_mask(mask_shape)
        check_grads(
            lambda m, q, k, v: sdpa(m)(q, k, v, attn_mask=m.tensor(mask, device=q.device)),
            [q, k, v],
            device,
        )
    else:  # a float mask is a leaf too: its gradient is compared
        mask = _float_mask(mask_shape)
        check_grads(lambda m, q, k, v, a: sdpa(m)(q, k, v, a), [q, k, v, mask], device)


@pytest.mark.parametrize("L, S", [(4, 4), (5, 3), (3, 5)])
def test_sdpa_causal_is_top_left_aligned(L, S, device):
    q, k, v = _rand(2, 3, L, 4), _rand(2, 3, S, 4), _rand(2, 3, S, 5)
    check_grads(lambda m, q, k, v: sdpa(m)(q, k, v, is_causal=True), [q, k, v], device)


@pytest.mark.parametrize("scale", [0.3, -1.0, 2.0])
def test_sdpa_scale_is_keyword_only(scale, device):
    q, k, v = _rand(2, 3, 4), _rand(2, 5, 4), _rand(2, 5, 3)
    check_grads(lambda m, q, k, v: sdpa(m)(q, k, v, scale=scale), [q, k, v], device)
    g = [genesis.tensor(a, device=device) for a in (q, k, v)]
    with pytest.raises(TypeError):
        sdpa(genesis)(*g, None, 0.0, False, scale)


@pytest.mark.parametrize("hk, hv", [(2, 2), (1, 1), (2, 1), (4, 4)])
def test_sdpa_grouped_query_attention(hk, hv, device):
    q, k, v = _rand(2, 4, 3, 8), _rand(2, hk, 5, 8), _rand(2, hv, 5, 6)
    mask = _bool_mask((3, 5))
    check_grads(lambda m, q, k, v: sdpa(m)(q, k, v, enable_gqa=True), [q, k, v], device)
    check_grads(
        lambda m, q, k, v: sdpa(m)(
            q, k, v, attn_mask=m.tensor(mask, device=q.device), enable_gqa=True
        ),
        [q, k, v],
        device,
    )


def test_sdpa_broadcasts_batch_dims_and_takes_2d_inputs(device):
    q, k, v = _rand(4, 3, 8), _rand(2, 4, 5, 8), _rand(2, 4, 5, 8)
    check_grads(lambda m, q, k, v: sdpa(m)(q, k, v), [q, k, v], device)
    q, k, v = _rand(3, 8), _rand(5, 8), _rand(5, 2)
    check_grads(lambda m, q, k, v: sdpa(m)(q, k, v, is_causal=True), [q, k, v], device)


def test_sdpa_non_contiguous_inputs(device):
    # (B, L, H, E) transposed to (B, H, L, E): the layout of a projection split into heads.
    q, k, v = _rand(2, 3, 4, 8), _rand(2, 5, 4, 8), _rand(2, 5, 4, 8)
    check_grads(
        lambda m, q, k, v: sdpa(m)(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)),
        [q, k, v],
        device,
    )
    q = _rand(2, 4, 8, 3)
    check_grads(
        lambda m, q, k, v: sdpa(m)(q.transpose(-1, -2), k.transpose(1, 2), v.transpose(1, 2)),
        [q, k, v],
        device,
    )


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_fully_masked_rows_are_zero_as_torch(kind, device):
    q, k, v = _rand(2, 2, 4, 8), _rand(2, 2, 5, 8), _rand(2, 2, 5, 8)
    if kind == "bool":
        mask = _bool_mask((2, 1, 4, 5), dead_row=True)
        fn = lambda m, q, k, v: sdpa(m)(q, k, v, m.tensor(mask, device=q.device))  # noqa: E731
        check_grads(fn, [q, k, v], device)
    else:
        mask = _float_mask((4, 5), dead_row=True)
        fn = lambda m, q, k, v, a: sdpa(m)(q, k, v, a)  # noqa: E731
        check_grads(fn, [q, k, v, mask], device)
    out = sdpa(genesis)(
        *[genesis.tensor(a, device=device) for a in (q, k, v)], genesis.tensor(mask, device=device)
    )
    assert np.all(_np(out)[:, :, 1] == 0) and np.isfinite(_np(out)).all()


@pytest.mark.parametrize(
    "shapes",
    [((0, 2, 3, 4), (0, 2, 5, 4)), ((2, 2, 0, 4), (2, 2, 5, 4)), ((2, 2, 3, 4), (2, 2, 0, 4))],
)
def test_sdpa_zero_size(shapes, device):
    qs, ks = shapes
    q, k, v = _rand(*qs), _rand(*ks), _rand(*ks)
    out = sdpa(genesis)(*[genesis.tensor(a, device=device) for a in (q, k, v)])
    want = sdpa(torch)(*[torch.tensor(a) for a in (q, k, v)])
    _close(out, want, 1e-12, 1e-12)
    out = sdpa(genesis)(*[genesis.tensor(a, device=device) for a in (q, k, v)], is_causal=True)
    want = sdpa(torch)(*[torch.tensor(a) for a in (q, k, v)], is_causal=True)
    _close(out, want, 1e-12, 1e-12)


def test_sdpa_float32_and_half_precision(device):
    q, k, v = (_rand(2, 3, 4, 8, dtype=np.float32) for _ in range(3))
    mask = _bool_mask((4, 4))
    check_grads(
        lambda m, q, k, v: sdpa(m)(q, k, v, attn_mask=m.tensor(mask, device=q.device)),
        [q, k, v],
        device,
        rtol=1e-4,
        atol=1e-5,
    )
    for gd, td, tol in [
        (genesis.float16, torch.float16, 3e-3),
        (genesis.bfloat16, torch.bfloat16, 3e-2),
    ]:
        g = [genesis.tensor(a, device=device).to(gd) for a in (q, k, v)]
        t = [torch.tensor(a).to(td) for a in (q, k, v)]
        out = sdpa(genesis)(*g, is_causal=True)
        want = sdpa(torch)(*t, is_causal=True)
        assert out.dtype == gd
        np.testing.assert_allclose(_np(out.float()), want.float().numpy(), rtol=tol, atol=tol)
        fmask = torch.tensor(_float_mask((4, 4)), dtype=td)
        gmask = genesis.tensor(fmask.float().numpy(), device=device).to(gd)
        out = sdpa(genesis)(*g, attn_mask=gmask)
        want = sdpa(torch)(*t, attn_mask=fmask)
        np.testing.assert_allclose(_np(out.float()), want.float().numpy(), rtol=tol, atol=tol)
        # A float32 mask is accepted with half (and float64) queries, as in PyTorch.
        out = sdpa(genesis)(*g, attn_mask=gmask.float())
        want = sdpa(torch)(*t, attn_mask=fmask.float())
        assert out.dtype == gd
        np.testing.assert_allclose(_np(out.float()), want.float().numpy(), rtol=tol, atol=tol)
    q64, mask32 = _rand(2, 3, 4, 8), _float_mask((4, 4)).astype(np.float32)
    check_grads(
        lambda m, q: sdpa(m)(q, q, q, attn_mask=m.tensor(mask32, device=q.device)), [q64], device
    )


def test_sdpa_dropout(device):
    q, k, v = (genesis.tensor(_rand(2, 2, 16, 8), device=device) for _ in range(3))
    plain = sdpa(genesis)(q, k, v)
    genesis.manual_seed(3)
    a = sdpa(genesis)(q, k, v, dropout_p=0.5)
    genesis.manual_seed(3)
    b = sdpa(genesis)(q, k, v, dropout_p=0.5)
    assert np.array_equal(_np(a), _np(b))
    assert not np.allclose(_np(a), _np(plain))
    assert np.all(_np(sdpa(genesis)(q, k, v, dropout_p=1.0)) == 0)
    # The kept weights are scaled by 1 / (1 - p): with v = 1 each row sums the kept weights * 2.
    ones = genesis.ones(2, 2, 16, 8, device=device, dtype=genesis.float64)
    rows = _np(sdpa(genesis)(q, k, ones, dropout_p=0.5))
    assert abs(rows.mean() - 1.0) < 0.15
    qg = genesis.tensor(_rand(2, 2, 16, 8), device=device, requires_grad=True)
    sdpa(genesis)(qg, k, v, dropout_p=0.3).sum().backward()
    assert qg.grad is not None and np.isfinite(_np(qg.grad)).all()


def _raises(cls, prefix, fn):
    with pytest.raises(cls) as info:
        fn()
    assert str(info.value).startswith(f"[{prefix}]"), str(info.value)


def test_sdpa_bad_input(device):
    op = "scaled_dot_product_attention"
    f = sdpa(genesis)

    def t(*shape, dtype=genesis.float32):
        return genesis.randn(*shape, device=device).to(dtype)

    q, k, v = t(2, 4, 3, 8), t(2, 4, 5, 8), t(2, 4, 5, 6)
    keep = genesis.ones(3, 5, dtype=genesis.bool, device=device)
    _raises(RuntimeError, op, lambda: f(q, k, v, attn_mask=keep, is_causal=True))
    _raises(RuntimeError, op, lambda: f(t(8), k, v))
    _raises(RuntimeError, op, lambda: f(q, k.double(), v))
    _raises(RuntimeError, op, lambda: f(q, t(2, 4, 5, 7), v))
    _raises(RuntimeError, op, lambda: f(q, k, t(2, 4, 4, 6)))
    _raises(RuntimeError, op, lambda: f(q, k, v, attn_mask=keep.long()))
    _raises(RuntimeError, op, lambda: f(q, k, v, attn_mask=keep.double()))
    _raises(RuntimeError, op, lambda: f(q, k, v, attn_mask=genesis.ones(3, 4, device=device)))
    _raises(RuntimeError, op, lambda: f(q, k, v, dropout_p=1.5))
    _raises(RuntimeError, op, lambda: f(q, t(2, 3, 5, 8), t(2, 3, 5, 6), enable_gqa=True))
    _raises(RuntimeError, op, lambda: f(q, t(2, 8, 5, 8), t(2, 8, 5, 6), enable_gqa=True))
    _raises(RuntimeError, op, lambda: f(q, t(2, 2, 5, 8), t(2, 2, 5, 6)))  # no enable_gqa
    _raises(RuntimeError, op, lambda: f(q.long(), k.long(), v.long()))
    _raises(IndexError, op, lambda: f(t(3, 8), t(5, 8), t(5, 6), enable_gqa=True))
    _raises(TypeError, op, lambda: f(np.ones((3, 8)), k, v))


def test_sdpa_docstring_semantics():
    keep = genesis.tensor([[True, False], [True, False]])
    q = genesis.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    v = genesis.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    assert _np(sdpa(genesis)(q, q, v, attn_mask=keep)).tolist() == [[[1.0, 2.0], [1.0, 2.0]]]


# --------------------------------------------------------------------------------------------
# multi_head_attention_forward


def _mha_args(m, E, H, kdim, vdim, separate, bias_kv, bias, leaves):
    """The positional weights of multi_head_attention_forward from the leaves dict."""
    return dict(
        embed_dim_to_check=E,
        num_heads=H,
        in_proj_weight=None if separate else leaves["w_in"],
        in_proj_bias=leaves["b_in"] if bias else None,
        bias_k=leaves["bias_k"] if bias_kv else None,
        bias_v=leaves["bias_v"] if bias_kv else None,
        add_zero_attn=False,
        dropout_p=0.0,
        out_proj_weight=leaves["w_out"],
        out_proj_bias=leaves["b_out"] if bias else None,
        use_separate_proj_weight=separate,
        q_proj_weight=leaves["w_q"] if separate else None,
        k_proj_weight=leaves["w_k"] if separate else None,
        v_proj_weight=leaves["w_v"] if separate else None,
    )


@pytest.mark.parametrize("separate", [False, True])
@pytest.mark.parametrize("bias_kv", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_forward_functional_matches_torch(separate, bias_kv, need_weights, device):
    E, H, L, S, N = 8, 2, 3, 4, 2
    kdim, vdim = (5, 6) if separate else (E, E)
    names = [
        "q",
        "k",
        "v",
        "w_in",
        "b_in",
        "w_out",
        "b_out",
        "w_q",
        "w_k",
        "w_v",
        "bias_k",
        "bias_v",
    ]
    arrays = [
        _rand(L, N, E),
        _rand(S, N, kdim),
        _rand(S, N, vdim),
        _rand(3 * E, E),
        _rand(3 * E),
        _rand(E, E),
        _rand(E),
        _rand(E, E),
        _rand(E, kdim),
        _rand(E, vdim),
        _rand(1, 1, E),
        _rand(1, 1, E),
    ]
    kpm = RNG.random((N, S)) < 0.3
    kpm[:, 0] = False

    def fn(m, *leaves):
        d = dict(zip(names, leaves))
        out, w = mha_forward(m)(
            d["q"],
            d["k"],
            d["v"],
            **_mha_args(m, E, H, kdim, vdim, separate, bias_kv, True, d),
            training=False,
            need_weights=need_weights,
            average_attn_weights=False,
            key_padding_mask=m.tensor(kpm, device=d["q"].device),
        )
        return out if w is None else out.sum() + (w * w).sum()

    check_grads(fn, arrays, device)


def test_mha_forward_static_kv(device):
    E, H, L, S, N = 8, 2, 3, 4, 2
    arrays = [
        _rand(L, N, E),
        _rand(3 * E, E),
        _rand(E, E),
        _rand(N * H, S, E // H),
        _rand(N * H, S, E // H),
    ]

    def fn(m, q, w_in, w_out, sk, sv):
        out, w = mha_forward(m)(
            q,
            q,
            q,
            E,
            H,
            w_in,
            None,
            None,
            None,
            True,
            0.0,
            w_out,
            None,
            training=False,
            static_k=sk,
            static_v=sv,
        )
        return out.sum() + (w * w).sum()

    check_grads(fn, arrays, device)


# --------------------------------------------------------------------------------------------
# MultiheadAttention


def _pair(kw, device, dtype=torch.float32):
    t = torch.nn.MultiheadAttention(**kw).to(dtype)
    g = MultiheadAttention(**kw)
    g.load_state_dict(t.state_dict())
    return g.to(device), t


def _leaves(arrays, device):
    g = [genesis.tensor(a, device=device, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    return g, t


def _backward_and_compare(g_mod, t_mod, g_out, t_out, g_in, t_in, rtol, atol):
    """Compares outputs, then backpropagates one random gradient per output and compares the
    inputs' and parameters' gradients."""
    g_outs = [o for o in (g_out if isinstance(g_out, tuple) else (g_out,)) if o is not None]
    t_outs = [o for o in (t_out if isinstance(t_out, tuple) else (t_out,)) if o is not None]
    assert len(g_outs) == len(t_outs)
    g_total, t_total = 0, 0
    for go, to in zip(g_outs, t_outs):
        _close(go, to, rtol, atol)
        w = RNG.normal(size=tuple(to.shape)).astype(_np(to).dtype)
        g_total = g_total + (go * genesis.tensor(w, device=go.device)).sum()
        t_total = t_total + (to * torch.tensor(w)).sum()
    g_total.backward()
    t_total.backward()
    for gi, ti in zip(g_in, t_in):
        if ti.grad is None:
            continue
        _close(gi.grad, ti.grad, rtol, atol)
    t_params = dict(t_mod.named_parameters())
    for name, p in g_mod.named_parameters():
        tp = t_params[name]
        if tp.grad is None:
            assert p.grad is None or np.all(_np(p.grad) == 0), name
        else:
            _close(p.grad, tp.grad, rtol, atol)


CONFIGS = [
    dict(),
    dict(bias=False),
    dict(kdim=5, vdim=6),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True),
    dict(add_bias_kv=True, add_zero_attn=True, kdim=5, vdim=3),
    dict(batch_first=True),
    dict(batch_first=True, kdim=5, vdim=6),
]


def _ids(kw):
    return ",".join(f"{k}={v}" for k, v in kw.items()) or "default"


@pytest.mark.parametrize("kw", CONFIGS, ids=_ids)
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_multihead_attention_matches_torch(kw, need_weights, average, device):
    E, H, L, S, N = 8, 2, 3, 4, 2
    g_mod, t_mod = _pair(dict(embed_dim=E, num_heads=H, **kw), device, torch.float64)
    g_mod.double(), t_mod.eval(), g_mod.eval()
    kdim, vdim = kw.get("kdim", E), kw.get("vdim", E)
    q, k, v = _rand(L, N, E), _rand(S, N, kdim), _rand(S, N, vdim)
    if kw.get("batch_first"):
        q, k, v = (a.transpose(1, 0, 2).copy() for a in (q, k, v))
    kpm = RNG.random((N, S)) < 0.3
    kpm[:, 0] = False
    amask = _float_mask((L, S))
    g_in, t_in = _leaves([q, k, v], device)
    g_out = g_mod(
        *g_in,
        key_padding_mask=genesis.tensor(kpm, device=device),
        attn_mask=genesis.tensor(amask, device=device),
        need_weights=need_weights,
        average_attn_weights=average,
    )
    t_out = t_mod(
        *t_in,
        key_padding_mask=torch.tensor(kpm),
        attn_mask=torch.tensor(amask),
        need_weights=need_weights,
        average_attn_weights=average,
    )
    assert (g_out[1] is None) == (t_out[1] is None)
    _backward_and_compare(g_mod, t_mod, g_out, t_out, g_in, t_in, 1e-10, 1e-10)


@pytest.mark.parametrize(
    "masks",
    [
        "none",
        "kpm_bool",
        "kpm_float",
        "attn_bool",
        "attn_3d_float",
        "both_bool",
        "causal",
        "causal_kpm",
    ],
)
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_mask_kinds(masks, need_weights, device):
    E, H, L, N = 8, 2, 4, 3
    g_mod, t_mod = _pair(dict(embed_dim=E, num_heads=H), device)
    x = _rand(L, N, E, dtype=np.float32)
    kpm = RNG.random((N, L)) < 0.3
    kpm[:, 0] = False
    attn = _bool_mask((L, L))
    attn = ~attn  # MultiheadAttention's bool masks are True where attention is NOT allowed
    causal = np.triu(np.full((L, L), -np.inf, dtype=np.float32), 1)
    kwargs = {
        "none": {},
        "kpm_bool": dict(key_padding_mask=kpm),
        "kpm_float": dict(key_padding_mask=np.where(kpm, -np.inf, 0.3).astype(np.float32)),
        "attn_bool": dict(attn_mask=attn),
        "attn_3d_float": dict(attn_mask=_float_mask((N * H, L, L)).astype(np.float32)),
        "both_bool": dict(attn_mask=attn, key_padding_mask=kpm),
        "causal": dict(attn_mask=causal, is_causal=True),
        "causal_kpm": dict(
            attn_mask=causal,
            is_causal=True,
            key_padding_mask=np.where(kpm, -np.inf, 0.0).astype(np.float32),
        ),
    }[masks]

    def conv(lib, kw):
        return {
            k: (lib.tensor(v, device=device) if lib is genesis else torch.tensor(v))
            if isinstance(v, np.ndarray)
            else v
            for k, v in kw.items()
        }

    g_in, t_in = _leaves([x], device)
    g_out = g_mod(g_in[0], g_in[0], g_in[0], need_weights=need_weights, **conv(genesis, kwargs))
    t_out = t_mod(t_in[0], t_in[0], t_in[0], need_weights=need_weights, **conv(torch, kwargs))
    _backward_and_compare(g_mod, t_mod, g_out, t_out, g_in, t_in, 1e-4, 1e-5)


@pytest.mark.parametrize("path", ["self", "shared_kv", "distinct"])
def test_multihead_attention_projection_paths(path, device):
    """q is k is v (one product), k is v (two) and three tensors give torch's results."""
    E, H = 8, 4
    g_mod, t_mod = _pair(dict(embed_dim=E, num_heads=H, batch_first=True), device)
    arrays = [_rand(2, 3, E, dtype=np.float32)]
    if path != "self":
        arrays.append(_rand(2, 5, E, dtype=np.float32))
    if path == "distinct":
        arrays.append(_rand(2, 5, E, dtype=np.float32))
    g_in, t_in = _leaves(arrays, device)

    def call(mod, ins):
        if path == "self":
            return mod(ins[0], ins[0], ins[0])
        if path == "shared_kv":
            return mod(ins[0], ins[1], ins[1])
        return mod(*ins)

    _backward_and_compare(
        g_mod, t_mod, call(g_mod, g_in), call(t_mod, t_in), g_in, t_in, 1e-4, 1e-5
    )


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_unbatched(need_weights, device):
    E, H, L, S = 8, 2, 3, 5
    g_mod, t_mod = _pair(dict(embed_dim=E, num_heads=H, kdim=4, vdim=4, batch_first=True), device)
    kpm = np.array([False, True, False, False, True])
    amask = _float_mask((H, L, S)).astype(np.float32)
    g_in, t_in = _leaves(
        [
            _rand(L, E, dtype=np.float32),
            _rand(S, 4, dtype=np.float32),
            _rand(S, 4, dtype=np.float32),
        ],
        device,
    )
    g_out = g_mod(
        *g_in,
        key_padding_mask=genesis.tensor(kpm, device=device),
        attn_mask=genesis.tensor(amask, device=device),
        need_weights=need_weights,
        average_attn_weights=False,
    )
    t_out = t_mod(
        *t_in,
        key_padding_mask=torch.tensor(kpm),
        attn_mask=torch.tensor(amask),
        need_weights=need_weights,
        average_attn_weights=False,
    )
    _backward_and_compare(g_mod, t_mod, g_out, t_out, g_in, t_in, 1e-4, 1e-5)


def test_multihead_attention_fully_masked_rows_as_torch(device):
    """A batch entry whose keys are all padding: NaN with need_weights (a plain softmax), zeros
    without (scaled_dot_product_attention), both as in PyTorch."""
    g_mod, t_mod = _pair(dict(embed_dim=8, num_heads=2), device)
    t_mod.eval()
    g_mod.eval()
    x = _rand(3, 2, 8, dtype=np.float32)
    kpm = np.array([[False, False, False], [True, True, True]])
    for need_weights in (True, False):
        g_out, _ = g_mod(
            *[genesis.tensor(x, device=device)] * 3,
            key_padding_mask=genesis.tensor(kpm, device=device),
            need_weights=need_weights,
        )
        with torch.no_grad():
            t_out, _ = t_mod(
                *[torch.tensor(x)] * 3,
                key_padding_mask=torch.tensor(kpm),
                need_weights=need_weights,
            )
        np.testing.assert_allclose(_np(g_out), t_out.numpy(), rtol=1e-5, atol=1e-6)
        assert np.isnan(_np(g_out)[:, 1]).all() == need_weights


def test_multihead_attention_zero_size_batch(device):
    g_mod, t_mod = _pair(dict(embed_dim=8, num_heads=2), device)
    x = np.zeros((3, 0, 8), dtype=np.float32)
    g_out, g_w = g_mod(*[genesis.tensor(x, device=device)] * 3)
    t_out, t_w = t_mod(*[torch.tensor(x)] * 3)
    assert tuple(g_out.shape) == tuple(t_out.shape) and tuple(g_w.shape) == tuple(t_w.shape)


def test_multihead_attention_non_contiguous_input(device):
    g_mod, t_mod = _pair(dict(embed_dim=8, num_heads=2), device)
    x = _rand(2, 3, 8, dtype=np.float32)  # (N, L, E), transposed to (L, N, E)
    g_in, t_in = _leaves([x], device)
    gq, tq = g_in[0].transpose(0, 1), t_in[0].transpose(0, 1)
    _backward_and_compare(
        g_mod, t_mod, g_mod(gq, gq, gq), t_mod(tq, tq, tq), g_in, t_in, 1e-4, 1e-5
    )


def test_multihead_attention_repr_and_state_dict_keys():
    for kw in [
        dict(),
        dict(kdim=4, vdim=6, add_bias_kv=True),
        dict(bias=False),
        dict(batch_first=True, dropout=0.1),
    ]:
        g, t = MultiheadAttention(8, 2, **kw), torch.nn.MultiheadAttention(8, 2, **kw)
        assert repr(g) == repr(t)
        assert list(g.state_dict()) == list(t.state_dict())
        assert [n for n, _ in g.named_parameters()] == [n for n, _ in t.named_parameters()]
        for name in (
            "embed_dim",
            "kdim",
            "vdim",
            "num_heads",
            "head_dim",
            "dropout",
            "batch_first",
            "add_zero_attn",
            "_qkv_same_embed_dim",
        ):
            assert getattr(g, name) == getattr(t, name), name
    g = MultiheadAttention(8, 2, dtype=genesis.float64)
    assert g.in_proj_weight.dtype == genesis.float64
    assert g.out_proj.weight.dtype == genesis.float64


def test_multihead_attention_default_init():
    genesis.manual_seed(0)
    E = 64
    g = MultiheadAttention(E, 4, add_bias_kv=True)
    bound = (6 / (E + 3 * E)) ** 0.5  # xavier_uniform_ on (3E, E)
    w = _np(g.in_proj_weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.all(_np(g.in_proj_bias) == 0) and np.all(_np(g.out_proj.bias) == 0)
    ob = 1 / E**0.5  # out_proj.weight: Linear's default
    assert np.abs(_np(g.out_proj.weight)).max() <= ob
    assert _np(g.bias_k).std() > 0  # xavier_normal_
    g = MultiheadAttention(E, 4, kdim=32, vdim=16)
    assert np.abs(_np(g.k_proj_weight)).max() <= (6 / (E + 32)) ** 0.5
    assert g.in_proj_weight is None and g.bias_k is None


def test_multihead_attention_dropout_train_and_eval(device):
    g = MultiheadAttention(8, 2, dropout=0.5).to(device)
    x = genesis.tensor(_rand(6, 2, 8, dtype=np.float32), device=device)
    g.eval()
    a, _ = g(x, x, x)
    b, _ = g(x, x, x)
    assert np.array_equal(_np(a), _np(b))
    g.train()
    for need_weights in (True, False):
        c, _ = g(x, x, x, need_weights=need_weights)
        assert not np.allclose(_np(c), _np(a))


def test_multihead_attention_bad_input(device):
    op = "MultiheadAttention"
    with pytest.raises(AssertionError, match=r"^\[MultiheadAttention\] embed_dim must be div"):
        MultiheadAttention(8, 3)
    _raises(ValueError, op, lambda: MultiheadAttention(0, 2))
    g = MultiheadAttention(8, 2).to(device)

    def t(*shape, dtype=genesis.float32):
        return genesis.randn(*shape, device=device).to(dtype)

    x = t(3, 2, 8)
    _raises(AssertionError, op, lambda: g(t(3, 2, 6), x, x))  # embed dim
    _raises(AssertionError, op, lambda: g(t(1, 3, 2, 8), x, x))  # 4-D
    _raises(AssertionError, op, lambda: g(x, t(3, 8), t(3, 8)))  # batched q, unbatched k
    _raises(AssertionError, op, lambda: g(x, x, t(4, 2, 8)))  # key and value shapes
    _raises(RuntimeError, op, lambda: g(x, x, x, is_causal=True))  # hint without mask
    _raises(RuntimeError, op, lambda: g(x, x, x, attn_mask=genesis.zeros(3, 4, device=device)))
    _raises(RuntimeError, op, lambda: g(x, x, x, attn_mask=genesis.zeros(5, 3, 3, device=device)))
    _raises(
        AssertionError, op, lambda: g(x, x, x, attn_mask=genesis.zeros(3, 3, device=device).long())
    )
    _raises(
        AssertionError,
        op,
        lambda: g(x, x, x, key_padding_mask=genesis.zeros(3, 3, dtype=genesis.bool, device=device)),
    )
    _raises(
        AssertionError,
        op,
        lambda: g(
            x, x, x, key_padding_mask=genesis.zeros(2, 3, 1, dtype=genesis.bool, device=device)
        ),
    )
    _raises(RuntimeError, op, lambda: g(x.double(), x.double(), x.double()))
    _raises(TypeError, op, lambda: g(np.ones((3, 2, 8)), x, x))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g(
            x,
            x,
            x,
            key_padding_mask=genesis.zeros(2, 3, device=device),
            attn_mask=genesis.zeros(3, 3, dtype=genesis.bool, device=device),
        )
    assert any("mismatched key_padding_mask and attn_mask" in str(w.message) for w in caught)
