"""Write docs/workloads.md from scripts/workloads.md.in and the workload census (specscope.workload.census_doc).

Usage: python scripts/gen_workloads_doc.py   (from the repository root; PYTHONPATH=src without an install)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from specscope.fsio import write_text_atomic  # noqa: E402
from specscope.workload.census_doc import render  # noqa: E402


def main() -> None:
    text = render((ROOT / "scripts" / "workloads.md.in").read_text("utf-8"))
    write_text_atomic(ROOT / "docs" / "workloads.md", text)
    print(f"wrote {ROOT / 'docs' / 'workloads.md'}")


if __name__ == "__main__":
    main()
