#pragma once
// Docstrings of csrc/python/activation.cpp, looked up by name (kActivation);
// tests/project/test_docstrings.py runs their examples.
#include "python/docs/lookup.h"

namespace genesis::python::docs {

inline constexpr const char* kSilu =
    R"doc(Applies SiLU (the swish function), ``x * sigmoid(x)``, elementwise, computed as
``x / (1 + exp(-x))``. Floating point input only (integers raise TypeError, as in PyTorch).
Also ``genesis.nn.functional.silu``.

Args:
    input (Tensor): the input tensor.
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False.

Returns:
    Tensor: a new tensor, or ``input`` when inplace.

Example::

    >>> genesis.silu(genesis.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.2689,  0.0000,  1.7616])
)doc";

inline constexpr const char* kMish =
    R"doc(Applies Mish, ``x * tanh(softplus(x))``, elementwise. Floating point input only.
Also ``genesis.nn.functional.mish``.

Args:
    input (Tensor): the input tensor.
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False.

Returns:
    Tensor: a new tensor, or ``input`` when inplace.

Example::

    >>> genesis.mish(genesis.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.3034,  0.0000,  1.9440])
)doc";

inline constexpr const char* kFunctionalRelu =
    R"doc(Applies ReLU, ``max(x, 0)``, elementwise (torch.nn.functional's form, with ``inplace``;
``genesis.relu`` and ``Tensor.relu`` are the plain ones).

Args:
    input (Tensor): the input tensor.
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False.

Returns:
    Tensor: a new tensor, or ``input`` when inplace.

Example::

    >>> genesis.nn.functional.relu(genesis.tensor([-1.0, 0.0, 2.0]), inplace=True)
    tensor([0., 0., 2.])
)doc";

inline constexpr const char* kGelu =
    R"doc(Applies GELU elementwise: ``x * Phi(x)`` with the standard normal CDF ``Phi``, computed as
``x / 2 * (1 + erf(x / sqrt(2)))``, or with ``approximate='tanh'`` PyTorch's tanh approximation
``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))``. Floating point input only. Also
``genesis.nn.functional.gelu``.

Args:
    input (Tensor): the input tensor.
    approximate (str, optional): keyword-only, ``'none'`` or ``'tanh'``. Default: ``'none'``.

Returns:
    Tensor: a new tensor.

Example::

    >>> genesis.gelu(genesis.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.1587,  0.0000,  1.9545])
    >>> genesis.gelu(genesis.tensor([-1.0, 0.0, 2.0]), approximate='tanh')
    tensor([-0.1588,  0.0000,  1.9546])
)doc";

inline constexpr const char* kSoftplus =
    R"doc(Applies softplus, ``log(1 + exp(beta * x)) / beta``, elementwise; where ``beta * x`` exceeds
``threshold`` the result is ``x`` itself (as PyTorch, for numerical stability). Floating point
input only. Also ``genesis.nn.functional.softplus``.

Args:
    input (Tensor): the input tensor.
    beta (float, optional): the sharpness. Default: 1.
    threshold (float, optional): above it the function is linear. Default: 20.

Returns:
    Tensor: a new tensor.

Example::

    >>> genesis.softplus(genesis.tensor([-1.0, 0.0, 30.0]))
    tensor([ 0.3133,  0.6931, 30.0000])
    >>> genesis.softplus(genesis.tensor([-1.0, 0.0, 2.0]), beta=2.0)
    tensor([0.0635, 0.3466, 2.0091])
)doc";

inline constexpr const char* kElu =
    R"doc(Applies ELU elementwise: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere. Floating point
input only. Also ``genesis.nn.functional.elu``.

Args:
    input (Tensor): the input tensor.
    alpha (float, optional): the value the negative side tends to, negated. Default: 1.
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False.

Returns:
    Tensor: a new tensor, or ``input`` when inplace.

Example::

    >>> genesis.elu(genesis.tensor([-2.0, 0.0, 2.0]))
    tensor([-0.8647,  0.0000,  2.0000])
    >>> genesis.elu(genesis.tensor([-2.0, 0.0, 2.0]), alpha=0.5)
    tensor([-0.4323,  0.0000,  2.0000])
)doc";

inline constexpr const char* kEluInplace =
    R"doc(The in-place ``elu``: writes the result into ``input`` and returns it.

Args:
    input (Tensor): the tensor to transform.
    alpha (float, optional): as in ``elu``. Default: 1.

Returns:
    Tensor: ``input``.

Example::

    >>> x = genesis.tensor([-2.0, 2.0])
    >>> genesis.nn.functional.elu_(x) is x
    True
)doc";

inline constexpr const char* kLeakyRelu =
    R"doc(Applies the leaky ReLU elementwise: ``x`` where ``x > 0``, ``negative_slope * x`` elsewhere.
Floating point input only. Also ``genesis.nn.functional.leaky_relu``.

Args:
    input (Tensor): the input tensor.
    negative_slope (float, optional): the slope below zero. Default: 0.01.
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False.

Returns:
    Tensor: a new tensor, or ``input`` when inplace.

Example::

    >>> genesis.leaky_relu(genesis.tensor([-2.0, 0.0, 2.0]), 0.1)
    tensor([-0.2000,  0.0000,  2.0000])
)doc";

inline constexpr const char* kLeakyReluInplace =
    R"doc(The in-place ``leaky_relu``: writes the result into ``input`` and returns it.

Args:
    input (Tensor): the tensor to transform.
    negative_slope (float, optional): as in ``leaky_relu``. Default: 0.01.

Returns:
    Tensor: ``input``.

Example::

    >>> genesis.nn.functional.leaky_relu_(genesis.tensor([-2.0, 2.0]), 0.5)
    tensor([-1.,  2.])
)doc";

inline constexpr const char* kHardtanh =
    R"doc(Clamps each element to ``[min_val, max_val]`` (``clamp`` under the activation's name); every
dtype but bool. Also ``genesis.nn.functional.hardtanh``.

Args:
    input (Tensor): the input tensor.
    min_val (Number, optional): the lower bound. Default: -1.
    max_val (Number, optional): the upper bound, at least min_val. Default: 1.
    inplace (bool, optional): write the result into ``input`` and return it.
        Default: False.

Returns:
    Tensor: a new tensor, or ``input`` when inplace.

Example::

    >>> genesis.hardtanh(genesis.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
)doc";

inline constexpr const char* kHardtanhInplace =
    R"doc(The in-place ``hardtanh``: writes the result into ``input`` and returns it.

Args:
    input (Tensor): the tensor to clamp.
    min_val (Number, optional): the lower bound. Default: -1.
    max_val (Number, optional): the upper bound. Default: 1.

Returns:
    Tensor: ``input``.

Example::

    >>> genesis.nn.functional.hardtanh_(genesis.tensor([-2.0, 0.5, 2.0]), 0.0, 1.0)
    tensor([0.0000, 0.5000, 1.0000])
)doc";

inline constexpr const char* kLerp =
    R"doc(Linear interpolation, ``input + weight * (end - input)``, elementwise with broadcasting. As in
PyTorch, where ``|weight| >= 0.5`` it computes ``end - (end - input) * (1 - weight)``, so a
weight of 1 gives ``end`` exactly. Floating point tensors of one dtype (a tensor weight too).
``genesis.lerp(a, b, w)`` and ``a.lerp(b, w)`` are the same.

Args:
    input (Tensor): the start (``self`` for the method).
    end (Tensor): the end.
    weight (float or Tensor): the weight.
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor).

Returns:
    Tensor: a new tensor, or ``out``.

Example::

    >>> genesis.lerp(genesis.tensor([0.0, 1.0]), genesis.tensor([10.0, 3.0]), 0.25)
    tensor([2.5000, 1.5000])
)doc";

inline constexpr const char* kLerpInplace =
    R"doc(The in-place ``lerp``: interpolates this tensor towards ``end`` and returns it.

Args:
    end (Tensor): the end.
    weight (float or Tensor): the weight.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.tensor([0.0, 1.0]).lerp_(genesis.tensor([10.0, 3.0]), 0.5)
    tensor([5., 2.])
)doc";

inline constexpr const char* kAddcmul =
    R"doc(Computes ``input + value * tensor1 * tensor2`` elementwise, with broadcasting and type
promotion over the three tensors. For integer results ``value`` must be an integer.

Args:
    input (Tensor): the tensor added to (``self`` for the method).
    tensor1 (Tensor): the first factor.
    tensor2 (Tensor): the second factor.
    value (Number, optional): keyword-only, the scale of the product. Default: 1.
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor).

Returns:
    Tensor: a new tensor, or ``out``.

Example::

    >>> genesis.addcmul(genesis.tensor([1.0, 2.0]), genesis.tensor([3.0, 4.0]), genesis.tensor([0.5, 2.0]), value=2)
    tensor([ 4., 18.])
)doc";

inline constexpr const char* kAddcmulInplace =
    R"doc(The in-place ``addcmul``: adds ``value * tensor1 * tensor2`` to this tensor and returns it.

Args:
    tensor1 (Tensor): the first factor.
    tensor2 (Tensor): the second factor.
    value (Number, optional): keyword-only scale. Default: 1.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.tensor([1.0, 2.0]).addcmul_(genesis.tensor([3.0, 4.0]), genesis.tensor([0.5, 2.0]))
    tensor([ 2.5000, 10.0000])
)doc";

inline constexpr const char* kAddcdiv =
    R"doc(Computes ``input + value * tensor1 / tensor2`` elementwise, with broadcasting and type
promotion; integer division is refused (TypeError), as in PyTorch.

Args:
    input (Tensor): the tensor added to (``self`` for the method).
    tensor1 (Tensor): the numerator.
    tensor2 (Tensor): the denominator.
    value (Number, optional): keyword-only, the scale of the quotient. Default: 1.
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor).

Returns:
    Tensor: a new tensor, or ``out``.

Example::

    >>> genesis.addcdiv(genesis.tensor([1.0, 2.0]), genesis.tensor([3.0, 4.0]), genesis.tensor([2.0, 8.0]), value=0.5)
    tensor([1.7500, 2.2500])
)doc";

inline constexpr const char* kAddcdivInplace =
    R"doc(The in-place ``addcdiv``: adds ``value * tensor1 / tensor2`` to this tensor and returns it.

Args:
    tensor1 (Tensor): the numerator.
    tensor2 (Tensor): the denominator.
    value (Number, optional): keyword-only scale. Default: 1.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.tensor([1.0, 2.0]).addcdiv_(genesis.tensor([3.0, 4.0]), genesis.tensor([2.0, 8.0]))
    tensor([2.5000, 2.5000])
)doc";

inline constexpr const char* kClampMin =
    R"doc(Clamps each element from below: ``max(input, min)`` with PyTorch's type promotion (``clamp``
with only ``min``).

Args:
    input (Tensor): the input tensor (``self`` for the method).
    min (Number or Tensor): the lower bound.
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor).

Returns:
    Tensor: a new tensor, or ``out``.

Example::

    >>> genesis.clamp_min(genesis.tensor([-2.0, 0.5, 2.0]), 0.0)
    tensor([0.0000, 0.5000, 2.0000])
)doc";

inline constexpr const char* kClampMinInplace =
    R"doc(The in-place ``clamp_min``; returns this tensor.

Args:
    min (Number or Tensor): the lower bound.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.tensor([-2, 1, 3]).clamp_min_(0)
    tensor([0, 1, 3])
)doc";

inline constexpr const char* kClampMax =
    R"doc(Clamps each element from above: ``min(input, max)`` with PyTorch's type promotion (``clamp``
with only ``max``).

Args:
    input (Tensor): the input tensor (``self`` for the method).
    max (Number or Tensor): the upper bound.
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor).

Returns:
    Tensor: a new tensor, or ``out``.

Example::

    >>> genesis.clamp_max(genesis.tensor([-2.0, 0.5, 2.0]), 1.0)
    tensor([-2.0000,  0.5000,  1.0000])
)doc";

inline constexpr const char* kClampMaxInplace =
    R"doc(The in-place ``clamp_max``; returns this tensor.

Args:
    max (Number or Tensor): the upper bound.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.tensor([-2, 1, 3]).clamp_max_(2)
    tensor([-2,  1,  2])
)doc";

inline constexpr const char* kNanToNum =
    R"doc(Replaces NaN by ``nan``, positive infinity by ``posinf`` and negative infinity by ``neginf``;
the infinities default to the largest and lowest finite values of the dtype. Integer and bool
input is returned as a copy.

Args:
    input (Tensor): the input tensor (``self`` for the method).
    nan (float, optional): the value for NaN. Default: 0.
    posinf (float, optional): the value for +inf. Default: None (the dtype's largest).
    neginf (float, optional): the value for -inf. Default: None (the dtype's lowest).
    out (Tensor, optional): keyword-only tensor to write the result into (Note [out=
        arguments]: same device and shape; the result dtype must cast to its dtype).
        Default: None (a new tensor).

Returns:
    Tensor: a new tensor, or ``out``.

Example::

    >>> x = genesis.tensor([float('nan'), float('inf'), -float('inf'), 1.5])
    >>> genesis.nan_to_num(x, posinf=9.0)
    tensor([ 0.0000e+00,  9.0000e+00, -3.4028e+38,  1.5000e+00])
    >>> x.nan_to_num().tolist()[1] == genesis.finfo(genesis.float32).max
    True
)doc";

inline constexpr const char* kNanToNumInplace =
    R"doc(The in-place ``nan_to_num``; returns this tensor.

Args:
    nan (float, optional): the value for NaN. Default: 0.
    posinf (float, optional): the value for +inf. Default: None.
    neginf (float, optional): the value for -inf. Default: None.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.tensor([float('nan'), 2.0]).nan_to_num_(nan=-1.0)
    tensor([-1.,  2.])
)doc";

inline constexpr const char* kIsclose =
    R"doc(Tests elementwise whether ``|input - other| <= atol + rtol * |other|`` (with broadcasting);
equal values (infinities of one sign too) are close, NaNs only with ``equal_nan``. Both
tensors must have one dtype; integers compare in float32.

Args:
    input (Tensor): the first tensor (``self`` for the method).
    other (Tensor): the second tensor.
    rtol (float, optional): relative tolerance. Default: 1e-05.
    atol (float, optional): absolute tolerance. Default: 1e-08.
    equal_nan (bool, optional): whether two NaNs are close. Default: False.

Returns:
    Tensor: a bool tensor of the broadcast shape.

Example::

    >>> genesis.isclose(genesis.tensor([1.0, 1.001, float('nan')]), genesis.tensor([1.0, 1.0, float('nan')]), rtol=1e-4)
    tensor([ True, False, False])
)doc";

inline constexpr const char* kAllclose =
    R"doc(Whether ``isclose`` holds for every element (as a Python bool).

Args:
    input (Tensor): the first tensor (``self`` for the method).
    other (Tensor): the second tensor.
    rtol (float, optional): relative tolerance. Default: 1e-05.
    atol (float, optional): absolute tolerance. Default: 1e-08.
    equal_nan (bool, optional): whether two NaNs are close. Default: False.

Returns:
    bool: True when every pair is close.

Example::

    >>> genesis.allclose(genesis.tensor([1.0, 2.0]), genesis.tensor([1.0, 2.0000001]))
    True
)doc";

inline constexpr const char* kEqual =
    R"doc(Whether the two tensors have the same shape and equal elements (a Python bool); values compare
with type promotion, and NaN equals nothing.

Args:
    input (Tensor): the first tensor (``self`` for the method).
    other (Tensor): the second tensor.

Returns:
    bool: True when shapes and elements are equal.

Example::

    >>> genesis.equal(genesis.tensor([1, 2]), genesis.tensor([1, 2]))
    True
    >>> genesis.equal(genesis.tensor([1, 2]), genesis.tensor([[1, 2]]))
    False
)doc";

inline constexpr NamedDoc kActivation[] = {
    {"silu", kSilu},
    {"mish", kMish},
    {"relu", kFunctionalRelu},
    {"gelu", kGelu},
    {"softplus", kSoftplus},
    {"elu", kElu},
    {"elu_", kEluInplace},
    {"leaky_relu", kLeakyRelu},
    {"leaky_relu_", kLeakyReluInplace},
    {"hardtanh", kHardtanh},
    {"hardtanh_", kHardtanhInplace},
    {"lerp", kLerp},
    {"lerp_", kLerpInplace},
    {"addcmul", kAddcmul},
    {"addcmul_", kAddcmulInplace},
    {"addcdiv", kAddcdiv},
    {"addcdiv_", kAddcdivInplace},
    {"clamp_min", kClampMin},
    {"clamp_min_", kClampMinInplace},
    {"clamp_max", kClampMax},
    {"clamp_max_", kClampMaxInplace},
    {"nan_to_num", kNanToNum},
    {"nan_to_num_", kNanToNumInplace},
    {"isclose", kIsclose},
    {"allclose", kAllclose},
    {"equal", kEqual},
};

}  // namespace genesis::python::docs
