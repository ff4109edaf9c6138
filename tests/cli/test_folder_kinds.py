"""A folder of the wrong kind names its kind and the command that reads it (user62).

A new user passes a run folder to ``audit``, a checkpoint to ``report``, a hub cache's repository folder (the
``models--ORG--NAME`` folder huggingface_hub keeps, whose files are in ``snapshots/REVISION``) or a folder of
``.gguf`` files to ``audit``. Each is refused in one line (exit 2) that says what the folder is and gives the
command line that reads it, with the folder at hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

from clirun import cli, one_error, vllm_import_run


def _checkpoint(root: Path) -> Path:
    """A one-shard checkpoint: config.json and model.safetensors (one F16 tensor)."""
    root.mkdir(parents=True)
    (root / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama"}))
    save_file({"lm_head.weight": np.zeros((4, 4), np.float16)}, str(root / "model.safetensors"))
    return root


def test_audit_of_a_run_folder_names_report(tmp_path: Path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    code, _out, err = cli(["audit", run], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert f"{run} is a specscope run folder, not a checkpoint" in line
    assert f"fix: `specscope report {run}`" in line


def test_report_of_a_checkpoint_names_audit(tmp_path: Path, capsys, monkeypatch):
    ck = _checkpoint(tmp_path / "ck")
    for command in (["report", ck], ["advise", ck], ["predict", ck], ["bench", "--resume", ck]):
        code, _out, err = cli(command, capsys, monkeypatch, tmp_path)
        line = one_error(err)
        assert code == 2, err
        assert f"{ck} is a model checkpoint, not a run folder" in line, command
        assert "found: config.json, model.safetensors" in line, command
        assert f"`specscope audit {ck}`" in line, command


def test_audit_of_a_hub_cache_repo_folder_names_its_snapshot(tmp_path: Path, capsys, monkeypatch):
    """huggingface_hub's cache layout: blobs/SHA files, snapshots/REV/NAME symlinks to ../../blobs/SHA, refs/main."""
    repo = tmp_path / "hub" / "models--acme--tiny"
    src = _checkpoint(tmp_path / "src")
    (repo / "blobs").mkdir(parents=True)
    snap = repo / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd")
    for i, f in enumerate(sorted(src.iterdir())):
        (repo / "blobs" / f"blob{i}").write_bytes(f.read_bytes())
        (snap / f.name).symlink_to(f"../../blobs/blob{i}")
    code, _out, err = cli(["audit", repo], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert "no checkpoint here" in line
    assert "found: " in line and "the checkpoint's files are in a sub-folder: snapshots/0123abcd" in line
    assert f"fix: `specscope audit {snap}`" in line
    # the snapshot itself is audited (its links stay inside the cache's repository folder)
    assert cli(["audit", snap], capsys, monkeypatch, tmp_path)[0] == 0


def test_audit_of_a_folder_of_gguf_files_names_the_file(tmp_path: Path, capsys, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "tiny-Q4_0.gguf").write_bytes(b"GGUF")
    code, _out, err = cli(["audit", folder], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert "tiny-Q4_0.gguf" in line
    assert f"fix: `specscope audit {folder / 'tiny-Q4_0.gguf'}`" in line
