"""The launcher: ``python -m genesis.distributed.run --nproc-per-node N script.py args...``.

Like ``torchrun --standalone``: it starts N copies of the script on this machine, each with
``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``,
``MASTER_ADDR`` and ``MASTER_PORT`` set (what ``env://`` rendezvous reads), and waits for them.
Nothing is restarted: when a rank fails, the others are stopped and the launcher exits with the
failed rank's code. On several machines (torchrun's static rendezvous), each runs
``--nnodes M --node-rank K --master-addr HOST --master-port PORT``; node K's ranks are
K * N ... K * N + N - 1 (Note [Launchers on several nodes]).

Note [Launchers on several nodes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
With ``--nnodes`` above 1 the launcher of node 0 serves the job's TCPStore at the master
address (``GENESIS_LAUNCHER_STORE=1`` tells the ranks' ``env://`` rendezvous that rank 0
connects to it instead of serving it), so the store outlives any one rank, and every launcher is
a client of it too. A launcher whose rank failed writes ``launcher/failed`` there with the
rank and its exit code; the others watch that key, stop their ranks and exit showing it, so a
rank failing on one machine ends the job on all. Node 0's launcher closes the store only after
every launcher said it finished.

Note [Launcher process groups]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each child runs in a session of its own, so a Ctrl-C in the terminal reaches only the launcher,
which forwards it once to every child (a shared process group would deliver it twice). Signals
go to the child's whole process group, so what a rank started itself stops with it. Stopping is
SIGTERM, then SIGKILL for those still running after the grace period.
"""

from __future__ import annotations

import argparse
import datetime
import os
import signal
import socket
import subprocess
import sys
import time

_WHO = "[genesis.distributed.run]"


def _free_port(addr):
    """A port that is free now (another process may take it before rank 0 binds it; the
    window is short, and torchrun --standalone has the same)."""
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((addr, 0))
        except OSError:  # not an address of this machine: any free port of it
            s.bind(("", 0))
        return s.getsockname()[1]


def _nproc(text):
    if text == "gpu":
        import genesis.cuda

        n = genesis.cuda.device_count()
        if n == 0:
            raise argparse.ArgumentTypeError("'gpu' needs a CUDA device, and there is none")
        return n
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a positive integer or 'gpu', got {text!r}"
        ) from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer or 'gpu', got {n}")
    return n


def _count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {n}")
    return n


def _port(text):
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be in [1, 65535], got {port}")
    return port


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m genesis.distributed.run",
        description="Start N processes of a script on this machine, ranks 0..N-1, with the "
        "environment that genesis.distributed's env:// rendezvous reads.",
    )
    p.add_argument(
        "--nproc-per-node",
        "--nproc_per_node",
        dest="nproc",
        type=_nproc,
        required=True,
        help="how many processes: a positive integer, or 'gpu' for one per CUDA device",
    )
    p.add_argument(
        "--nnodes",
        dest="nnodes",
        type=_count,
        default=1,
        help="how many machines run a launcher of this job (default: 1)",
    )
    p.add_argument(
        "--node-rank",
        "--node_rank",
        dest="node_rank",
        type=int,
        default=0,
        help="this machine's number in [0, nnodes) (default: 0)",
    )
    p.add_argument(
        "--master-addr",
        "--master_addr",
        dest="master_addr",
        default="127.0.0.1",
        help="the address of rank 0's store (default: 127.0.0.1)",
    )
    p.add_argument(
        "--master-port",
        "--master_port",
        dest="master_port",
        type=_port,
        default=None,
        help="the port of rank 0's store (default: a free port)",
    )
    p.add_argument(
        "--grace-period",
        dest="grace",
        type=_seconds,
        default=5.0,
        help="seconds between SIGTERM and SIGKILL when stopping the processes (default: 5)",
    )
    p.add_argument(
        "--join-timeout",
        dest="join_timeout",
        type=_seconds,
        default=600.0,
        help="seconds a launcher waits to reach node 0's store (default: 600)",
    )
    p.add_argument(
        "-m",
        "--module",
        action="store_true",
        help="run the target as a module, as python -m does",
    )
    p.add_argument("script", help="the script (or, with -m, the module) to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def _signal_all(procs, sig):
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, sig)  # Note [Launcher process groups]
            except (ProcessLookupError, PermissionError):
                pass


def _stop(procs, grace):
    """SIGTERM to the running children, SIGKILL to those still running after ``grace``."""
    _signal_all(procs, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
        time.sleep(0.02)
    _signal_all(procs, signal.SIGKILL)
    for p in procs:
        p.wait()


def _exit_code(returncode):
    """A shell's exit code for a child's return code (killed by signal N: 128 + N)."""
    return 128 - returncode if returncode < 0 else returncode


class _JobStore:
    """The launchers' meeting point on several nodes (Note [Launchers on several nodes])."""

    def __init__(self, args, port):
        from genesis.distributed import TCPStore

        self.nnodes = args.nnodes
        self.node = args.node_rank
        self.store = TCPStore(
            args.master_addr,
            port,
            is_master=self.node == 0,
            wait_for_workers=False,
            timeout=datetime.timedelta(seconds=args.join_timeout),
        )
        self.checked = 0.0

    def failure(self):
        """The message of a failure another launcher reported, or None (asked every 0.2 s)."""
        now = time.monotonic()
        if now - self.checked < 0.2:
            return None
        self.checked = now
        try:
            if self.store.check(["launcher/failed"]):
                return self.store.get("launcher/failed").decode()
        except Exception:  # noqa: BLE001 - node 0's store went away: that launcher ended
            return "the launcher of node 0 ended"
        return None

    def report_failure(self, text):
        try:
            self.store.set("launcher/failed", text)
        except Exception:  # noqa: BLE001 - the store is gone; the others see that instead
            pass

    def finish(self, grace):
        """Says this launcher finished; node 0 waits for the others before closing."""
        try:
            self.store.add("launcher/finished", 1)
            if self.node != 0:
                return
            deadline = time.monotonic() + max(grace, 1.0) * 60
            while time.monotonic() < deadline:
                if self.store.add("launcher/finished", 0) >= self.nnodes:
                    return
                if self.store.check(["launcher/failed"]):
                    return
                time.sleep(0.05)
        except Exception:  # noqa: BLE001
            pass


def main(argv=None):
    """Runs the launcher with ``argv`` (default: ``sys.argv[1:]``) and returns its exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not 0 <= args.node_rank < args.nnodes:
        parser.error(f"--node-rank must be in [0, {args.nnodes}), got {args.node_rank}")
    if args.nnodes > 1 and args.master_port is None:
        parser.error("--nnodes above 1 needs --master-port (the same on every node)")
    port = args.master_port if args.master_port is not None else _free_port(args.master_addr)
    command = [sys.executable, *(["-m"] if args.module else []), args.script, *args.args]
    n = args.nproc
    job = None
    if args.nnodes > 1:
        try:
            job = _JobStore(args, port)
        except Exception as e:  # noqa: BLE001 - the store's errors say what went wrong
            print(f"{_WHO} cannot reach the job's store at {args.master_addr}:{port}: {e}",
                  file=sys.stderr)  # fmt: skip
            return 1
    try:
        code = _run(args, command, n, port, job)
    finally:
        if job is not None:
            job.finish(args.grace)
    return code


def _run(args, command, n, port, job):
    received = []

    def forward(signum, _frame):
        received.append(signum)
        _signal_all(procs, signum)

    procs = []
    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        first = args.node_rank * n
        for rank in range(first, first + n):
            env = dict(os.environ)
            env.update(
                RANK=str(rank),
                LOCAL_RANK=str(rank - first),
                WORLD_SIZE=str(n * args.nnodes),
                LOCAL_WORLD_SIZE=str(n),
                GROUP_RANK=str(args.node_rank),
                MASTER_ADDR=args.master_addr,
                MASTER_PORT=str(port),
            )
            if job is not None:
                env["GENESIS_LAUNCHER_STORE"] = "1"
            try:
                procs.append(subprocess.Popen(command, env=env, start_new_session=True))
            except OSError as e:
                print(f"{_WHO} cannot start rank {rank}: {e}", file=sys.stderr)
                _stop(procs, args.grace)
                return 1
        while True:
            if received:  # forwarded already; give the children the grace period to finish
                deadline = time.monotonic() + args.grace
                while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
                    time.sleep(0.02)
                _stop(procs, 0)
                return 128 + received[0]
            running = False
            for local, p in enumerate(procs):
                code = p.poll()
                if code is None:
                    running = True
                elif code != 0:
                    rank = args.node_rank * n + local
                    where = f" on node {args.node_rank}" if job is not None else ""
                    text = f"rank {rank}{where} exited with code {code}"
                    print(f"{_WHO} {text}; stopping the others", file=sys.stderr, flush=True)
                    if job is not None:
                        job.report_failure(text)
                    _stop(procs, args.grace)
                    return _exit_code(code)
            failed = job.failure() if job is not None and running else None
            if failed is not None:
                print(f"{_WHO} {failed}; stopping this node's ranks", file=sys.stderr, flush=True)
                _stop(procs, args.grace)
                return 1
            if not running:
                return 0
            time.sleep(0.02)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


if __name__ == "__main__":
    sys.exit(main())
