"""The report's headline: the sentence a user came for, first, rendered from the run's judgement (issue 38 item 4).

Every report format (text, Markdown, HTML; JSON under ``headline``) and ``advise`` open with it, the detail after:

* first, on a run that stopped before its last planned cell (its manifest's ``finished`` is false, as bench writes
  it from the start until every planned cell is measured): ``unfinished run: N of M planned cells measured`` and
  the refusal that stopped it where one did (the manifest's ``stopped``) and the command that finishes it
  (``bench --resume RUN``; ``--retry-failed`` where stored cells failed), so that no
  verdict below is read as the whole run's (:func:`unfinished`);
* the pick per workload and level, said to be per workload (``pick per workload vs BASE``): the config the judgement
  picks there (``Choices.levels[].per_workload``, the fastest config ``faster`` than the baseline by the one verdict
  rule) with its speedup, interval and verdict;
* where the traffic mix's pick (``Choices.levels[].config``, the Picks table) differs from the per-workload picks at
  some level: the mix's pick at every level (``pick for the mix W=S, ... vs BASE``), so that a user reading only the
  headline does not ship a workload's winner for the whole traffic;
* where no config is picked anywhere: ``nothing is judged to beat the baseline``, with the reason: how many
  comparisons got each verdict and, for the undetermined ones, their reason codes (a comparison counted once per
  code; ``K have two reasons`` where codes overlap);
* when comparisons had too few rounds to judge, in the same statement as the judged answer it qualifies (the last
  line above, never a line of its own): the point-estimate picks, labelled unjudged
  (:mod:`specscope.stats.unjudged`): at a level whose judged pick they differ from (a level short of rounds too),
  and over the levels when the overall comparison was short of rounds and its judged pick differs; a point-estimate
  best that is also the judged pick is not repeated as unjudged, at a level short of rounds neither.

Nothing here decides: every pick, verdict and figure is the judgement's; this module counts and words them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from specscope.config import SENTINEL_SUFFIX, is_control
from specscope.stats.choices import MixComparison
from specscope.stats.judgement import Judgement
from specscope.stats.summary import MEASURED
from specscope.stats.verdict import Comparison, verdict_text
from specscope.store.manifest import RunManifest
from specscope.textsafe import shell_word
from specscope.values import ratio_text

__all__ = ["headline", "no_comparison", "nothing_measured", "stopped_early", "unfinished"]


def stopped_early(manifest: RunManifest, statuses: Sequence[str]) -> bool:
    """Whether a run stopped before its last planned cell: its manifest's ``finished`` is false; or, where the
    manifest has no ``finished`` (a bench older than the key, killed before it wrote it), fewer cells are measured
    (``ok`` / ``degraded``) than its ``cells_total`` plans. A manifest with neither says nothing: not flagged."""
    if manifest.finished is not None:
        return manifest.finished is False
    planned = manifest.cells_total
    if planned is None:
        return False
    return sum(1 for s in statuses if s in MEASURED) < planned


def unfinished(manifest: RunManifest, statuses: Sequence[str], run: str) -> str | None:
    """The headline's first line for a run that stopped before its last planned cell (:func:`stopped_early`),
    else None.

    ``statuses``: the stored cells' statuses; ``run``: the run folder as the user names it. Measured cells are the
    ``ok`` and ``degraded`` ones; the others stored (``failed``, ``server_crash``) are only measured again by
    ``--resume --retry-failed``, the never-stored ones by plain ``--resume``."""
    if not stopped_early(manifest, statuses):
        return None
    run = shell_word(run)  # a command the user can paste
    planned = manifest.cells_total
    measured = sum(1 for s in statuses if s in MEASURED)
    failed = len(statuses) - measured
    said = f"{measured} of {planned} planned" if isinstance(planned, int) else f"{measured}"
    line = f"unfinished run: {said} cells measured" + (f", {failed} failed" if failed else "")
    line += f"; stopped by: {manifest.stopped}" if manifest.stopped else ""  # a refusal after the folder was made
    missing = max(0, planned - len(statuses)) if isinstance(planned, int) else None  # adaptive rounds: more
    if failed:
        return (
            line
            + f"; `specscope bench --resume {run} --retry-failed` measures the failed ones again"
            + (f" and the other {missing}" if missing else "")
        )
    other = f"the other {missing}" if missing else "the rest"
    return line + f"; `specscope bench --resume {run}` measures {other}"


def nothing_measured(cells: Sequence[tuple[str, Sequence[str]]]) -> str | None:
    """The headline's answer for a run none of whose cells was measured (every one ``failed`` or ``server_crash``),
    else None: the cause, named, in place of "nothing is judged to beat the baseline: no comparison has a paired
    round".

    ``cells``: each stored cell's ``(status, reasons)``; the three reasons most cells share are named, each cell
    counted once per reason."""
    if not cells or any(status in MEASURED for status, _ in cells):
        return None
    statuses = Counter(status for status, _ in cells)
    n = len(cells)
    said = (
        f"all {n} cells failed"
        if set(statuses) == {"failed"}
        else f"none of {n} cells was measured (" + ", ".join(f"{k} {s}" for s, k in statuses.most_common()) + ")"
    )
    reasons = Counter(r for _, own in cells for r in dict.fromkeys(own))
    common = ", ".join(f"{r} in {k} cell{'s' if k != 1 else ''}" for r, k in reasons.most_common(3))
    return f"nothing was measured: {said}" + (f"; the most common reasons: {common}" if common else "")


def _figure(c: Comparison | MixComparison) -> str:
    if c.speedup is None:
        return verdict_text(c.verdict)
    interval = "" if c.low is None or c.high is None else f" [{ratio_text(c.low)}, {ratio_text(c.high)}]"
    return f"{ratio_text(c.speedup)}{interval} {verdict_text(c.verdict)}"


def _count_word(n: int) -> str:
    return {2: "two", 3: "three", 4: "four"}.get(n, str(n))


def _why_none(j: Judgement) -> str:
    """How many comparisons got each verdict, and the undetermined ones' reason codes."""
    judged = [c for c in j.comparisons if not c.control]
    if not judged:
        return "no comparison has a paired round"
    verdicts = Counter(c.verdict for c in judged)
    # each code counted once per comparison; a comparison with several codes is in several counts, which is said
    undetermined = [dict.fromkeys(r.code for r in c.reasons) for c in judged if c.verdict == "undetermined"]
    codes = Counter(code for own in undetermined for code in own)
    several = Counter(len(own) for own in undetermined if len(own) > 1)
    parts = []
    for v, n in verdicts.most_common():
        extra = ""
        if v == "undetermined" and codes:
            overlap = "; ".join(
                f"{k} {'has' if k == 1 else 'have'} {_count_word(m)} reasons" for m, k in sorted(several.items())
            )
            extra = (
                " ("
                + ", ".join(f"{code} {k}" for code, k in codes.most_common())
                + (f"; {overlap})" if overlap else ")")
            )
        parts.append(f"{n} {verdict_text(v)}{extra}")
    return f"of {len(judged)} comparison{'s' if len(judged) != 1 else ''}: " + ", ".join(parts)


def _mix_line(j: Judgement) -> str:
    """The traffic mix's pick at every level (the Picks table's), with its mix figure."""
    c = j.choices
    assert c is not None
    mix = ", ".join(f"{w}={m:.2f}" for w, m in c.mix.items())
    parts = []
    for lv in c.levels:
        where = j.axis.label(lv.level)
        m = lv.comparison
        if lv.config == j.baseline or m is None:
            parts.append(f"{where} {j.baseline}: no config is judged faster on the mix")
        else:
            parts.append(f"{where} {lv.config} {_figure(m)}")
    return f"pick for the mix {mix} vs {j.baseline}: " + "; ".join(parts)


def headline(
    j: Judgement | None, first: str | None = None, why_none: str | None = None, failed: str | None = None
) -> list[str]:
    """The headline lines of a judged run (module docstring), after ``first`` (:func:`unfinished`) when given.

    ``why_none``: the line said when the judgement has no picks (:func:`no_comparison`); None: no line then.
    ``failed``: :func:`nothing_measured`'s line, said instead of any judgement (there is nothing to judge)."""
    lines = [failed] if failed is not None else _judged(j)
    if not lines and why_none is not None and (j is None or j.choices is None):
        lines = [why_none]
    return lines if first is None else [first, *lines]


def no_comparison(baseline: str, configs: Sequence[str]) -> str:
    """Why a run has nothing compared: no cell, only its baseline (and A/A control), or no baseline among its
    configs (sentinels, the baseline's own check cells, are not configs here)."""
    run = [c for c in dict.fromkeys(configs) if not c.endswith(SENTINEL_SUFFIX)]
    others = [c for c in run if c != baseline and not is_control(c)]
    if not run:
        return "no comparison: the run has no cell"
    if baseline in run:
        controls = [c for c in run if is_control(c)]
        also = f" and its A/A control {', '.join(controls)}" if controls else ""
        return f"no comparison: the run has only its baseline {baseline}{also}"
    if len(others) == 1:
        return f"no comparison: the run's one config {others[0]} is not its baseline {baseline}"
    return f"no comparison: the baseline {baseline} is not among the run's configs ({', '.join(run)})"


def _judged(j: Judgement | None) -> list[str]:
    if j is None or j.choices is None:
        return []
    c = j.choices
    picks, plain = [], []
    for lv in c.levels:
        for w, cfg in lv.per_workload.items():
            cmp = j.get(cfg, w, lv.level) if cfg != j.baseline else None
            where = f"{w} {j.axis.label(lv.level)}"
            if cmp is None:
                plain.append(where)
            else:
                picks.append(f"{where}: {cfg} {_figure(cmp)}")
    out = []
    if picks:
        rest = f"; elsewhere ({', '.join(plain)}) {j.baseline}: no config is judged faster" if plain else ""
        out.append(f"pick per workload vs {j.baseline}: " + "; ".join(picks) + rest)
        if any(set(lv.per_workload.values()) != {lv.config} for lv in c.levels):
            out.append(_mix_line(j))
    elif any(lv.config != j.baseline and lv.comparison is not None for lv in c.levels):
        # no workload alone is judged faster, but the mix is (its rounds pool the workloads): the Picks table's pick
        out.append(f"pick per workload vs {j.baseline}: none (no workload alone is judged faster)")
        out.append(_mix_line(j))
    elif faster := [x for x in j.comparisons if x.verdict == "faster" and not x.control]:
        # judged faster somewhere, but no level of the mix has a pick (a config measured on only some of its
        # workloads): say both, never "nothing is judged to beat the baseline" above a faster verdict
        mix = ", ".join(f"{w}={m:.2f}" for w, m in c.mix.items())
        out.append(f"no pick for the mix {mix} vs {j.baseline}: {c.no_pick}")
        out.append(
            "faster where measured: "
            + "; ".join(f"{x.config} on {x.workload} at {j.axis.label(x.level)} {_figure(x)}" for x in faster)
        )
    else:
        out.append(f"nothing is judged to beat the baseline {j.baseline}: {_why_none(j)}")
    unjudged = _unjudged(j)
    if unjudged:
        # the point estimates join the statement they qualify (the picks of the levels, or that nothing is judged
        # faster): on a line of their own they read as a second, competing answer ('nothing beats the baseline'
        # above 'the figures rank first ngram'; 'N=2 base' above 'the figures rank first N=2 ngram')
        out[-1] += "; " + unjudged
    return out


def _unjudged(j: Judgement) -> str | None:
    """The point-estimate picks that are news (module docstring), or None."""
    c = j.choices
    assert c is not None
    u = c.unjudged
    if u is not None:
        judged = {lv.level: lv.config for lv in c.levels}
        # a level's point-estimate best is news only where it is not the judged pick (the sentence says both); the
        # same config as the judged pick is not 'unjudged', also at a level short of rounds (the baseline ranked first
        # by the figures read 'the figures rank first N=2 base' beside the judged pick base)
        parts = [f"{j.axis.label(p.level)} {p.config}" for p in u.levels if p.config != judged.get(p.level)]
        several = len(c.levels) > 1  # over one level the overall is that level's pick, named once
        if (
            several
            and u.overall_short
            and u.overall is not None
            and c.overall is not None
            and u.overall != c.overall.config
        ):
            # absent: no figure, never 1.00x
            x = "" if u.overall_speedup is None else f"{ratio_text(u.overall_speedup)}; "
            parts.append(f"overall {u.overall} ({x}the judged overall pick is {c.overall.config})")
        # a level short of rounds makes the overall short too (its rounds hold every level): name the levels then
        at = " at " + ", ".join(j.axis.label(n) for n in u.short_levels) if u.short_levels else ""
        at = at or (" over the levels" if u.overall_short else "")
        if parts:
            return f"unjudged (too few rounds to judge{at}; point estimates only): the figures rank first " + ", ".join(
                parts
            )
    return None
