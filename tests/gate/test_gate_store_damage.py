"""A damaged gate run folder is one error line and exit 2 through `specscope report`, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli

_GOOD_MANIFEST = {"kind": "gate", "schema_version": 1}


def _folder(tmp_path: Path, manifest: str, gate: str) -> Path:
    d = tmp_path / "gate-run"
    d.mkdir()
    (d / "manifest.json").write_text(manifest)
    (d / "gate.json").write_text(gate)
    return d


@pytest.mark.parametrize(
    ("manifest", "gate", "says"),
    [
        (json.dumps(_GOOD_MANIFEST), "[" * 100_000 + "]" * 100_000, "JSON nested too deep"),
        ("[]", "{}", "manifest.json list"),
        (json.dumps(_GOOD_MANIFEST), json.dumps({"schema_version": 1, "results": [{"config": "a"}]}), "KeyError"),
        (json.dumps(_GOOD_MANIFEST), "{not json", "unreadable JSON"),
    ],
    ids=["deep", "list-manifest", "missing-field", "not-json"],
)
def test_a_damaged_gate_folder_is_one_error(
    tmp_path: Path,
    manifest: str,
    gate: str,
    says: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = _folder(tmp_path, manifest, gate)
    code, out, err = cli(["report", str(folder)], capsys, monkeypatch, tmp_path)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and says in err
    assert err.startswith("error: ") and "fix:" in err
