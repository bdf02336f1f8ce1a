"""Result rows and the table printer."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks.common import Goal
from benchmarks.timing import Timing


@dataclass
class Result:
    area: str
    case: str
    size: str
    nbytes: int | None = None
    check: str = "-"  # ok | close | stats | shape | MISMATCH | ERROR | no ref
    note: str | None = None  # why check is not ok
    times: dict[str, Timing] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # library -> exception text
    goal: Goal | None = None
    info: str | None = None  # a footnote that is not a problem
    flops: int | None = None  # floating-point operations per call (matmul): TFLOP/s

    def tflops(self, lib: str = "genesis") -> float | None:
        """That library's TFLOP/s (a case with ``flops``), else None."""
        t = self.times.get(lib)
        if t is None or not self.flops or t.median <= 0:
            return None
        return self.flops / t.median / 1e12

    def goal_met(self) -> bool | None:
        """Whether the goal is reached; None without a goal or without the times to judge."""
        g, goal = self.times.get("genesis"), self.goal
        if goal is None or g is None:
            return None
        met = True
        if goal.max_seconds is not None:
            met = met and g.median < goal.max_seconds
        if goal.min_speedup is not None:
            s = self.speedup(goal.versus)
            if s is None:
                return None
            met = met and s >= goal.min_speedup
        return met

    def speedup(self, other: str) -> float | None:
        """other's median / genesis's median: > 1 means genesis is faster."""
        g, o = self.times.get("genesis"), self.times.get(other)
        if g is None or o is None or g.median <= 0:
            return None
        return o.median / g.median

    def genesis_gbps(self) -> float | None:
        g = self.times.get("genesis")
        if g is None or not self.nbytes or g.median <= 0:
            return None
        return self.nbytes / g.median / 1e9

    def to_json(self) -> dict:
        return {
            "area": self.area,
            "case": self.case,
            "size": self.size,
            "nbytes": self.nbytes,
            "check": self.check,
            "note": self.note,
            "times": {
                lib: {
                    "median_s": t.median,
                    "min_s": t.min,
                    "samples": t.samples,
                    "calls_per_sample": t.calls_per_sample,
                }
                for lib, t in self.times.items()
            },
            "errors": self.errors,
            "speedup": {lib: self.speedup(lib) for lib in self.times if lib != "genesis"},
            "genesis_gbps": self.genesis_gbps(),
            "flops": self.flops,
            "tflops": {lib: self.tflops(lib) for lib in self.times} if self.flops else None,
            "goal": self.goal.text if self.goal else None,
            "goal_met": self.goal_met(),
            "info": self.info,
        }


def format_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def _time_cell(r: Result, lib: str) -> str:
    if lib in r.errors:
        return "error"
    t = r.times.get(lib)
    return format_time(t.median) if t is not None else "-"


def render(results: list[Result], libraries: list[str], header: str = "") -> str:
    """One table: a row per case, grouped under area rows, footnotes for problems below."""
    others = [lib for lib in libraries if lib != "genesis"]
    columns = ["case", "size"] + libraries + [f"vs {lib}" for lib in others] + ["GB/s", "check"]
    with_goals = any(r.goal is not None for r in results)
    if with_goals:
        columns.append("goal")
    right = set(libraries) | {f"vs {lib}" for lib in others} | {"GB/s"}

    notes: list[str] = []
    rows: list[str | list[str]] = []  # a str: area heading
    area = None
    for r in results:
        if r.area != area:
            area = r.area
            rows.append(area)
        name = "  " + r.case
        if r.info:
            notes.append(f"[{len(notes) + 1}] {r.area}/{r.case}: {r.info}")
            name += f" [{len(notes)}]"
        cells = [name, r.size] + [_time_cell(r, lib) for lib in libraries]
        for lib in others:
            s = r.speedup(lib)
            cells.append(f"{s:.2f}x" if s is not None else "-")
        gbps, tflops = r.genesis_gbps(), r.tflops()
        if r.flops:  # matmul: compute, not bandwidth
            digits = 1 if tflops is not None and tflops >= 10 else 3
            cells.append(f"{tflops:.{digits}f} TFLOP/s" if tflops is not None else "-")
        else:
            cells.append(f"{gbps:.1f}" if gbps is not None else "-")
        check = r.check
        problems = ([f"{r.check}: {r.note}"] if r.note else []) + [
            f"{lib} raised {err}" for lib, err in r.errors.items()
        ]
        if problems:
            notes.append(f"[{len(notes) + 1}] {r.area}/{r.case}: " + "; ".join(problems))
            check += f" [{len(notes)}]"
        cells.append(check)
        if with_goals:
            met = r.goal_met()
            verdict = "" if r.goal is None else {True: "met", False: "MISSED", None: "?"}[met]
            cells.append(f"{r.goal.text}: {verdict}" if r.goal else "")
        rows.append(cells)

    table = [row for row in rows if not isinstance(row, str)]
    widths = [max(len(c), *(len(row[i]) for row in table)) for i, c in enumerate(columns)]

    def line(cells: list[str]) -> str:
        out = [
            cell.rjust(w) if col in right else cell.ljust(w)
            for cell, w, col in zip(cells, widths, columns)
        ]
        return "  ".join(out).rstrip()

    text = [header] if header else []
    text.append(line(columns))
    text.append("-" * len(line(columns)))
    for row in rows:
        text.append(row if isinstance(row, str) else line(row))
    if notes:
        text.append("")
        text.extend(notes)
    return "\n".join(text)
