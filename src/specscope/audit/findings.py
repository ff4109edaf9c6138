"""Audit findings and the report that carries them.

A finding is one problem (or note) with a stable ``code`` that tests and scripts can key on, the ``file`` and
``tensor`` concerned, what was ``found``, what was ``expected``, the ``consequence`` at serving time and the ``fix``.
Exit codes (``specscope audit``): 0 no errors, 1 errors found (``--strict``: warnings too), 2 target unreadable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from specscope.audit.census import ByteCensus

__all__ = ["Severity", "Finding", "AuditReport", "by_severity"]


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def by_severity(findings: list[Finding]) -> list[Finding]:
    """``findings`` errors first, then warnings, then infos (stable within a severity)."""
    return sorted(findings, key=lambda f: _SEVERITY_RANK[f.severity])


@dataclass(frozen=True)
class Finding:
    """One audit result. ``details`` holds structured numbers (counts, lists of names) for JSON output."""

    severity: Severity
    code: str
    message: str
    file: str | None = None
    tensor: str | None = None
    found: str | None = None
    expected: str | None = None
    consequence: str | None = None
    fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["severity"] = self.severity.value
        return d


@dataclass
class AuditReport:
    """Result of :func:`specscope.audit.audit_checkpoint`.

    Attributes:
        target: what was audited (folder, file or ``org/name@rev``).
        findings: every finding, errors first.
        census: the byte census (None when no header could be read).
        facts: structured side tables (which quantization config vLLM reads, per-layer KV scales, DFlash layers).
    """

    target: str
    findings: list[Finding]
    census: ByteCensus | None = None
    facts: dict[str, Any] = field(default_factory=dict)

    def by_code(self, code: str) -> list[Finding]:
        return [f for f in self.findings if f.code == code]

    @property
    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.WARNING]

    def exit_code_for(self, *, strict: bool = False) -> int:
        """0 clean, 1 errors (or, with ``strict``, warnings)."""
        if self.errors or (strict and self.warnings):
            return 1
        return 0

    @property
    def exit_code(self) -> int:
        return self.exit_code_for(strict=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "exit_code": self.exit_code,
            "counts": {s.value: sum(f.severity is s for f in self.findings) for s in Severity},
            "findings": [f.to_dict() for f in self.findings],
            "census": self.census.to_dict() if self.census else None,
            "facts": self.facts,
        }
