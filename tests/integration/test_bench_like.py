"""``bench --like RUN --out NEW`` on a stored embedded run repeats its matrix and options: the new manifest equals
the old one but for the time it was made and the command line that asked for it; a given option overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.cli import main

pytestmark = pytest.mark.integration

TINY = ["--configs", "base", "--workloads", "prose", "--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8"]


def _bench(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(["bench", *argv, "-f", "json"])
    return int(info.value.code or 0), capsys.readouterr().out


def _manifest(out: Path) -> dict:
    (run,) = list(out.iterdir())
    return json.loads((run / "manifest.json").read_text())


def test_like_repeats_a_stored_embedded_run(tmp_path, capsys):
    pytest.importorskip("xllamacpp")
    assert _bench([*TINY, "--out", str(tmp_path / "a")], capsys)[0] == 0
    (old_run,) = list((tmp_path / "a").iterdir())
    assert _bench(["--like", str(old_run), "--out", str(tmp_path / "b")], capsys)[0] == 0
    old, new = _manifest(tmp_path / "a"), _manifest(tmp_path / "b")
    differ = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
    assert "created" in differ and differ <= {"created", "command"}, differ  # the argv differs when run as a script
    assert new["run_options"]["max_concurrency"] == [1] and new["options"]["max_tokens"] == 8

    # an option given with --like overrides the stored one; the rest is the run's
    code, text = _bench(["--like", str(old_run), "--max-tokens", "6", "--print-run-file"], capsys)
    assert code == 0 and "max-tokens = 6\n" in text and 'configs = [\n    "base",\n]' in text
