"""``specscope advise RUN``: which config and k to ship for a traffic mix (or a measured acceptance)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer

from specscope.cli.options import (
    TABLE_FORMATS,
    AcceptanceOption,
    BaselineOption,
    ConcurrencyOption,
    FromCsvOption,
    LevelMixOption,
    MixOption,
    RunArgument,
    SloOption,
    TableFormatOption,
    run_baseline,
)
from specscope.cli.output import OutputOption, WidthOption, emit, report_target
from specscope.cli.vocab import VocabCommand


def _x(s: float | None) -> str:
    """A speedup in the report's unit (``1.23x``; :func:`specscope.report.units.speedup`)."""
    from specscope.report.units import speedup

    return speedup(s).text


def _blocks(adv) -> list[Any]:
    """The advice as lines and one table (title, columns, rows), laid out by :func:`_text` and :func:`_markdown`."""
    from specscope.stats.speedup import interval_labels

    out: list[Any] = [f"ALARM: {a['text']}" for a in adv.alarms]
    if adv.placement is not None:
        out.append(adv.placement.text)
    out.append("mix: " + ", ".join(f"{w}={m:.2f}" for w, m in adv.mix.items()))
    if not adv.levels:
        out += [f"note: {n}" for n in adv.notes]
        out.append("no recommendation: no concurrency level has an eligible config (see the notes above)")
        return out
    rows = [
        (
            str(lv.concurrency),
            lv.config,
            "—" if lv.k is None else str(lv.k),
            _x(lv.speedup),
            "—" if lv.ci_low is None else f"{_x(lv.ci_low)} … {_x(lv.ci_high)}",
            lv.reason,
            ", ".join(f"{w}: {c}" for w, c in lv.per_workload.items()),
        )
        for lv in adv.levels
    ]
    out.append((f"advice vs {adv.baseline}", _COLUMNS, rows))
    out.append(f"interval: {interval_labels(lv.rounds for lv in adv.levels)}")
    o = adv.overall
    ci = "" if o.get("ci_low") is None else f" ({_x(o['ci_low'])} … {_x(o['ci_high'])}, {o['interval']})"
    out.append(
        f"overall: {o['config']}"
        + ("" if o.get("k") in (None, 0) else f" k={o['k']}")
        + f", geometric-mean mix gain {_x(o['geomean_speedup'])}{ci} over streams {o['levels']}"
    )
    out += [
        f"choice flips from {f['from_config']} to {f['to_config']} between {f['below_level']} and "
        f"{f['above_level']} streams"
        for f in adv.flips
    ]
    for x in adv.crossovers:
        what = "the mix" if x.workload is None else x.workload
        out.append(
            f"{x.config} on {what}: {x.direction} near {x.concurrency:.1f} streams (between {x.below_level} and "
            f"{x.above_level}){'' if x.firm else ', inside noise on one side'}"
        )
    return out + [f"note: {n}" for n in adv.notes]


_COLUMNS = ("streams", "config", "k", "mix gain", "interval", "why", "per workload")


def _text(blocks: list[Any]) -> Callable[[Any], None]:
    """Print ``blocks`` on a rich console: every table column folds, so a value wraps and is never cut."""

    def show(con: Any) -> None:
        from rich.table import Table

        for b in blocks:
            if isinstance(b, str):
                style = "bold red" if b.startswith("ALARM: ") else None
                con.print(b.removeprefix("ALARM: "), style=style, markup=False, highlight=False)
                continue
            title, columns, rows = b
            t = Table(title=title)
            for col in columns:
                t.add_column(col, overflow="fold")
            for row in rows:
                t.add_row(*row)
            con.print(t)

    return show


def _markdown(blocks: list[Any]) -> str:
    """``blocks`` as Markdown: lines as paragraphs, the table as a pipe table."""
    lines: list[str] = []
    for b in blocks:
        if isinstance(b, str):
            lines += [f"**{b}**" if b.startswith("ALARM: ") else b, ""]
            continue
        title, columns, rows = b
        lines += [f"### {title}", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)


def advise_cmd(
    run: RunArgument = None,
    mix: MixOption = None,
    acceptance: AcceptanceOption = None,
    acceptance_config: Annotated[
        str | None,
        typer.Option("--acceptance-config", metavar="NAME", help="The config your --acceptance was measured with."),
    ] = None,
    max_concurrency: ConcurrencyOption = None,
    slo: SloOption = None,
    baseline: BaselineOption = None,
    format: TableFormatOption = None,
    output: OutputOption = None,
    width: WidthOption = None,
    level_mix: LevelMixOption = None,
    from_csv: FromCsvOption = None,
) -> None:
    """The best config and k for a traffic mix at each concurrency and overall, with the gain, its interval
    (named for the rounds it rests on: a "95% CI" only from 6 rounds) and where the choice flips. A config is
    advised only where it beats the baseline outside noise.

    Exit codes: 0 advice printed; 2 bad input (not a run, unknown workload in --mix, unmeasured
    --max-concurrency, neither --mix nor --acceptance)."""
    from specscope.report.advice import advise, parse_mix
    from specscope.store import open_run
    from specscope.values import parse_duration_s, parse_pairs

    fmt, out = report_target(format, output, TABLE_FORMATS)
    slo_s = parse_pairs(slo, "--slo", "ttft=2s", lambda v: parse_duration_s(v, "--slo"), names=("ttft",)) if slo else {}
    from specscope.stats.level_mix import level_mix_input

    cells, facts = level_mix_input(run, from_csv, open_run)
    if level_mix is not None:  # time-shared traffic: static choice, dynamic policy, per-user view
        from specscope.stats.level_mix import level_mix_advice, level_mix_text, parse_level_mix

        lm = level_mix_advice(cells, parse_level_mix(level_mix), parse_mix(mix) if mix else None)
        if fmt == "json":
            emit(json.dumps(lm.to_dict(), indent=2), out)
        else:
            body = level_mix_text(lm)
            emit(body if fmt == "text" else "```\n" + body.rstrip("\n") + "\n```\n", out)
        return
    adv = advise(
        cells,
        parse_mix(mix) if mix else None,
        baseline=baseline or (run_baseline(run) if run is not None else "base"),
        concurrency=max_concurrency,
        slo_ttft_s=slo_s.get("ttft"),
        acceptance=acceptance,
        acceptance_config=acceptance_config,
        server_facts=facts,
    )
    blocks = _blocks(adv)
    if fmt == "json":
        emit(json.dumps(adv.to_dict(), indent=2), out)
    elif fmt == "markdown":
        emit(_markdown(blocks), out)
    else:
        emit(_text(blocks), out, width)


def register(app: typer.Typer) -> None:
    app.command("advise", cls=VocabCommand)(advise_cmd)
