"""The launcher, python -m genesis.distributed.run: the environment each rank gets, -m, a rank
that fails, argument errors, signals. Every launch has a timeout, so nothing hangs."""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

import genesis
from genesis.distributed import run

LAUNCH = [sys.executable, "-m", "genesis.distributed.run"]
VARS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]

# Writes the launcher's variables, its argv and its pid to <out dir>/<rank>.json.
ENV_SCRIPT = f"""
import json, os, sys
out = sys.argv[1]
rank = os.environ["RANK"]
with open(os.path.join(out, rank + ".json"), "w") as f:
    json.dump({{"env": {{k: os.environ.get(k) for k in {VARS!r}}}, "argv": sys.argv[1:],
               "name": __name__, "pid": os.getpid()}}, f)
"""


def _write(path, code):
    path.write_text(textwrap.dedent(code))
    return str(path)


def _launch(args, timeout=60, **kw):
    return subprocess.run(LAUNCH + args, capture_output=True, text=True, timeout=timeout, **kw)


def _records(out_dir, n):
    return [json.loads((out_dir / f"{r}.json").read_text()) for r in range(n)]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_environment_of_each_rank(tmp_path, n):
    script = _write(tmp_path / "env.py", ENV_SCRIPT)
    result = _launch(["--nproc-per-node", str(n), script, str(tmp_path), "--flag", "x"])
    assert result.returncode == 0, result.stderr
    records = _records(tmp_path, n)
    ports = {r["env"]["MASTER_PORT"] for r in records}
    assert len(ports) == 1 and 0 < int(ports.pop()) < 65536  # a free port, the same for all
    for rank, r in enumerate(records):
        env = r["env"]
        assert env["RANK"] == env["LOCAL_RANK"] == str(rank)
        assert env["WORLD_SIZE"] == env["LOCAL_WORLD_SIZE"] == str(n)
        assert env["MASTER_ADDR"] == "127.0.0.1"
        assert r["argv"] == [str(tmp_path), "--flag", "x"]  # the script's options pass through
        assert r["name"] == "__main__"
    assert len({r["pid"] for r in records}) == n


def test_address_and_port_options(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = _write(tmp_path / "env.py", ENV_SCRIPT)
    args = ["--nproc_per_node=2", "--master-addr", "localhost", "--master_port", str(port)]
    result = _launch([*args, script, str(tmp_path)])
    assert result.returncode == 0, result.stderr
    for r in _records(tmp_path, 2):
        assert r["env"]["MASTER_ADDR"] == "localhost"
        assert r["env"]["MASTER_PORT"] == str(port)


def test_module_form(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    _write(pkg / "job.py", ENV_SCRIPT)
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    result = _launch(["--nproc-per-node", "2", "-m", "mypkg.job", str(out)], env=env)
    assert result.returncode == 0, result.stderr
    records = _records(out, 2)
    assert [r["env"]["RANK"] for r in records] == ["0", "1"]
    assert all(r["name"] == "__main__" and r["argv"] == [str(out)] for r in records)


FAILING = """
import os, sys, time
rank = int(os.environ["RANK"])
open(os.path.join(sys.argv[1], f"{rank}.pid"), "w").write(str(os.getpid()))
if rank == 1:
    time.sleep(0.5)
    sys.exit(3)
time.sleep(120)
"""


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_failing_rank_stops_the_others(tmp_path):
    script = _write(tmp_path / "fail.py", FAILING)
    start = time.monotonic()
    result = _launch(["--nproc-per-node", "3", script, str(tmp_path)])
    took = time.monotonic() - start
    assert result.returncode == 3
    assert "[genesis.distributed.run] rank 1 exited with code 3; stopping the others" in (
        result.stderr
    )
    assert took < 30  # the sleeping ranks were stopped, not waited for
    for rank in range(3):
        assert _gone(int((tmp_path / f"{rank}.pid").read_text()))


def test_a_rank_that_ignores_sigterm_is_killed(tmp_path):
    script = _write(
        tmp_path / "stubborn.py",
        """
        import os, signal, sys, time
        if os.environ["RANK"] == "0":
            time.sleep(0.5)
            sys.exit(1)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(120)
        """,
    )
    start = time.monotonic()
    result = _launch(["--nproc-per-node", "2", "--grace-period", "0.5", script])
    assert result.returncode == 1
    assert "rank 0 exited with code 1" in result.stderr
    assert time.monotonic() - start < 30


def test_a_rank_killed_by_a_signal(tmp_path):
    script = _write(
        tmp_path / "killed.py",
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
    )
    result = _launch(["--nproc-per-node", "1", script])
    assert result.returncode == 128 + signal.SIGKILL
    assert f"rank 0 exited with code -{int(signal.SIGKILL)}" in result.stderr


def test_all_succeed_exit_zero_and_output_passes_through(tmp_path):
    hello = "import os, sys\nsys.stdout.write('rank ' + os.environ['RANK'] + '\\n')\n"
    script = _write(tmp_path / "hello.py", hello)
    result = _launch(["--nproc-per-node", "2", script])
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == ["rank 0", "rank 1"]


def test_main_in_process(tmp_path):
    script = _write(tmp_path / "ok.py", "import sys\nsys.exit(int(sys.argv[1]))\n")
    assert run.main(["--nproc-per-node", "2", script, "0"]) == 0
    assert run.main(["--nproc-per-node", "1", script, "5"]) == 5


@pytest.mark.parametrize(
    "args, message",
    [
        (["script.py"], "--nproc-per-node"),
        (["--nproc-per-node", "0", "script.py"], "must be a positive integer or 'gpu', got 0"),
        (["--nproc-per-node", "two", "script.py"], "must be a positive integer or 'gpu'"),
        (["--nproc-per-node", "2"], "script"),
        (["--nproc-per-node", "2", "--master-port", "0", "s.py"], "must be in [1, 65535]"),
        (["--nproc-per-node", "2", "--master-port", "p", "s.py"], "must be an integer"),
        (["--nproc-per-node", "2", "--grace-period", "-1", "s.py"], "must not be negative"),
        (["--nproc-per-node", "2", "--nnodes", "0", "s.py"], "must be a positive integer"),
        (["--nproc-per-node", "2", "--nnodes", "2", "s.py"], "needs --master-port"),
        (
            [
                "--nproc-per-node",
                "1",
                "--nnodes",
                "2",
                "--node-rank",
                "2",
                "--master-port",
                "9",
                "s.py",
            ],
            "--node-rank must be in [0, 2)",
        ),
    ],
)
def test_argument_errors(args, message):
    result = _launch(args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "usage: python -m genesis.distributed.run" in result.stderr


def test_nproc_gpu(tmp_path):
    script = _write(tmp_path / "env.py", ENV_SCRIPT)
    result = _launch(["--nproc-per-node", "gpu", script, str(tmp_path)])
    n = genesis.cuda.device_count()
    if n == 0:
        assert result.returncode == 2
        assert "'gpu' needs a CUDA device, and there is none" in result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert [r["env"]["WORLD_SIZE"] for r in _records(tmp_path, n)] == [str(n)] * n


def test_a_missing_script_fails_with_its_code(tmp_path):
    result = _launch(["--nproc-per-node", "2", str(tmp_path / "nope.py")])
    assert result.returncode == 2  # python's own code for a script it cannot open
    assert "exited with code 2" in result.stderr


SIGNALLED = """
import os, signal, sys, time
out, rank = sys.argv[1], os.environ["RANK"]
def handler(signum, frame):
    open(os.path.join(out, rank + ".sig"), "w").write(str(signum))
    sys.exit(0)
signal.signal(signal.SIGTERM, handler)
signal.signal(signal.SIGINT, handler)
open(os.path.join(out, rank + ".ready"), "w").close()
time.sleep(120)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signals_are_forwarded(tmp_path, sig):
    script = _write(tmp_path / "wait.py", SIGNALLED)
    p = subprocess.Popen(
        [*LAUNCH, "--nproc-per-node", "2", script, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not all((tmp_path / f"{r}.ready").exists() for r in range(2)):
            assert time.monotonic() < deadline and p.poll() is None, "the ranks did not start"
            time.sleep(0.05)
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 128 + sig, err
    for r in range(2):  # each rank got the signal once, and had time to handle it
        assert (tmp_path / f"{r}.sig").read_text() == str(int(sig))


RENDEZVOUS = """
import datetime, sys, time
from genesis.distributed._rendezvous import rendezvous
store, rank, world = rendezvous(None, -1, -1, datetime.timedelta(seconds=30))
store.add("arrived", 1)  # before the rank's key, so all have arrived once the keys are there
store.set(f"rank{rank}", str(rank))
store.wait([f"rank{r}" for r in range(world)])
assert sorted(int(store.get(f"rank{r}")) for r in range(world)) == list(range(world))
arrived = store.get("arrived").decode()
store.add("left", 1)  # rank 0 serves the store: it leaves last, once nobody needs it
if rank == 0:
    while int(store.get("left")) < world:
        time.sleep(0.01)
# One write of the whole line: with unbuffered output (PYTHONUNBUFFERED), print writes each
# piece separately and the ranks' pieces interleave in the shared pipe.
sys.stdout.write(f"{rank} {world} {arrived}\\n")
sys.stdout.flush()
"""


def test_env_rendezvous_under_the_launcher(tmp_path):
    script = _write(tmp_path / "rdzv.py", RENDEZVOUS)
    result = _launch(["--nproc-per-node", "3", script])
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == ["0 3 3", "1 3 3", "2 3 3"]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _launch_nodes(nnodes, nproc, script_args, env=None):
    """One launcher a node, all on this machine (Note [Launchers on several nodes])."""
    port = str(_free_port())
    procs = [
        subprocess.Popen(
            LAUNCH + ["--nnodes", str(nnodes), "--node-rank", str(k), "--nproc-per-node",
                      str(nproc), "--master-port", port, "--grace-period", "1", *script_args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})},
        )
        for k in range(nnodes)
    ]  # fmt: skip
    return [p.communicate(timeout=120) + (p.returncode,) for p in procs]


def test_several_nodes_make_one_job(tmp_path):
    """Two launchers of two ranks each: ranks 0-3 with the right variables, and every
    collective over the "gloo" backend across the four."""
    script = _write(tmp_path / "env.py", ENV_SCRIPT)
    results = _launch_nodes(2, 2, [script, str(tmp_path)])
    assert [r[2] for r in results] == [0, 0], results
    records = _records(tmp_path, 4)
    for rank, r in enumerate(records):
        assert r["env"]["RANK"] == str(rank) and r["env"]["WORLD_SIZE"] == "4"
        assert r["env"]["LOCAL_RANK"] == str(rank % 2) and r["env"]["LOCAL_WORLD_SIZE"] == "2"
    worker = os.path.join(os.path.dirname(__file__), "distributed_worker.py")
    results = _launch_nodes(2, 2, [worker, "collectives"], env={"WORKER_BACKEND": "gloo"})
    assert [r[2] for r in results] == [0, 0], results
    out = results[0][0] + results[1][0]
    for rank in range(4):
        assert f"rank {rank}: collectives ok" in out, results


def test_a_rank_failing_on_one_node_ends_the_job_on_all(tmp_path):
    script = _write(
        tmp_path / "fail.py",
        """
        import datetime, os, sys
        import genesis.distributed as dist
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=100))
        if os.environ["RANK"] == "3":
            sys.exit(3)
        dist.barrier()  # rank 3 never comes: only the launchers can end this
        """,
    )
    start = time.monotonic()
    results = _launch_nodes(2, 2, [script])
    assert time.monotonic() - start < 60  # not the barrier's 100 s timeout
    (_, err0, code0), (_, err1, code1) = results
    assert code1 == 3 and "rank 3 on node 1 exited with code 3; stopping the others" in err1
    assert code0 == 1 and "rank 3 on node 1 exited with code 3; stopping this node's" in err0
