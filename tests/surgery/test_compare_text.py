"""`specscope surgery compare` text table on an 80-column terminal: every tensor name printed whole (wrapped,
never cut with an ellipsis), and a tensor present on one side only says which."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import make_qwen36_checkpoint
from hangguard import HANG_S


def test_names_are_whole_and_one_sided_tensors_say_which(tmp_path: Path):
    a = make_qwen36_checkpoint(tmp_path / "a")
    b = tmp_path / "b"
    b.mkdir()
    # B: a copy of the one shard that holds mtp.fc.weight; the head's other tensors live in A's last shard only
    weight_map = json.loads((a / "model.safetensors.index.json").read_text())["weight_map"]
    shutil.copyfile(a / weight_map["mtp.fc.weight"], b / "model.safetensors")
    assert weight_map["mtp.layers.0.self_attn.q_proj.weight"] != weight_map["mtp.fc.weight"]
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("SPECSCOPE_DEBUG", None)
    p = subprocess.run(
        [sys.executable, "-m", "specscope", "surgery", "compare", str(a), str(b)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert p.returncode == 0, p.stderr
    assert "…" not in p.stdout
    rows: list[list[str]] = []  # logical rows: a row starts where the "identical" cell is filled
    for line in p.stdout.splitlines():
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells[3]:
            rows.append(cells)
        else:
            rows[-1][0] += cells[0]
    by_name = {r[0]: r[3] for r in rows}
    assert by_name["mtp.fc.weight"] == "yes"
    assert by_name["mtp.layers.0.self_attn.q_proj.weight"] == "only in A"  # whole name, reassembled from its folds
    assert "only in B" not in by_name.values()
