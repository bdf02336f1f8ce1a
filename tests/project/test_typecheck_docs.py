"""mypy accepts the stubs and every ```python block of README.md and docs/*.md against them.

Each block is a module of its own (test_docs runs each on its own too), padded with blank lines
so that mypy's line numbers are the Markdown file's; failures name the Markdown file and line.
mypy comes with the `test` extra; where it is not installed, these tests skip.
"""

import os
import re
import subprocess
import sys

import pytest
from test_docs import ROOT, doc_files, python_blocks

pytest.importorskip("mypy")


@pytest.fixture(scope="module")
def mypy(tmp_path_factory):
    cache = tmp_path_factory.mktemp("mypy_cache")
    # MYPYPATH: the repository's genesis/ and its stubs, whichever genesis pip installed.
    env = {**os.environ, "MYPYPATH": str(ROOT)}

    def run(*args):
        cmd = [sys.executable, "-m", "mypy", "--no-color-output", "--cache-dir", str(cache)]
        done = subprocess.run([*cmd, *args], cwd=ROOT, env=env, capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    return run


def test_the_package_and_its_stubs_type_check(mypy):
    status, output = mypy("-p", "genesis")
    assert status == 0, output


def test_doc_examples_type_check(mypy, tmp_path):
    sources = {}  # module file name -> Markdown file
    for path in doc_files():
        for line, code in python_blocks(path):
            rel = path.relative_to(ROOT).as_posix()
            name = f"{re.sub(r'[^A-Za-z0-9]', '_', rel)}_{line}.py"
            (tmp_path / name).write_text("\n" * (line - 1) + code, encoding="utf-8")
            sources[name] = rel
    assert sources, "no ```python blocks found"
    status, output = mypy(*sorted(str(tmp_path / name) for name in sources))
    # tmp/README_md_29.py:48: error: ... -> README.md:48: error: ...
    for name, rel in sources.items():
        output = output.replace(f"{tmp_path / name}:", f"{rel}:")
    assert status == 0, f"mypy rejects documentation examples:\n{output}"
