"""``audit_checkpoint``: read a checkpoint's JSON files and safetensors headers (or a GGUF header), run every rule,
return a report.

Rules (each module names its sources): :mod:`.rules_format` (1-2), :mod:`.rules_mtp` (3), :mod:`.rules_mtp_undeclared`
(3b: heads no engine loads), :mod:`.rules_heads` (what a draft family requires, :mod:`.architectures`),
:mod:`.rules_quant` and :mod:`.rules_fused` (4), :mod:`.rules_actscale` (4b: W4A4 NVFP4 activation scales),
:mod:`.rules_kv` (5), :mod:`.rules_draft` and :mod:`.rules_vocab` (6-7: draft configs, draft <-> target vocabulary,
reduced vocabulary maps), :mod:`.census` (8), :mod:`.gguf_audit` (GGUF files).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from specscope.audit.archdoc import unjudged_draft_row
from specscope.audit.architectures import (
    EAGLE3_FUSION_FAMILIES,
    DraftLayout,
    alias_name,
    config_int,
    detect_draft_family,
    draft_layout,
    family,
    in_family_layout,
    unlisted_draft_architecture,
)
from specscope.audit.catalog import finding, with_target
from specscope.audit.census import byte_census, parse_bandwidth, roofline_tokens_per_s, with_draft
from specscope.audit.findings import AuditReport, Finding, by_severity
from specscope.audit.gguf_audit import audit_gguf, is_gguf_target
from specscope.audit.quantcfg import effective_view, quant_views
from specscope.audit.rules_actscale import check_input_scales
from specscope.audit.rules_draft import check_draft_config, check_draft_vs_target, check_vision_processor
from specscope.audit.rules_format import check_format, check_index, check_repeated_keys
from specscope.audit.rules_fused import check_fused, check_fused_ignore_spelling, mtp_quant_profile
from specscope.audit.rules_heads import check_draft_tensors, check_unread_tensors, names_source, stored_names
from specscope.audit.rules_kv import check_kv
from specscope.audit.rules_moe import check_gate_up_scales
from specscope.audit.rules_mtp import check_mtp
from specscope.audit.rules_mtp_undeclared import undeclared_head
from specscope.audit.rules_quant import (
    check_quant,
    check_shared_embedding,
    embedding_modules,
    linear_modules,
    shares_embedding,
)
from specscope.audit.rules_shapes import check_draft_shapes
from specscope.audit.rules_speculators import check_speculators, check_verifier, speculators_facts
from specscope.audit.rules_vocab import check_vocab_map
from specscope.audit.rules_vocab_rows import check_vocab_rows
from specscope.checkpoint import ByteSource, Checkpoint, load_checkpoint
from specscope.checkpoint.index import nested_text_config

__all__ = ["audit_checkpoint", "audit_loaded", "separate_draft_layout"]


def _num_layers(cfg: dict[str, Any] | None) -> int | None:
    if not cfg:
        return None
    n = (nested_text_config(cfg) or cfg).get("num_hidden_layers")
    return n if isinstance(n, int) else None


def _declared_target_depth(cfg: dict[str, Any]) -> int | None:
    """The target's layer count a draft config declares (used when no target is given): TorchSpec's
    ``target_num_hidden_layers`` (its ``num_target_layers`` counts the layers read: lightseekorg/TorchSpec
    ``torchspec/config/dspark_draft_config.json`` @0db7eac0), else z-lab's ``num_target_layers``."""
    return config_int(cfg, "target_num_hidden_layers") or config_int(cfg, "num_target_layers")


def separate_draft_layout(ck: Checkpoint, *, as_draft: bool) -> DraftLayout | None:
    """The layout of ``ck`` as a separate draft: its family's (EAGLE, EAGLE-3, DFlash, Medusa, MLP speculator), or,
    when it is given as ``--draft`` and none matches, a plain draft model's; None for a checkpoint that is no draft."""
    names = sorted(set(ck.locations) | set(ck.weight_map))
    fam = detect_draft_family(ck.config, names)
    if fam is None and as_draft:
        fam = family("draft_model")
    return draft_layout(fam, ck.config, names) if fam is not None else None


def _unknown_draft_format(ck: Checkpoint, *, as_draft: bool) -> Finding | None:
    """``DRAFT_FORMAT_UNKNOWN`` (WARNING) for a draft whose ``architectures`` an engine's registry loads but no family
    of the census judges (:func:`.archdoc.unjudged_draft_row`): what it holds beside what the nearest family would
    need; no family's rule runs on it."""
    hit = unjudged_draft_row(ck.config, as_draft=as_draft)
    if hit is None:
        return None
    arch, row = hit
    names = sorted(set(ck.locations) | set(ck.weight_map))
    nearest = detect_draft_family(None, names) or family("draft_model")
    needs = draft_layout(nearest, ck.config, names).specific
    return finding(
        "DRAFT_FORMAT_UNKNOWN",
        file="config.json",
        arch=arch,
        engine=row.engine,
        loads=row.loads,
        repository=row.repository,
        source_file=row.file,
        commit=row.commit,
        n=len(names),
        examples=", ".join(names[:3]) or "none",
        nearest=nearest.title,
        needs=", ".join(needs) or "-",
        have=sum(1 for n in needs if n in names),
        details={"architecture": arch, "engine": row.engine, "loader": row.file, "nearest": nearest.key},
    )


def _unlisted_draft_format(ck: Checkpoint) -> Finding | None:
    """``DRAFT_FORMAT_UNKNOWN/unlisted`` (WARNING) for a checkpoint whose ``architectures`` name a speculative format
    no family of the census lists (:func:`.architectures.unlisted_draft_architecture`): what it holds, and no family's
    rule or fix (``PeagleLlamaForCausalLM`` was judged by EAGLE-1's rules because it holds ``EagleLlamaForCausalLM``;
    alone it passed as "no findings")."""
    arch = unlisted_draft_architecture(ck.config)
    if arch is None or (ck.config or {}).get("speculators_model_type"):
        return None
    names = sorted(set(ck.locations) | set(ck.weight_map))
    return finding(
        "DRAFT_FORMAT_UNKNOWN/unlisted",
        file="config.json",
        arch=arch,
        n=len(names),
        examples=", ".join(names[:6]) + (", ..." if len(names) > 6 else "") if names else "none",
        details={"architecture": arch, "tensors": len(names)},
    )


def _unmatched_draft_model(ck: Checkpoint, layout: DraftLayout) -> Finding | None:
    """``DRAFT_FORMAT_UNKNOWN/unmatched`` (WARNING) for a ``--draft`` that fell back to the plain draft-model family
    (no census family matched its architecture, model type or names) and holds none of that family's tensors: a format
    specscope does not know, not a Llama with every tensor missing. docs/architectures.md promises the warning and no
    family's rule, error or fix for a format outside the census. A speculators-format config of a method no family is
    (P-EAGLE ``peagle``, ``mtp``: vLLM's speculators ``algos.py`` gives each method its own loader) is
    ``DRAFT_FORMAT_UNKNOWN/speculators`` whatever it holds: it was judged as EAGLE-3 by its keys."""
    names = sorted(set(ck.locations) | set(ck.weight_map))
    archs = (ck.config or {}).get("architectures")
    arch = ", ".join(str(a) for a in archs) if isinstance(archs, list) and archs else "(none)"
    method = (ck.config or {}).get("speculators_model_type")
    if method:  # a speculators method no family is (detect_draft_family): never judged as a plain draft model
        details = {"architecture": arch, "speculators_model_type": method, "tensors": len(names)}
        examples = ", ".join(names[:3]) or "none"
        return finding(
            "DRAFT_FORMAT_UNKNOWN/speculators",
            file="config.json",
            arch=arch,
            method=method,
            n=len(names),
            examples=examples,
            details=details,
        )
    # the two outcomes below name the same things: the draft's architecture, its tensors and the nearest family
    seen: dict[str, Any] = {
        "file": "config.json",
        "arch": arch,
        "n": len(names),
        "examples": ", ".join(names[:3]),
        "details": {"architecture": arch, "nearest": layout.family.key, "tensors": len(names)},
    }
    # a causal LM of its own layout (Falcon-H1, Nemotron-H), unless the census knows its architecture's block
    if names and not in_family_layout(layout.family, names, ck.config):
        return finding("DRAFT_FORMAT_UNKNOWN/own-layout", marks=", ".join(layout.family.layout_marks), **seen)
    aliased = {alias_name(layout.family, n) for n in names}  # GPT-2's h.{i}. is its loader's transformer.h.{i}.
    if not names or any(n in aliased for n in layout.required):
        return None
    return finding("DRAFT_FORMAT_UNKNOWN/unmatched", nearest=layout.family.title, needed=len(layout.required), **seen)


def _shared_facts(ck: Checkpoint, layout: DraftLayout) -> dict[str, str]:
    """Each tensor the family may take from the target: held (a copy) or absent (the target's is used)."""
    names = stored_names(ck) or set()
    return {
        s: ("a copy is stored (engines use the target's)" if s in names else "absent: the target's")
        for s in layout.shareable
    }


def _layout_facts(layout: DraftLayout, ck: Checkpoint) -> dict[str, Any]:
    return {
        "family": layout.family.key,
        "family_title": layout.family.title,
        "style": layout.family.key,
        "layers": layout.num_layers,
        "prefixes": list(layout.prefixes),
        "required_tensors": len(layout.required),
        "shared_with_target": _shared_facts(ck, layout),
        "names_from": names_source(ck),
        **({"unlisted_model_type": layout.family.unlisted_model_type} if layout.family.unlisted_model_type else {}),
    }


def _heads(
    ck: Checkpoint, *, as_draft: bool
) -> tuple[list[Finding], DraftLayout | None, DraftLayout | None, tuple[str, ...]]:
    """``(findings, MTP layout, separate-draft layout, prefixes of tensors no engine reads here)``.

    A checkpoint given as a draft is run whole as a draft model (vLLM ``draft_model.py``), so an MTP head inside it is
    not the draft: it is named (``DRAFT_HAS_MTP_HEAD``) and left out of the bytes. An MTP head the config does not
    declare is never loaded (``MTP_UNDECLARED``)."""
    mtp_findings, layout = check_mtp(ck)
    if as_draft and layout is not None:
        head = layout
        draft = separate_draft_layout(ck, as_draft=True)
        held = sum(1 for n in ck.locations if head.contains(n))
        note = finding(
            "DRAFT_HAS_MTP_HEAD",
            file="config.json",
            family=head.family.title,
            prefixes=", ".join(head.prefixes),
            n=held,
            details={"family": head.family.key, "prefixes": list(head.prefixes), "tensors": held},
        )
        return [note], None, draft, head.prefixes
    if layout is not None:  # head layers past the count the engine builds are stored, never read per step
        past = [p for f in mtp_findings if f.code == "MTP_LAYERS_NOT_BUILT" for p in f.details["prefixes"]]
        return mtp_findings, layout, None, tuple(past)
    unknown = _unknown_draft_format(ck, as_draft=as_draft) or _unlisted_draft_format(ck)
    if unknown is not None:
        return [unknown], None, None, ()
    draft = separate_draft_layout(ck, as_draft=as_draft)
    if draft is not None and draft.family.key == "draft_model":
        unknown = _unmatched_draft_model(ck, draft)
        if unknown is not None:
            return [unknown], None, None, ()
    undeclared = undeclared_head(ck) if draft is None else None
    if undeclared is not None:
        return [undeclared[0]], None, None, undeclared[1]
    return _own_layers(ck, draft), None, draft, ()


def _own_layers(ck: Checkpoint, draft: DraftLayout | None) -> list[Finding]:
    """``DRAFT_FORMAT_UNKNOWN/own-layers`` (WARNING): a plain draft model whose architecture's block the census does
    not know, judged from its own layers (:attr:`.architectures.DraftLayout.unchecked` names what that left out)."""
    if draft is None or not draft.unchecked:
        return []
    archs = (ck.config or {}).get("architectures")
    arch = ", ".join(str(a) for a in archs) if isinstance(archs, list) and archs else "(none)"
    leaves = sorted({n.split(".", 3)[-1] for n in draft.unchecked})  # model.layers.{i}.<name>
    return [
        finding(
            "DRAFT_FORMAT_UNKNOWN/own-layers",
            file="config.json",
            arch=arch,
            shown=", ".join(leaves),
            details={"kind": "own-layers", "architecture": arch, "not_required": list(draft.unchecked)},
        )
    ]


def _config_unrecognised(ck: Checkpoint) -> list[Finding]:
    """``CONFIG_UNRECOGNISED`` (WARNING) for a checkpoint whose head nothing declares because there is no config.json,
    or one naming neither ``architectures`` nor ``model_type``: an input in which nothing is recognised is named, not
    passed as "no findings" (fresh-user finding, 2026-12-05: ``{}`` beside a full DeepSeek MTP layer passed)."""
    cfg = ck.config
    if cfg is None:
        return [finding("CONFIG_UNRECOGNISED", file="config.json", what="no config.json", found="file absent")]
    if cfg.get("architectures") or cfg.get("model_type"):
        return []
    keys = ", ".join(sorted(str(k) for k in cfg)[:8]) or "none"
    what = "config.json names no architecture or model_type"
    return [finding("CONFIG_UNRECOGNISED", file="config.json", what=what, found=f"keys: {keys}")]


def audit_loaded(ck: Checkpoint, *, target_ck: Checkpoint | None = None, as_draft: bool = False) -> AuditReport:
    """Run every rule on an already loaded checkpoint (``target_ck``: the target when ``ck`` is a separate draft;
    ``as_draft``: ``ck`` was given as a draft, so a plain causal LM is judged as a draft model)."""
    findings: list[Finding] = []
    facts: dict[str, Any] = {}
    findings += check_format(ck)
    findings += check_repeated_keys(ck)
    findings += check_index(ck)
    head_findings, layout, draft, unread = _heads(ck, as_draft=as_draft or target_ck is not None)
    findings += head_findings
    if layout is not None:
        draft_modules = {m for m in linear_modules(ck) if layout.contains(m + ".")}
        draft_tables = {m for m in embedding_modules(ck) if layout.contains(m + ".")}
        facts["mtp"] = _layout_facts(layout, ck)
    elif draft is not None:
        draft_modules = set(linear_modules(ck))
        draft_tables = set(embedding_modules(ck))
        facts["draft_family"] = _layout_facts(draft, ck)
        findings += check_draft_tensors(ck, draft)
        findings += check_unread_tensors(ck, draft, named=unread)
        findings += check_draft_shapes(ck, draft)
        findings += check_vocab_map(ck, draft)
    else:
        draft_modules, draft_tables = set(), set()
    findings += check_vocab_rows(ck, draft if layout is None else None)
    family = layout.family.key if layout is not None else None
    quant_findings, quant_facts = check_quant(ck, draft_modules, family, draft_embeddings=draft_tables)
    findings += quant_findings
    facts.update(quant_facts)
    if layout is not None:
        findings += check_shared_embedding(ck, layout.family, own=lambda m: layout.contains(m + "."))
    findings += check_gate_up_scales(ck) + check_fused(ck) + check_fused_ignore_spelling(ck, layout)
    findings += check_input_scales(ck, effective_view(quant_views(ck.config, ck.hf_quant_config)))
    profile = mtp_quant_profile(ck, draft_modules)
    if profile is not None:  # every profile is a fact; only "partial" needs a finding to explain it
        facts["mtp_quantization"] = {k: profile.details[k] for k in ("profile", "quantized", "unquantized")}
        findings += [profile] if profile.details["profile"] == "partial" else []
    kv_findings, kv_table = check_kv(ck, layout.prefixes if layout else ("mtp.",))
    findings += kv_findings
    if kv_table:
        facts["kv_scales"] = kv_table
    if draft is not None and draft.family.key in ("dflash", "eagle", *EAGLE3_FUSION_FAMILIES) and ck.config is not None:
        target_layers = _num_layers(target_ck.config) if target_ck else _declared_target_depth(ck.config)
        d_findings, table = check_draft_config(ck.text_config, target_num_layers=target_layers, family=draft.family.key)
        findings += d_findings
        facts["draft_layers"] = table
    if draft is not None and speculators_facts(ck.config):
        facts["draft_format"] = speculators_facts(ck.config)
        findings += check_speculators(ck.config)
    if target_ck is not None:
        findings += check_draft_vs_target(ck, target_ck, draft)
        findings += check_verifier(ck.config, target_ck.text_config)
    findings += check_vision_processor(ck.config, ck.files)
    if layout is None and draft is None:
        findings += _config_unrecognised(ck)
    census = None
    if any(s.header is not None for s in ck.shards.values()):
        elsewhere = tuple(p for f in head_findings if f.code == "MTP_LAYOUT_UNKNOWN" for p in f.details["prefixes"])
        unknown = [f for f in head_findings if f.code.split("/")[0] == "DRAFT_FORMAT_UNKNOWN"]
        census = byte_census(
            ck,
            layout=layout or draft,
            draft_model=draft is not None,
            unread=unread,
            unjudged=elsewhere,
            unknown_format=str(unknown[0].details["architecture"]) if unknown else None,
        )
    return AuditReport(ck.label, with_target(by_severity(findings), ck.label), census, facts)  # fixes name it


def _merge_draft(report: AuditReport, dreport: AuditReport, ck: Checkpoint, dck: Checkpoint) -> None:
    drafted = [replace(f, file=f"draft:{f.file}" if f.file else "draft") for f in dreport.findings]
    report.findings = by_severity(report.findings + drafted)
    report.facts["draft"] = dreport.facts
    if report.census and dreport.census:
        report.census = with_draft(report.census, dreport.census, separate_draft_layout(dck, as_draft=True), dck)


def audit_checkpoint(
    target: str | os.PathLike[str] | ByteSource,
    *,
    draft: str | os.PathLike[str] | None = None,
    bandwidth: str | float | None = None,
) -> AuditReport:
    """Audit ``target`` (folder, ``.safetensors`` file, ``org/name[@rev]``, a byte source, or a GGUF file) from headers
    and JSON only.

    Args:
        target: the checkpoint to audit.
        draft: an optional separate draft model, audited against ``target`` (its findings are added with
            ``file`` prefixed ``draft:``; the census gains the draft's bytes per draft step).
        bandwidth: ``"273GB/s"``, a device name, or bytes/s as a float, for the roofline.

    Returns:
        :class:`AuditReport` with ``.findings``, ``.census`` (:class:`ByteCensus`) and ``.exit_code``.

    Raises:
        CheckpointError: the target cannot be read at all (exit code 2).
        ConfigError: unreadable ``bandwidth``.
    """
    bw = parse_bandwidth(bandwidth) if isinstance(bandwidth, str) else bandwidth
    if is_gguf_target(target) or (draft is not None and is_gguf_target(draft)):
        report = audit_gguf(target, draft=draft)
    else:
        ck = load_checkpoint(target)
        report = audit_loaded(ck)
        if draft is not None:
            dck = load_checkpoint(draft)
            _merge_draft(report, audit_loaded(dck, target_ck=ck, as_draft=True), ck, dck)
            dlayout = separate_draft_layout(dck, as_draft=True)
            if dlayout is not None and shares_embedding(dlayout.family):  # the target's table, read by the draft
                report.findings = by_severity(report.findings + check_shared_embedding(ck, dlayout.family))
    if report.census is not None and bw:
        tb = report.census.target_bytes_per_token
        report.census = replace(
            report.census,
            bandwidth_bytes_per_s=bw,
            roofline_tokens_per_s=roofline_tokens_per_s(tb, bw) if tb else None,
        )
    return report
