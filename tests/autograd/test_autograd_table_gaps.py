"""Autograd against PyTorch, the gaps of the op table: the ops that genesis/_op_table.py lists
as differentiable but that no autograd test covered until now.

- products: addbmm, addmv, baddbmm (function forms and methods, beta/alpha), inner, vdot;
- shapes and joins: broadcast_tensors, broadcast_to, expand_as, expand_copy, column_stack,
  dstack, fliplr, flipud, unflatten, reshape_as, view_as;
- elementwise: copysign (both operands; the sign operand's gradient is zero), erfinv, lgamma,
  frac, floor_divide (zero gradients: PyTorch's floor_divide has no derivative, so genesis's is
  compared with torch.div(rounding_mode="floor"), the same values, whose gradients are zeros);
- casts: type_as, Tensor.half (there and back with .double(): float16 rounding, loose);
- nanmedian over all (ties share the gradient evenly) and over a dim (keepdim True/False),
  NaNs in the input but no slice of NaNs only.

Also: a NaN result of median(), nanmedian(), max() and min() over everything shares the gradient
among the NaNs, as PyTorch's (genesis gave NaN gradients until the op table's test found it).

Not here: meshgrid (no derivative: its backward raises "the derivative for 'meshgrid' is not
implemented", and its row says so), and median/nanmedian over a dim with a slice of NaNs only:
the index of such a slice, which the gradient follows, is the middle of the slice in genesis
and PyTorch's pick differs for slices of 3 and 4 (a deliberate difference: both are NaN).

Same method as test_autograd_ops.py: fn(lib, *leaves) runs on genesis and torch leaves of the
same random float64 data (CPU, and CUDA when there is one), the same random upstream gradient
goes back through both, and the outputs and every leaf's .grad are compared. Each op has a
non-contiguous (transposed) input and a 0-d or zero-size input where PyTorch allows one. Ops
returning several tensors (broadcast_tensors) are stacked into one.
"""

import numpy as np
import pytest
from test_autograd import check_grads, leaf, rand

torch = pytest.importorskip("torch")

X34 = rand((3, 4), 1)
X234 = rand((2, 3, 4), 2)
HALF = {"rtol": 1e-3, "atol": 1e-3}  # values and gradients rounded to float16


def case(id, fn, *arrays, **tol):
    """A pytest.param of (fn, arrays, tol): tol the rtol/atol for check_grads (its default when
    empty)."""
    return pytest.param(fn, list(arrays), tol, id=id)


# ----------------------------------------------------------------------------------------------
# Products: addbmm, addmv, baddbmm, inner, vdot
# ----------------------------------------------------------------------------------------------

B1 = rand((2, 3, 4), 10)  # batch of 2, (3, 4) @ (4, 5)
B2 = rand((2, 4, 5), 11)

PRODUCTS = [
    case(
        "addbmm",
        lambda m, c, a, b: m.addbmm(c, a, b),
        rand((3, 5), 12),
        B1,
        B2,
    ),
    case(
        "addbmm_beta_alpha_broadcast",
        lambda m, c, a, b: m.addbmm(c, a, b, beta=0.5, alpha=-2.0),
        rand((5,), 13),
        B1,
        B2,
    ),
    case(
        "addbmm_method_transposed",
        lambda m, c, a, b: c.t().addbmm(a, b.transpose(1, 2)),
        rand((5, 3), 14),
        B1,
        rand((2, 5, 4), 15),
    ),
    case(
        "addbmm_empty_batch",
        lambda m, c, a, b: m.addbmm(c, a, b, beta=2.0),
        rand((3, 5), 16),
        rand((0, 3, 4), 17),
        rand((0, 4, 5), 18),
    ),
    case(
        "baddbmm",
        lambda m, c, a, b: m.baddbmm(c, a, b),
        rand((2, 3, 5), 19),
        B1,
        B2,
    ),
    case(
        "baddbmm_beta_alpha_broadcast",
        lambda m, c, a, b: m.baddbmm(c, a, b, beta=-1.5, alpha=0.25),
        rand((3, 1), 20),
        B1,
        B2,
    ),
    case(
        "baddbmm_method_transposed",
        lambda m, c, a, b: c.baddbmm(a.transpose(1, 2), b),
        rand((2, 4, 5), 21),
        rand((2, 3, 4), 22),
        rand((2, 3, 5), 23),
    ),
    case(
        "baddbmm_zero_size_inner",
        lambda m, c, a, b: m.baddbmm(c, a, b, beta=0.5),
        rand((2, 3, 5), 24),
        rand((2, 3, 0), 25),
        rand((2, 0, 5), 26),
    ),
    case(
        "addmv",
        lambda m, c, a, v: m.addmv(c, a, v),
        rand((3,), 27),
        X34,
        rand((4,), 28),
    ),
    case(
        "addmv_beta_alpha_broadcast",
        lambda m, c, a, v: m.addmv(c, a, v, beta=2.0, alpha=-0.5),
        rand((), 29),
        X34,
        rand((4,), 30),
    ),
    case(
        "addmv_method_transposed",
        lambda m, c, a, v: c.addmv(a.t(), v),
        rand((4,), 31),
        X34,
        rand((3,), 32),
    ),
    case(
        "addmv_zero_size",
        lambda m, c, a, v: m.addmv(c, a, v, beta=3.0),
        rand((3,), 33),
        rand((3, 0), 34),
        rand((0,), 35),
    ),
    case("inner_1d", lambda m, a, b: m.inner(a, b), rand((5,), 36), rand((5,), 37)),
    case("inner_nd", lambda m, a, b: m.inner(a, b), X234, rand((5, 4), 38)),
    case("inner_method_transposed", lambda m, a, b: a.t().inner(b), X34, rand((2, 3), 39)),
    case("inner_0d", lambda m, a, b: m.inner(a, b), rand((), 40), X34),
    case("inner_empty", lambda m, a, b: m.inner(a, b), rand((3, 0), 41), rand((2, 0), 42)),
    case("vdot", lambda m, a, b: m.vdot(a, b), rand((5,), 43), rand((5,), 44)),
    case("vdot_method_strided", lambda m, a, b: a[::2].vdot(b), rand((6,), 45), rand((3,), 46)),
    case("vdot_transposed_row", lambda m, a, b: m.vdot(a.t()[1], b), X34, rand((3,), 47)),
    case("vdot_empty", lambda m, a, b: m.vdot(a, b), rand((0,), 48), rand((0,), 49)),
]


@pytest.mark.parametrize("fn, arrays, tol", PRODUCTS)
def test_products(fn, arrays, tol, device):
    check_grads(fn, arrays, device, **tol)


# ----------------------------------------------------------------------------------------------
# Shapes and joins
# ----------------------------------------------------------------------------------------------


def _weighted_stack(m, pieces):
    """The pieces (one shape) as one tensor, each weighted differently, for check_grads."""
    return m.stack([p * (i + 1) for i, p in enumerate(pieces)])


SHAPES = [
    case(
        "broadcast_tensors",
        lambda m, x, y, z: _weighted_stack(m, m.broadcast_tensors(x, y, z)),
        rand((3, 1), 50),
        rand((4,), 51),
        rand((2, 1, 1), 52),
    ),
    case(
        "broadcast_tensors_transposed_0d",
        lambda m, x, y: _weighted_stack(m, m.broadcast_tensors(x.t(), y)),
        X34,
        rand((), 53),
    ),
    case(
        "broadcast_tensors_zero_size",
        lambda m, x, y: _weighted_stack(m, m.broadcast_tensors(x, y)),
        rand((0, 1), 54),
        rand((3,), 55),
    ),
    case("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4)), rand((3, 1), 56)),
    case("broadcast_to_minus_one", lambda m, x: x.broadcast_to((2, -1, 4)), rand((3, 1), 57)),
    case("broadcast_to_transposed", lambda m, x: m.broadcast_to(x.t(), (2, 4, 3)), X34),
    case("broadcast_to_0d", lambda m, x: m.broadcast_to(x, (2, 3)), rand((), 58)),
    case("broadcast_to_zero_size", lambda m, x: m.broadcast_to(x, (0, 4)), rand((4,), 59)),
    case("expand_as", lambda m, x, y: x.expand_as(y), rand((1, 4), 60), X234),
    case("expand_as_transposed", lambda m, x, y: x.t().expand_as(y), rand((1, 3), 61), X34),
    case("expand_as_0d", lambda m, x, y: x.expand_as(y), rand((), 62), X34),
    case("expand_copy", lambda m, x: m.expand_copy(x, (2, 3, 4)), rand((3, 1), 63)),
    case("expand_copy_minus_one", lambda m, x: m.expand_copy(x, (5, -1)), rand((4,), 64)),
    case("expand_copy_transposed", lambda m, x: m.expand_copy(x.t(), (2, 4, 3)), X34),
    case("expand_copy_0d", lambda m, x: m.expand_copy(x, (3,)), rand((), 65)),
    case(
        "column_stack",
        lambda m, x, y, z: m.column_stack([x, y, z]),
        rand((3,), 77),
        X34,
        rand((3, 2), 78),
    ),
    case(
        "column_stack_transposed",
        lambda m, x, y: m.column_stack((x.t(), y)),
        X34,
        rand((4,), 79),
    ),
    case(
        "column_stack_0d",
        lambda m, x, y: m.column_stack([x, y]),
        rand((), 80),
        rand((1,), 81),
    ),
    case(
        "column_stack_zero_size",
        lambda m, x, y: m.column_stack([x, y]),
        rand((0,), 82),
        rand((0, 2), 83),
    ),
    case("dstack_1d", lambda m, x, y: m.dstack([x, y]), rand((4,), 84), rand((4,), 85)),
    case("dstack_2d_3d", lambda m, x, y: m.dstack((x, y)), X34, rand((3, 4, 2), 86)),
    case("dstack_transposed", lambda m, x, y: m.dstack([x.t(), y, x.t()]), X34, rand((4, 3), 87)),
    case("dstack_0d", lambda m, x, y: m.dstack([x, y]), rand((), 88), rand((), 89)),
    case("dstack_zero_size", lambda m, x, y: m.dstack([x, y]), rand((0, 3), 90), rand((0, 3), 91)),
    case("fliplr", lambda m, x: m.fliplr(x), X34),
    case("fliplr_3d_method", lambda m, x: x.fliplr(), X234),
    case("fliplr_transposed", lambda m, x: m.fliplr(x.t()), X34),
    case("fliplr_zero_size", lambda m, x: m.fliplr(x), rand((2, 0), 92)),
    case("flipud", lambda m, x: m.flipud(x), X34),
    case("flipud_1d_method", lambda m, x: x.flipud(), rand((5,), 93)),
    case("flipud_transposed", lambda m, x: m.flipud(x.transpose(0, 2)), X234),
    case("flipud_zero_size", lambda m, x: m.flipud(x), rand((0, 3), 94)),
    case("unflatten", lambda m, x: m.unflatten(x, 1, (2, 2)), X34),
    case("unflatten_neg_dim_minus_one", lambda m, x: x.unflatten(-1, (-1, 2)), X234),
    case("unflatten_transposed", lambda m, x: x.t().unflatten(0, (2, 2)), X34),
    case("unflatten_zero_size", lambda m, x: x.unflatten(0, (0, 5)), rand((0, 3), 95)),
    case("reshape_as", lambda m, x, y: x.reshape_as(y), X34, rand((6, 2), 96)),
    case("reshape_as_transposed", lambda m, x, y: x.t().reshape_as(y), X34, rand((2, 6), 97)),
    case("reshape_as_0d", lambda m, x, y: x.reshape_as(y), rand((1, 1), 98), rand((), 99)),
    case("reshape_as_zero_size", lambda m, x, y: x.reshape_as(y), rand((0, 4), 100), rand((2, 0))),
    case("view_as", lambda m, x, y: x.view_as(y), X234, rand((6, 4), 101)),
    case("view_as_transposed", lambda m, x, y: x.t().view_as(y), X34, rand((4, 1, 3), 102)),
    case("view_as_0d", lambda m, x, y: x.view_as(y), rand((1,), 103), rand((), 104)),
]


@pytest.mark.parametrize("fn, arrays, tol", SHAPES)
def test_shapes_and_joins(fn, arrays, tol, device):
    check_grads(fn, arrays, device, **tol)


# ----------------------------------------------------------------------------------------------
# Elementwise: copysign, erfinv, lgamma, frac, floor_divide
# ----------------------------------------------------------------------------------------------


def floor_divide(m, x, y):
    """genesis's floor_divide; torch's has no derivative ("derivative for aten::floor_divide is
    not implemented", test_torch_floor_divide_has_no_derivative), so torch's side is
    torch.div(rounding_mode="floor"): the same values, zero gradients."""
    if m is torch:
        return torch.div(x, y, rounding_mode="floor")
    return m.floor_divide(x, y)


# lgamma's inputs of either sign, the negative ones away from its poles (0, -1, -2, ...).
LGAMMA = np.array([[-2.5, -1.7, -0.3, 0.2], [0.9, 1.0, 1.5, 2.0], [3.3, 5.0, 7.25, 10.5]])

ELEMENTWISE = [
    case("copysign", lambda m, x, y: m.copysign(x, y), X34, rand((3, 4), 110, "nonzero")),
    case(
        "copysign_broadcast_method",
        lambda m, x, y: x.copysign(y),
        rand((3, 4), 111, "nonzero"),
        rand((4,), 112, "nonzero"),
    ),
    case(
        "copysign_transposed",
        lambda m, x, y: m.copysign(x.t(), y),
        rand((3, 4), 113, "nonzero"),
        rand((4, 3), 114, "nonzero"),
    ),
    case(
        "copysign_0d",
        lambda m, x, y: m.copysign(x, y),
        rand((), 115, "nonzero"),
        rand((3,), 116, "nonzero"),
    ),
    case("copysign_number", lambda m, x: m.copysign(x, -1.0), rand((3, 4), 117, "nonzero")),
    case(
        "copysign_zero_size",
        lambda m, x, y: m.copysign(x, y),
        rand((0, 4), 118),
        rand((4,), 119, "nonzero"),
    ),
    case("erfinv", lambda m, x: m.erfinv(x), rand((3, 4), 120, "unit")),
    case("erfinv_method_transposed", lambda m, x: x.t().erfinv(), rand((3, 4), 121, "unit")),
    case("erfinv_0d", lambda m, x: m.erfinv(x), rand((), 122, "unit")),
    case("erfinv_zero_size", lambda m, x: m.erfinv(x), rand((0, 2), 123, "unit")),
    case("lgamma", lambda m, x: m.lgamma(x), LGAMMA),
    case("lgamma_method_transposed", lambda m, x: x.t().lgamma(), rand((3, 4), 125, "pos")),
    case("lgamma_0d", lambda m, x: m.lgamma(x), rand((), 126, "pos")),
    case("lgamma_zero_size", lambda m, x: m.lgamma(x), rand((2, 0), 127)),
    case("frac", lambda m, x: m.frac(x), rand((3, 4), 128, "wide")),
    case("frac_method_transposed", lambda m, x: x.t().frac(), rand((3, 4), 129, "wide")),
    case("frac_0d", lambda m, x: m.frac(x), rand((), 130, "wide")),
    case("frac_zero_size", lambda m, x: m.frac(x), rand((0,), 131)),
    case(
        "floor_divide",
        floor_divide,
        rand((3, 4), 132, "wide"),
        rand((3, 4), 133, "nonzero"),
    ),
    case(
        "floor_divide_transposed_broadcast",
        lambda m, x, y: floor_divide(m, x.t(), y),
        rand((3, 4), 134, "wide"),
        rand((3,), 135, "nonzero"),
    ),
    case(
        "floor_divide_number",
        lambda m, x: floor_divide(m, x, 0.75),
        rand((3, 4), 136, "wide"),
    ),
    case(
        "floor_divide_0d",
        floor_divide,
        rand((), 137, "wide"),
        rand((), 138, "nonzero"),
    ),
    case(
        "floor_divide_zero_size",
        floor_divide,
        rand((0, 4), 139, "wide"),
        rand((4,), 140, "nonzero"),
    ),
]


@pytest.mark.parametrize("fn, arrays, tol", ELEMENTWISE)
def test_elementwise(fn, arrays, tol, device):
    check_grads(fn, arrays, device, **tol)


def test_floor_divide_method_gives_zero_gradients(device):
    x, y = leaf(rand((3, 4), 141, "wide"), device), leaf(rand((3, 4), 142, "nonzero"), device)
    (x.floor_divide(y) + x // 0.5).sum().backward()
    assert not x.grad.any() and not y.grad.any()
    assert tuple(x.grad.shape) == (3, 4) and tuple(y.grad.shape) == (3, 4)


def test_torch_floor_divide_has_no_derivative():
    """Why floor_divide is compared with torch.div(rounding_mode="floor"): torch's floor_divide
    records a graph whose backward raises (genesis gives zeros, as torch's div does)."""
    x = torch.tensor(X34, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        torch.floor_divide(x, 2.0).sum().backward()


# ----------------------------------------------------------------------------------------------
# Casts: type_as, Tensor.half
# ----------------------------------------------------------------------------------------------

F32 = rand((3, 4), 150).astype(np.float32)

CASTS = [
    case("type_as_float32", lambda m, x, y: x.type_as(y), X34, F32),
    case("type_as_same_dtype", lambda m, x, y: (x * 2.0).type_as(y), X34, rand((2,), 151)),
    case("type_as_float32_to_float64", lambda m, x, y: x.type_as(y), F32, X34),
    case("type_as_transposed", lambda m, x, y: x.t().type_as(y), X34, F32),
    case("type_as_0d", lambda m, x, y: x.type_as(y), rand((), 152), F32),
    case("type_as_zero_size", lambda m, x, y: x.type_as(y), rand((0, 3), 153), F32),
    case("half", lambda m, x: x.half().double(), X34, **HALF),
    case("half_times", lambda m, x: (x.half() * 2.0).double() * x, X34, **HALF),
    case("half_transposed", lambda m, x: x.t().half().double(), X234[0], **HALF),
    case("half_0d", lambda m, x: x.half().double(), rand((), 154), **HALF),
    case("half_zero_size", lambda m, x: x.half().double(), rand((0, 2), 155), **HALF),
]


@pytest.mark.parametrize("fn, arrays, tol", CASTS)
def test_casts(fn, arrays, tol, device):
    check_grads(fn, arrays, device, **tol)


# ----------------------------------------------------------------------------------------------
# nanmedian
# ----------------------------------------------------------------------------------------------

NANS = rand((4, 5), 160)
NANS[0, 1], NANS[2, 0], NANS[2, 3], NANS[3, 4] = np.nan, np.nan, np.nan, np.nan
NANS3 = rand((2, 3, 4), 161)
NANS3[0, 1, 2], NANS3[1, 0, 0], NANS3[1, 2, 3] = np.nan, np.nan, np.nan

NANMEDIAN = [
    case("nanmedian_all", lambda m, x: m.nanmedian(x), NANS),
    case("nanmedian_all_method_no_nan", lambda m, x: x.nanmedian(), X34),
    case("nanmedian_all_transposed", lambda m, x: x.t().nanmedian(), NANS),
    case(
        "nanmedian_all_ties",
        lambda m, x: m.nanmedian(x),
        np.array([[1.0, 2.0, np.nan], [2.0, 3.0, 2.0], [np.nan, -1.0, 4.0]]),
    ),
    case("nanmedian_all_0d", lambda m, x: m.nanmedian(x), rand((), 162)),
    case("nanmedian_dim1", lambda m, x: m.nanmedian(x, 1).values, NANS),
    case("nanmedian_dim0_keepdim", lambda m, x: m.nanmedian(x, 0, keepdim=True)[0], NANS),
    case("nanmedian_neg_dim_3d", lambda m, x: x.nanmedian(-1).values, NANS3),
    case(
        "nanmedian_dim_transposed",
        lambda m, x: m.nanmedian(x.transpose(0, 2), dim=1).values,
        NANS3,
    ),
    case("nanmedian_dim_0d", lambda m, x: m.nanmedian(x, 0).values, rand((), 163)),
    case("nanmedian_dim_zero_size", lambda m, x: m.nanmedian(x, 1).values, rand((0, 3), 164)),
]


@pytest.mark.parametrize("fn, arrays, tol", NANMEDIAN)
def test_nanmedian(fn, arrays, tol, device):
    check_grads(fn, arrays, device, **tol)


# A NaN result of a reduction over everything is shared by the NaNs it came from, as PyTorch's
# evenly_distribute_backward: median(), nanmedian() of NaNs only, max() and min().
ALL_NAN = np.full((3,), np.nan)
SOME_NAN = np.array([[np.nan, 1.0, 2.0], [0.5, np.nan, 3.0]])
NAN_RESULTS = [
    case("nanmedian_all_nan", lambda m, x: m.nanmedian(x), ALL_NAN),
    case("median_some_nan", lambda m, x: m.median(x), SOME_NAN),
    case("median_all_nan_method", lambda m, x: x.median(), ALL_NAN),
    case("max_some_nan", lambda m, x: m.max(x), SOME_NAN),
    case("min_some_nan_transposed", lambda m, x: x.t().min(), SOME_NAN),
]


@pytest.mark.parametrize("fn, arrays, tol", NAN_RESULTS)
def test_nan_results_share_the_gradient_among_the_nans(fn, arrays, tol, device):
    check_grads(fn, arrays, device, **tol)
