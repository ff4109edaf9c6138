"""``specscope predict RUN``: the bandwidth model of single-stream speculative decoding, fitted on a run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from specscope.cli.command_options import CompareOption, FitKOption, OverheadOption
from specscope.cli.options import (
    TEXT_JSON,
    BandwidthOption,
    BaselineOption,
    BytesPerStepOption,
    CheckpointOption,
    DraftBytesOption,
    DraftModelOption,
    HoldoutOption,
    LmHeadBytesOption,
    MaxKOption,
    MeasuredOption,
    OutputOption,
    PerPositionOption,
    TextJsonFormatOption,
    WidthOption,
    run_baseline,
)
from specscope.cli.output import emit_doc, report_target
from specscope.cli.vocab import VocabCommand
from specscope.values import apply_only, ratio_text

if TYPE_CHECKING:
    from specscope.stats.predict_run import RunPrediction


def _print(p: RunPrediction, con: Any) -> None:
    """The run's prediction on console ``con``: every column folds, so a value wraps and is never cut."""
    from rich.table import Table

    con.print(
        f"target bytes per step: {p.target_bytes / 1e9:.4f} GB ({p.target_bytes_source}); effective bandwidth "
        f"{p.effective_bandwidth_bytes_s / 1e9:.2f} GB/s"
    )
    if p.roofline_tok_s is not None and p.nominal_bandwidth_bytes_s is not None and p.efficiency is not None:
        con.print(
            f"roofline {p.roofline_tok_s:.2f} tok/s at {p.nominal_bandwidth_bytes_s / 1e9:.0f} GB/s; "
            f"no-draft decode reaches {100 * p.efficiency:.0f}% of it"
        )
    t = Table(
        title="predicted vs measured, one stream (rate: decode = 1 / TPOT p50, so TTFT is excluded; "
        "report's aggregate tok/s includes it)"
    )
    for col in ("config", "workload", "k", "tokens/step", "measured tok/s", "predicted tok/s", "error", "rate"):
        t.add_column(col, overflow="fold")
    for c in p.cells:
        t.add_row(
            c.config,
            c.workload,
            "—" if c.k is None else str(c.k),  # unknown is unknown (stats.server_spec.spec_k)
            f"{c.tokens_per_step:.3f}",
            f"{c.measured_tok_s:.2f}",
            f"{c.predicted_tok_s:.2f}",
            f"{100 * c.error:+.1f}%",
            c.rate_source,
        )
    con.print(t)
    for cfg, by_wl in p.curves.items():
        k = Table(title=f"{cfg}: predicted tok/s (speedup) by k")
        k.add_column("workload", overflow="fold")
        ks = [pt["k"] for pt in next(iter(by_wl.values()))]
        for kk in ks:
            k.add_column(f"k={kk}", overflow="fold")
        for wl, pts in by_wl.items():
            k.add_row(wl, *[f"{pt['tok_s']:.1f} ({ratio_text(pt['speedup'])})" for pt in pts])
        con.print(k)
    if p.measured:
        from specscope.stats.verdict import verdict_text

        judged = Table(title="measured at one stream, as the report judges it (aggregate tok/s, paired rounds)")
        for col in ("config", "workload", "rounds", "speedup", "interval", "verdict"):
            judged.add_column(col, overflow="fold")
        for row in p.measured:
            ci = "—" if row["low"] is None else f"[{ratio_text(row['low'])}, {ratio_text(row['high'])}]"
            speed = "—" if row["speedup"] is None else ratio_text(row["speedup"])
            verdict = verdict_text(str(row["verdict"]))
            judged.add_row(row["config"], row["workload"], str(row["rounds"]), speed, ci, verdict)
        con.print(judged)
    for cfg, m in p.models.items():
        if m["draft_overhead_s"] is None:  # nothing drafted to fit it on (the notes say why)
            continue
        ms = 1e3 * m["draft_overhead_s"]
        line = f"{cfg}: draft overhead {ms:.3f} ms per drafted token (predict --overhead {ms:.3f}ms)"
        if m.get("draft_passes_per_step"):  # llama.cpp's draft-simple: stats.server_spec.draft_passes_per_step
            line += f"; the draft runs k + {m['draft_passes_per_step']:g} times per verify step"
        con.print(line)
    for n in p.notes:
        con.print(f"note: {n}")


def _roofline_line(doc: dict[str, Any]) -> str:
    roof, target, bw, measured = (
        doc["roofline_tok_s"],
        doc["target_bytes"],
        doc["bandwidth_bytes_s"],
        doc["measured_tok_s"],
    )
    line = f"roofline {roof:.2f} tok/s ({target / 1e9:.2f} GB per token at {bw / 1e9:.0f} GB/s)"
    if measured is not None:
        line += f"; measured {measured:.2f} tok/s is {100 * measured / roof:.0f}% of it"
    return line


def _published_lines(p: Any) -> list[str]:
    """The run-less prediction as plain lines: the roofline, then one row per k, then the notes."""
    lines = [
        _roofline_line(
            {
                "roofline_tok_s": p.roofline_tok_s,
                "target_bytes": p.target_bytes,
                "bandwidth_bytes_s": p.bandwidth_bytes_s,
                "measured_tok_s": p.measured_tok_s,
            }
        ),
        f"draft bytes per drafted token {p.draft_bytes_per_token / 1e9:.3f} GB; "
        f"effective bandwidth {p.effective_bandwidth_bytes_s / 1e9:.2f} GB/s",
        f"{'k':>2}  {'tokens/step':>11}  {'tok/s':>7}  {'speedup':>7}" + _CHECK_HEAD * _checked(p),
    ]
    for r in p.rows:
        line = f"{r.k:>2}  {r.tokens_per_step:>11.3f}  {r.tok_s:>7.2f}  {ratio_text(r.speedup):>7}"
        if _checked(p):
            measured = "—" if r.measured_tok_s is None else f"{r.measured_tok_s:.2f}"
            error = "—" if r.error is None else f"{100 * r.error:+.1f}%"
            line += f"  {measured:>8}  {error:>6}  {r.role}"
        lines.append(line)
    return lines + [f"validity: {p.validity}"] + [f"note: {n}" for n in p.notes]


_CHECK_HEAD = f"  {'measured':>8}  {'error':>6}  row"


def _checked(p: Any) -> bool:
    """Whether the table has measured / error / row columns: an overhead was given or fitted, or rates compared."""
    return bool(p.fitted_k or p.draft_overhead_s or any(r.measured_tok_s is not None for r in p.rows))


def _holdout_lines(rows: list[Any]) -> list[str]:
    """Out-of-sample errors, one line per held-out config x workload."""
    lines = ["out-of-sample: each k predicted from a fit on the other k (single stream, bandwidth bound)"]
    lines.append(f"{'config':<12} {'workload':<8} {'k':>2} {'fit on k':<10} {'measured':>8} {'predicted':>9} error")
    for r in rows:
        fitted = ",".join(map(str, r.fitted_on))
        lines.append(
            f"{r.config:<12} {r.workload:<8} {r.k:>2} {fitted:<10} {r.measured_tok_s:>8.2f} "
            f"{r.predicted_tok_s:>9.2f} {100 * r.error:+.1f}%"
        )
    return lines


def _refuse_out_of_mode(run: Path | None, given: dict[str, object]) -> None:
    """Refuse, by name, an option the chosen mode does not read (never silently ignored): with RUN the
    run-less inputs (``--per-position``, ``--measured``, ``--lm-head-bytes``); without RUN the run's
    (``--holdout``, ``--baseline``), and ``--lm-head-bytes`` without ``--per-position``; ``--measured``
    <= 0, nan or inf.

    Raises:
        ConfigError: such an option is given.
    """
    from specscope.errors import ConfigError
    from specscope.stats.predict_calibrate import MIN_DECODE_TOK_S

    measured = given.get("--measured")
    # nan was refused as "should be >= 0"; a subnormal (1e-320) was a division by zero, exit 3 (attack53); a rate
    # above the roofline is refused below, naming the roofline
    if isinstance(measured, float) and not MIN_DECODE_TOK_S <= measured < float("inf"):
        odd = "" if measured <= 0 else f" ({measured:g} is not a number of tokens/s)"
        raise ConfigError(
            f"--measured must be a finite number >= {MIN_DECODE_TOK_S:g}" + odd,
            found=f"--measured {measured:g}",
            expected=f"a measured no-draft decode rate in tokens/s, at least {MIN_DECODE_TOK_S:g}, e.g. --measured "
            "12.5",
            fix="pass the no-draft tok/s you measured, or leave --measured out",
        )
    if run is not None:
        wrong = [n for n in ("--per-position", "--measured", "--lm-head-bytes") if given.get(n) is not None]
        if wrong:
            raise ConfigError(
                apply_only(wrong, "without RUN"),
                found=f"RUN {run} and {', '.join(wrong)}",
                expected="with RUN: the run's own acceptance and rates; without RUN: --per-position, --measured, "
                "--lm-head-bytes",
                fix=f"drop {', '.join(wrong)} (predict RUN fits on the run), or drop RUN for the run-less prediction",
            )
        return
    wrong = [n for n in ("--holdout", "--baseline") if given.get(n) is not None]
    if given.get("--per-position") is None and given.get("--lm-head-bytes") is not None:
        wrong.append("--lm-head-bytes")
    if wrong:
        need = {"--holdout": "RUN", "--baseline": "RUN", "--lm-head-bytes": "--per-position"}
        needed = " / ".join(dict.fromkeys(need[n] for n in wrong))
        raise ConfigError(
            f"{', '.join(wrong)} need{'s' if len(wrong) == 1 else ''} {needed}",
            found=f"{', '.join(wrong)} without {needed}",
            expected="--holdout and --baseline with a run folder; --lm-head-bytes with --per-position",
            fix=f"give predict a run folder (the RUN argument), or drop {', '.join(wrong)}"
            if "--lm-head-bytes" not in wrong
            else "add --per-position U1,U2,... (published per-position acceptance), or drop --lm-head-bytes",
        )


def predict_cmd(
    run: Annotated[Path | None, typer.Argument(help="A run folder; omit to print only the roofline.")] = None,
    bytes_per_step: BytesPerStepOption = None,
    draft_bytes: DraftBytesOption = None,
    checkpoint: CheckpointOption = None,
    draft: DraftModelOption = None,
    bandwidth: BandwidthOption = None,
    measured: MeasuredOption = None,
    max_k: MaxKOption = 8,
    per_position: PerPositionOption = None,
    holdout: HoldoutOption = None,
    lm_head_bytes: LmHeadBytesOption = None,
    overhead: OverheadOption = None,
    fit_k: FitKOption = None,
    compare: CompareOption = None,
    baseline: BaselineOption = None,
    format: TextJsonFormatOption = None,
    output: OutputOption = None,
    width: WidthOption = None,
) -> None:
    """Predicted single-stream tok/s and speedup for k = 1..8 from per-position acceptance, bytes per step
    and bandwidth; fits efficiency and per-token draft overhead on RUN and reports predicted vs measured per cell.

    Exit codes: 0 printed; 2 bad input (not a run, unreadable sizes or bandwidth, no byte count) or nothing to
    predict (a run without a speculative config)."""
    from specscope.bench.predict import predict_inputs, predict_on_run, roofline_only

    _refuse_out_of_mode(
        run,
        {
            "--per-position": per_position,
            "--measured": measured,
            "--lm-head-bytes": lm_head_bytes,
            "--holdout": holdout,
            "--baseline": baseline,
        },
    )
    if checkpoint and bytes_per_step:
        typer.echo(
            f"note: --bytes-per-step {bytes_per_step} wins over the byte census of --checkpoint for the target's bytes "
            "per step (the census gives only what the flags leave open)",
            err=True,
        )
    inputs = predict_inputs(
        bytes_per_step=bytes_per_step, draft_bytes=draft_bytes, bandwidth=bandwidth, checkpoint=checkpoint, draft=draft
    )
    from specscope.bench.predict import published_calibration
    from specscope.values import OVERHEAD_BOUNDS_S, parse_duration_s

    fmt, out = report_target(format, output, TEXT_JSON, reads=(run, checkpoint, draft))
    overhead_ms = (
        None
        if overhead is None
        else 1e3 * parse_duration_s(overhead, "--overhead", allow_zero=True, bounds=OVERHEAD_BOUNDS_S, unit="ms")
    )
    cal = published_calibration(overhead_ms, fit_k, compare, run=run, per_position=per_position is not None)
    if run is None and per_position is not None:
        from specscope.bench.predict import predict_from_published

        pub = predict_from_published(
            inputs, per_position, lm_head_bytes=lm_head_bytes, measured_tok_s=measured, max_k=max_k, calibration=cal
        )
        emit_doc(fmt, out, width, pub, "\n".join(_published_lines(pub)))
        return
    if run is None:
        doc = roofline_only(inputs, measured)
        emit_doc(fmt, out, width, doc, _roofline_line(doc))
        return
    if holdout is not None:
        from specscope.bench.predict import holdout_on_run

        _, rows = holdout_on_run(run, inputs, holdout, baseline=run_baseline(run) if baseline is None else baseline)
        emit_doc(fmt, out, width, [r.to_dict() for r in rows], "\n".join(_holdout_lines(rows)))
        return
    pred = predict_on_run(run, inputs, baseline=run_baseline(run) if baseline is None else baseline, max_k=max_k)
    emit_doc(fmt, out, width, pred, lambda con: _print(pred, con))


def register(app: typer.Typer) -> None:
    app.command("predict", cls=VocabCommand)(predict_cmd)
