"""genesis.autograd.gradcheck and gradgradcheck: they pass for correct gradients (elementwise,
matmul, reductions, non-contiguous and 0-d inputs, broadcasting, tuple outputs, non-tensor
arguments), fail for wrong ones (a hook that changes a gradient, a gradient lost to detach, a
nondeterministic backward, a second derivative cut by detach), by raising GradcheckError or
returning False, and refuse bad arguments with "[gradcheck]" errors. The inputs are restored
after the check. Their docstrings follow test_docstrings.py's rules and their examples run.

Shapes are small: the numerical Jacobian costs two calls of the function per input element.
"""

import warnings

import numpy as np
import pytest
import test_docstrings as docstring_rules
from conftest import check_message, to_numpy

import genesis
from genesis.autograd import GradcheckError, gradcheck, gradgradcheck

F64 = genesis.float64


def leaf(shape, device, seed=0, dtype=F64):
    """A float64 leaf requiring grad, of normal random values."""
    a = np.random.default_rng(seed).standard_normal(shape)
    return genesis.tensor(a, dtype=dtype, device=device, requires_grad=True)


def times_two_gradient_tripled(x):
    """2x, with a hook that triples its gradient: a wrong analytical gradient (6 for 2)."""
    y = x * 2
    y.register_hook(lambda g: g * 3)
    return y


# ----------------------------------------------------------------------------------------------
# Correct gradients pass
# ----------------------------------------------------------------------------------------------

PASSING = [
    ("mul_add_sin", lambda x, y: x * y + x.sin(), [(3, 4), (3, 4)]),
    ("matmul", lambda a, b: a @ b, [(2, 3), (3, 4)]),
    ("sum_dim", lambda x: x.sum(1), [(3, 4)]),
    ("sum_dims_keepdim", lambda x: (x * x).sum((0, 2), keepdim=True), [(2, 3, 2)]),
    ("mean_all", lambda x: x.exp().mean(), [(2, 3)]),
    ("broadcast", lambda x, b: x * b.tanh() - b / 3, [(2, 3), (3,)]),
    ("broadcast_both", lambda x, b: (x + b) ** 2, [(2, 1), (1, 3)]),
    ("tuple_outputs", lambda x, y: (x.sigmoid() * y, (x * y).sum()), [(2, 3), (2, 3)]),
    ("view_ops", lambda x: x.t().reshape(6)[1:5] * x.view(6)[:4], [(2, 3)]),
    ("identity", lambda x: x, [(2, 2)]),
]


@pytest.mark.parametrize("fn, shapes", [c[1:] for c in PASSING], ids=[c[0] for c in PASSING])
def test_passes_for_correct_gradients(fn, shapes, device):
    inputs = tuple(leaf(s, device, seed=i) for i, s in enumerate(shapes))
    assert gradcheck(fn, inputs) is True


def test_single_tensor_input_and_list_output(device):
    x = leaf((2, 3), device)
    assert gradcheck(lambda t: [t * 2, t.cos()], x)


def test_non_contiguous_input(device):
    base = leaf((4, 3), device)
    xt = base.t()  # (3, 4), strides (1, 3): not contiguous, and not a leaf
    assert not xt.is_contiguous()
    assert gradcheck(lambda t: (t * t.exp()).sum(0), (xt,))
    strided = leaf((3, 6), device, seed=1)[:, ::2]
    assert gradcheck(lambda t: t * t * t, (strided,))


def test_zero_dim_and_empty_inputs(device):
    s = genesis.tensor(0.7, dtype=F64, device=device, requires_grad=True)
    assert gradcheck(lambda t: t.exp() * t, s)
    e = genesis.zeros(0, 3, dtype=F64, device=device, requires_grad=True)
    assert gradcheck(lambda t: t.sum(0) + 1, e)


def test_non_tensor_and_constant_arguments(device):
    x = leaf((2, 3), device)
    c = leaf((2, 3), device, seed=1).detach()  # a tensor that does not require grad
    assert gradcheck(lambda t, k, u, p: t * k + u * t**p, (x, 2.5, c, 2))


def test_integer_and_unused_outputs(device):
    x, y = leaf((3,), device), leaf((3,), device, seed=1)
    # y is unused (zero Jacobian both ways); argmax's integer output is not checked.
    assert gradcheck(lambda a, b: (a * 2, a.argmax()), (x, y))


def test_inputs_are_restored(device):
    x = leaf((2, 3), device)
    xt = leaf((3, 2), device, seed=1)
    before, before_t = to_numpy(x.detach()), to_numpy(xt.detach())
    assert gradcheck(lambda a, b: a @ b, (x, xt.t().t()))
    np.testing.assert_array_equal(to_numpy(x.detach()), before)
    np.testing.assert_array_equal(to_numpy(xt.detach()), before_t)
    assert x.grad is None and xt.grad is None  # autograd.grad, never .grad accumulation


def test_nondet_tol_and_grad_dtypes(device):
    x = leaf((3,), device)
    calls = [0]

    def drifting(t):  # each backward a little different
        y = t * 1.0

        def hook(g):
            calls[0] += 1
            return g * (1 + 1e-9 * calls[0])

        y.register_hook(hook)
        return y

    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(drifting, x)
    assert gradcheck(drifting, x, nondet_tol=1e-6)
    assert gradcheck(lambda t: t * t, x, check_grad_dtypes=True)


# ----------------------------------------------------------------------------------------------
# Wrong gradients fail
# ----------------------------------------------------------------------------------------------


def test_wrong_gradient_fails(device):
    x = leaf((2, 2), device)
    assert gradcheck(times_two_gradient_tripled, x, raise_exception=False) is False
    with pytest.raises(GradcheckError) as info:
        gradcheck(times_two_gradient_tripled, x)
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError)
    check_message(info, "gradcheck")
    assert "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:" in msg
    assert "\nanalytical:" in msg
    assert "6." in msg.split("analytical:")[1]  # the analytical Jacobian is 6 I, not 2 I


def test_mismatch_names_the_output_and_input():
    x, y = leaf((2,), "cpu"), leaf((2,), "cpu", seed=1)
    with pytest.raises(GradcheckError, match="for output 1 with respect to input 2,"):
        gradcheck(lambda a, k, b: (a * k, times_two_gradient_tripled(b)), (x, 3.0, y))


def test_gradient_not_multiplied_by_grad_output():
    def nonzero_for_zero_grad_output(t):
        # Right for every one-hot grad_output (the Jacobian matches), wrong for zeros.
        y = t * 1.0
        y.register_hook(lambda g: g if (g != 0).any().item() else g + 1)
        return y

    x = leaf((3,), "cpu")
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output") as info:
        gradcheck(nonzero_for_zero_grad_output, x)
    check_message(info, "gradcheck")


def test_output_outside_the_graph_must_not_depend_on_inputs(device):
    x = leaf((3,), device)
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda t: t.detach() * 2, x)
    assert gradcheck(lambda t: (t * 2, t.detach() * 2), x, raise_exception=False) is False
    assert gradcheck(lambda t: t.detach() * 0, x)  # constant: fine


# ----------------------------------------------------------------------------------------------
# Warnings and bad arguments
# ----------------------------------------------------------------------------------------------


def test_float32_input_warns():
    x = leaf((3,), "cpu", dtype=genesis.float32)
    with pytest.warns(UserWarning, match=r"Input #1 requires gradient and is not a double"):
        gradcheck(lambda k, t: t * k, (2.0, x), eps=1e-3, atol=1e-2, rtol=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradcheck(lambda t: t * 2, leaf((3,), "cpu"))  # float64: no warning


def test_no_input_requires_grad():
    x = genesis.ones(3, dtype=F64)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient") as info:
        gradcheck(lambda t: t * 2, (x, 1.0))
    check_message(info, "gradcheck")
    with pytest.raises(ValueError) as info:
        gradgradcheck(lambda t: t * 2, x)
    check_message(info, "gradgradcheck")


@pytest.mark.parametrize(
    "fn, got",
    [
        (lambda t: 3.0, "got float"),
        (lambda t: (t, 3), "got a tuple holding int at position 1"),
        (lambda t: None, "got NoneType"),
    ],
    ids=["number", "tuple_with_int", "none"],
)
def test_output_must_be_tensors(fn, got):
    with pytest.raises(TypeError, match=got) as info:
        gradcheck(fn, leaf((2,), "cpu"))
    check_message(info, "gradcheck")


def test_stride_zero_input_is_refused():
    x = leaf((1, 3), "cpu").expand(2, 3)
    with pytest.raises(RuntimeError, match="has a dimension with stride 0") as info:
        gradcheck(lambda t: t * 2, x)
    check_message(info, "gradcheck")


@pytest.mark.parametrize("check", [gradcheck, gradgradcheck])
@pytest.mark.parametrize("option", ["check_batched_grad", "fast_mode"])
def test_unsupported_modes(check, option):
    x = leaf((2,), "cpu")
    with pytest.raises(NotImplementedError, match=f"{option}=True") as info:
        check(lambda t: t * 2, x, **{option: True})
    check_message(info, check.__name__)
    assert check(lambda t: t * 2, x, **{option: False}, check_undefined_grad=False)


# ----------------------------------------------------------------------------------------------
# gradgradcheck
# ----------------------------------------------------------------------------------------------


def test_gradgradcheck_passes(device):
    x = leaf((2, 3), device)
    w = leaf((3, 2), device, seed=1)
    assert gradgradcheck(lambda t: t**3, x) is True
    assert gradgradcheck(lambda a, b: ((a @ b).tanh() ** 2).sum(), (x, w))
    assert gradgradcheck(lambda a, b: (a @ b, a.sin()), (x, w), gen_non_contig_grad_outputs=True)


def test_gradgradcheck_with_given_grad_outputs(device):
    x = leaf((2, 3), device)
    v = leaf((2, 3), device, seed=1)  # requires grad: checked too
    c = leaf((2, 3), device, seed=2).detach()  # a constant
    assert gradgradcheck(lambda t: t.exp() * t, x, v)
    assert gradgradcheck(lambda t: t.exp() * t, (x,), (c,))
    with pytest.raises(ValueError, match="grad_outputs has 2 tensors") as info:
        gradgradcheck(lambda t: t * t, x, (v, v))
    check_message(info, "gradgradcheck")
    with pytest.raises(TypeError, match="grad_outputs must be Tensors") as info:
        gradgradcheck(lambda t: t * t, x, (1.0,))
    check_message(info, "gradgradcheck")


def test_gradgradcheck_fails_for_a_wrong_second_derivative(device):
    x = leaf((3,), device)

    def square_grad_detached(t):
        # The first derivative is right (2 t v), but its graph loses the dependence on v.
        y = t * t
        y.register_hook(lambda g: g.detach())
        return y

    assert gradcheck(square_grad_detached, x)
    assert gradgradcheck(square_grad_detached, x, raise_exception=False) is False
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(square_grad_detached, x)
    check_message(info, "gradgradcheck")
    assert "Jacobian mismatch for output 0 with respect to input 1," in str(info.value)


def test_gradgradcheck_fails_for_a_wrong_first_derivative():
    x = leaf((3,), "cpu")
    # (x * 2)'s gradient tripled is still linear in v with no dependence on x: gradgradcheck
    # passes (second derivatives are consistent); gradcheck is the check that fails.
    assert gradgradcheck(times_two_gradient_tripled, x)
    assert not gradcheck(times_two_gradient_tripled, x, raise_exception=False)


# ----------------------------------------------------------------------------------------------
# Exports and docstrings
# ----------------------------------------------------------------------------------------------


def test_exports():
    assert genesis.autograd.gradcheck is gradcheck
    assert genesis.autograd.gradgradcheck is gradgradcheck
    assert issubclass(genesis.autograd.GradcheckError, RuntimeError)
    for name in ("gradcheck", "gradgradcheck", "GradcheckError"):
        assert name in genesis.autograd.__all__


DOCUMENTED = [
    ("genesis.autograd.gradcheck", gradcheck),
    ("genesis.autograd.gradgradcheck", gradgradcheck),
    ("genesis.autograd.GradcheckError", GradcheckError),
]


@pytest.mark.parametrize("qualname, obj", DOCUMENTED, ids=[q for q, _ in DOCUMENTED])
def test_docstring_rules_and_examples(qualname, obj):
    docstring_rules.test_docstring(qualname, obj)
    docstring_rules.test_examples_run(qualname, obj)
