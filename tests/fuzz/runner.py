"""``make fuzz``: N seeded cases per boundary of ``tests/fuzz/boundaries.py``, in parallel, with a hang limit per case.

Usage (from the repository root)::

    python tests/fuzz/runner.py --cases 10000            # the CI size (make fuzz)
    python tests/fuzz/runner.py --cases 100000 --jobs 2  # the nightly size (make fuzz N=100000)
    python tests/fuzz/runner.py --boundary cli_arguments --cases 500 --seed 7

Each boundary runs in a worker process (``--jobs`` at a time) limited to ``--memory-gib`` of address space, with a
SIGALRM timer of ``--case-timeout`` seconds per case (a case past it is a hang). The seed of case ``i`` of a run is
``(seed, boundary, i)``, so a run is reproducible. Every failing case (uncaught exception, hang, invalid JSON) is
written to ``tests/fuzz/corpus/BOUNDARY/SHA.bin`` (``--corpus``), where ``tests/fuzz/test_corpus.py`` replays it as a
regression test. Exit 0 when every boundary ran its cases with no finding; 1 otherwise. ``--results FILE`` writes
the table as Markdown.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


@dataclass
class Tally:
    """What one boundary's run found."""

    boundary: str
    owner: str
    cases: int = 0
    uncaught: int = 0
    hangs: int = 0
    invalid_json: int = 0
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)
    saved: list[str] = field(default_factory=list)

    @property
    def findings(self) -> int:
        return self.uncaught + self.hangs + self.invalid_json


class _Hang(BaseException):
    """Raised by the per-case timer (a BaseException: no ``except Exception`` in specscope swallows it)."""


def _ring(_signum: int, _frame: object) -> None:
    raise _Hang


def _setup_paths() -> None:
    for p in (str(ROOT / "src"), str(ROOT / "tests"), str(HERE)):
        if p not in sys.path:
            sys.path.insert(0, p)


def run_boundary(name: str, cases: int, seed: int, case_timeout_s: float, memory_gib: float, corpus: str) -> Tally:
    """Run ``cases`` cases of boundary ``name`` in this (worker) process."""
    _setup_paths()
    if memory_gib > 0:
        limit = int(memory_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from boundaries import BOUNDARIES, Finding

    b = BOUNDARIES[name]
    tally = Tally(name, b.owner)
    signal.signal(signal.SIGALRM, _ring)
    t0 = time.perf_counter()
    for i in range(cases):
        rnd = random.Random(f"{seed}:{name}:{i}")
        case = b.make(rnd)
        kind = detail = None
        signal.setitimer(signal.ITIMER_REAL, case_timeout_s)
        try:
            b.check(case)
        except _Hang:
            kind, detail = "hang", f"over {case_timeout_s:g} s"
        except Finding as f:
            kind, detail = f.kind, f.detail
        except MemoryError:
            kind, detail = "uncaught", "MemoryError"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        tally.cases += 1
        if kind is None:
            continue
        if kind == "hang":
            tally.hangs += 1
        elif kind == "invalid_json":
            tally.invalid_json += 1
        else:
            tally.uncaught += 1
        key = detail.split(":")[0] if kind == "uncaught" else kind
        if len(tally.examples) < 12 and not any(e.startswith(f"{kind}: {key}") for e in tally.examples):
            tally.examples.append(f"{kind}: {detail}")
        if corpus and len(tally.saved) < 50:
            folder = Path(corpus) / name
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{hashlib.sha256(case).hexdigest()[:16]}.bin"
            path.write_bytes(case)
            tally.saved.append(str(path))
    tally.seconds = time.perf_counter() - t0
    return tally


def table(tallies: list[Tally], cases: int, wall_s: float, jobs: int) -> str:
    """The results as a Markdown table (one row per boundary)."""
    lines = [
        "| boundary (owner) | cases | uncaught | hangs | invalid JSON | s | ms / case |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for t in tallies:
        per = 1000 * t.seconds / max(t.cases, 1)
        lines.append(
            f"| {t.boundary} ({t.owner}) | {t.cases:,} | {t.uncaught} | {t.hangs} | {t.invalid_json} | "
            f"{t.seconds:,.0f} | {per:.2f} |"
        )
    lines.append(f"\n{cases:,} cases per boundary, {jobs} worker(s), {wall_s:,.0f} s wall.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    _setup_paths()
    from boundaries import BOUNDARIES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000, help="cases per boundary (default 10,000)")
    ap.add_argument("--boundary", action="append", choices=sorted(BOUNDARIES), help="only these (repeatable)")
    ap.add_argument("--seed", type=int, default=29, help="the run's seed (default 29)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default 2)")
    ap.add_argument("--case-timeout", type=float, default=30.0, help="seconds before a case is a hang (default 30)")
    ap.add_argument("--memory-gib", type=float, default=4.0, help="address-space limit per worker (default 4 GiB)")
    ap.add_argument("--corpus", default=str(HERE / "corpus"), help="where failing cases are saved ('' to not save)")
    ap.add_argument("--results", type=Path, help="also write the table (Markdown) to this file")
    args = ap.parse_args(argv)
    names = args.boundary or list(BOUNDARIES)
    t0 = time.perf_counter()
    tallies: list[Tally] = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {
            pool.submit(run_boundary, n, args.cases, args.seed, args.case_timeout, args.memory_gib, args.corpus): n
            for n in names
        }
        for fut in as_completed(futures):
            try:
                t = fut.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died is a failed boundary, reported as such
                t = Tally(futures[fut], "?", uncaught=1, examples=[f"worker died: {type(exc).__name__}: {exc}"])
            tallies.append(t)
            print(f"{t.boundary}: {t.cases:,} cases, {t.findings} findings, {t.seconds:,.0f} s", flush=True)
            for e in t.examples:
                print(f"  {e}", flush=True)
    tallies.sort(key=lambda t: names.index(t.boundary))
    text = table(tallies, args.cases, time.perf_counter() - t0, args.jobs)
    print(text)
    if args.results:
        args.results.write_text(text + "\n")
    ok = all(t.findings == 0 and t.cases == args.cases for t in tallies) and len(tallies) == len(names)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
