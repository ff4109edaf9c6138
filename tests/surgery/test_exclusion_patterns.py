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
from specscope.surgery import apply_plan, plan_patch_config, plan_quantize_draft
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


def test_exclude_unquantized_on_compressed_tensors_writes_one_pattern_for_a_wholly_unquantized_prefix(
    tmp_path: Path,
) -> None:
    """sgl-project/sglang issue #35797 (open; fix PR #35887 open): a compressed-tensors Qwen3.5 checkpoint whose
    BF16 MTP projections are listed one by one in ``ignore`` loads in vLLM, but SGLang's ``Qwen3_5ForCausalLMMTP``
    (``qwen3_5_mtp.py`` @008b79d2) passes no ``packed_modules_mapping``, so the fused ``qkv_proj`` / ``gate_up_proj``
    match none of the per-shard names: they are built quantized and their BF16 weights skipped (accept length 1.00).
    When every linear under the prefix is unquantized, the patch writes one ``re:`` pattern that covers the fused
    modules under any spelling, for every engine, instead of the names."""
    ck = make_qwen36_checkpoint(
        tmp_path / "ck", dialect="compressed-tensors", ignore=["lm_head", r"re:model\.layers\.0\.self_attn\..*"]
    )
    before = audit_checkpoint(ck)
    assert [f.code for f in before.findings if f.severity.value == "error"] == ["MTP_UNQUANTIZED_NOT_EXCLUDED"]
    out = tmp_path / "patched"
    apply_plan(plan_patch_config(ck, exclude_unquantized="mtp.", out=out))
    ignore = json.loads((out / "config.json").read_text())["quantization_config"]["ignore"]
    assert ignore == ["lm_head", r"re:model\.layers\.0\.self_attn\..*", "re:^mtp[.].*"]
    after = audit_checkpoint(out)
    assert [f.code for f in after.findings if f.severity.value == "error"] == []
    assert plan_patch_config(out, exclude_unquantized="mtp.").jsons == []  # second run: nothing to add


def test_exclude_unquantized_keeps_names_when_the_prefix_also_holds_quantized_linears(tmp_path: Path) -> None:
    """A prefix with a quantized linear under it cannot be excluded whole: the unquantized ones are added by name."""
    ck = make_qwen36_checkpoint(
        tmp_path / "ck", dialect="compressed-tensors", ignore=["lm_head", r"re:model\.layers\.0\.self_attn\..*"]
    )
    out = tmp_path / "patched"
    apply_plan(plan_patch_config(ck, exclude_unquantized="mtp.layers.0.", out=out))
    ignore = json.loads((out / "config.json").read_text())["quantization_config"]["ignore"]
    assert "re:^mtp[.]layers[.]0[.].*" in ignore  # every linear under mtp.layers.0. is BF16 here too
    quantized_under = tmp_path / "ck2"
    ck2 = make_qwen36_checkpoint(
        quantized_under, dialect="compressed-tensors", ignore=["lm_head", r"re:model\.layers\.0\.self_attn\..*"]
    )
    apply_plan(plan_patch_config(ck2, exclude_unquantized="model.layers.0.", out=tmp_path / "patched2"))
    ignore2 = json.loads((tmp_path / "patched2" / "config.json").read_text())["quantization_config"]["ignore"]
    assert not any(e.startswith("re:^model") for e in ignore2)  # layer 0's MLP is NVFP4: no whole-prefix pattern


def test_audit_warns_when_fused_mtp_modules_are_ignored_only_by_their_shard_names(tmp_path: Path) -> None:
    """sgl-project/sglang issue #35797: every MTP linear listed by name (a consistent checkpoint vLLM serves) is a
    WARNING naming the fused modules SGLang builds quantized; its fix is the one pattern, after which nothing is
    reported."""
    names = [f"mtp.layers.0.self_attn.{p}" for p in ("q_proj", "k_proj", "v_proj", "o_proj")]
    names += [f"mtp.layers.0.mlp.{p}" for p in ("gate_proj", "up_proj", "down_proj")] + ["mtp.fc"]
    base = ["lm_head", r"re:model\.layers\.0\.self_attn\..*"]
    ck = make_qwen36_checkpoint(tmp_path / "ck", dialect="compressed-tensors", ignore=base + names)
    r = audit_checkpoint(ck)
    assert [(f.severity.value, f.code) for f in r.findings if f.severity.value != "info"] == [
        ("warning", "MTP_IGNORE_PER_SHARD")
    ]
    (f,) = r.by_code("MTP_IGNORE_PER_SHARD")
    assert f.file == "config.json"
    assert f.details["fused"] == ["mtp.layers.0.mlp.gate_up_proj", "mtp.layers.0.self_attn.qkv_proj"]
    assert f.message == (
        "2 fused MTP modules are excluded only through their shards' names in config.json's ignore: "
        "mtp.layers.0.mlp.gate_up_proj, mtp.layers.0.self_attn.qkv_proj"
    )
    assert '"re:^mtp[.].*"' in (f.fix or "")
    fixed = make_qwen36_checkpoint(tmp_path / "fixed", dialect="compressed-tensors", ignore=[*base, "re:^mtp[.].*"])
    assert audit_checkpoint(fixed).by_code("MTP_IGNORE_PER_SHARD") == []
