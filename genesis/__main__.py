"""`python -m genesis`: a short self-check and tour, so a new install shows it works."""

import sys

import numpy as np

import genesis


def _line(label, value):
    print(f"  {label:<22} {value}")


def _check(label, ok):
    print(f"  [{'ok' if ok else 'FAIL'}] {label}")
    return ok


def build_section():
    info = genesis.build_info()
    print(f"genesis {info['version']}")
    if info["cuda_compiled"]:
        archs = ", ".join(f"sm_{a}" for a in info["cuda_architectures"])
        _line("CUDA backend", f"compiled (runtime {info['cuda_runtime']}, {archs})")
    else:
        _line("CUDA backend", "not compiled (CPU-only build)")
    _line("CUDA devices", genesis.cuda.device_count())


def tour(device):
    print(f"\nA few lines on {device}:")
    x = genesis.arange(12, device=device).view(3, 4)
    print(f"  >>> x = genesis.arange(12, device='{device}').view(3, 4)")
    print("  " + repr(x).replace("\n", "\n  "))
    y = x.t()
    print(
        f"  >>> x.t().shape, x.t().stride(), x.t().is_contiguous() -> {y.shape}, {y.stride()}, "
        f"{y.is_contiguous()}"
    )
    z = x[1:, ::2]
    print(
        f"  >>> x[1:, ::2] shares x's storage: "
        f"{z.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()}"
    )
    f = genesis.full((2, 3), 1.5, dtype=genesis.float16, device=device)
    print(f"  >>> genesis.full((2, 3), 1.5, dtype=genesis.float16) -> {f.tolist()}")
    print(
        f"  storage of x: {x.untyped_storage().nbytes()} bytes, "
        f"{x.untyped_storage().use_count()} handle(s)"
    )


def self_check(device):
    print(f"\nSelf-check on {device}:")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 33)).astype(np.float32)
    t = genesis.tensor(a, device=device)
    ok = _check("tensor() round trip", np.array_equal(t.cpu().numpy(), a))
    ok &= _check("transpose + contiguous", np.array_equal(t.t().contiguous().cpu().numpy(), a.T))
    ok &= _check("strided slice", np.array_equal(t[::3, ::-2].cpu().numpy(), a[::3, ::-2]))
    h = t.to(genesis.float16).cpu().numpy()
    ok &= _check("float32 -> float16 cast", np.array_equal(h, a.astype(np.float16)))
    ok &= _check(
        "fill", bool((genesis.full((5, 7), 2.5, device=device).cpu().numpy() == 2.5).all())
    )
    return ok


def main():
    build_section()
    devices = ["cpu"] + (["cuda"] if genesis.cuda.is_available() else [])
    ok = True
    for device in devices:
        tour(device)
        ok &= self_check(device)
    print("\nall checks passed" if ok else "\nSOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
