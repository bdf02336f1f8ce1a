"""Fused programs built on worker threads while their groups run op by op (Note [Building
programs in the background] in csrc/fusion/background_builds.cpp).

The suite builds synchronously (tests/conftest.py); these tests switch background builds on
where they need them. The cache's own behaviour is tested in test_fused_programs.py.
"""

import os
import subprocess
import sys
import textwrap
import uuid

import pytest
from conftest import requires_cuda
from test_fused_programs import cache_dir, requires_nvrtc  # noqa: F401

import genesis

fusion = genesis._C._fusion


@pytest.fixture
def building_cache(cache_dir):  # noqa: F811
    """test_fused_programs' fresh cache folder, its builds finished before it goes."""
    yield cache_dir
    fusion.wait_for_builds()


def fresh_key():
    return f"background-{uuid.uuid4().hex}"


def test_a_missing_program_is_built_in_the_background_then_found(building_cache):
    key = fresh_key()
    before = fusion.build_stats()
    assert fusion._cached_or_build_in_background(key, "cubin\x00bytes", seconds=0.05) == (
        False,
        b"",
    )
    fusion.wait_for_builds()
    after = fusion.build_stats()
    assert after["started"] == before["started"] + 1
    assert after["finished"] == before["finished"] + 1
    assert after["pending"] == 0
    assert fusion._cached_or_build_in_background(key, "other") == (True, b"cubin\x00bytes")
    # kept on disk as a synchronous build would be: a new process's memory has it from there
    assert len(list(building_cache.glob("*.cubin"))) == 1
    fusion.clear_memory_cache()
    assert fusion._cached(key, "unused") == (b"cubin\x00bytes", False)


def test_a_key_is_built_once_while_pending(building_cache):
    key = fresh_key()
    before = fusion.build_stats()["started"]
    for _ in range(5):
        assert fusion._cached_or_build_in_background(key, "value", seconds=0.2) == (False, b"")
    assert fusion.build_stats()["pending"] >= 1
    fusion.wait_for_builds()
    assert fusion.build_stats()["started"] == before + 1
    assert fusion._cached_or_build_in_background(key, "x") == (True, b"value")


def test_a_failed_build_is_not_tried_again(building_cache):
    key = fresh_key()
    before = fusion.build_stats()
    assert fusion._cached_or_build_in_background(key, "v", fail=True) == (False, b"")
    fusion.wait_for_builds()
    assert fusion.build_stats()["failed"] == before["failed"] + 1
    # the key stays marked: no second build, the group keeps running op by op
    assert fusion._cached_or_build_in_background(key, "v") == (False, b"")
    fusion.wait_for_builds()
    after = fusion.build_stats()
    assert after["started"] == before["started"] + 1
    assert after["finished"] == before["finished"]
    assert not list(building_cache.glob("*.cubin"))


def test_many_builds_at_once_all_land(building_cache):
    keys = [fresh_key() for _ in range(40)]
    for i, key in enumerate(keys):
        fusion._cached_or_build_in_background(key, f"value {i}" * 100, seconds=0.01)
    fusion.wait_for_builds()
    for i, key in enumerate(keys):
        assert fusion._cached_or_build_in_background(key, "x") == (
            True,
            (f"value {i}" * 100).encode(),
        )


def test_the_switch(monkeypatch):
    was = fusion.background_builds()
    try:
        fusion.set_background_builds(True)
        assert fusion.background_builds()
        fusion.set_background_builds(False)
        assert not fusion.background_builds()
    finally:
        fusion.set_background_builds(was)


def run_script(script, env=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=dict(os.environ, **(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("value, want", [("", True), ("1", False), ("0", True)])
def test_genesis_compile_sync_switches_them_off(value, want):
    script = "import genesis; print(genesis._C._fusion.background_builds())"
    done = run_script(script, env={"GENESIS_COMPILE_SYNC": value})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(want)


def test_exit_while_a_build_runs(tmp_path):
    """The process waits for the running build and exits cleanly; queued builds are dropped."""
    script = """
        import genesis
        f = genesis._C._fusion
        f._cached_or_build_in_background("running-at-exit", "v", seconds=0.5)
        for i in range(100):
            f._cached_or_build_in_background("queued-%d" % i, "v", seconds=0.5)
        print("leaving")
    """
    done = run_script(script, env={"GENESIS_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "leaving"
    # far fewer than 100 builds ran: the queue was dropped at exit
    assert len(list((tmp_path / "kernels").glob("*.cubin"))) < 50


def test_a_forked_child_builds_on_its_own(tmp_path):
    """A child forked while the parent's builds run has none of its workers, and makes its own.
    The fork comes while the parent's worker sleeps in its first build: AddressSanitizer's
    allocator (the sanitizer run) is not fork-safe, and a child forked while another thread
    allocates can wait forever on the allocator's lock (seen once in a loaded CI run)."""
    script = """
        import os
        import time
        import genesis
        f = genesis._C._fusion
        f._cached_or_build_in_background("parent-0", "v", seconds=1.5)
        for i in range(1, 8):
            f._cached_or_build_in_background("parent-%d" % i, "v", seconds=0.3)
        time.sleep(0.5)
        pid = os.fork()
        if pid == 0:
            ok = False
            try:
                assert f.build_stats()["pending"] == 0
                f._cached_or_build_in_background("child", "child value", seconds=0.05)
                f.wait_for_builds()
                ok = f._cached_or_build_in_background("child", "x") == (True, b"child value")
            finally:
                os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        f.wait_for_builds()
        assert f._cached_or_build_in_background("parent-7", "x") == (True, b"v")
        print("child", os.waitstatus_to_exitcode(status))
    """
    done = run_script(script, env={"GENESIS_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "child 0"


@requires_cuda
@requires_nvrtc
def test_a_compiled_function_runs_op_by_op_until_its_program_is_built(building_cache):
    was_fusion, was_background = fusion.cuda_fusion(), fusion.background_builds()
    fusion.set_cuda_fusion(True)
    fusion.set_background_builds(True)
    try:
        scale = 1.0 + uuid.uuid4().int % 1000 / 1e4  # a constant of its own: a new program

        def f(x):
            return (x * scale + 1.0).tanh() * x

        compiled = genesis.compile(f)
        x = genesis.randn(1 << 16, device="cuda")
        want = f(x)
        builds = fusion.cache_stats()["builds"]
        started = fusion.build_stats()["started"]
        first = compiled(x)  # runs op by op while the program builds
        assert fusion.build_stats()["started"] > started
        genesis.testing.assert_close(first, want, rtol=0, atol=0)
        fusion.wait_for_builds()
        assert fusion.cache_stats()["builds"] > builds
        memory_hits = fusion.cache_stats()["memory_hits"]
        second = compiled(x)  # the generated kernel, from the cache
        assert fusion.cache_stats()["memory_hits"] > memory_hits
        genesis.testing.assert_close(second, want, rtol=0, atol=0)
        memory_hits = fusion.cache_stats()["memory_hits"]
        third = compiled(x)  # found by its structure: no text, no cache lookup
        assert fusion.cache_stats()["memory_hits"] == memory_hits
        genesis.testing.assert_close(third, want, rtol=0, atol=0)
    finally:
        fusion.set_cuda_fusion(was_fusion)
        fusion.set_background_builds(was_background)
