"""Checkpoint audit: rules -> findings (severity, code, file, tensor, found, expected, consequence, fix).

Public API::

    audit_checkpoint(target, *, draft=None, bandwidth=None) -> AuditReport   # .findings, .census, .exit_code
    byte_census(ck, *, layout=None, draft_model=False, bandwidth_bytes_per_s=None) -> ByteCensus
    parse_bandwidth("273GB/s" | "h200") -> float (bytes/s);  roofline_tokens_per_s(bytes_per_token, bytes_per_s)
    check_draft_config(cfg, target_num_layers=None) -> (findings, per-layer table)
"""

from specscope.audit.architectures import DraftLayout, Family, families
from specscope.audit.census import (
    NAMED_BANDWIDTHS_BYTES_PER_S,
    ByteCensus,
    byte_census,
    parse_bandwidth,
    roofline_tokens_per_s,
)
from specscope.audit.findings import AuditReport, Finding, Severity
from specscope.audit.quantcfg import QuantView, effective_view, is_excluded, quant_views
from specscope.audit.rules_draft import check_draft_config
from specscope.audit.run import audit_checkpoint, audit_loaded

__all__ = [
    "NAMED_BANDWIDTHS_BYTES_PER_S",
    "ByteCensus",
    "byte_census",
    "parse_bandwidth",
    "roofline_tokens_per_s",
    "AuditReport",
    "Finding",
    "Severity",
    "DraftLayout",
    "Family",
    "families",
    "QuantView",
    "effective_view",
    "is_excluded",
    "quant_views",
    "check_draft_config",
    "audit_checkpoint",
    "audit_loaded",
]
