"""benchmarks/ builds every case and genesis's result passes the case's own check, at the
--quick sizes: a case that raises while being built, or that genesis answers wrongly, shows up
here rather than as an ERROR row in someone's benchmark run. (The element-wise rows once went
missing that way, a module-level loop variable shadowing a helper.) Timing is not tested."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import run  # noqa: E402
from benchmarks.common import Context  # noqa: E402
from benchmarks.report import Result  # noqa: E402

AREAS = dict(run.AREAS)


@pytest.mark.parametrize("area", list(AREAS))
def test_benchmark_cases_build_and_check(device, area):
    ctx = Context(device=device, quick=True, torch=run._load_torch(device))
    problems = []
    for case in AREAS[area].cases(ctx):
        if case.setup_error is not None:
            problems.append(f"{case.name} [{case.size}]: building raised {case.setup_error!r}")
            continue
        if case.timer is not None or "genesis" not in case.fns:
            continue
        result = Result(area, case.name, case.size, case.nbytes)
        run.verify(case, result, run._sync_all({"genesis": ctx.synchronize}))
        if result.check in ("ERROR", "MISMATCH"):
            problems.append(f"{case.name} [{case.size}]: {result.check}: {result.note}")
    assert not problems, "\n".join(problems)
