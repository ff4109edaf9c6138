"""``specscope import`` refuses bad input before it writes anything (fresh-user findings, /tmp/fu_import).

A refused import exits 2 with what was found, what was expected and the fix; a run it was to join is left exactly as
it was (its manifest byte for byte, its report the same), and a run folder it was to create is not made. Files are
built inside each test from tests/data/imports (SOURCES.md) with the one field under test changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clirun import cli
from paths import DATA
from report_cli import report_json

IMPORTS = DATA / "imports"


def _vllm(tmp_path: Path, name: str, **changes: Any) -> Path:
    """vllm_base_r0.json (vllm bench serve, N=2 closed loop) with ``changes``; ``None`` deletes a key."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    for k, v in changes.items():
        if v is None:
            doc.pop(k, None)
        else:
            doc[k] = v
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _good_run(tmp_path: Path, capsys, monkeypatch) -> tuple[Path, bytes, dict[str, Any]]:
    run = tmp_path / "run"
    good = [IMPORTS / "vllm_base_r0.json", IMPORTS / "vllm_base_r1.json"]
    code, _, err = cli(["import", *good, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return run, (run / "manifest.json").read_bytes(), report_json(run)


def test_a_refused_import_into_a_run_leaves_it_exactly_as_it_was(tmp_path, capsys, monkeypatch):
    # max_concurrency -4 was written as level -4, then the manifest check refused it: report could no longer read it
    run, manifest, report = _good_run(tmp_path, capsys, monkeypatch)
    bad = _vllm(tmp_path, "neg.json", max_concurrency=-4)
    code, _, err = cli(["import", bad, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "-4" in err and "nothing was written" in err, err
    assert (run / "manifest.json").read_bytes() == manifest
    assert report_json(run) == report


def test_an_empty_config_name_is_refused_before_anything_is_written(tmp_path, capsys, monkeypatch):
    # --config "" was stored, then report failed "config: String should have at least 1 character"
    run, manifest, report = _good_run(tmp_path, capsys, monkeypatch)
    other = _vllm(tmp_path, "other.json", duration=5.0)
    for name in ("", "  "):
        code, _, err = cli(["import", other, "--config", name, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 2 and "--config" in err and "a name" in err, err
        assert (run / "manifest.json").read_bytes() == manifest
    assert report_json(run) == report
    code, _, err = cli(["import", other, "--config", "", "--out", tmp_path / "new"], capsys, monkeypatch, tmp_path)
    assert code == 2 and not (tmp_path / "new").exists()
