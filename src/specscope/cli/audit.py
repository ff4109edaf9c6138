"""``specscope audit TARGET``: find silent speculative-decoding failures in a checkpoint from its JSON and headers.

Exit codes: 0 no errors; 1 errors found (``--strict``: warnings too); 2 the target could not be audited at all.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated

import typer


class AuditFormat(str, Enum):
    table = "table"
    json = "json"


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB"


def _render(report, strict: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    colors = {"error": "red", "warning": "yellow", "info": "cyan"}
    if report.findings:
        t = Table(title=f"audit: {report.target}", show_lines=True)
        for col in ("severity", "code", "file / tensor", "found -> expected", "consequence / fix"):
            t.add_column(col, overflow="fold")
        for f in report.findings:
            sev = f.severity.value
            where = "\n".join(x for x in (f.file, f.tensor) if x)
            t.add_row(f"[{colors[sev]}]{sev}[/]", f.code, where,
                      f"{f.message}\nfound: {f.found}\nexpected: {f.expected}",
                      "\n".join(x for x in (f.consequence, f"fix: {f.fix}" if f.fix else None) if x))
        console.print(t)
    else:
        console.print(f"audit: {report.target}: no findings")
    c = report.census
    if c is not None:
        ct = Table(title="byte census")
        ct.add_column("group")
        ct.add_column("bytes", justify="right")
        for g, b in c.bytes_by_group.items():
            if b:
                ct.add_row(g, f"{b:,}")
        ct.add_row("total", f"{c.total_bytes:,}")
        console.print(ct)
        line = (f"per decode step: target {_gb(c.target_bytes_per_token)}, draft {_gb(c.draft_bytes_per_step)} "
                f"({c.draft_share * 100:.1f}% of a target pass)")
        if c.roofline_tokens_per_s is not None:
            line += f"; roofline {c.roofline_tokens_per_s:.1f} tok/s at {c.bandwidth_bytes_per_s / 1e9:g} GB/s"
        console.print(line)
    n_err, n_warn = len(report.errors), len(report.warnings)
    console.print(f"{n_err} error(s), {n_warn} warning(s); exit {report.exit_code_for(strict=strict)}")


def register(app: typer.Typer) -> None:
    @app.command("audit")
    def audit(
        target: Annotated[str, typer.Argument(help="Checkpoint folder, .safetensors file, or hub repo org/name[@revision].")],
        draft: Annotated[str | None, typer.Option("--draft", help="A separate draft model to audit against TARGET.")] = None,
        bandwidth: Annotated[str | None, typer.Option(
            "--bandwidth", help="Memory bandwidth for the roofline: 273GB/s, 4.8TB/s, or dgx-spark, h100, h200, ...")] = None,
        strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
        format: Annotated[AuditFormat, typer.Option("--format", "-f", help="table (default) or json.")] = AuditFormat.table,
    ) -> None:
        """Audit a checkpoint by reading only JSON files and safetensors headers (never tensor data, except scalar
        scales). Honours HF_TOKEN, HF_ENDPOINT and HF_HUB_OFFLINE for hub targets.

        Exit codes: 0 no errors; 1 errors found (--strict: warnings too); 2 the target could not be audited."""
        from specscope.audit import audit_checkpoint

        report = audit_checkpoint(target, draft=draft, bandwidth=bandwidth)
        if format is AuditFormat.json:
            data = report.to_dict()
            data["exit_code"] = report.exit_code_for(strict=strict)
            typer.echo(json.dumps(data, indent=2, default=str))
        else:
            _render(report, strict)
        raise typer.Exit(report.exit_code_for(strict=strict))
