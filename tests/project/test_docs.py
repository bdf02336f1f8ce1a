"""Runs every ```python block of README.md and docs/*.md, so the documentation cannot go stale.

Each block runs on its own, in a fresh namespace, with the print options reset afterwards; a
block shows what it claims with `assert`. A block whose first line is `# CUDA` needs a GPU: it
runs where genesis.cuda.is_available() and is skipped elsewhere. Tracebacks point at the
Markdown file and line of the failing statement.
"""

import re
from pathlib import Path

import pytest

import genesis

ROOT = Path(__file__).resolve().parents[2]
CUDA_MARKER = "# CUDA"

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*$")
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$")


def doc_files():
    """README.md and every Markdown file under docs/ (none when tests/ was copied elsewhere)."""
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    return [f for f in files if f.is_file()]


def python_blocks(path):
    """(first code line number, code) for each ```python block of a Markdown file."""
    blocks, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start, body = len(m.group("indent")), i + 1, []
        i += 1
        while i < len(lines) and not _FENCE_CLOSE.match(lines[i]):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{path}:{start}: ```python block is never closed")
        blocks.append((start + 1, "\n".join(body) + "\n"))
        i += 1
    return blocks


def needs_cuda(code):
    first = next((line.strip() for line in code.splitlines() if line.strip()), "")
    return first == CUDA_MARKER


def _cases():
    for path in doc_files():
        for line, code in python_blocks(path):
            marks = []
            if needs_cuda(code):
                marks.append(
                    pytest.mark.skipif(not genesis.cuda.is_available(), reason="needs a GPU")
                )
            name = f"{path.relative_to(ROOT).as_posix()}:{line}"
            yield pytest.param(path, line, code, id=name, marks=marks)


CASES = list(_cases())


@pytest.fixture
def default_printoptions():
    genesis.set_printoptions(profile="default")
    yield
    genesis.set_printoptions(profile="default")


@pytest.mark.parametrize("path, line, code", CASES)
def test_doc_example(path, line, code, default_printoptions):
    # Blank lines in front keep the line numbers of the Markdown file in tracebacks.
    compiled = compile("\n" * (line - 1) + code, str(path), "exec")
    exec(compiled, {"__name__": f"doc_example_{line}"})


def test_every_block_compiles():
    # CUDA blocks are skipped without a GPU; at least their syntax is checked everywhere.
    for path, line, code in (case.values for case in CASES):
        compile("\n" * (line - 1) + code, str(path), "exec")


def test_the_guide_has_examples():
    guide = ROOT / "docs" / "user_guide.md"
    if not guide.is_file():
        pytest.skip("docs/ is not next to this tests/ directory")
    blocks = python_blocks(guide)
    assert len(blocks) >= 20
    assert any(needs_cuda(code) for _, code in blocks)
    assert any(not needs_cuda(code) for _, code in blocks)


def test_block_extraction(tmp_path):
    md = tmp_path / "x.md"
    md.write_text(
        "text\n```python\nx = 1\n```\n\n```bash\nls\n```\n"
        "- item\n\n  ```python\n  # CUDA\n  y = 2\n  ```\n"
    )
    blocks = python_blocks(md)
    assert blocks == [(3, "x = 1\n"), (12, "# CUDA\ny = 2\n")]
    assert not needs_cuda(blocks[0][1]) and needs_cuda(blocks[1][1])
