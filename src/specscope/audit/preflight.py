"""Pre-flight: audit a server recipe's model and draft before anything is launched, and refuse a broken head.

Seed 000 ("Read this first"): a quantized Qwen3.6-27B build without ``mtp.fc.weight`` is served by vLLM with no
error and every draft is rejected; the only symptom is a throughput number nobody was measuring. ``serve``,
``bench --launch vllm`` and ``gate --launch vllm`` therefore call :func:`require_preflight` with the recipe's plain
values (model, draft model, method) before they start a process, and refuse (exit 2) with the finding and its fix.
``--no-preflight`` skips the check; callers record that in their output / manifest.

What blocks, by method (headers and JSON only, local folder or hub):

- ``mtp``: the model's config declares no MTP head (``PREFLIGHT_NO_MTP_HEAD``), or any ERROR on the head:
  codes ``MTP_*`` (missing, incomplete, not indexed, fc shape, quantized-but-excluded / unquantized-not-excluded),
  ``FUSED_GROUP_PARTIALLY_EXCLUDED`` and any ERROR whose tensor lies under the head's prefix.
- ``draft`` / ``dflash`` / ``eagle`` / ``eagle3`` / ``medusa`` / ``mlp_speculator``: any ERROR in the draft's own
  audit or the draft-vs-target checks (tensors its family requires, tokenizers by content, vocabulary bounds,
  EAGLE-3 ``d2t`` / ``t2d``); a draft whose family (:mod:`.architectures`) is not the method's
  (``PREFLIGHT_METHOD_FAMILY``: vLLM builds the method's model and fails or loads garbage); for ``dflash`` also
  ``DFLASH_MIXED_LAYER_TYPES`` (released vLLM raises ``NotImplementedError`` on it, seed 000).
- ``base`` / ``ngram`` / ``suffix``: nothing is audited (no learned head runs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from specscope.audit.catalog import finding
from specscope.audit.findings import AuditReport, Finding
from specscope.audit.run import audit_checkpoint
from specscope.errors import CheckpointError, ConfigError
from specscope.stats.low_acceptance import learned_head
from specscope.textsafe import shell_word

__all__ = ["PreflightResult", "PreflightRefused", "preflight", "require_preflight"]
#: methods that name one draft family of audit/architectures.toml (vLLM --speculative-config method names).
_FAMILY_METHODS = frozenset({"dflash", "eagle", "eagle3", "medusa", "mlp_speculator"})
_MTP_CODES = frozenset({"FUSED_GROUP_PARTIALLY_EXCLUDED", "SINGLE_FILE_SHADOWS_INDEX"})


class PreflightRefused(ConfigError):
    """The pre-flight audit found a head speculation would run on broken (exit 2, nothing was started)."""


@dataclass
class PreflightResult:
    """Outcome of :func:`preflight`.

    Attributes:
        method: the recipe's speculative method.
        model: the audited model (folder or hub id).
        draft_model: the audited draft, or None.
        audited: False when the method runs no learned head (nothing was read).
        blocking: the findings that refuse the recipe (empty: go).
        report: the full audit report (None when not audited).
    """

    method: str
    model: str
    draft_model: str | None
    audited: bool
    blocking: list[Finding] = field(default_factory=list)
    report: AuditReport | None = None

    @property
    def ok(self) -> bool:
        return not self.blocking

    def describe(self) -> dict[str, object]:
        """What a run manifest records: status and the blocking codes."""
        status = "passed" if self.ok else "refused"
        return {
            "status": status if self.audited else "not needed",
            "method": self.method,
            "model": self.model,
            "draft_model": self.draft_model,
            "blocking": [f.code for f in self.blocking],
            "census_bytes": self.report.census.total_bytes if self.report and self.report.census else None,
        }


def _expand(path_or_id: str) -> str:
    return os.path.expanduser(path_or_id) if path_or_id.startswith("~") else path_or_id


def _no_head(model: str) -> Finding:
    return finding("PREFLIGHT_NO_MTP_HEAD", file="config.json", model=model)


def _mtp_blocking(report: AuditReport) -> list[Finding]:
    prefixes = tuple((report.facts.get("mtp") or {}).get("prefixes") or ())
    if not prefixes:
        return [_no_head(report.target)]
    out = []
    for f in report.errors:
        on_head = bool(f.tensor) and str(f.tensor).startswith(prefixes)
        if f.code.startswith("MTP_") or f.code in _MTP_CODES or on_head:
            out.append(f)
    return out


def _family_mismatch(report: AuditReport, method: str, draft: str | None) -> list[Finding]:
    """``PREFLIGHT_METHOD_FAMILY`` when the recipe's method names another family than the draft's."""
    fam = ((report.facts.get("draft") or {}).get("draft_family") or {}).get("family")
    if method not in _FAMILY_METHODS or fam is None or fam == method:
        return []
    return [finding("PREFLIGHT_METHOD_FAMILY", file="config.json", method=method, family=fam, draft=draft)]


def preflight(model: str, draft_model: str | None, method: str) -> PreflightResult:
    """Audit ``model`` (and ``draft_model``) for speculation with ``method`` (vLLM's or specscope's name).

    Raises:
        ConfigError: the model or draft cannot be read at all (missing folder, hub unreachable); the fix names
            ``--no-preflight``.
    """
    model, draft = _expand(model), _expand(draft_model) if draft_model else None
    if method == "base" or not learned_head(method):  # the one rule of which drafters have weights (stats/)
        return PreflightResult(method, model, draft, audited=False)
    try:
        report = audit_checkpoint(model, draft=draft if method != "mtp" else None)
    except CheckpointError as exc:
        raise ConfigError(
            f"pre-flight audit cannot read the recipe's checkpoint: {exc.message}",
            found=exc.found,
            expected=exc.expected or "a readable model folder or hub repo",
            fix=f"{exc.fix or 'check the path or repo id'}; or pass --no-preflight to launch unchecked",
        ) from None
    if method == "mtp":
        blocking = _mtp_blocking(report)
    else:
        blocking = [f for f in report.errors if (f.file or "").startswith("draft") or f.code.startswith("DRAFT_")]
        blocking += _family_mismatch(report, method, draft)
        dflash_draft = shell_word(draft or "DRAFT")
        if method == "dflash":  # released vLLM raises on it at start-up (seed 000); the surgery rewrites it
            blocking += [
                replace(
                    f, fix=f"specscope surgery dflash-layers {dflash_draft} --all-sliding --out NEW_FOLDER ({f.fix})"
                )
                for f in report.findings
                if f.code == "DFLASH_MIXED_LAYER_TYPES"
            ]
    return PreflightResult(method, model, draft, audited=True, blocking=blocking, report=report)


def require_preflight(model: str, draft_model: str | None, method: str, *, recipe: str = "") -> PreflightResult:
    """:func:`preflight`, raising :class:`PreflightRefused` (exit 2) on the first blocking finding.

    The message names the finding's code and text; ``fix`` is the finding's fix plus the override.
    """
    result = preflight(model, draft_model, method)
    if result.blocking:
        first = result.blocking[0]
        more = f" (+{len(result.blocking) - 1} more: {', '.join(f.code for f in result.blocking[1:])})"
        where = f"recipe {recipe!r}: " if recipe else ""
        raise PreflightRefused(
            f"pre-flight audit refuses {where}{first.code}: {first.message}"
            + (more if len(result.blocking) > 1 else ""),
            found=first.found,
            expected=first.expected,
            fix=f"{first.fix or 'repair the checkpoint'}; or pass --no-preflight to launch anyway",
        )
    return result
