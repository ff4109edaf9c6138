"""Regenerate docs/cli.md's table of every option from the app's declarations (specscope.cli.clidoc.render); the
prose around the generated block is kept. ``tests/cli/test_cli_doc.py`` fails while the committed page is stale.

Usage: python scripts/gen_cli_doc.py   (from the repository root; PYTHONPATH=src without an install)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from specscope.cli.clidoc import render  # noqa: E402
from specscope.fsio import write_text_atomic  # noqa: E402


def main() -> None:
    doc = ROOT / "docs" / "cli.md"
    write_text_atomic(doc, render(doc.read_text("utf-8")))
    print(f"wrote {doc}")


if __name__ == "__main__":
    main()
