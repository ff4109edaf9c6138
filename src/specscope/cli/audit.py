"""``specscope audit TARGET``: find silent speculative-decoding failures in a checkpoint from its JSON and headers.

Exit codes: 0 no errors; 1 errors found (``--strict``: warnings too); 2 the target could not be audited at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from specscope.cli.command_options import FollowSymlinksOption, StrictOption
from specscope.cli.options import (
    TEXT_JSON,
    BandwidthOption,
    DraftModelOption,
    HashesFileOption,
    HashesHubOption,
    HashesOption,
    OutputOption,
    TextJsonFormatOption,
    WidthOption,
)
from specscope.cli.output import emit, report_target
from specscope.cli.vocab import VocabCommand
from specscope.strictjson import dumps_strict

if TYPE_CHECKING:
    from rich.console import Console

    from specscope.audit import AuditReport


def _gb(n: float) -> str:
    """Bytes for display: GB (1e9) for model-sized numbers, MB or plain bytes for small test checkpoints."""
    if n >= 1e8:
        return f"{n / 1e9:.2f} GB"
    if n >= 1e5:
        return f"{n / 1e6:.2f} MB"
    return f"{n:,.0f} bytes"


def _fact_lines(facts: dict[str, Any]) -> list[str]:
    """One line per identified format / family (the audit's facts; every figure is in ``-f json``)."""
    out = []
    for label, g in (("gguf", facts.get("gguf")), ("draft gguf", (facts.get("draft") or {}).get("gguf"))):
        if g:
            vocab = g.get("vocab_size")
            tok = g.get("tokenizer_model")
            words = f"{vocab:,} tokens" if isinstance(vocab, int) else "vocab unknown"
            words += f" ({tok})" if tok else " (no tokenizer.ggml.* metadata)"
            ftype = g.get("file_type") or "file type not stated"
            out.append(
                f"{label}: {g['architecture']}, {words}, {ftype}, {g['tensors']} tensors, "
                f"types {', '.join(g['tensor_types'])}"
            )
    for label, fam in (("MTP head", facts.get("mtp")), ("draft", facts.get("draft_family"))):
        if fam:
            out.append(
                f"{label}: {fam['family_title']}, {fam['layers']} layer(s), {fam['required_tensors']} required tensors"
            )
    return out


def _render(report: AuditReport, strict: bool, console: Console) -> None:
    from rich.table import Table

    colors = {"error": "red", "warning": "yellow", "info": "cyan"}
    if report.findings:
        # one block per finding (a table folds every column to a few characters at 80 columns)
        console.rule(f"audit: {report.target}")
        for f in report.findings:
            sev = f.severity.value
            where = " · ".join(x for x in (f.file, f.tensor) if x)
            console.print(
                f"[bold {colors[sev]}]{sev.upper()}[/] [bold]{f.code}[/]" + (f"  {where}" if where else ""),
                highlight=False,
            )
            console.print(f"  {f.message}", highlight=False, markup=False)
            for label, value in (
                ("found", f.found),
                ("expected", f.expected),
                ("consequence", f.consequence),
                ("fix", f.fix),
            ):
                if value:
                    console.print(f"  {label}: {value}", highlight=False, markup=False)
            console.print()
    else:
        console.print(f"audit: {report.target}: no findings")
    for line in _fact_lines(report.facts):
        console.print(line, highlight=False, markup=False)
    c = report.census
    if c is not None:
        ct = Table(title="byte census")
        ct.add_column("group", overflow="fold")
        ct.add_column("bytes", justify="right", overflow="fold")
        for g, b in c.bytes_by_group.items():
            if b:
                ct.add_row(g, f"{b:,}")
        ct.add_row("total", f"{c.total_bytes:,}")
        console.print(ct)
        if c.target_bytes_per_token is None:
            line = "per decode step: target unknown (a draft alone: audit it as `specscope audit TARGET --draft DRAFT`)"
        else:
            line = f"per decode step: target {_gb(c.target_bytes_per_token)}"
        if c.draft_rule is not None and c.draft_bytes_per_step is None:
            line += ", draft bytes unknown (why: the draft bytes rule below)"
        elif c.draft_rule is not None or c.draft_bytes_per_step:
            share = f"{c.draft_share * 100:.1f}% of a target pass" if c.draft_share is not None else "share unknown"
            line += f", draft {_gb(c.draft_bytes_per_step or 0)} ({share})"
        else:
            line += " (no draft in this checkpoint)"
        if c.roofline_tokens_per_s is not None and c.bandwidth_bytes_per_s is not None:
            line += f"; roofline {c.roofline_tokens_per_s:,.1f} tok/s at {c.bandwidth_bytes_per_s / 1e9:g} GB/s"
        console.print(line)
        if c.draft_shared_bytes_per_step:
            console.print(f"draft step also reads {_gb(c.draft_shared_bytes_per_step)} of the target's weights")
        if c.draft_rule:
            console.print(f"draft bytes rule: {c.draft_rule}", highlight=False, markup=False)
    n_err, n_warn = len(report.errors), len(report.warnings)
    console.print(f"{n_err} error(s), {n_warn} warning(s); exit {report.exit_code_for(strict=strict)}")


def _refuse_run_folder(target: str) -> None:
    """Refuse a run folder given as the checkpoint (a user's slip between commands), naming the command that reads it.

    Raises:
        ConfigError: ``target`` is a folder with a run's manifest and database.
    """
    from pathlib import Path

    from specscope.errors import ConfigError
    from specscope.store import DB_NAME, MANIFEST_NAME, is_run_folder
    from specscope.textsafe import shell_word

    if is_run_folder(Path(target)):
        raise ConfigError(
            f"{target} is a specscope run folder, not a checkpoint",
            found=f"{MANIFEST_NAME} and {DB_NAME} (a run that `specscope bench` or `specscope import` wrote)",
            expected="a checkpoint folder, a .safetensors or .gguf file, or a hub repo id",
            fix=f"`specscope report {shell_word(target)}`",
        )


def register(app: typer.Typer) -> None:
    @app.command("audit", cls=VocabCommand)
    def audit(
        target: Annotated[
            str, typer.Argument(help="Checkpoint folder, .safetensors or .gguf file, or hub repo org/name[@revision].")
        ],
        draft: DraftModelOption = None,
        bandwidth: BandwidthOption = None,
        strict: StrictOption = False,
        format: TextJsonFormatOption = None,
        output: OutputOption = None,
        width: WidthOption = None,
        hashes: HashesOption = False,
        hashes_file: HashesFileOption = None,
        hashes_hub: HashesHubOption = None,
        follow_symlinks: FollowSymlinksOption = False,
    ) -> None:
        """Audit a checkpoint by reading only JSON files and safetensors headers (never tensor data, except scalar
        scales). Honours HF_TOKEN, HF_ENDPOINT and HF_HUB_OFFLINE for hub targets.

        Exit codes: 0 no errors; 1 errors found (--strict: warnings too); 2 the target could not be audited."""
        from specscope.audit import audit_checkpoint
        from specscope.checkpoint import open_source

        _refuse_run_folder(target)
        source = open_source(target, follow_symlinks=True) if follow_symlinks else target
        report = audit_checkpoint(source, draft=draft, bandwidth=bandwidth)
        if hashes or hashes_file or hashes_hub:
            from specscope.audit.hashes import add_hash_findings

            add_hash_findings(report, target, hashes_file, hub=hashes_hub)
        fmt, out = report_target(format, output, TEXT_JSON, reads=(target, draft, hashes_file))
        if fmt == "json":
            data = report.to_dict()
            data["exit_code"] = report.exit_code_for(strict=strict)
            emit(dumps_strict(data, indent=2, default=str), out)
        else:
            emit(lambda console: _render(report, strict, console), out, width)
        raise typer.Exit(report.exit_code_for(strict=strict))
