"""``specscope advise RUN``: which config and k to ship for a traffic mix (or a measured acceptance)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from specscope.cli.command_options import AcceptanceConfigOption
from specscope.cli.options import (
    REPORT_FORMATS,
    AcceptanceOption,
    BaselineOption,
    ConcurrencyOption,
    FromCsvOption,
    LevelMixOption,
    MinEffectOption,
    MixOption,
    OutputOption,
    ReportFormatOption,
    RunArgument,
    SloOption,
    WidthOption,
)
from specscope.cli.output import report_target
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError
from specscope.textsafe import shell_word

if TYPE_CHECKING:
    from specscope.stats.goodput import SloTargets


def _slo(slo: str | None) -> SloTargets | None:
    """``--slo ttft=2s,tpot=50ms`` -> the targets (s), read as bench reads them (the one pair and duration parsers
    of :mod:`specscope.values`, the same names).

    Raises:
        ConfigError: not ``NAME=DURATION`` with names ``ttft`` / ``tpot``, or not a duration.
    """
    from specscope.stats.goodput import SLO_NAMES, SloTargets
    from specscope.values import parse_pairs, parse_slo_s

    if slo is None:
        return None
    read = parse_pairs(slo, "--slo", "ttft=2s,tpot=50ms", parse_slo_s, names=SLO_NAMES)
    return SloTargets.of(read)


def advise_cmd(
    run: RunArgument = None,
    mix: MixOption = None,
    acceptance: AcceptanceOption = None,
    acceptance_config: AcceptanceConfigOption = None,
    max_concurrency: ConcurrencyOption = None,
    slo: SloOption = None,
    baseline: BaselineOption = None,
    format: ReportFormatOption = None,
    output: OutputOption = None,
    width: WidthOption = None,
    level_mix: LevelMixOption = None,
    from_csv: FromCsvOption = None,
    min_effect: MinEffectOption = None,
) -> None:
    """The best config and k for a traffic mix at each concurrency and overall, with the gain, its interval and
    verdict, and where the pick flips. A config is picked only where it is faster than the baseline by the report's
    rule (the same judgement: `report RUN --mix ...` gives the same picks; without --mix, --level-mix or
    --acceptance, equal token shares over the run's workloads, as report, with a note). The baseline and the
    minimum effect are the run's own unless given. Formats: text, markdown, json, html (like report; to -o FILE or
    stdout, never into the run folder). On an open-loop run (--request-rate, --trace) the levels are rates and
    --level-mix is refused.

    Exit codes: 0 printed; 1 printed, a draft (almost) never accepted; 2 bad input (not a run, unknown workload in
    --mix, unmeasured --max-concurrency or --level-mix level)."""
    from specscope.cli.report import emit_document
    from specscope.report.advice import advice_section, advise
    from specscope.report.document import Document
    from specscope.report.headline import headline, nothing_measured, stopped_early, unfinished
    from specscope.stats.choices import Traffic
    from specscope.stats.groups import workloads_of
    from specscope.stats.level_mix import level_mix_input
    from specscope.stats.mix import parse_level_mix, parse_mix
    from specscope.stats.verdict import min_effect_of
    from specscope.store import open_run
    from specscope.store.manifest import manifest_record
    from specscope.store.run import parent_of_runs_error
    from specscope.values import parse_int_list

    fmt, out = report_target(format, output, REPORT_FORMATS, reads=(run, from_csv))
    if run is not None and (parent := parent_of_runs_error(run, lambda r: f"specscope advise {shell_word(r)}")):
        raise parent  # bench's --out folder given for the run inside it: name that run
    targets = _slo(slo)
    cells, facts, stored, read_notes = level_mix_input(run, from_csv, open_run)
    manifest = manifest_record(stored)  # a CSV has none: no field set
    source = str(run if run is not None else from_csv)
    command = (
        f"specscope advise {shell_word(run)}"
        if run is not None
        else f"specscope advise --from-csv {shell_word(str(from_csv))}"
    )
    if run is not None and not cells:  # a run stopped before its first cell (every failed one: the headline says)
        stopped = f" (stopped by: {manifest.stopped})" if manifest.stopped else ""
        raise ConfigError(
            f"{run} has no measured cell to advise on",
            found=f"no stored cell{stopped}",
            expected="a run with measured cells",
            fix=f"`specscope bench --resume {shell_word(str(run))}` measures them",
        )
    shares = parse_mix(mix, workloads_of(cells), command) if mix is not None else None
    times = (
        parse_level_mix(level_mix, sorted({c.concurrency for c in cells}), command) if level_mix is not None else None
    )
    levels = (
        None if max_concurrency is None else parse_int_list(max_concurrency, "--max-concurrency", "1,4", distinct=True)
    )
    if times is not None and levels is not None:
        outside = sorted(lv for lv, share in times.shares.items() if share > 0 and lv not in levels)
        if outside:
            listed = ",".join(map(str, outside))
            raise ConfigError(
                f"--level-mix gives time to level {listed}, outside --max-concurrency {max_concurrency}",
                found=f"--level-mix {level_mix} --max-concurrency {max_concurrency}",
                expected="every --level-mix level among the --max-concurrency levels",
                fix=f"add {listed} to --max-concurrency, or drop level {listed} from --level-mix",
            )
    traffic = Traffic(
        mix=None if shares is None else shares.shares,
        level_mix=None if times is None else times.shares,
        slo=targets,
        notes=[*read_notes, *(n for n in (shares and shares.note, times and times.note) if n)],
    )
    adv = advise(
        cells,
        traffic,
        baseline=(manifest.baseline or "base") if baseline is None else baseline,
        concurrency=levels,
        acceptance=acceptance,
        acceptance_config=acceptance_config,
        server_facts=facts,
        min_effect=min_effect_of(manifest.stored_options(), min_effect),
        command=command,
        finished=not stopped_early(manifest, [c.status for c in cells]),
    )
    first = unfinished(manifest, [c.status for c in cells], source)  # a run stopped early says so first, as report
    failed = nothing_measured([(c.status, c.reasons) for c in cells])
    lines = headline(adv.judgement, first, failed=failed)
    doc = Document(f"specscope advise: {source}", [advice_section(adv)], adv.to_dict(), lines)
    code = emit_document(doc, fmt, out, None, width)  # html without -o: stdout (a run folder is read-only after bench)
    if code:  # a draft that is not accepted: exit 1, as report and counters
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("advise", cls=VocabCommand)(advise_cmd)
