"""Issue 36 leftovers: what the engines' own loaders refuse or skip, through ``specscope audit DIR``.

- Nemotron-H: vLLM nemotron_h_mtp.py @01ca2773 ``NemotronHMultiTokenPredictor`` asserts
  ``num_nextn_predict_layers == 1``. A config declaring 2 with two steps stored was exit 0 with no word (two steps
  judged complete); with one step stored it was ``MTP_INCOMPLETE`` asking for a second step the engine refuses to
  build. Both are now ``MTP_LAYERS_UNSUPPORTED`` (error, exit 1), the head judged as the one step the engine builds.
- HY-V4: vLLM vllm/models/hy_v4/nvidia/mtp.py @055e47c2 also reads a head stored as ``model.layers.{N+i}.*`` (its
  ``_get_spec_layer_idx_from_weight_name`` picks i < max(num_nextn_predict_layers - 1, 1) and skips the rest). Such a
  complete head was ``MTP_WEIGHTS_MISSING`` (error, exit 1: "rename them to model.mtp_layers.0."); it is now judged
  in that spelling: complete -> exit 0; declaring 2 with layers N and N+1 stored -> layer N+1 is
  ``MTP_LAYERS_NOT_BUILT/skipped`` (warning, exit 0), one layer read; its eh_proj dropped -> ``MTP_INCOMPLETE``
  naming ``model.layers.{N}.eh_proj.weight``.
"""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

from .ckmaker import write
from .test_families import CASES
from .test_mtp_layers_past import _with_past_layer


def _audit(root: Path, capsys, monkeypatch, tmp_path: Path) -> tuple[int, dict[str, dict]]:
    code, out, _ = cli(["audit", root, "--format", "json"], capsys, monkeypatch, tmp_path)
    report = json.loads(out)
    return code, {f["code"] + f"|{f['severity']}": f for f in report["findings"]}


def test_nemotron_h_declaring_two_layers_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    shapes, cfg, _, pasts = _with_past_layer("nemotron_h_mtp")
    two = {**cfg, "num_nextn_predict_layers": 2}
    code, found = _audit(write(tmp_path / "two-steps", shapes, two), capsys, monkeypatch, tmp_path)
    assert code == 1
    assert set(found) == {"MTP_LAYERS_UNSUPPORTED|error", "MTP_LAYERS_NOT_BUILT|warning"}, sorted(found)
    f = found["MTP_LAYERS_UNSUPPORTED|error"]
    assert f["found"] == "num_nextn_predict_layers: 2" and f["expected"] == "num_nextn_predict_layers: 1"
    assert f["fix"].startswith("set num_nextn_predict_layers: 1 in config.json")
    assert found["MTP_LAYERS_NOT_BUILT|warning"]["details"]["prefixes"] == pasts  # step 2 never read at 1
    case = CASES["nemotron_h_mtp"]
    code, found = _audit(write(tmp_path / "one-step", case.shapes, two), capsys, monkeypatch, tmp_path)
    assert (code, sorted(found)) == (1, ["MTP_LAYERS_UNSUPPORTED|error"])  # was MTP_INCOMPLETE (step 2 "missing")
    code, found = _audit(write(tmp_path / "one", case.shapes, case.config), capsys, monkeypatch, tmp_path)
    assert (code, found) == (0, {})


def _hy_v4_as_main_layers() -> tuple[dict[str, list[int]], dict]:
    """HY-V4's complete head moved from model.mtp_layers.0. to model.layers.{N}. (N = num_hidden_layers = 2)."""
    case = CASES["hy_v4_mtp"]
    n = case.config["num_hidden_layers"]
    moved = {
        (f"model.layers.{n}." + k.removeprefix("model.mtp_layers.0.") if k.startswith("model.mtp_layers.0.") else k): v
        for k, v in case.shapes.items()
    }
    return moved, case.config


def test_hy_v4_head_stored_as_model_layers_is_read_in_that_spelling(tmp_path: Path, capsys, monkeypatch) -> None:
    shapes, cfg = _hy_v4_as_main_layers()
    code, found = _audit(write(tmp_path / "one", shapes, cfg), capsys, monkeypatch, tmp_path)
    assert (code, found) == (0, {})  # was MTP_WEIGHTS_MISSING (exit 1)
    second = {"model.layers.3." + k.removeprefix("model.layers.2."): v for k, v in shapes.items() if "layers.2." in k}
    two = {**cfg, "num_nextn_predict_layers": 2}
    code, found = _audit(write(tmp_path / "two", shapes | second, two), capsys, monkeypatch, tmp_path)
    assert (code, sorted(found)) == (0, ["MTP_LAYERS_NOT_BUILT|warning"])
    f = found["MTP_LAYERS_NOT_BUILT|warning"]
    details = f["details"]
    assert (details["built"], details["stored_past"], details["prefixes"]) == (1, [1], ["model.layers.3."])
    assert "num_nextn_predict_layers 2 declared, layers the loader picks as model.layers.N+i.: 1" in f["message"]
    broken = {k: v for k, v in shapes.items() if k != "model.layers.2.eh_proj.weight"}
    code, found = _audit(write(tmp_path / "broken", broken, cfg), capsys, monkeypatch, tmp_path)
    assert (code, sorted(found)) == (1, ["MTP_INCOMPLETE|error"])
    assert found["MTP_INCOMPLETE|error"]["details"]["missing"] == ["model.layers.2.eh_proj.weight"]
