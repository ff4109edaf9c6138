"""``specscope advise RUN``: which config and k to ship for a traffic mix (or a measured acceptance)."""

from __future__ import annotations

from typing import Annotated

import typer

from specscope.cli.options import (
    AcceptanceOption,
    BaselineOption,
    ConcurrencyOption,
    FromCsvOption,
    LevelMixOption,
    MixOption,
    RunArgument,
    SloTtftOption,
    TextJsonFormatOption,
    echo_text_or_json,
)


def _x(s: float | None) -> str:
    """A speedup in the report's unit (``1.23x``; :func:`specscope.report.units.speedup`)."""
    from specscope.report.units import speedup

    return speedup(s).text


def _print(adv) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from specscope.stats.speedup import interval_labels

    con = Console()
    for a in adv.alarms:
        con.print(f"[bold red]{escape(a['text'])}[/bold red]")
    if adv.placement is not None:
        con.print(adv.placement.text)
    con.print("mix: " + ", ".join(f"{w}={m:.2f}" for w, m in adv.mix.items()))
    t = Table(title=f"advice vs {adv.baseline}")
    for col in ("streams", "config", "k", "mix gain", "interval", "why", "per workload"):
        t.add_column(col)
    for lv in adv.levels:
        ci = "—" if lv.ci_low is None else f"{_x(lv.ci_low)} … {_x(lv.ci_high)}"
        t.add_row(
            str(lv.concurrency),
            lv.config,
            "—" if lv.k is None else str(lv.k),
            _x(lv.speedup),
            ci,
            lv.reason,
            ", ".join(f"{w}: {c}" for w, c in lv.per_workload.items()),
        )
    if not adv.levels:
        for n in adv.notes:
            con.print(f"note: {n}")
        con.print("no recommendation: no concurrency level has an eligible config (see the notes above)")
        return
    con.print(t)
    con.print(f"interval: {interval_labels(lv.rounds for lv in adv.levels)}")
    o = adv.overall
    ci = "" if o.get("ci_low") is None else f" ({_x(o['ci_low'])} … {_x(o['ci_high'])}, {o['interval']})"
    con.print(
        f"overall: {o['config']}"
        + ("" if o.get("k") in (None, 0) else f" k={o['k']}")
        + f", geometric-mean mix gain {_x(o['geomean_speedup'])}{ci} over streams {o['levels']}"
    )
    for f in adv.flips:
        con.print(
            f"choice flips from {f['from_config']} to {f['to_config']} "
            f"between {f['below_level']} and {f['above_level']} streams"
        )
    for x in adv.crossovers:
        what = "the mix" if x.workload is None else x.workload
        con.print(
            f"{x.config} on {what}: {x.direction} near {x.concurrency:.1f} streams (between {x.below_level} and "
            f"{x.above_level}){'' if x.firm else ', inside noise on one side'}"
        )
    for n in adv.notes:
        con.print(f"note: {n}")


def advise_cmd(
    run: RunArgument = None,
    mix: MixOption = None,
    acceptance: AcceptanceOption = None,
    config: Annotated[str | None, typer.Option(help="The config your --acceptance was measured with.")] = None,
    concurrency: ConcurrencyOption = None,
    slo_ttft: SloTtftOption = None,
    baseline: BaselineOption = "base",
    format: TextJsonFormatOption = "text",
    level_mix: LevelMixOption = None,
    from_csv: FromCsvOption = None,
) -> None:
    """The best config and k for a traffic mix at each concurrency and overall, with the gain, its interval
    (named for the rounds it rests on: a "95% CI" only from 6 rounds) and where the choice flips. A config is
    advised only where it beats the baseline outside noise.

    Exit codes: 0 advice printed; 2 bad input (not a run, unknown workload in --mix, unmeasured
    --concurrency, neither --mix nor --acceptance)."""
    from specscope.errors import ConfigError
    from specscope.report.advice import advise, parse_mix
    from specscope.store import open_run

    slo_s = None
    if slo_ttft is not None:
        text = slo_ttft.strip().lower()
        try:
            slo_s = float(text[:-2]) / 1000 if text.endswith("ms") else float(text.removesuffix("s"))
        except ValueError:
            slo_s = -1.0
        if not slo_s > 0 or slo_s == float("inf"):
            raise ConfigError("bad --slo-ttft", found=slo_ttft, expected="a positive time, e.g. 2s or 500ms")
    from specscope.stats.level_mix import level_mix_input

    cells, facts = level_mix_input(run, from_csv, open_run)
    if level_mix is not None:  # time-shared traffic: static choice, dynamic policy, per-user view
        from specscope.stats.level_mix import level_mix_advice, level_mix_text, parse_level_mix

        lm = level_mix_advice(cells, parse_level_mix(level_mix), parse_mix(mix) if mix else None)
        echo_text_or_json(format, lm, lambda: level_mix_text(lm))
        return
    adv = advise(
        cells,
        parse_mix(mix) if mix else None,
        baseline=baseline,
        concurrency=concurrency,
        slo_ttft_s=slo_s,
        acceptance=acceptance,
        acceptance_config=config,
        server_facts=facts,
    )
    echo_text_or_json(format, adv, lambda: _print(adv))


def register(app: typer.Typer) -> None:
    app.command("advise")(advise_cmd)
