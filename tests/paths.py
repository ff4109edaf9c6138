"""Where tests find their data: one place, inside the repository (``tests/data``, sources in SOURCES.md).

``DATA/cases`` holds the small inputs built from real public bug reports (one folder per case), ``DATA/fixtures``
real public configs, /metrics samples and server logs. The cases' larger .safetensors files are not committed:
importing this module builds them from ``DATA/safetensors_fixtures.json`` with ``scripts/safetensors_fixtures.py``
(byte for byte, checked by SHA-256; a no-op once they are there).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
CASES = DATA / "cases"
FIXTURES = DATA / "fixtures"


SAFETENSORS_SPEC = DATA / "safetensors_fixtures.json"


def fixture_builder() -> ModuleType:
    """``scripts/safetensors_fixtures.py`` as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("safetensors_fixtures", ROOT / "scripts" / "safetensors_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_generated_fixtures() -> None:
    """Write the generated .safetensors files of the cases that are missing or stale."""
    fixture_builder().build(SAFETENSORS_SPEC, DATA)


build_generated_fixtures()
