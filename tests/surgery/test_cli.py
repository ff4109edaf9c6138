"""``specscope surgery`` through the real entry point (subprocess): dry-run, JSON output, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import make_qwen36_checkpoint, tree_hashes
from hangguard import HANG_S


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("SPECSCOPE_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "specscope", "surgery", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=HANG_S,
    )


def test_quantize_draft_dry_run_json_then_apply(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    out = tmp_path / "q"
    p = run(
        "quantize-draft",
        str(src),
        "--scheme",
        "nvfp4-w4a16",
        "--out",
        str(out),
        "--dry-run",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    plan = json.loads(p.stdout)["plan"]
    assert not out.exists()
    assert plan["operation"] == "quantize-draft" and plan["bytes_to_write"] > 0
    assert set(plan["config_diffs"]) == {"config.json", "hf_quant_config.json", "model.safetensors.index.json"}
    assert '-      "mtp*"' in plan["config_diffs"]["config.json"]
    p = run("quantize-draft", str(src), "--out", str(out), "--format", "json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)["result"]
    assert res["audit_exit_code"] == 0 and "model-mtp-nvfp4.safetensors" in res["written"]
    assert len(res["tensor_sha256"]) == 8 * 3 + 7 + 2  # 8 quantized x 3 tensors, 7 norms, 2 in rewritten shard 2


def test_text_output_and_bad_input_exit_2(tmp_path: Path):
    src = make_qwen36_checkpoint(tmp_path / "src")
    before = tree_hashes(src)
    p = run("graft", str(src), "--from", str(src), "--prefix", "nothing.", "--out", str(tmp_path / "g"), cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.startswith("error: --prefix nothing. is not where") and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    p = run("extract", str(src), "--out", str(tmp_path / "head"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "tensor hashes verified" in p.stdout and "audit:" in p.stdout
    p = run("extract", str(src), "--out", str(tmp_path / "head"), "--prefix", "model.norm", cwd=tmp_path)
    assert p.returncode == 2 and "already exists" in p.stderr
    p = run("compare", str(src), str(src), "--format", "json", cwd=tmp_path)
    rows = json.loads(p.stdout)
    assert p.returncode == 0 and len(rows) == 15 and all(r["identical"] and r["max_abs_diff"] == 0.0 for r in rows)
    assert tree_hashes(src) == before
    assert list(tmp_path.glob("*.tmp-*")) == [] and list((tmp_path / "head").glob(".*")) == []


def test_a_file_given_as_the_checkpoint_is_named_a_file_not_missing(tmp_path: Path, capsys, monkeypatch):
    """``surgery quantize-draft README.md`` said "checkpoint folder not found" of a file that exists (fresh-user
    finding, user59; ``audit`` says "exists here (a file)"): the refusal says it is a file and names its folder."""
    from clirun import cli, one_error

    ckpt = make_qwen36_checkpoint(tmp_path / "src")
    shard = next(ckpt.glob("*.safetensors"))
    for argv in (["quantize-draft", shard], ["prune-unindexed", shard], ["reindex", shard]):
        code, _, err = cli(["surgery", *argv, "--out", tmp_path / "new"], capsys, monkeypatch, tmp_path)
        line = one_error(err)
        assert code == 2 and "checkpoint folder not found" not in line, line
        assert f"error: the checkpoint is a file, not a folder; found: {shard} (a file)" in line, line
        assert f"fix: pass the folder that holds it: {ckpt}" in line, line


def test_graft_from_itself_is_refused(tmp_path: Path, capsys, monkeypatch):
    """``surgery graft X --from X`` rewrote X with its own head and said nothing (user63): the same folder (by any
    spelling: a trailing ``/.``, a symlink) or a donor whose head files are the target's own (hardlinks) is refused
    before anything is written."""
    from clirun import cli, one_error

    ckpt = make_qwen36_checkpoint(tmp_path / "src")
    (tmp_path / "alias").symlink_to(ckpt)
    twin = tmp_path / "twin"
    twin.mkdir()
    for f in ckpt.iterdir():
        (twin / f.name).hardlink_to(f)
    for donor in (ckpt, ckpt / ".", tmp_path / "alias", twin):
        out = tmp_path / "out"
        code, _, err = cli(["surgery", "graft", ckpt, "--from", donor, "--out", out], capsys, monkeypatch, tmp_path)
        line = one_error(err)
        assert code == 2 and not out.exists(), line
        assert "error: the graft source is the target itself: its head would replace itself" in line, line
        assert f"found: --from {donor}" in line and "expected: another checkpoint" in line, line
        assert "fix: --from the checkpoint whose head you want (e.g. the unquantized original)" in line, line
