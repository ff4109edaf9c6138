"""The jq commands specscope's refusals print (``jq -c '...' FILE > OUT.jsonl``), taken out of a message and run on a
file, so a test reads what the user's conversion really writes (the workload census hunts' one copy)."""

from __future__ import annotations

import subprocess
from pathlib import Path

END = "FILE > OUT.jsonl"


def jq_command(text: str, start: str = "jq ") -> str:
    """The first shell command of ``text`` from ``start`` to its ``FILE > OUT.jsonl``."""
    at = text.index(start)
    return text[at : text.index(END, at) + len(END)]


def run_jq(jq: str, path: Path, out: Path) -> Path:
    """Run ``jq`` (from :func:`jq_command`) on ``path``, writing ``out``; returns ``out``."""
    subprocess.run(["sh", "-c", jq.replace(END, f"{path} > {out}")], check=True)
    return out
