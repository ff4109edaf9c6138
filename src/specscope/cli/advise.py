"""``specscope advise RUN``: which config and k to ship for a traffic mix (or a measured acceptance)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from specscope.cli.options import (
    AcceptanceOption,
    BaselineOption,
    ConcurrencyOption,
    FromCsvOption,
    LevelMixOption,
    MinEffectOption,
    MixOption,
    OutputFileOption,
    ReportFormat,
    ReportFormatOption,
    RunArgument,
    SloTtftOption,
)


def _slo_s(slo_ttft: str | None) -> float | None:
    """``2s`` / ``500ms`` -> seconds. Raises ConfigError for anything else."""
    from specscope.errors import ConfigError

    if slo_ttft is None:
        return None
    text = slo_ttft.strip().lower()
    try:
        slo_s = float(text[:-2]) / 1000 if text.endswith("ms") else float(text.removesuffix("s"))
    except ValueError:
        slo_s = -1.0
    if not slo_s > 0 or slo_s == float("inf"):
        raise ConfigError("bad --slo-ttft", found=slo_ttft, expected="a positive time, e.g. 2s or 500ms")
    return slo_s


def advise_cmd(
    run: RunArgument = None,
    mix: MixOption = None,
    acceptance: AcceptanceOption = None,
    config: Annotated[str | None, typer.Option(help="The config your --acceptance was measured with.")] = None,
    concurrency: ConcurrencyOption = None,
    slo_ttft: SloTtftOption = None,
    baseline: BaselineOption = None,
    format: ReportFormatOption = ReportFormat.text,
    level_mix: LevelMixOption = None,
    from_csv: FromCsvOption = None,
    min_effect: MinEffectOption = None,
    output: OutputFileOption = None,
) -> None:
    """The best config and k for a traffic mix at each concurrency and overall, with the gain, its interval and
    verdict, and where the pick flips. A config is picked only where it is faster than the baseline by the report's
    rule (the same judgement: `report RUN --mix ...` gives the same picks). The baseline and the minimum effect are
    the run's own unless given. Formats: text, markdown, json, html (like report).

    Exit codes: 0 advice printed; 2 bad input (not a run, unknown workload in --mix, unmeasured
    --concurrency or --level-mix level, neither --mix, --level-mix nor --acceptance)."""
    from specscope.cli.report import _check_output, emit_document
    from specscope.report.advice import advice_section, advise
    from specscope.report.document import Document
    from specscope.stats.choices import Traffic
    from specscope.stats.level_mix import level_mix_input
    from specscope.stats.mix import parse_level_mix, parse_mix
    from specscope.stats.verdict import min_effect_of
    from specscope.store import open_run

    _check_output(output)
    slo_s = _slo_s(slo_ttft)
    shares = parse_mix(mix) if mix else None
    times = parse_level_mix(level_mix) if level_mix else None
    cells, facts, manifest = level_mix_input(run, from_csv, open_run)
    traffic = Traffic(
        mix=None if shares is None else shares.shares,
        level_mix=None if times is None else times.shares,
        slo_ttft_s=slo_s,
        notes=[n for n in (shares and shares.note, times and times.note) if n],
    )
    adv = advise(
        cells,
        traffic,
        baseline=baseline or str(manifest.get("baseline") or "base"),
        concurrency=concurrency,
        acceptance=acceptance,
        acceptance_config=config,
        server_facts=facts,
        min_effect=min_effect_of(manifest, min_effect),
    )
    source = str(run if run is not None else from_csv)
    doc = Document(f"specscope advise: {source}", [advice_section(adv)], adv.to_dict())
    html = run / "advice.html" if run is not None else Path("advice.html")
    emit_document(doc, format, output, html)


def register(app: typer.Typer) -> None:
    app.command("advise")(advise_cmd)
