"""PyTorch-style genesis code that type-checks only where genesis's stubs tell the truth.

test_typing_usage.py runs mypy on this file and wants no error: each `assert_type` fails
when a result is typed `Any` or wrongly (`x + 1` must be a Tensor, `x.max(1).values` too), and
each call fails when the stubs lack a keyword the run time takes (`randn(3, requires_grad=True)`).
It is also a script that runs on the CPU (`python typing_usage.py`), so every line here is
checked against the run time as well; CUDA calls run only where a GPU is.

Not a test module (no test_ prefix): pytest does not collect it.
"""

from __future__ import annotations

import sys
from typing import Any, Optional, Union

import numpy as np

import genesis
import genesis.nn.functional as F
from genesis import Tensor

if sys.version_info >= (3, 11):
    from typing import assert_type
else:  # typing_extensions comes with mypy
    from typing_extensions import assert_type

Number = Union[int, float, bool]  # what item() returns
Tensors = tuple[Tensor, ...]

# ---- Creation: sizes as ints or one sequence, and every keyword the run time takes -------------
g = genesis.Generator().manual_seed(0)
x = genesis.zeros(2, 3)
assert_type(x, Tensor)
assert_type(genesis.zeros((2, 3), dtype=genesis.float64, device="cpu", requires_grad=True), Tensor)
assert_type(genesis.zeros(size=[2, 3]), Tensor)
assert_type(genesis.zeros(), Tensor)
assert_type(genesis.ones(2, 3, dtype=genesis.int32, device=genesis.device("cpu")), Tensor)
assert_type(genesis.empty(4, pin_memory=False, requires_grad=False), Tensor)
assert_type(genesis.full((2, 2), 7.0, dtype=genesis.float32, requires_grad=True), Tensor)
assert_type(genesis.rand(2, 3, generator=g, requires_grad=True), Tensor)
assert_type(genesis.randn(3, requires_grad=True), Tensor)
assert_type(genesis.randn((3, 2), generator=g, dtype=genesis.float64, device="cpu"), Tensor)
assert_type(genesis.randint(0, 10, (3,), generator=g, dtype=genesis.int32), Tensor)
assert_type(genesis.randint(10, (3,)), Tensor)
assert_type(genesis.randint(low=1, high=5, size=(2, 2)), Tensor)
assert_type(genesis.randperm(5, generator=g, dtype=genesis.int64), Tensor)
assert_type(genesis.arange(6), Tensor)
assert_type(genesis.arange(0.0, 1.0, 0.25, dtype=genesis.float64, requires_grad=True), Tensor)
assert_type(genesis.linspace(0, 1, steps=5, requires_grad=True), Tensor)
assert_type(genesis.eye(3, dtype=genesis.float64, device="cpu"), Tensor)
assert_type(genesis.normal(0.0, 1.0, (2,), generator=g, requires_grad=True), Tensor)
assert_type(genesis.tensor([[1.0, 2.0]], dtype=genesis.float32, requires_grad=True), Tensor)
assert_type(genesis.as_tensor([1, 2], dtype=genesis.int64, device="cpu"), Tensor)
assert_type(genesis.asarray(np.zeros(3), dtype=genesis.float32), Tensor)
assert_type(genesis.from_numpy(np.arange(3.0)), Tensor)
assert_type(genesis.zeros_like(x, dtype=genesis.float64, requires_grad=True), Tensor)
assert_type(genesis.ones_like(x, device="cpu"), Tensor)
assert_type(genesis.empty_like(x), Tensor)
assert_type(genesis.full_like(x, 2.0, requires_grad=True), Tensor)
assert_type(genesis.rand_like(x), Tensor)
assert_type(genesis.randn_like(x, dtype=genesis.float64), Tensor)
assert_type(genesis.randint_like(x, 5, generator=g), Tensor)
assert_type(genesis.randint_like(x, 1, 5, dtype=genesis.int64), Tensor)
assert_type(x.new_zeros(2, 2, requires_grad=True), Tensor)
assert_type(x.new_ones((2,), dtype=genesis.int8), Tensor)
assert_type(x.new_full((2,), 3.0), Tensor)
assert_type(x.new_tensor([1.0, 2.0]), Tensor)
buffer = genesis.empty(0)
assert_type(genesis.zeros(2, 3, out=buffer), Tensor)
# dtype= also takes names, Python types and NumPy types (the user guide shows them all).
assert_type(genesis.zeros(2, dtype="float16"), Tensor)
assert_type(genesis.zeros(2, dtype=float), Tensor)
assert_type(genesis.zeros(2, dtype=np.int8), Tensor)
genesis.manual_seed(0)

# ---- dtype, device and shape ------------------------------------------------------------------
assert_type(x.dtype, genesis.dtype)
assert_type(x.dtype.is_floating_point, bool)
assert_type(x.dtype.itemsize, int)
assert_type(x.device, genesis.device)
assert_type(x.device.type, str)
assert_type(x.device.index, Optional[int])
assert_type(x.shape, genesis.Size)
assert_type(x.size(), genesis.Size)
assert_type(x.size(1), int)
assert_type(x.stride(), tuple[int, ...])
assert_type(x.numel(), int)
assert_type(x.ndim, int)
assert_type(x.dim(), int)
assert_type(x.element_size(), int)
assert_type(x.is_cuda, bool)
# genesis.Size is a tuple subclass; its items and numel() are Any to mypy while genesis/_size.py
# has no annotations.
rows = x.shape[0] + 1
elements = x.shape.numel()
assert rows == 3 and elements == 6
assert_type(len(x), int)
assert_type(genesis.promote_types(genesis.int32, genesis.float32), genesis.dtype)
assert_type(genesis.result_type(x, 1), genesis.dtype)
default = genesis.get_default_dtype()
genesis.set_default_dtype(genesis.float64)
assert genesis.tensor([1.5]).dtype is genesis.float64
genesis.set_default_dtype(default)

# ---- Conversions ------------------------------------------------------------------------------
assert_type(x.to(genesis.float64), Tensor)
assert_type(x.to("cpu"), Tensor)
assert_type(x.to(genesis.device("cpu"), genesis.float16), Tensor)
assert_type(x.to(x), Tensor)
assert_type(x.to(device="cpu", dtype=genesis.float16, copy=True), Tensor)
assert_type(x.to(genesis.float64, non_blocking=False), Tensor)
for converted in (x.float(), x.double(), x.half(), x.bfloat16(), x.long(), x.int(), x.short()):
    assert_type(converted, Tensor)
assert_type(x.bool(), Tensor)
assert_type(x.byte(), Tensor)
assert_type(x.cpu(), Tensor)
assert_type(x.contiguous(), Tensor)
assert_type(x.type(), str)
assert_type(x.type(genesis.float64), Tensor)
assert_type(x.type_as(genesis.zeros(1, dtype=genesis.int64)), Tensor)

# ---- Operators: with tensors, Python numbers and NumPy values, on either side -----------------
y = genesis.arange(1.0, 7.0).view(2, 3)
assert_type(x + 1, Tensor)
assert_type(1 + x, Tensor)
assert_type(x * 2.5, Tensor)
assert_type(2.5 * x, Tensor)
assert_type(x - y, Tensor)
assert_type(1 - x, Tensor)
assert_type(y / 2, Tensor)
assert_type(2 / y, Tensor)
assert_type(y // 2, Tensor)
assert_type(y % 2, Tensor)
assert_type(y**2, Tensor)
assert_type(2**y, Tensor)
assert_type(-y, Tensor)
assert_type(abs(y), Tensor)
assert_type(y @ y.T, Tensor)
assert_type(y < 1, Tensor)
assert_type(y <= y, Tensor)
assert_type(y > 0.5, Tensor)
assert_type(y >= True, Tensor)
assert_type(y == y, Tensor)
assert_type(y != 0, Tensor)
assert_type((y > 0) & (y < 4), Tensor)
assert_type((y > 0) | True, Tensor)
assert_type(~(y > 0), Tensor)
assert_type(y + np.ones(3), Tensor)
assert_type(y * np.float32(2), Tensor)
assert_type(genesis.tensor([4]) << 1, Tensor)
z = y.clone()
z += 1
z *= 2
z -= y
z /= 4
assert_type(z, Tensor)
assert_type(z.add_(1), Tensor)
assert_type(z.mul_(2).clamp_(0, 10).zero_(), Tensor)
assert_type(z.fill_(3.0), Tensor)
assert_type(z.copy_(y), Tensor)
assert 3.0 in y and y.bool().any().item()

# ---- Math functions ---------------------------------------------------------------------------
assert_type(genesis.exp(y), Tensor)
assert_type(genesis.sin(y, out=genesis.empty(0)), Tensor)
assert_type(genesis.log1p(y), Tensor)
assert_type(genesis.sqrt(y).rsqrt(), Tensor)
assert_type(genesis.add(y, 1, alpha=2), Tensor)
assert_type(genesis.clamp(y, 0, 1), Tensor)
assert_type(genesis.where(y > 2, y, 0.0), Tensor)
assert_type(genesis.where(y > 2), Tensors)
assert_type(genesis.matmul(y, y.T), Tensor)
assert_type(genesis.cat([y, y], dim=0), Tensor)
assert_type(genesis.stack((y, y)), Tensor)
assert_type(genesis.einsum("ij,kj->ik", y, y), Tensor)
assert_type(genesis.softmax(y, dim=1), Tensor)
assert_type(F.relu(y), Tensor)
assert_type(genesis.lerp(y, y, 0.5), Tensor)
assert_type(genesis.linalg.inv(genesis.eye(2) * 2), Tensor)
assert_type(genesis.linalg.norm(y), Tensor)
q, r = genesis.linalg.qr(y)
assert_type(q, Tensor)
assert_type(genesis.linalg.svd(y).S, Tensor)
assert_type(genesis.linalg.eigh(genesis.eye(2)).eigenvalues, Tensor)
assert_type(genesis.linalg.slogdet(genesis.eye(2)).logabsdet, Tensor)

# ---- Reductions: dim= gives (values, indices) named tuples ------------------------------------
assert_type(y.sum(), Tensor)
assert_type(y.sum(dim=1, keepdim=True), Tensor)
assert_type(genesis.sum(y, 0, dtype=genesis.float64), Tensor)
assert_type(y.mean(1), Tensor)
assert_type(y.std(), Tensor)
assert_type(y.argmax(dim=1), Tensor)
assert_type(y.max(), Tensor)
assert_type(y.max(1).values, Tensor)
assert_type(y.max(dim=1, keepdim=True).indices, Tensor)
assert_type(y.max(y), Tensor)
values, indices = genesis.max(y, dim=1)
assert_type(values, Tensor)
assert_type(indices, Tensor)
assert_type(genesis.max(y), Tensor)
assert_type(genesis.max(y, y), Tensor)
assert_type(genesis.min(y, 0).indices, Tensor)
assert_type(y.min(dim=0)[0], Tensor)
assert_type(y.median(), Tensor)
assert_type(y.median(0).values, Tensor)
assert_type(genesis.nanmedian(y, 1).indices, Tensor)
assert_type(y.sort(descending=True).values, Tensor)
assert_type(genesis.sort(y, 1).indices, Tensor)
assert_type(y.topk(2).indices, Tensor)
assert_type(y.kthvalue(1, 0).values, Tensor)
assert_type(genesis.mode(y, 0).values, Tensor)
assert_type(genesis.cummax(y, 1).values, Tensor)
assert_type(genesis.aminmax(y).min, Tensor)
assert_type(y.histogram(bins=4).hist, Tensor)
std, mean = genesis.std_mean(y, dim=0)
assert_type(mean, Tensor)
assert_type(y.cumsum(1), Tensor)
assert_type(y.quantile(0.5), Tensor)

# ---- Splits and tuples of tensors -------------------------------------------------------------
assert_type(y.split(1), Tensors)
assert_type(genesis.split(y, [1, 1]), Tensors)
assert_type(y.chunk(2, dim=1), Tensors)
assert_type(y.unbind(0), Tensors)
assert_type(genesis.broadcast_tensors(y, y[0]), Tensors)
assert_type(genesis.meshgrid(y[0], y[0], indexing="xy"), Tensors)
assert_type(genesis.atleast_2d(y[0]), Tensor)
assert_type(genesis.atleast_2d(y, y), Tensors)
assert_type(y.nonzero(), Tensor)
assert_type(y.nonzero(as_tuple=True), Tensors)
assert_type(genesis.unique(y), Tensor)
unique, inverse = genesis.unique(y, return_inverse=True)
assert_type(inverse, Tensor)

# ---- Indexing, slicing and views --------------------------------------------------------------
assert_type(y[0], Tensor)
assert_type(y[:, 1:], Tensor)
assert_type(y[..., None], Tensor)
assert_type(y[y > 2], Tensor)
assert_type(y[[0, 1]], Tensor)
assert_type(y[genesis.tensor([1, 0])], Tensor)
y[0, 0] = 1.0
y[y > 5] = genesis.tensor(0.0)
assert_type(y.view(6), Tensor)
assert_type(y.view(-1, 2), Tensor)
assert_type(y.view((3, 2)), Tensor)
assert_type(y.view(y.shape), Tensor)
assert_type(y.reshape(3, 2), Tensor)
assert_type(y.reshape(shape=(6,)), Tensor)
assert_type(y.permute(1, 0), Tensor)
assert_type(y.permute((1, 0)), Tensor)
assert_type(y.transpose(0, 1), Tensor)
assert_type(y.T, Tensor)
assert_type(y.t(), Tensor)
assert_type(y.unsqueeze(0).squeeze(), Tensor)
assert_type(y.flatten(), Tensor)
assert_type(y.expand(4, 2, 3), Tensor)
assert_type(y.expand_as(genesis.zeros(4, 2, 3)), Tensor)
assert_type(y.repeat(2, 1), Tensor)
assert_type(y.flip(0), Tensor)
assert_type(y.narrow(1, 0, 2), Tensor)
assert_type(y.clone().resize_(6), Tensor)
for row in y:
    assert_type(row, Tensor)

# ---- Autograd -----------------------------------------------------------------------------------
w = genesis.randn(3, requires_grad=True)
b = genesis.zeros(1, requires_grad=True)
assert_type(w.requires_grad, bool)
assert_type(w.is_leaf, bool)
assert_type(w.grad_fn, Optional[genesis._C._Node])
loss = ((w * 2 + b) ** 2).sum()
assert_type(loss, Tensor)
assert loss.grad_fn is not None
assert_type(loss.grad_fn.name(), str)
loss.backward()
assert_type(w.grad, Optional[Tensor])
grad = w.grad
assert grad is not None
assert_type(grad, Tensor)
with genesis.no_grad():
    w -= 0.1 * grad
    assert_type(w, Tensor)
w.grad = None
assert_type(w.requires_grad_(False), Tensor)
assert_type(w.detach(), Tensor)
with genesis.enable_grad():
    pass

# ---- Python values ----------------------------------------------------------------------------
value = loss.item()
assert_type(value, Number)
assert_type(float(loss), float)
assert_type(int(genesis.tensor(3)), int)
assert_type(bool(genesis.tensor(True)), bool)
assert_type(y.tolist(), Any)  # nested lists of numbers, or a number: honestly Any
assert_type(y.numpy(), np.ndarray)
assert_type(np.asarray(y), np.ndarray)

# ---- CUDA and testing helpers -----------------------------------------------------------------
allocated = genesis.cuda.memory_allocated()
if genesis.cuda.is_available():
    on_gpu = y.cuda()
    assert_type(on_gpu, Tensor)
    assert_type(y.to("cuda:0", non_blocking=True), Tensor)
    genesis.cuda.synchronize()
    assert genesis.cuda.memory_allocated() >= allocated
    genesis.cuda.empty_cache()
genesis.testing.assert_close(y, y.clone())
genesis.testing.assert_close(genesis.tensor([1.0]), genesis.tensor([1.0 + 1e-9]), rtol=0, atol=1e-6)

if __name__ == "__main__":
    print("typing_usage: every line ran")
