"""Run a benchmark with the project's own Python: re-executes the script with ``.venv/bin/python`` when the
running interpreter lacks the project's packages (``python benchmarks/X.py`` from a shell without the venv used to
fail with ``No module named 'ml_dtypes'``), and puts this checkout's ``src`` first on ``PYTHONPATH`` so a
worktree measures its own code. Import it before anything that needs the venv.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEEDED = ("numpy", "ml_dtypes", "specscope")


def ensure_project_python() -> None:
    """Re-exec under ``ROOT/.venv/bin/python`` (with ``ROOT/src`` on ``PYTHONPATH``) unless already there."""
    src = str(ROOT / "src")
    venv_py = ROOT / ".venv" / "bin" / "python"
    path = os.environ.get("PYTHONPATH", "")
    if sys.path[:2].count(src) or path.split(os.pathsep)[0] == src:
        if all(importlib.util.find_spec(m) for m in NEEDED):
            return
    if os.environ.get("SPECSCOPE_BENCH_REEXEC") == "1" or not venv_py.exists():
        missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
        if missing:
            sys.exit(f"error: {', '.join(missing)} not importable; run `make setup` (creates .venv) first")
        sys.path.insert(0, src)  # the venv is not there but the packages are: use this checkout's sources
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, path) if p), "SPECSCOPE_BENCH_REEXEC": "1"}
    os.execve(str(venv_py), [str(venv_py), sys.argv[0], *sys.argv[1:]], env)
