"""Regenerate the census tables of docs/architectures.md from src/specscope/audit/architectures.toml and
engine_registry.toml, and its corpus table from tests/data/corpus/corpus.toml (specscope.audit.archdoc.render); the
prose around the generated blocks is kept.

Usage: python scripts/gen_architectures_doc.py [--check]
    --check: write nothing; exit 1 when the committed file differs from the generated text.
"""

from __future__ import annotations

import os
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from specscope.audit.archdoc import render  # noqa: E402

DOC = ROOT / "docs" / "architectures.md"
#: the tests' config corpus: its table is generated from it (tests/audit/test_corpus.py checks each row by command)
CORPUS = ROOT / "tests" / "data" / "corpus" / "corpus.toml"


def main(argv: list[str]) -> int:
    old = DOC.read_text(encoding="utf-8")
    new = render(old, tomllib.loads(CORPUS.read_text(encoding="utf-8")))
    if "--check" in argv:
        if new != old:
            print(f"{DOC} is stale: run python scripts/gen_architectures_doc.py", file=sys.stderr)
            return 1
        return 0
    fd, tmp = tempfile.mkstemp(dir=DOC.parent, prefix=".architectures.", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(new)
    os.replace(tmp, DOC)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
