"""Exclude entries in each dialect's own syntax (issue 27 follow-up, defect 3): a compressed-tensors ``re:`` pattern
that excludes the MTP head is dropped (or narrowed to the names it must still cover) when the head is quantized, so
``quantize-draft`` writes a checkpoint that passes its own audit, and ``MTP_QUANTIZED_BUT_EXCLUDED``'s fix is a
command that repairs a checkpoint in that state.

Pattern syntax: compressed-tensors ``utils/match.py`` (a name, or ``re:`` + a regular expression matched from the
start); ModelOpt / vLLM ``is_layer_excluded`` (fnmatch globs). The audit and surgery read an entry with the same
function (``specscope.audit.quantcfg.entry_covers``).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from conftest import make_qwen36_checkpoint
from specscope.audit import audit_checkpoint
from specscope.cli import app
from specscope.surgery import apply_plan, plan_quantize_draft
from specscope.surgery.configs import CONFIG, remove_exclusions

CT_IGNORE = ["lm_head", r"re:.*linear_attn.*", r"re:^mtp\..*"]


def _ct(ignore: list[str]) -> dict[str, dict]:
    return {CONFIG: {"quantization_config": {"quant_method": "compressed-tensors", "ignore": list(ignore)}}}


def test_a_regex_entry_is_narrowed_to_the_linears_it_must_still_cover() -> None:
    out = remove_exclusions(_ct(CT_IGNORE), ["mtp.fc"], ["mtp.layers.0.self_attn.o_proj", "model.layers.0.x"])
    assert out[CONFIG]["quantization_config"]["ignore"] == [
        "lm_head",
        "re:.*linear_attn.*",
        "mtp.layers.0.self_attn.o_proj",
    ]


def test_a_glob_is_not_a_compressed_tensors_pattern() -> None:
    """compressed-tensors reads ``mtp*`` as a literal name: it covers nothing, so nothing is dropped for it."""
    out = remove_exclusions(_ct(["mtp*"]), ["mtp.fc"], [])
    assert out[CONFIG]["quantization_config"]["ignore"] == ["mtp*"]


def test_quantize_draft_under_a_regex_exclusion_passes_its_own_audit(tmp_path: Path) -> None:
    src = make_qwen36_checkpoint(tmp_path / "src", dialect="compressed-tensors", ignore=CT_IGNORE)
    result = apply_plan(plan_quantize_draft(src, tmp_path / "q"))
    assert (result.audit_exit_code, result.audit_findings) == (0, [])
    ignore = json.loads((tmp_path / "q" / "config.json").read_text())["quantization_config"]["ignore"]
    assert ignore == ["lm_head", "re:.*linear_attn.*"]


def test_the_fix_of_a_quantized_but_excluded_head_repairs_it(tmp_path: Path) -> None:
    src = make_qwen36_checkpoint(tmp_path / "src", dialect="compressed-tensors", ignore=CT_IGNORE)
    good = tmp_path / "q"
    apply_plan(plan_quantize_draft(src, good))
    cfg = json.loads((good / "config.json").read_text())
    cfg["quantization_config"]["ignore"] = CT_IGNORE  # the state the defect left: head quantized, regex still there
    (good / "config.json").write_text(json.dumps(cfg))
    (f,) = audit_checkpoint(good).by_code("MTP_QUANTIZED_BUT_EXCLUDED")
    (command,) = re.findall(r"`(specscope [^`]+)`", f.fix or "")
    fixed = tmp_path / "fixed"
    argv = [fixed.as_posix() if a == "NEW_FOLDER" else a for a in shlex.split(command)[1:]]
    assert argv[:3] == ["surgery", "patch-config", str(good)] and "--include-quantized" in argv
    run = CliRunner().invoke(app, argv)
    assert run.exit_code == 0, run.output
    after = audit_checkpoint(fixed)
    assert after.by_code("MTP_QUANTIZED_BUT_EXCLUDED") == [] and after.exit_code == 0
