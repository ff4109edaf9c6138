"""INDEX_SHARD_MISSING's fix works: when no shard the index names is there, it says to download them (named), not
``surgery reindex``, which refuses a folder with no safetensors file; when some are there, reindex stays the fix.

Finding (2026-12-07): `specscope audit tests/data/cases/C03/checkpoint` on a fresh clone (before the fixtures are
built: only config.json and the index) suggested `surgery reindex`, which then refused with "no safetensors files".
"""

from __future__ import annotations

import shutil

from clirun import cli
from paths import CASES

SHARDS = ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")


def _fixes(out: str) -> list[str]:
    return [line.strip() for line in out.replace("\n--out", " --out").splitlines() if line.strip().startswith("fix:")]


def test_with_no_shard_there_the_fix_is_to_download_them(tmp_path, capsys, monkeypatch):
    ck = tmp_path / "ck"
    ck.mkdir()
    for name in ("config.json", "model.safetensors.index.json"):
        shutil.copy(CASES / "C03" / "checkpoint" / name, ck / name)
    monkeypatch.setenv("COLUMNS", "400")
    code, out, err = cli(["audit", ck], capsys, monkeypatch, tmp_path)
    assert code == 1, err
    missing = [line for line in out.splitlines() if "INDEX_SHARD_MISSING" in line]
    assert len(missing) == 2, out
    expected = f"fix: download the shards the index names into the folder: {', '.join(SHARDS)} (none is there, so "
    expected += "there is nothing to rebuild the index from)"
    assert _fixes(out).count(expected) == 2, out
    assert "reindex" not in out, out


def test_with_a_shard_there_the_fix_is_still_reindex_and_it_works(tmp_path, capsys, monkeypatch):
    ck = tmp_path / "ck"
    shutil.copytree(CASES / "C03" / "checkpoint", ck)
    (ck / SHARDS[1]).unlink()
    monkeypatch.setenv("COLUMNS", "400")
    code, out, err = cli(["audit", ck], capsys, monkeypatch, tmp_path)
    assert "INDEX_SHARD_MISSING" in out and "download the missing shard, or rebuild the index" in out, out
    code, out, err = cli(["surgery", "reindex", ck, "--out", tmp_path / "new"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
