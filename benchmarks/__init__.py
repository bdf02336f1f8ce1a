"""Micro-benchmarks comparing genesis with NumPy and PyTorch.

Run from the repository root with ``python -m benchmarks`` (or ``python benchmarks/run.py``);
see benchmarks/README.md. Each area lives in its own module (creation, memory, copies, casts,
indexing, dlpack) and yields :class:`benchmarks.common.Case` objects; ``run.py`` verifies, times
and reports them.
"""
