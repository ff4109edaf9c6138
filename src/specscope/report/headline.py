"""The report's headline: the sentence a user came for, first, rendered from the run's judgement (issue 38 item 4).

Every report format (text, Markdown, HTML; JSON under ``headline``) and ``advise`` open with it, the detail after:

* the pick per workload and level: the config the judgement picks there (``Choices.levels[].per_workload``, the
  fastest config ``faster`` than the baseline by the one verdict rule) with its speedup, interval and verdict;
* where no config is picked anywhere: ``nothing beats the baseline``, with the reason: how many comparisons got
  each verdict and, for the undetermined ones, their reason codes;
* when comparisons had too few rounds to judge: the point-estimate picks, labelled unjudged
  (:mod:`specscope.stats.unjudged`).

Nothing here decides: every pick, verdict and figure is the judgement's; this module counts and words them.
"""

from __future__ import annotations

from collections import Counter

from specscope.stats.judgement import Judgement
from specscope.stats.verdict import Comparison, verdict_text

__all__ = ["headline"]


def _figure(c: Comparison) -> str:
    if c.speedup is None:
        return verdict_text(c.verdict)
    interval = "" if c.low is None or c.high is None else f" [{c.low:.2f}x, {c.high:.2f}x]"
    return f"{c.speedup:.2f}x{interval} {verdict_text(c.verdict)}"


def _why_none(j: Judgement) -> str:
    """How many comparisons got each verdict, and the undetermined ones' reason codes."""
    judged = [c for c in j.comparisons if not c.control]
    if not judged:
        return "no comparison has a paired round"
    verdicts = Counter(c.verdict for c in judged)
    codes = Counter(r.code for c in judged if c.verdict == "undetermined" for r in c.reasons)
    parts = []
    for v, n in verdicts.most_common():
        extra = ""
        if v == "undetermined" and codes:
            extra = " (" + ", ".join(f"{code} {k}" for code, k in codes.most_common()) + ")"
        parts.append(f"{n} {verdict_text(v)}{extra}")
    return f"of {len(judged)} comparison{'s' if len(judged) != 1 else ''}: " + ", ".join(parts)


def headline(j: Judgement | None) -> list[str]:
    """The headline lines of a judged run (module docstring); none without a judgement or picks."""
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
        rest = f"; elsewhere ({', '.join(plain)}) {j.baseline}: no config is faster" if plain else ""
        out.append(f"pick vs {j.baseline}: " + "; ".join(picks) + rest)
    else:
        out.append(f"nothing beats the baseline {j.baseline}: {_why_none(j)}")
    u = c.unjudged
    if u is not None:
        ranked = ", ".join(f"{j.axis.label(p.level)} {p.config}" for p in u.levels)
        short = ", ".join(j.axis.label(n) for n in u.short_levels)
        where = f" at {short}" if short else ""
        out.append(f"unjudged (too few rounds to judge{where}; point estimates only): the figures rank first {ranked}")
    return out
