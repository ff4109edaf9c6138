"""Write docs/imports.md from the import shapes' census (specscope.importers.census_doc).

Usage: python scripts/gen_imports_doc.py   (from the repository root; PYTHONPATH=src without an install)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from specscope.fsio import write_text_atomic  # noqa: E402
from specscope.importers.census_doc import render  # noqa: E402


def main() -> None:
    write_text_atomic(ROOT / "docs" / "imports.md", render())
    print(f"wrote {ROOT / 'docs' / 'imports.md'}")


if __name__ == "__main__":
    main()
