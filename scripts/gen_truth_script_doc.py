"""Regenerate docs/truth-script.md (the layout of ``specscope truth-server --script FILE``) from the script's own
declaration (specscope.truth.scriptdoc.render). ``tests/truth/test_script_doc.py`` fails while the page is stale.

Usage: python scripts/gen_truth_script_doc.py   (from the repository root; PYTHONPATH=src without an install)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from specscope.fsio import write_text_atomic  # noqa: E402
from specscope.truth.scriptdoc import render  # noqa: E402


def main() -> None:
    doc = ROOT / "docs" / "truth-script.md"
    write_text_atomic(doc, render())
    print(f"wrote {doc}")


if __name__ == "__main__":
    main()
