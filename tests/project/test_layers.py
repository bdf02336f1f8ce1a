"""The include rules of the C++ core (docs/architecture.md, "Layers and include rules").

Dependency arrows point down: python -> autograd -> ops/dlpack -> index -> backends (cpu, cuda,
kernels) -> vocab/memory -> core. Each folder may include only the folders listed for it below,
and only the folders that hold CUDA code may include CUDA headers; nothing below the bindings
includes Python. The test reads the sources, so it fails the moment a change breaks a rule.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("csrc", "kernels")
SUFFIXES = {".h", ".cpp", ".cu", ".cuh"}

# The project folders each folder may include ("csrc/x" is "x"; kernels/ is "kernels").
ALLOWED = {
    "core": {"core"},
    "vocab": {"vocab", "core"},
    "memory": {"memory", "core"},
    "kernels": {"kernels", "vocab"},
    "cpu": {"cpu", "vocab", "core"},
    "cuda": {"cuda", "kernels", "vocab", "memory", "core"},
    "index": {"index", "core"},
    "fusion": {"fusion", "cpu", "cuda", "vocab", "memory", "core"},
    "ops": {"ops", "fusion", "index", "cpu", "cuda", "vocab", "memory", "core"},
    "dlpack": {"dlpack", "ops", "index", "cuda", "vocab", "memory", "core"},
    "autograd": {"autograd", "fusion", "ops", "index", "vocab", "core"},
    "python": {
        "python",
        "autograd",
        "fusion",
        "dlpack",
        "ops",
        "index",
        "cpu",
        "cuda",
        "vocab",
        "memory",
        "core",
    },
}
# Folders whose code may include CUDA headers (<cuda*.h>, <cublas*>, <cub/...>, <nccl.h>, ...).
CUDA_FOLDERS = {"cuda", "kernels"}
# The helpers of csrc/cuda's implementation files (error checks, device guards, kernel
# geometry): only CUDA implementation files include them, never a header the rest sees.
CUDA_INTERNAL_HEADERS = {
    "cuda/check.h",
    "cuda/cudnn_api.h",
    "cuda/cudnn_graph_api.h",
    "cuda/device_guard.h",
    "cuda/driver_entry.h",
    "cuda/geometry.h",
    "cuda/library_path.h",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
CUDA_HEADER = re.compile(r"^(cuda|cublas|cusolver|cub/|curand|cufft|nccl|nvrtc|library_types)")
PYTHON_HEADER = re.compile(r"^(Python\.h|pybind11/)")


def folder_of(path):
    """The layer a source file belongs to: 'core', 'cuda', 'kernels', ..."""
    rel = path.relative_to(ROOT).parts
    return rel[0] if rel[0] == "kernels" else rel[1]


def included_folder(name):
    """The project folder an include names ('core/tensor.h' -> 'core'), or None for others."""
    first = name.split("/", 1)[0]
    return first if "/" in name and first in ALLOWED else None


def violations(folder, rel_path, text):
    """Every include of `text` (a file of `folder`) that breaks a rule, as readable lines."""
    found = []
    for bracket, name in INCLUDE.findall(text):
        if bracket == '"':
            target = included_folder(name)
            if target is not None and target not in ALLOWED[folder]:
                found.append(f"{rel_path}: includes {name} ({folder}/ may not include {target}/)")
            internal = rel_path.endswith(tuple(CUDA_INTERNAL_HEADERS))
            if name in CUDA_INTERNAL_HEADERS and not (
                folder in CUDA_FOLDERS and (rel_path.endswith((".cpp", ".cu")) or internal)
            ):
                found.append(f"{rel_path}: includes {name}, which only CUDA .cpp files may use")
        else:
            if CUDA_HEADER.match(name) and folder not in CUDA_FOLDERS:
                found.append(
                    f"{rel_path}: includes <{name}> (CUDA headers only in cuda/, kernels/)"
                )
            if PYTHON_HEADER.match(name) and folder != "python":
                found.append(f"{rel_path}: includes <{name}> (Python only in python/)")
    return found


def sources():
    for d in SOURCE_DIRS:
        for path in sorted((ROOT / d).rglob("*")):
            if path.suffix in SUFFIXES:
                yield path


def test_sources_are_present():
    files = list(sources())
    assert len(files) > 100, "the C++ sources were not found next to the tests"
    assert {folder_of(p) for p in files} <= set(ALLOWED), "a source folder has no include rule"


def test_include_rules_hold():
    found = []
    for path in sources():
        rel = str(path.relative_to(ROOT))
        found += violations(folder_of(path), rel, path.read_text())
    assert not found, "include rules broken:\n" + "\n".join(found)


def test_cuda_declarations_need_no_cuda_headers():
    # The headers of csrc/cuda that the front end includes are plain C++ (Note [CUDA backend
    # layout]): a CPU-only build compiles them without the CUDA toolkit.
    for path in sorted((ROOT / "csrc" / "cuda").glob("*.h")):
        rel = f"cuda/{path.name}"
        if rel in CUDA_INTERNAL_HEADERS:
            continue
        includes = [n for b, n in INCLUDE.findall(path.read_text()) if b == "<"]
        assert not [n for n in includes if CUDA_HEADER.match(n)], f"{rel} includes CUDA headers"


def test_every_cuda_area_has_a_stub():
    # Each csrc/cuda/X.cpp that CUDA builds compile has no_cuda_X.cpp for CPU-only builds.
    cuda = ROOT / "csrc" / "cuda"
    areas = {p.stem for p in cuda.glob("*.h")} - {h[5:-2] for h in CUDA_INTERNAL_HEADERS}
    implemented = {p.stem for p in cuda.glob("*.cpp") if not p.stem.startswith("no_cuda_")}
    stubs = {p.stem.removeprefix("no_cuda_") for p in cuda.glob("no_cuda_*.cpp")}
    # device_pool.cpp and pinned_pool.cpp implement memory.h.
    assert areas - {"memory"} <= implemented, "a cuda/X.h area has no cuda/X.cpp"
    assert areas == stubs, (
        f"areas without stub: {areas - stubs}; stubs without area: {stubs - areas}"
    )


@pytest.mark.parametrize(
    "folder, text, broken",
    [
        ("core", '#include "cuda/runtime.h"\n', True),
        ("core", "#include <cuda_runtime_api.h>\n", True),
        ("index", "#include <pybind11/pybind11.h>\n", True),
        ("cpu", '#include "ops/copy.h"\n', True),
        ("kernels", '#include "core/tensor.h"\n', True),
        ("ops", '#include "cuda/check.h"\n', True),
        ("memory", '#include "memory/stats.h"\n#include <mutex>\n', False),
        ("ops", '#include "cuda/index.h"\n#include "index/plan.h"\n', False),
        ("kernels", '#include "vocab/op_dispatch.h"\n#include <cuda_runtime.h>\n', False),
    ],
)
def test_the_checker_finds_violations(folder, text, broken):
    # The rules above are only as good as the checker: it must flag each kind of violation.
    assert bool(violations(folder, f"{folder}/x.cpp", text)) == broken
