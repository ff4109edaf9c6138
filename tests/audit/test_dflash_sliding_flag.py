"""DFlash drafts that ask for sliding-window attention the engine does not apply (issue 36 leftover), through
``specscope audit DIR``.

vLLM qwen3_dflash.py @036a00d1 never reads ``use_sliding_window``; the draft's transformers Qwen3Config
(@008e5743) fills a missing ``layer_types`` with sliding layers only from ``max_window_layers`` (default 28) on. A
two-layer draft with ``use_sliding_window: true`` and no ``layer_types`` was exit 0 with no word; it is now
``DFLASH_SLIDING_FLAG_NOT_APPLIED`` (warning, exit 0: every layer runs full attention), and with
``max_window_layers: 1`` the ``/derived`` variant (layer 1 slides, layer 0 does not).
"""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

from .ckmaker import write
from .test_families import CASES


def _audit(root: Path, capsys, monkeypatch, tmp_path: Path) -> tuple[int, dict[str, dict]]:
    code, out, _ = cli(["audit", root, "--format", "json"], capsys, monkeypatch, tmp_path)
    return code, {f["code"] + f"|{f['severity']}": f for f in json.loads(out)["findings"]}


def test_dflash_use_sliding_window_without_layer_types(tmp_path: Path, capsys, monkeypatch) -> None:
    case = CASES["dflash"]
    code, found = _audit(write(tmp_path / "plain", case.shapes, case.config), capsys, monkeypatch, tmp_path)
    assert (code, found) == (0, {})
    flagged = {**case.config, "use_sliding_window": True, "sliding_window": 2048}
    code, found = _audit(write(tmp_path / "flag", case.shapes, flagged), capsys, monkeypatch, tmp_path)
    assert (code, sorted(found)) == (0, ["DFLASH_SLIDING_FLAG_NOT_APPLIED|warning"])
    f = found["DFLASH_SLIDING_FLAG_NOT_APPLIED|warning"]
    assert f["message"].endswith("(sliding only from layer 28 on) and runs all 2 draft layers with full attention")
    assert f["details"]["derived_layer_types"] == ["full_attention", "full_attention"]
    assert "2048-token window" in f["consequence"]
    derived = {**flagged, "max_window_layers": 1}
    code, found = _audit(write(tmp_path / "derived", case.shapes, derived), capsys, monkeypatch, tmp_path)
    assert (code, sorted(found)) == (0, ["DFLASH_SLIDING_FLAG_NOT_APPLIED|warning"])
    f = found["DFLASH_SLIDING_FLAG_NOT_APPLIED|warning"]
    assert "that layers [1] slide (window 2048) and layers [0] do not" in f["message"]
    assert "V2 model runner" in f["consequence"]
    every = {**flagged, "max_window_layers": 0}  # every layer slides: what the flag asks for
    code, found = _audit(write(tmp_path / "every", case.shapes, every), capsys, monkeypatch, tmp_path)
    assert (code, found) == (0, {})
