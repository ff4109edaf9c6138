"""``surgery reindex`` / ``patch-config`` / ``dflash-layers`` never change the folder they read: without ``--out`` they
refuse (exit 2, found / expected / fix), and the fix they print runs and writes a new folder beside the source.

Input: case C03 (an index that misses the MTP shard; vendored under tests/data/cases/C03 with its source) copied
into tmp_path.
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

import pytest

from clirun import cli
from paths import CASES

CASE = CASES / "C03" / "checkpoint"


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def ckpt(tmp_path: Path) -> Path:
    import shutil

    dst = tmp_path / "ck"
    shutil.copytree(CASE, dst)
    return dst


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["surgery", "reindex"], "reindex"),
        (["surgery", "patch-config", "--sync"], "patch-config"),
        (["surgery", "dflash-layers", "--all-sliding"], "dflash-layers"),
        # these four took --out as a required flag (a usage error without the fix); now the same refusal
        (["surgery", "extract"], "extract"),
        (["surgery", "graft", "--from", "."], "graft"),
        (["surgery", "quantize-draft"], "quantize-draft"),
        (["surgery", "prune-unindexed"], "prune-unindexed"),
    ],
)
def test_without_out_nothing_is_written_and_the_fix_names_a_new_folder(
    argv, command, ckpt, capsys, monkeypatch, tmp_path
):
    before = _tree(ckpt)
    code, _, err = cli([*argv[:2], str(ckpt), *argv[2:]], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert err.startswith(f"error: surgery {command} writes a new folder and never changes {ckpt}; found: no --out;")
    assert f"--out {ckpt}-{command}" in err
    assert _tree(ckpt) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck"]


def test_the_printed_fix_runs_and_leaves_the_source_as_it_was(ckpt, capsys, monkeypatch, tmp_path):
    before = _tree(ckpt)
    _, _, err = cli(["surgery", "reindex", str(ckpt)], capsys, monkeypatch, tmp_path)
    fix = err.rstrip("\n").split("; fix: ", 1)[1]
    argv = shlex.split(fix)
    assert argv[:3] == ["specscope", "surgery", "reindex"]
    code, _, err2 = cli(argv[1:], capsys, monkeypatch, tmp_path)
    assert code == 0, err2
    assert _tree(ckpt) == before
    out = Path(f"{ckpt}-reindex")
    assert (out / "model.safetensors.index.json").read_bytes() != (ckpt / "model.safetensors.index.json").read_bytes()
