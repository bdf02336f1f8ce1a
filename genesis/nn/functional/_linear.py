"""linear and bilinear."""

from __future__ import annotations

import math

from ..._C import Tensor, addmm, matmul
from ...amp._policies import autocast_policy

__all__ = ["bilinear", "linear"]


@autocast_policy
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Returns ``input @ weight.T + bias``: PyTorch's ``torch.nn.functional.linear``.

    ``input`` is (..., in_features), ``weight`` (out_features, in_features) and ``bias``
    (out_features,) or anything that broadcasts to the result. With a 1-D (or 0-d) bias the
    leading dims of ``input`` are flattened into the rows of one ``addmm``, so on CUDA the bias
    is added by cuBLASLt as it writes the product (one call, no second pass; Note [cuBLASLt
    matmul]). All tensors need one dtype and device, as for ``matmul``; gradients flow to all
    three.

    Args:
        input (Tensor): the (..., in_features) input.
        weight (Tensor): the (out_features, in_features) weight.
        bias (Tensor, optional): added to every row of the product. Default: ``None``.

    Returns:
        Tensor: the (..., out_features) result.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> F.linear(x, genesis.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]]),
        ...          genesis.tensor([0.5, 0.0, -1.0]))
        tensor([[1.5000, 3.0000, 3.0000],
                [3.5000, 7.0000, 7.0000]])
    """
    for name, t in (("input", input), ("weight", weight), ("bias", bias)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"[linear] {name} must be a Tensor, got {type(t).__name__}")
    if weight.ndim != 2:
        raise RuntimeError(
            f"[linear] weight must be 2-D (out_features, in_features), got {weight.ndim}-D"
        )
    if bias is None:
        return matmul(input, weight.t())
    if input.ndim >= 2 and bias.ndim <= 1:
        # The rows of every leading dim form one (rows, in_features) matrix: one addmm.
        if input.ndim == 2:
            return addmm(bias, input, weight.t())
        lead = tuple(input.shape)[:-1]
        out = addmm(bias, input.reshape(math.prod(lead), input.size(-1)), weight.t())
        return out.view(*lead, out.size(-1))
    return matmul(input, weight.t()) + bias


@autocast_policy
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``:
    PyTorch's ``torch.nn.functional.bilinear``, computed as one matrix product of ``input1``
    with the weight laid out as (in1, out * in2), then a product with ``input2`` summed over in2.

    Args:
        input1 (Tensor): (..., in1_features).
        input2 (Tensor): (..., in2_features), the same leading dims.
        weight (Tensor): (out_features, in1_features, in2_features).
        bias (Tensor, optional): (out_features,). Default: ``None``.

    Returns:
        Tensor: (..., out_features).

    Example::

        >>> import genesis.nn.functional as F
        >>> F.bilinear(genesis.tensor([[1.0, 2.0]]), genesis.tensor([[3.0]]),
        ...            genesis.tensor([[[1.0], [1.0]]]))
        tensor([[9.]])
    """
    for name, t in (("input1", input1), ("input2", input2), ("weight", weight), ("bias", bias)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"[bilinear] {name} must be a Tensor, got {type(t).__name__}")
    if weight.ndim != 3:
        raise RuntimeError(f"[bilinear] weight must be 3-D, got {weight.ndim}-D")
    out, n1, n2 = weight.shape
    if input1.shape[:-1] != input2.shape[:-1] or input1.shape[-1] != n1 or input2.shape[-1] != n2:
        raise RuntimeError(
            f"[bilinear] input1 {tuple(input1.shape)} and input2 {tuple(input2.shape)} do not "
            f"match weight {tuple(weight.shape)}: expected (..., {n1}) and (..., {n2}) with the "
            "same leading dims"
        )
    lead = input1.shape[:-1]
    rows = input1.reshape(math.prod(lead), n1)
    mixed = matmul(rows, weight.permute(1, 0, 2).reshape(n1, out * n2)).view(-1, out, n2)
    result = (mixed * input2.reshape(-1, 1, n2)).sum(-1).view(*lead, out)
    return result if bias is None else result + bias
