"""Everyday compute code, run on every device and checked against NumPy on the same values.

Elementwise math (+, *, pow, exp), reductions (sum, mean, max with indices), matmul, shape ops
and views, in-place updates (which allocate nothing on CUDA), stack and batched reductions,
strided access, relu, boolean masks built with comparisons (`data > 50`, combined with &, | and
~) for getitem and setitem, a matmul shape mismatch, and loops that must not leak memory.
"""

import numpy as np
import pytest
from conftest import requires_cuda, to_numpy
from op_reference import assert_close, finish

import genesis

F32, I64 = genesis.float32, genesis.int64


def np_of(t):
    return to_numpy(t).astype(np.float64)


def test_basic_math_and_reductions(device):
    # 基础操作: 数学运算
    x = genesis.randn(100, 100, device=device)
    y = genesis.randn(100, 100, device=device)
    a, b = to_numpy(x), to_numpy(y)

    # 逐元素运算
    z = x + y  # 加法
    w = x * y  # 乘法
    u = x.pow(2)  # 幂运算
    v = x.exp()  # 指数函数
    assert_close(z, a + b, F32)
    assert_close(w, a * b, F32)
    assert_close(u, a * a, F32, rtol=4e-6)
    assert_close(v, np.exp(a.astype(np.float64)).astype(np.float32), F32, rtol=4e-6)

    # 归约操作
    sum_all = x.sum()  # 全局求和
    sum_dim = x.sum(dim=0)  # 按维度求和
    mean_val = x.mean()  # 平均值
    max_val, indices = x.max(dim=1)  # 最大值和索引
    a64 = a.astype(np.float64)
    tol = 1e-6 * np.abs(a64).sum()
    assert sum_all.shape == () and abs(sum_all.item() - a64.sum()) <= tol
    assert_close(sum_dim, a64.sum(axis=0).astype(np.float32), F32, rtol=1e-5, atol=1e-4)
    assert abs(mean_val.item() - a64.mean()) <= tol / a.size
    assert_close(max_val, a.max(axis=1), F32, rtol=0.0)
    assert_close(indices, a.argmax(axis=1), I64)


def test_linear_algebra(device):
    # 线性代数
    a = genesis.randn(100, 50, device=device)
    b = genesis.randn(50, 200, device=device)
    c = genesis.matmul(a, b)  # 矩阵乘法
    assert tuple(c.shape) == (100, 200) and c.dtype is F32
    want = np_of(a) @ np_of(b)
    np.testing.assert_allclose(np_of(c), want, rtol=1e-4, atol=1e-4)


def test_shape_ops(device):
    x = genesis.randn(100, 100, device=device)
    a = to_numpy(x)
    # 形状操作
    reshaped = x.view(10, 1000)  # 改变形状
    transposed = x.transpose(0, 1)  # 转置
    flattened = x.flatten()  # 展平
    assert_close(reshaped, a.reshape(10, 1000), F32, rtol=0.0)
    assert_close(transposed, a.T, F32, rtol=0.0)
    assert_close(flattened, a.ravel(), F32, rtol=0.0)
    # Compute on the views too.
    assert_close(transposed + x, a.T + a, F32)
    assert_close(
        reshaped.sum(dim=1), a.reshape(10, 1000).astype(np.float64).sum(1), F32, 1e-5, 1e-3
    )


def test_boolean_mask_examples(device):
    # 高级索引: data = arange(0, 100).view(10, 10); mask = data > 50
    data = genesis.arange(0, 100, device=device).view(10, 10)
    d = np.arange(100).reshape(10, 10)

    slice_basic = data[2:5, 3:7]
    assert tuple(slice_basic.shape) == (3, 4)
    slice_stride = data[::2, 1::2]
    assert tuple(slice_stride.shape) == (5, 5)

    row_indices = genesis.tensor([0, 2, 4, 6], device=device)
    col_indices = genesis.tensor([1, 3, 5, 7], device=device)
    advanced = data[row_indices, col_indices]
    assert_close(advanced, d[[0, 2, 4, 6], [1, 3, 5, 7]], I64)

    mask = data > 50  # 布尔索引
    assert_close(mask, d > 50, genesis.bool)
    masked_data = data[mask]  # 选择大于50的元素
    assert_close(masked_data, d[d > 50], I64)

    mixed = data[row_indices, 2:8]
    assert tuple(mixed.shape) == (4, 6)

    # More mask spellings in the same style.
    assert_close(data[(data > 20) & (data <= 30)], d[(d > 20) & (d <= 30)], I64)
    assert_close(data[(data % 7 == 0) | (data < 3)], d[(d % 7 == 0) | (d < 3)], I64)
    assert_close(data[~(data >= 5)], d[~(d >= 5)], I64)
    x = genesis.randn(1000, 1000, device=device)
    a = to_numpy(x)
    m = x > 0.5
    w = x[m]
    assert_close(w, a[a > 0.5], F32, rtol=0.0)
    data[data > 50] = 0
    d[d > 50] = 0
    assert_close(data, d, I64)


def test_memory_efficient_ops(device):
    # 就地操作，避免内存分配
    x = genesis.randn(1000, 1000, device=device)
    a = to_numpy(x).copy()
    ptr = x.data_ptr()
    x += 1.0  # 就地加法
    a += np.float32(1.0)
    assert x.data_ptr() == ptr
    assert_close(x, a, F32)

    # 视图操作，零拷贝
    y = x.view(100, 10000)  # 改变形状但不复制数据
    z = x.transpose(0, 1)  # 转置视图
    assert y.data_ptr() == ptr and z.data_ptr() == ptr
    w = x[::2, ::3]  # 步长索引
    assert_close(w, a[::2, ::3], F32, rtol=0.0)


def test_inplace_operations_demo(device):
    # 非就地操作（创建新张量）
    x = genesis.randn(1000, 1000, device=device)
    a = to_numpy(x).astype(np.float64)
    y = x + 1.0  # 创建新张量
    z = y * 2.0  # 再创建新张量
    w = z.exp()  # 又创建新张量
    assert_close(w, finish(np.exp((a + 1) * 2), F32), F32, rtol=1e-5)

    # 就地操作（修改原张量）
    x = genesis.randn(1000, 1000, device=device)
    a = to_numpy(x).astype(np.float64)
    ptr = x.data_ptr()
    x += 1.0  # 就地加法
    x *= 2.0  # 就地乘法
    x.exp_()  # 就地指数函数
    assert x.data_ptr() == ptr
    assert_close(x, finish(np.exp((a + 1) * 2), F32), F32, rtol=1e-5)


@requires_cuda
def test_inplace_operations_allocate_nothing_on_cuda():
    x = genesis.randn(1000, 1000, device="cuda")
    genesis.cuda.synchronize()
    start = genesis.cuda.memory_allocated()
    y = x + 1.0
    z = y * 2.0
    w = z.exp()
    grown = genesis.cuda.memory_allocated() - start
    assert grown >= 3 * 4 * 1000 * 1000
    del y, z, w
    x = genesis.randn(1000, 1000, device="cuda")
    start = genesis.cuda.memory_allocated()
    x += 1.0
    x *= 2.0
    x.exp_()
    genesis.cuda.synchronize()
    assert genesis.cuda.memory_allocated() == start


def test_batch_operations_demo(device):
    # 批量操作优化
    matrices = [genesis.randn(100, 100, device=device) for _ in range(10)]
    # 方法1: 逐个处理
    results1 = []
    for matrix in matrices:
        result = matrix.exp().sum()
        results1.append(result)
    # 方法2: 批量处理
    batched = genesis.stack(matrices, dim=0)  # [10, 100, 100]
    results2 = batched.exp().sum(dim=(1, 2))  # [10]
    assert tuple(batched.shape) == (10, 100, 100)
    assert tuple(results2.shape) == (10,)
    want = np.array([np.exp(np_of(m)).sum() for m in matrices])
    got1 = np.array([r.item() for r in results1])
    np.testing.assert_allclose(got1, want, rtol=1e-5)
    np.testing.assert_allclose(np_of(results2), want, rtol=1e-5)


def test_memory_access_patterns(device):
    x = genesis.randn(1000, 1000, device=device)
    a = to_numpy(x).astype(np.float64)

    # 低效: 非连续访问
    result1 = genesis.zeros(1000, device=device)
    for i in range(1000):
        result1[i] = x[i, ::10].sum()  # 步长访问

    # 高效: 批量选择 + 向量化求和
    indices = genesis.arange(0, 1000, 10, device=device)
    selected = x[:, indices]
    result2 = selected.sum(dim=1)

    want = a[:, ::10].sum(axis=1)
    np.testing.assert_allclose(np_of(result1), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np_of(result2), want, rtol=1e-5, atol=1e-4)


def test_vectorized_relu_and_loops(device):
    x = genesis.randn(1000, 1000, device=device)
    a = to_numpy(x).astype(np.float64)
    # ✅ 向量化操作
    result = genesis.relu(x).sum(dim=1).mean()
    assert result.shape == ()
    assert result.item() == pytest.approx(np.maximum(a, 0).sum(axis=1).mean(), rel=1e-5)
    # ❌ 避免循环 (still has to give the same number)
    total = 0
    for i in range(1000):
        total += x[i].sum()  # 每次都启动CUDA kernel
    assert isinstance(total, genesis.Tensor) and total.shape == ()
    assert total.item() == pytest.approx(a.sum(), rel=1e-4, abs=1e-2)


def test_safe_tensor_operation(device):
    def safe_tensor_operation(x, y):
        assert x.device == y.device, "张量必须在同一设备上"
        assert x.shape == y.shape, f"形状不匹配: {x.shape} vs {y.shape}"
        return x + y

    x = genesis.randn(10, 10, device=device)
    y = genesis.randn(10, 10, device=device)
    assert_close(safe_tensor_operation(x, y), to_numpy(x) + to_numpy(y), F32)
    with pytest.raises(AssertionError):
        safe_tensor_operation(x, genesis.randn(5, 5, device=device))


def test_matmul_shape_mismatch_raises(device):
    # A shape mismatch (形状不匹配) is a RuntimeError that names the op.
    x = genesis.randn(1000, 1000, device=device)
    y = genesis.randn(500, 500, device=device)
    with pytest.raises(RuntimeError) as e:
        genesis.matmul(x, y)
    assert str(e.value).startswith("[matmul]"), str(e.value)


def test_detect_memory_leaks_loop(device):
    for _ in range(20):
        x = genesis.randn(100, 100, device=device)
        y = x.matmul(x)
        del x, y
    if device == "cuda":
        genesis.cuda.empty_cache()
        start = genesis.cuda.memory_allocated()
        for _ in range(100):
            x = genesis.randn(100, 100, device=device)
            y = x.matmul(x)
            del x, y
        genesis.cuda.synchronize()
        assert genesis.cuda.memory_allocated() == start


def test_faq_float16_and_randint(device):
    x = genesis.randn(1000, 1000, dtype=genesis.float16, device=device)
    assert x.dtype is genesis.float16
    s = x.float().sum().item()
    assert abs(s) < 10_000  # ~N(0, 1000)
    h = x + x  # float16 math stays float16
    assert h.dtype is genesis.float16
    assert_close(h, to_numpy(x) + to_numpy(x), genesis.float16)
    int_tensor = genesis.randint(0, 10, (50, 50), device=device)
    assert int_tensor.dtype is I64
    assert bool((int_tensor >= 0).all()) and bool((int_tensor < 10).all())


@requires_cuda
def test_async_matmul_on_a_stream():
    # 异步操作: with genesis.cuda.stream(): ... genesis.cuda.synchronize()
    with genesis.cuda.stream():
        x = genesis.randn(1000, 1000, device="cuda")
        y = genesis.randn(1000, 1000, device="cuda")
        z = genesis.matmul(x, y)  # 异步执行
        genesis.cuda.synchronize()
    assert tuple(z.shape) == (1000, 1000)
    want = np_of(x) @ np_of(y)
    np.testing.assert_allclose(np_of(z), want, rtol=1e-3, atol=1e-2 * np.abs(want).max())


@requires_cuda
def test_good_memory_practice():
    with genesis.cuda.device(0):  # 明确指定设备
        x = genesis.randn(1000, 1000, device="cuda")
        a = to_numpy(x)
        x += 1.0
        x *= 0.5
        assert_close(x, (a + np.float32(1)) * np.float32(0.5), F32)
        del x
        genesis.cuda.empty_cache()
