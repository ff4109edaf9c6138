"""The import contract in pyproject.toml ([tool.importlinter]): stages import one way."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def test_import_contract_kept():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    res = subprocess.run([exe], capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert res.returncode == 0, res.stdout[-3000:]
    assert "1 kept, 0 broken" in res.stdout
