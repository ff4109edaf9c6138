"""``specscope surgery``: extract, compare, graft, quantize-draft, reindex, patch-config, dflash-layers.

Every writing subcommand plans first, validates the whole plan, then writes (``--dry-run`` prints the plan:
files, bytes to write, config diffs) and ends by verifying hashes and running the audit on the result. Files carried
over unchanged are hardlinked (the plan's "link"), which the group's help says: an output file edited in place would
change the source's too.

Exit codes: 0 done (or already up to date); 1 written and verified but the audit of the result reports
errors; 2 bad input or a plan that failed validation (nothing written: a new result is built in a hidden sibling
folder and renamed to --out only when complete); 3 internal error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from specscope.cli.command_options import (
    AllSlidingOption,
    DryRunOption,
    ExcludeUnquantizedOption,
    FromCheckpointOption,
    IncludeQuantizedOption,
    InputAmaxOption,
    LayoutOption,
    PrefixOption,
    QuantSchemeOption,
    SurgeryOutOption,
    SyncOption,
)
from specscope.cli.options import OutputOption, TextJsonFormatOption, WidthOption
from specscope.cli.vocab import VocabCommand, VocabGroup
from specscope.strictjson import dumps_strict
from specscope.textsafe import shell_word

if TYPE_CHECKING:
    from rich.console import Console

    from specscope.surgery.compare import TensorComparison
    from specscope.surgery.plan import SurgeryPlan


def _run(
    plan: SurgeryPlan,
    *,
    dry_run: bool,
    fmt: str | None,
    output: Path | None = None,
    reads: tuple[Path, ...] = (),
    consequences: list[str] | None = None,
) -> None:
    """Check and apply ``plan`` (print it, for ``dry_run``): the plan and result on stdout, or in ``output`` (-o,
    its format from its suffix unless -f; never inside a folder of ``reads``), the progress on stderr."""
    from specscope.cli.options import TEXT_JSON
    from specscope.cli.output import emit, report_target
    from specscope.surgery import apply_plan, check_plan

    fmt, output = report_target(fmt, output, TEXT_JSON, reads=reads)
    if dry_run:
        text = dumps_strict({"dry_run": True, "plan": plan.to_dict()}, indent=2) if fmt == "json" else plan.render()
        emit(text.rstrip("\n") + "\n", output)
        return
    check = check_plan(plan)  # refusals come as one line, before the plan is printed
    if fmt == "text":
        for n in consequences or []:
            typer.echo(f"consequence: {n}", err=True)
        if not check.up_to_date:
            typer.echo(plan.render(), err=True)
    result = apply_plan(plan, progress=fmt == "text", check=check)
    if fmt == "json":
        text = dumps_strict({"dry_run": False, "plan": plan.to_dict(), "result": result.to_dict()}, indent=2)
    elif result.up_to_date:
        text = f"{result.out}: already up to date (same plan, unchanged inputs and output); nothing written"
    else:
        text = (
            f"{result.out}: wrote {len(result.written)} files, linked {len(result.linked)}, "
            f"copied {len(result.copied)}; {len(result.tensor_sha256)} tensor hashes verified "
            f"in {result.elapsed_ns / 1e9:.2f} s"
        )
    if fmt == "text":
        audit = f"exit {result.audit_exit_code}, {len(result.audit_findings)} findings"
        text += f"\naudit: {result.audit_note if result.audit_exit_code is None else audit}"
    emit(text + "\n", output)
    if result.audit_exit_code == 1:
        raise typer.Exit(1)


def _sibling(source: Path, command: str) -> str:
    """The folder a refused command's fix names: ``SOURCE-COMMAND`` beside the source, shell-quoted."""
    return shell_word(f"{str(source).rstrip('/')}-{command}")


def _new_folder(out: Path | None, subcommand: str, source: Path, extra: str = "") -> Path:
    """``--out``, which ``subcommand`` requires: surgery never writes into the folder it reads.

    Raises:
        SurgeryError: no ``--out``, with the fix: the same command (``extra``: its other options as typed) with a
            sibling folder.
    """
    if out is not None:
        return out
    from specscope.errors import SurgeryError

    fix = f"specscope surgery {subcommand} {shell_word(source)}{extra} --out {_sibling(source, subcommand)}"
    raise SurgeryError(
        f"surgery {subcommand} writes a new folder and never changes {source}",
        found="no --out",
        expected="--out NEW_FOLDER (a folder that does not exist yet; unchanged files are hardlinked, not copied)",
        fix=fix,
    )


def _cosine_text(cosine: float | None, all_zero: str | None) -> str:
    """The cosine column: the value, ``undefined (A all zeros)`` for a zero side, empty when not computed."""
    if all_zero:
        return f"undefined ({'both' if all_zero == 'both' else all_zero.upper()} all zeros)"
    return "" if cosine is None else f"{cosine:.7f}"


def _print_dequantized(rows: list[TensorComparison], con: Console) -> None:
    """One line per NVFP4 layout whose weights ``surgery compare`` dequantized (ModelOpt ``weight_scale_2``
    multiplies, compressed-tensors' ``weight_global_scale`` divides; :mod:`specscope.surgery.compare`)."""
    by_rule: dict[str, list[TensorComparison]] = {}
    for r in rows:
        if r.dequantized:
            ct = (r.stored_a if r.dequantized == "a" else r.stored_b) is not None
            by_rule.setdefault("/ weight_global_scale" if ct else "x weight_scale_2", []).append(r)
    for rule, deq in by_rule.items():
        sides = "/".join(sorted({r.dequantized.upper() for r in deq if r.dequantized}))
        stored = (
            " (stored as <module>.weight_packed, lined up with the other side's <module>.weight)"
            if rule.startswith("/")
            else ""
        )
        con.print(
            f"{len(deq)} NVFP4 weight(s) dequantized (E2M1 code x block scale {rule}, side {sides}){stored} to be "
            "compared with the other side's float weight: their cosine and max abs diff are the quantization error",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _print_compare(rows: list[TensorComparison], con: Console) -> None:
    """``surgery compare``'s table, one row per tensor (names wrapped, never cut), then a line per tensor with an
    all-zero side or NaN / Inf elements."""
    from rich.table import Column, Table

    t = Table("A", "B", "identical", "cosine", "max abs diff")
    t.columns.insert(0, Column("tensor", overflow="fold"))  # names are the point: wrap them, never cut them
    for r in rows:
        same = "yes" if r.identical else ("no" if r.in_a and r.in_b else f"only in {'A' if r.in_a else 'B'}")
        t.add_row(
            r.name,
            f"{r.dtype_a} {list(r.shape_a or ())}" if r.in_a else "-",
            f"{r.dtype_b} {list(r.shape_b or ())}" if r.in_b else "-",
            same,
            _cosine_text(r.cosine, r.all_zero),
            "" if r.max_abs_diff is None else f"{r.max_abs_diff:.7g}",
        )
    con.print(t)
    _print_dequantized(rows, con)
    for r in rows:
        if r.all_zero:
            side = "both sides are" if r.all_zero == "both" else f"{r.all_zero.upper()} is"
            con.print(
                f"{r.name}: {side} all zeros: cosine undefined (a blank, never-trained head looks like this)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        if r.nonfinite_a or r.nonfinite_b:
            con.print(
                f"{r.name}: NaN/Inf elements A {r.nonfinite_a}, B {r.nonfinite_b} "
                "(left out of cosine and max abs diff)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )


def register(app: typer.Typer) -> None:
    """Add the ``surgery`` command group to ``app``."""
    sub = typer.Typer(
        name="surgery",
        help="Graft, compare and re-quantize draft heads; patch configs. The source folder is never written; files "
        "an output carries over unchanged are hardlinks to the source's (the plan says 'link'): replace such a file "
        "(write a new one and rename it over), never edit it in place, or the source changes too. "
        "Exit codes: 0 ok, 1 result fails the audit, 2 bad input (nothing written).",
        no_args_is_help=True,
        cls=VocabGroup,
    )

    @sub.command("extract", cls=VocabCommand)
    def extract(
        src: Annotated[Path, typer.Argument(help="checkpoint folder")],
        out: SurgeryOutOption = None,
        prefix: PrefixOption = "mtp.",
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """The draft tensors as their own safetensors file plus manifest.json (SHA-256 per tensor)."""
        from specscope.surgery import plan_extract

        plan = plan_extract(src, prefix, _new_folder(out, "extract", src))
        _run(plan, dry_run=dry_run, fmt=fmt, output=output, reads=(src,))

    @sub.command("compare", cls=VocabCommand)
    def compare(
        a: Annotated[Path, typer.Argument()],
        b: Annotated[Path, typer.Argument()],
        prefix: PrefixOption = "mtp.",
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
        width: WidthOption = None,
    ) -> None:
        """Tensor by tensor: presence, dtype, shape, identical bytes, cosine, max abs diff, NaN/Inf counts.

        Cosine and max abs diff cover positions finite on both sides; NaN / Inf elements are counted per side. A
        ModelOpt or compressed-tensors NVFP4 weight against a float one (a head and its quantize-draft result) is
        dequantized first (compressed-tensors' <module>.weight_packed shares the <module>.weight row)."""
        from specscope.cli.options import TEXT_JSON
        from specscope.cli.output import emit, report_target
        from specscope.surgery import compare_checkpoints

        fmt, output = report_target(fmt, output, TEXT_JSON, reads=(a, b))
        rows = compare_checkpoints(a, b, prefix)
        if fmt == "json":
            emit(json.dumps([r.to_dict() for r in rows], indent=2, allow_nan=False) + "\n", output)
            return
        emit(lambda console: _print_compare(rows, console), output, width)

    @sub.command("graft", cls=VocabCommand)
    def graft(
        target: Annotated[Path, typer.Argument(help="checkpoint receiving the tensors")],
        src: FromCheckpointOption,
        out: SurgeryOutOption = None,
        prefix: PrefixOption = "mtp.",
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """A new checkpoint: TARGET with the PREFIX tensors of --from in their own shard."""
        from specscope.surgery import plan_graft

        out = _new_folder(out, "graft", target, f" --from {shell_word(src)}")
        _run(plan_graft(target, src, prefix, out), dry_run=dry_run, fmt=fmt, output=output, reads=(target, src))

    @sub.command("quantize-draft", cls=VocabCommand)
    def quantize_draft(
        src: Annotated[Path, typer.Argument(help="checkpoint with an unquantized draft head")],
        scheme: QuantSchemeOption = "nvfp4-w4a16",
        prefix: PrefixOption = "mtp.",
        layout: LayoutOption = None,
        input_amax: InputAmaxOption = None,
        out: SurgeryOutOption = None,
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """The draft head's linears to NVFP4 (group 16; W4A4 with activation scales whose source each module's
        note states), both configs patched, byte for byte as the target's exporter writes them."""
        from specscope.surgery import plan_quantize_draft

        out = _new_folder(out, "quantize-draft", src)
        plan = plan_quantize_draft(src, out, scheme=scheme, prefix=prefix, layout=layout, input_amax=input_amax)
        _run(plan, dry_run=dry_run, fmt=fmt, output=output, reads=(src,))

    @sub.command("reindex", cls=VocabCommand)
    def reindex(
        ckpt: Annotated[Path, typer.Argument()],
        out: SurgeryOutOption = None,
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """Rebuild model.safetensors.index.json from the shard headers (every shard, exact total_size)."""
        from specscope.surgery import plan_reindex

        plan = plan_reindex(ckpt, _new_folder(out, "reindex", ckpt))
        _run(plan, dry_run=dry_run, fmt=fmt, output=output, reads=(ckpt,))

    @sub.command("patch-config", cls=VocabCommand)
    def patch_config(
        ckpt: Annotated[Path, typer.Argument()],
        exclude_unquantized: ExcludeUnquantizedOption = None,
        include_quantized: IncludeQuantizedOption = None,
        sync: SyncOption = False,
        out: SurgeryOutOption = None,
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """Patch quantization configs from what the tensors show."""
        from specscope.surgery import plan_patch_config

        extra = "".join(
            f" --{flag} {shell_word(value)}"
            for flag, value in (("exclude-unquantized", exclude_unquantized), ("include-quantized", include_quantized))
            if value
        ) + (" --sync" if sync else "")
        out = _new_folder(out, "patch-config", ckpt, extra)
        _run(
            plan_patch_config(
                ckpt, exclude_unquantized=exclude_unquantized, include_quantized=include_quantized, sync=sync, out=out
            ),
            dry_run=dry_run,
            fmt=fmt,
            output=output,
            reads=(ckpt,),
        )

    @sub.command("dflash-layers", cls=VocabCommand)
    def dflash_layers(
        draft: Annotated[Path, typer.Argument()],
        all_sliding: AllSlidingOption = False,
        out: SurgeryOutOption = None,
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """Seed 000 workaround: rewrite a DFlash draft's layer_types for a released vLLM."""
        from specscope.surgery import plan_dflash_layers

        out = _new_folder(out, "dflash-layers", draft, " --all-sliding" if all_sliding else "")
        plan = plan_dflash_layers(draft, all_sliding=all_sliding, out=out)
        _run(plan, dry_run=dry_run, fmt=fmt, output=output, reads=(draft,), consequences=plan.notes)

    @sub.command("prune-unindexed", cls=VocabCommand)
    def prune_unindexed(
        src: Annotated[Path, typer.Argument(help="checkpoint folder (never modified)")],
        out: SurgeryOutOption = None,
        dry_run: DryRunOption = False,
        fmt: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """Copy a checkpoint keeping in each shard only the tensors its index assigns there (stale copies out)."""
        from specscope.surgery.prune import plan_prune_unindexed

        plan = plan_prune_unindexed(src, _new_folder(out, "prune-unindexed", src))
        _run(plan, dry_run=dry_run, fmt=fmt, output=output, reads=(src,))

    app.add_typer(sub, name="surgery")
