"""TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and
Transformer against torch.nn on the same parameters: outputs and every gradient (inputs and
parameters) in eval mode, post-norm and pre-norm, relu/gelu/callable/module activations,
batch_first both ways, unbatched input, masks (padding, causal, detected causal), bias=False,
float32 and float64, repr, state_dict keys, the causal mask helper, dropout in training and
the input checks."""

import importlib
import warnings

import numpy as np
import pytest
from torch_reference import skip_unless_reference_torch

import genesis

torch = pytest.importorskip("torch")

# Bool key padding masks beside float attention masks: both libraries warn (as tested once).
pytestmark = pytest.mark.filterwarnings("ignore:.*Support for mismatched")

RNG = np.random.default_rng(5)


def _gcls(name):
    """A genesis.nn class, from genesis.nn once exported there."""
    return getattr(genesis.nn, name, None) or getattr(
        importlib.import_module("genesis.nn.modules.transformer"), name
    )


Transformer = _gcls("Transformer")
TransformerEncoder = _gcls("TransformerEncoder")
TransformerDecoder = _gcls("TransformerDecoder")
TransformerEncoderLayer = _gcls("TransformerEncoderLayer")
TransformerDecoderLayer = _gcls("TransformerDecoderLayer")

D, H, FF = 8, 2, 16


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, genesis.Tensor) else t.detach().numpy()


def _close(g, t, rtol, atol):
    assert tuple(g.shape) == tuple(t.shape), (g.shape, t.shape)
    np.testing.assert_allclose(_np(g), _np(t), rtol=rtol, atol=atol)


def _torch_module(cls_name, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's nested-tensor notes
        return getattr(torch.nn, cls_name)(*args, **kw)


def _load(g_mod, t_mod, device, dtype):
    g_mod.load_state_dict(t_mod.state_dict())
    if dtype == "float64":
        g_mod.double()
        t_mod.double()
    return g_mod.to(device).eval(), t_mod.eval()


def _tol(dtype):
    return (1e-9, 1e-10) if dtype == "float64" else (2e-4, 2e-5)


def _leaves(arrays, device, dtype):
    npd = np.float64 if dtype == "float64" else np.float32
    g = [genesis.tensor(a.astype(npd), device=device, requires_grad=True) for a in arrays]
    t = [torch.tensor(a.astype(npd), requires_grad=True) for a in arrays]
    return g, t


def _mask(lib, a, device):
    if a is None:
        return None
    return genesis.tensor(a, device=device) if lib is genesis else torch.tensor(a)


def _compare(g_mod, t_mod, g_out, t_out, g_in, t_in, rtol, atol):
    """Outputs, then one random gradient backpropagated through both: the inputs' and every
    parameter's gradients."""
    _close(g_out, t_out, rtol, atol)
    w = RNG.normal(size=tuple(t_out.shape)).astype(_np(t_out).dtype)
    (g_out * genesis.tensor(w, device=g_out.device)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    for gi, ti in zip(g_in, t_in):
        _close(gi.grad, ti.grad, rtol, atol)
    t_params = dict(t_mod.named_parameters())
    g_params = dict(g_mod.named_parameters())
    assert list(g_params) == list(t_params)
    for name, p in g_params.items():
        _close(p.grad, t_params[name].grad, rtol, atol * 10)


def _padding(n, s):
    kpm = RNG.random((n, s)) < 0.3
    kpm[:, 0] = False
    return kpm


def _x(batch_first, s, n=2):
    return RNG.normal(size=(n, s, D) if batch_first else (s, n, D))


ACTIVATIONS = ["relu", "gelu", "F.gelu", "module"]


def _activation(lib, which):
    if which in ("relu", "gelu"):
        return which
    if which == "F.gelu":
        return lib.nn.functional.gelu
    if lib is torch:
        return torch.nn.GELU()
    return importlib.import_module("genesis.nn.modules.activation").GELU()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_encoder_layer_matches_torch(dtype, norm_first, activation, device):
    batch_first = activation in ("gelu", "module")
    kw = dict(dim_feedforward=FF, norm_first=norm_first, batch_first=batch_first)
    t_mod = _torch_module(
        "TransformerEncoderLayer", D, H, activation=_activation(torch, activation), **kw
    )
    g_mod = TransformerEncoderLayer(D, H, activation=_activation(genesis, activation), **kw)
    g_mod, t_mod = _load(g_mod, t_mod, device, dtype)
    kpm = _padding(2, 5)
    g_in, t_in = _leaves([_x(batch_first, 5)], device, dtype)
    g_out = g_mod(g_in[0], src_key_padding_mask=_mask(genesis, kpm, device))
    t_out = t_mod(t_in[0], src_key_padding_mask=_mask(torch, kpm, device))
    _compare(g_mod, t_mod, g_out, t_out, g_in, t_in, *_tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_decoder_layer_matches_torch(dtype, norm_first, activation, device):
    batch_first = activation in ("relu", "F.gelu")
    kw = dict(dim_feedforward=FF, norm_first=norm_first, batch_first=batch_first)
    t_mod = _torch_module(
        "TransformerDecoderLayer", D, H, activation=_activation(torch, activation), **kw
    )
    g_mod = TransformerDecoderLayer(D, H, activation=_activation(genesis, activation), **kw)
    g_mod, t_mod = _load(g_mod, t_mod, device, dtype)
    causal = np.triu(np.full((4, 4), -np.inf), 1).astype(
        np.float64 if dtype == "float64" else np.float32
    )
    tkpm, mkpm = _padding(2, 4), _padding(2, 5)
    g_in, t_in = _leaves([_x(batch_first, 4), _x(batch_first, 5)], device, dtype)

    def run(lib, mod, ins):
        return mod(
            ins[0],
            ins[1],
            tgt_mask=_mask(lib, causal, device),
            tgt_is_causal=True,
            tgt_key_padding_mask=_mask(lib, tkpm, device),
            memory_key_padding_mask=_mask(lib, mkpm, device),
        )

    _compare(
        g_mod, t_mod, run(genesis, g_mod, g_in), run(torch, t_mod, t_in), g_in, t_in, *_tol(dtype)
    )


@pytest.mark.parametrize("layer", ["encoder", "decoder"])
def test_layers_unbatched_bias_false_and_masks(layer, device):
    kw = dict(dim_feedforward=FF, bias=False, batch_first=True)
    if layer == "encoder":
        t_mod = _torch_module("TransformerEncoderLayer", D, H, **kw)
        g_mod = TransformerEncoderLayer(D, H, **kw)
    else:
        t_mod = _torch_module("TransformerDecoderLayer", D, H, **kw)
        g_mod = TransformerDecoderLayer(D, H, **kw)
    g_mod, t_mod = _load(g_mod, t_mod, device, "float32")
    amask = RNG.random((4, 4)) < 0.3
    np.fill_diagonal(amask, False)
    g_in, t_in = _leaves([RNG.normal(size=(4, D)), RNG.normal(size=(3, D))], device, "float32")

    def run(lib, mod, ins):
        if layer == "encoder":
            return mod(
                ins[0],
                src_mask=_mask(lib, amask, device),
                src_key_padding_mask=_mask(lib, np.array([False, True, False, False]), device),
            )
        return mod(
            ins[0],
            ins[1],
            tgt_mask=_mask(lib, amask, device),
            memory_mask=_mask(lib, RNG.random((4, 3)) < 0.0, device),
        )

    g_out, t_out = run(genesis, g_mod, g_in), run(torch, t_mod, t_in)
    if layer == "encoder":
        g_in, t_in = g_in[:1], t_in[:1]
    _compare(g_mod, t_mod, g_out, t_out, g_in, t_in, *_tol("float32"))


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("mask", ["none", "causal_detected", "causal_hint", "bool"])
def test_encoder_stack_matches_torch(norm, mask, device):
    layer_t = _torch_module("TransformerEncoderLayer", D, H, FF)
    t_mod = _torch_module(
        "TransformerEncoder",
        layer_t,
        2,
        norm=torch.nn.LayerNorm(D) if norm else None,
        enable_nested_tensor=False,
    )
    layer_g = TransformerEncoderLayer(D, H, FF)
    g_norm = importlib.import_module("genesis.nn.modules.normalization").LayerNorm(D)
    g_mod = TransformerEncoder(
        layer_g, 2, norm=g_norm if norm else None, enable_nested_tensor=False
    )
    g_mod, t_mod = _load(g_mod, t_mod, device, "float64")
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    kwargs = {
        "none": {},
        "causal_detected": dict(mask=causal),
        "causal_hint": dict(mask=causal, is_causal=True),
        "bool": dict(mask=RNG.random((5, 5)) < 0.2, src_key_padding_mask=_padding(3, 5)),
    }[mask]
    g_in, t_in = _leaves([_x(False, 5, 3)], device, "float64")

    def conv(lib):
        return {
            k: _mask(lib, v, device) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()
        }

    _compare(
        g_mod,
        t_mod,
        g_mod(g_in[0], **conv(genesis)),
        t_mod(t_in[0], **conv(torch)),
        g_in,
        t_in,
        *_tol("float64"),
    )


def test_decoder_stack_matches_torch(device):
    t_mod = _torch_module(
        "TransformerDecoder",
        _torch_module("TransformerDecoderLayer", D, H, FF),
        2,
        norm=torch.nn.LayerNorm(D),
    )
    g_norm = importlib.import_module("genesis.nn.modules.normalization").LayerNorm(D)
    g_mod = TransformerDecoder(TransformerDecoderLayer(D, H, FF), 2, norm=g_norm)
    g_mod, t_mod = _load(g_mod, t_mod, device, "float64")
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    g_in, t_in = _leaves([_x(False, 4), _x(False, 6)], device, "float64")
    mkpm = _padding(2, 6)
    g_out = g_mod(
        *g_in,
        tgt_mask=_mask(genesis, causal, device),
        memory_key_padding_mask=_mask(genesis, mkpm, device),
    )
    t_out = t_mod(
        *t_in,
        tgt_mask=_mask(torch, causal, device),
        memory_key_padding_mask=_mask(torch, mkpm, device),
    )
    _compare(g_mod, t_mod, g_out, t_out, g_in, t_in, *_tol("float64"))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(batch_first, norm_first, device):
    kw = dict(
        d_model=D,
        nhead=H,
        num_encoder_layers=2,
        num_decoder_layers=1,
        dim_feedforward=FF,
        batch_first=batch_first,
        norm_first=norm_first,
    )
    t_mod = _torch_module("Transformer", **kw)
    g_mod = Transformer(**kw)
    g_mod, t_mod = _load(g_mod, t_mod, device, "float64")
    causal = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64).numpy()
    skpm = _padding(2, 5)
    g_in, t_in = _leaves([_x(batch_first, 5), _x(batch_first, 4)], device, "float64")

    def run(lib, mod, ins):
        return mod(
            ins[0],
            ins[1],
            tgt_mask=_mask(lib, causal, device),
            src_key_padding_mask=_mask(lib, skpm, device),
            memory_key_padding_mask=_mask(lib, skpm, device),
        )

    _compare(
        g_mod,
        t_mod,
        run(genesis, g_mod, g_in),
        run(torch, t_mod, t_in),
        g_in,
        t_in,
        *_tol("float64"),
    )


def test_transformer_float32_non_contiguous_and_unbatched(device):
    kw = dict(d_model=D, nhead=H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=FF)
    t_mod = _torch_module("Transformer", **kw)
    g_mod, t_mod = _load(Transformer(**kw), t_mod, device, "float32")
    # (N, S, E) data transposed to the (S, N, E) layout: non-contiguous inputs.
    g_in, t_in = _leaves(
        [RNG.normal(size=(2, 5, D)), RNG.normal(size=(2, 3, D))], device, "float32"
    )
    g_out = g_mod(g_in[0].transpose(0, 1), g_in[1].transpose(0, 1))
    t_out = t_mod(t_in[0].transpose(0, 1), t_in[1].transpose(0, 1))
    _compare(g_mod, t_mod, g_out, t_out, g_in, t_in, *_tol("float32"))
    src, tgt = (
        RNG.normal(size=(5, D)).astype(np.float32),
        RNG.normal(size=(3, D)).astype(np.float32),
    )
    g_out = g_mod(genesis.tensor(src, device=device), genesis.tensor(tgt, device=device))
    with torch.no_grad():
        t_out = t_mod(torch.tensor(src), torch.tensor(tgt))
    _close(g_out, t_out, *_tol("float32"))


def test_zero_size_batch(device):
    g_mod = TransformerEncoderLayer(D, H, FF).to(device).eval()
    out = g_mod(genesis.zeros(5, 0, D, device=device))
    assert tuple(out.shape) == (5, 0, D)


def test_generate_square_subsequent_mask():
    g = Transformer.generate_square_subsequent_mask(4)
    t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert g.dtype == genesis.float32
    np.testing.assert_array_equal(_np(g), t.numpy())
    g = Transformer.generate_square_subsequent_mask(3, dtype=genesis.float64)
    assert g.dtype == genesis.float64


def test_repr_and_state_dict_keys():
    skip_unless_reference_torch(torch, "the LayerNorm reprs inside the transformer layers")
    cases = [
        ("TransformerEncoderLayer", (D, H, FF), dict(batch_first=True)),
        ("TransformerEncoderLayer", (D, H), dict(bias=False, norm_first=True)),
        ("TransformerDecoderLayer", (D, H, FF), dict(activation="gelu", dropout=0.2)),
        (
            "Transformer",
            (),
            dict(
                d_model=D,
                nhead=H,
                num_encoder_layers=2,
                num_decoder_layers=3,
                dim_feedforward=FF,
                layer_norm_eps=1e-6,
            ),
        ),
        (
            "Transformer",
            (),
            dict(
                d_model=D,
                nhead=H,
                num_encoder_layers=1,
                num_decoder_layers=1,
                dim_feedforward=FF,
                bias=False,
            ),
        ),
    ]
    for name, args, kw in cases:
        t = _torch_module(name, *args, **kw)
        g = _gcls(name)(*args, **kw)
        assert repr(g) == repr(t).replace("torch.", "genesis."), name
        assert list(g.state_dict()) == list(t.state_dict()), name
    t = _torch_module("TransformerEncoder", _torch_module("TransformerEncoderLayer", D, H, FF), 3)
    g = TransformerEncoder(TransformerEncoderLayer(D, H, FF), 3)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    # A module activation is a submodule, as in torch.
    t = _torch_module("TransformerEncoderLayer", D, H, FF, activation=torch.nn.GELU())
    g = TransformerEncoderLayer(D, H, FF, activation=_activation(genesis, "module"))
    assert repr(g) == repr(t)


def test_attributes_and_init():
    layer = TransformerEncoderLayer(D, H, FF, activation="gelu", layer_norm_eps=1e-3)
    assert layer.activation_relu_or_gelu == 2 and layer.norm1.eps == 1e-3
    assert TransformerEncoderLayer(D, H, FF).activation_relu_or_gelu == 1
    assert TransformerEncoderLayer(D, H, FF, activation=genesis.tanh).activation_relu_or_gelu == 0
    enc = TransformerEncoder(layer, 2)
    assert enc.num_layers == 2 and enc.layers[0] is not enc.layers[1]
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    assert enc.use_nested_tensor is False and enc.mask_check is True
    model = Transformer(
        d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32
    )
    assert (model.d_model, model.nhead, model.batch_first) == (16, 2, False)
    w = _np(model.encoder.layers[0].linear1.weight)  # xavier_uniform_ over the Linear's default
    assert np.abs(w).max() <= (6 / 48) ** 0.5 and np.abs(w).max() > (1 / 16) ** 0.5
    assert np.all(_np(model.encoder.layers[0].self_attn.in_proj_bias) == 0)
    model = Transformer(
        d_model=8,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=16,
        dtype=genesis.float64,
    )
    assert all(p.dtype == genesis.float64 for p in model.parameters())


def test_dropout_in_training_only(device):
    g = TransformerEncoderLayer(D, H, FF, dropout=0.3).to(device)
    x = genesis.tensor(RNG.normal(size=(6, 2, D)).astype(np.float32), device=device)
    g.eval()
    a, b = g(x), g(x)
    assert np.array_equal(_np(a), _np(b))
    g.train()
    c = g(x)
    assert not np.allclose(_np(c), _np(a))
    d = TransformerDecoderLayer(D, H, FF, dropout=0.3).to(device)
    m = genesis.tensor(RNG.normal(size=(4, 2, D)).astype(np.float32), device=device)
    d.eval()
    a = d(x, m)
    d.train()
    assert not np.allclose(_np(d(x, m)), _np(a))


def _raises(cls, prefix, fn):
    with pytest.raises(cls) as info:
        fn()
    assert str(info.value).startswith(f"[{prefix}]"), str(info.value)


def test_bad_input(device):
    _raises(
        RuntimeError,
        "TransformerEncoderLayer",
        lambda: TransformerEncoderLayer(D, H, FF, activation="tanh"),
    )
    _raises(
        RuntimeError,
        "TransformerDecoderLayer",
        lambda: TransformerDecoderLayer(D, H, FF, activation="swish"),
    )
    _raises(AssertionError, "MultiheadAttention", lambda: TransformerEncoderLayer(D, 3, FF))
    model = Transformer(
        d_model=D, nhead=H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=FF
    ).to(device)
    src = genesis.randn(5, 2, D, device=device)
    _raises(RuntimeError, "Transformer", lambda: model(src, genesis.randn(3, 4, D, device=device)))
    _raises(RuntimeError, "Transformer", lambda: model(src, genesis.randn(3, 2, 6, device=device)))
    _raises(TypeError, "Transformer", lambda: model(np.zeros((5, 2, D)), src))
    layer = TransformerEncoderLayer(D, H, FF).to(device)
    _raises(
        AssertionError,
        "TransformerEncoderLayer",
        lambda: layer(src, src_mask=genesis.zeros(5, 5, dtype=genesis.int64, device=device)),
    )
    _raises(
        AssertionError, "MultiheadAttention", lambda: layer(genesis.randn(5, 2, 6, device=device))
    )
    _raises(RuntimeError, "MultiheadAttention", lambda: layer(src, is_causal=True))
    dec = TransformerDecoderLayer(D, H, FF).to(device)
    _raises(TypeError, "TransformerDecoderLayer", lambda: dec(src, None))
