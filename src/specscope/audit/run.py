"""``audit_checkpoint``: read a checkpoint's JSON files and safetensors headers, run every rule, return a report.

Rules (each module names its sources): :mod:`.rules_format` (1-2), :mod:`.rules_mtp` (3), :mod:`.rules_quant` (4),
:mod:`.rules_actscale` (4b),
:mod:`.rules_kv` (5), :mod:`.rules_draft` (6-7), :mod:`.census` (8).
"""

from __future__ import annotations

import os
from dataclasses import replace

from specscope.audit.census import byte_census, parse_bandwidth, roofline_tokens_per_s
from specscope.audit.findings import AuditReport, Finding, Severity
from specscope.audit.quantcfg import effective_view, quant_views
from specscope.audit.rules_actscale import check_input_scales
from specscope.audit.rules_draft import (
    check_draft_config,
    check_draft_vs_target,
    check_vision_processor,
    is_draft_config,
)
from specscope.audit.rules_format import check_format, check_index
from specscope.audit.rules_fused import check_fused, mtp_quant_profile
from specscope.audit.rules_kv import check_kv
from specscope.audit.rules_moe import check_gate_up_scales
from specscope.audit.rules_mtp import check_mtp
from specscope.audit.rules_quant import check_quant, linear_modules
from specscope.checkpoint import ByteSource, Checkpoint, load_checkpoint

__all__ = ["audit_checkpoint", "audit_loaded"]

_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _num_layers(cfg: dict | None) -> int | None:
    if not cfg:
        return None
    text_cfg = cfg.get("text_config")
    tc: dict = text_cfg if isinstance(text_cfg, dict) else cfg
    n = tc.get("num_hidden_layers")
    return n if isinstance(n, int) else None


def audit_loaded(ck: Checkpoint, *, target_ck: Checkpoint | None = None) -> AuditReport:
    """Run every rule on an already loaded checkpoint (``target_ck``: the target when ``ck`` is a separate draft)."""
    findings: list[Finding] = []
    facts: dict = {}
    findings += check_format(ck)
    findings += check_index(ck)
    mtp_findings, layout = check_mtp(ck)
    findings += mtp_findings
    draft_model = is_draft_config(ck.config)
    if layout is not None:
        draft_modules = {m for m in linear_modules(ck) if layout.contains(m + ".")}
        facts["mtp"] = {
            "style": layout.style,
            "layers": layout.num_layers,
            "prefixes": list(layout.prefixes),
            "required_tensors": len(layout.required),
        }
    elif draft_model:
        draft_modules = set(linear_modules(ck))
    else:
        draft_modules = set()
    quant_findings, quant_facts = check_quant(ck, draft_modules)
    findings += quant_findings
    facts.update(quant_facts)
    findings += check_gate_up_scales(ck) + check_fused(ck)
    findings += check_input_scales(ck, effective_view(quant_views(ck.config, ck.hf_quant_config)))
    profile = mtp_quant_profile(ck, draft_modules)
    if profile is not None:  # every profile is a fact; only "partial" needs a finding to explain it
        facts["mtp_quantization"] = {k: profile.details[k] for k in ("profile", "quantized", "unquantized")}
        findings += [profile] if profile.details["profile"] == "partial" else []
    kv_findings, kv_table = check_kv(ck, layout.prefixes if layout else ("mtp.",))
    findings += kv_findings
    if kv_table:
        facts["kv_scales"] = kv_table
    if draft_model and ck.config is not None:
        target_layers = _num_layers(target_ck.config) if target_ck else ck.config.get("num_target_layers")
        d_findings, table = check_draft_config(ck.config, target_num_layers=target_layers)
        findings += d_findings
        facts["draft_layers"] = table
    if target_ck is not None and ck.config and target_ck.config:
        findings += check_draft_vs_target(ck.config, target_ck.config, ck.files, target_ck.files)
    findings += check_vision_processor(ck.config, ck.files)
    census = None
    if any(s.header is not None for s in ck.shards.values()):
        census = byte_census(ck, mtp=layout, draft_model=draft_model)
    findings.sort(key=lambda f: _ORDER[f.severity])
    return AuditReport(ck.label, findings, census, facts)


def audit_checkpoint(
    target: str | os.PathLike[str] | ByteSource,
    *,
    draft: str | os.PathLike[str] | None = None,
    bandwidth: str | float | None = None,
) -> AuditReport:
    """Audit ``target`` (folder, ``.safetensors`` file, ``org/name[@rev]`` or a byte source) from headers and JSON only.

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
    ck = load_checkpoint(target)
    report = audit_loaded(ck)
    if draft is not None:
        dck = load_checkpoint(draft)
        dreport = audit_loaded(dck, target_ck=ck)
        report.findings += [replace(f, file=f"draft:{f.file}" if f.file else "draft") for f in dreport.findings]
        report.findings.sort(key=lambda f: _ORDER[f.severity])
        report.facts["draft"] = dreport.facts
        if report.census and dreport.census:
            d_bytes = dreport.census.draft_bytes_per_step
            tb = report.census.target_bytes_per_token
            report.census = replace(
                report.census, draft_bytes_per_step=d_bytes, draft_share=d_bytes / tb if tb else 0.0
            )
    if report.census is not None and bw:
        tb = report.census.target_bytes_per_token
        report.census = replace(
            report.census,
            bandwidth_bytes_per_s=bw,
            roofline_tokens_per_s=roofline_tokens_per_s(tb, bw) if tb > 0 else None,
        )
    return report
