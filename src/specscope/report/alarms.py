"""Acceptance alarms: the one symptom of a silently broken draft head (issue 13, seed 000's "Read this first").

A quantized checkpoint whose MTP / EAGLE / draft head was never loaded drafts from garbage: no exception,
no log line, only an acceptance rate near zero. For every config whose method drafts with a learned head
(``mtp``, ``eagle``/``eagle3``, ``dflash``, a draft model; not ``ngram`` or ``suffix``, whose acceptance is
legitimately low on fresh text), pooled over its ok cells per workload
(:func:`specscope.stats.acceptance.pooled_acceptance`):

* ``ACCEPTANCE_NEAR_ZERO``: acceptance rate < :data:`NEAR_ZERO` (5 %) over >= :data:`MIN_DRAFTS` draft rounds;
* ``ACCEPTANCE_FAR_BELOW``: acceptance rate < :data:`FAR_BELOW` (a tenth) of what the same method reaches on
  another workload of the run, again over >= :data:`MIN_DRAFTS` draft rounds.

Each alarm names the likely cause, ``specscope audit MODEL`` and vLLM's weight-tracking load check.

``NOT_ENGAGED`` (:func:`not_engaged_alarms`): a speculative config whose server reported 0 drafts in every cell of
a comparison (the judgement's ``not_engaged`` verdict, :mod:`specscope.stats.verdict`): its speed says nothing about
its method. The alarm names the method, the workload and what would make it draft (:data:`WOULD_DRAFT`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from specscope.report import units
from specscope.report.document import Alarm
from specscope.report.server_facts import spec_method
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.judgement import Judgement
from specscope.stats.low_acceptance import FAR_BELOW, HEAD_METHODS, MIN_DRAFTS, NEAR_ZERO
from specscope.stats.server_spec import speculative_method
from specscope.stats.summary import CellSummary

__all__ = [
    "NEAR_ZERO",
    "FAR_BELOW",
    "MIN_DRAFTS",
    "WOULD_DRAFT",
    "drafts_with_a_head",
    "acceptance_alarms",
    "not_engaged_alarms",
]

# one home for the rule's numbers (a server log's alarm uses them too: specscope serve --parse-log)
_HEAD_METHODS = HEAD_METHODS
CAUSE = "an uninitialised or mis-quantized draft head (its weights missing from the checkpoint, or excluded wrongly)"
WEIGHTS_TRACK = """vLLM: --model-loader-extra-config '{"enable_weights_track": true}' turns a draft weight left """ + (
    "uninitialised into a load error"
)


def drafts_with_a_head(config: str, facts: Mapping[str, Any] | None) -> str | None:
    """The config's method when it drafts with a learned head (mtp, eagle, dflash, draft model), else None.

    The method comes from the server facts (:func:`specscope.report.server_facts.spec_method`), else from
    the config name (an external server is known only by the name the user gave it, e.g. ``mtp3``).
    """
    method = spec_method(config, facts or {}) or config
    match = _HEAD_METHODS.search(method)
    return match.group(0).lower() if match else None


def _model(facts: Mapping[str, Any] | None) -> str:
    """What ``specscope audit`` should read for the config: the model its server names when that names a checkpoint
    (a path, as the server loaded it, or a hub repo id ``org/name``, as vLLM names a model it loads; or a folder that
    exists here), else ``MODEL``: a served name such as ``default`` is no checkpoint audit can open."""
    model = (facts or {}).get("model")
    if isinstance(model, Mapping):
        model = model.get("path") or model.get("name")
    name = str(model) if model else ""
    names_one = "/" in name.strip("/") or name.startswith(("/", "~/", "./"))  # a path or org/name, not a bare alias
    if name and not re.search(r"\s", name) and (names_one or Path(name).expanduser().is_dir()):
        return shlex.quote(name)
    return "MODEL"


def _audit_fix(config: str, facts: Mapping[str, Any] | None) -> str:
    """``specscope audit CHECKPOINT``, or with ``MODEL`` and what to put there when the server named none."""
    model = _model(facts)
    what = "" if model != "MODEL" else f" (MODEL: the checkpoint folder or hub repo id that {config}'s server loads)"
    return f"specscope audit {model}{what}"


def acceptance_alarms(
    cells: Sequence[CellSummary], facts: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Alarm]:
    """The alarms of one run's cells (ok cells only), in config x workload order."""
    facts = facts or {}
    views = pooled_acceptance(cells)
    methods = {c: drafts_with_a_head(c, facts.get(c)) for c, _ in views}
    alarms = []
    for (config, workload), v in views.items():
        method = methods[config]
        if method is None or v.acceptance_rate is None or v.drafts < MIN_DRAFTS:
            continue
        fixes = (_audit_fix(config, facts.get(config)), WEIGHTS_TRACK)
        found = f"{method} acceptance {units.rate(v.acceptance_rate).text} over {int(v.drafts):,} draft rounds"
        if v.acceptance_rate < NEAR_ZERO:
            found += f" (below {units.rate(NEAR_ZERO).text})"
            alarms.append(Alarm("ACCEPTANCE_NEAR_ZERO", config, workload, found, CAUSE, fixes))
            continue
        others = [
            (o.acceptance_rate, f"{c} on {w}")
            for (c, w), o in views.items()
            if methods[c] == method and w != workload and o.acceptance_rate is not None and o.drafts >= MIN_DRAFTS
        ]
        best = max(others, default=None)
        if best is not None and v.acceptance_rate < FAR_BELOW * best[0]:
            found += f", under a tenth of the {units.rate(best[0]).text} that {best[1]} reaches"
            alarms.append(Alarm("ACCEPTANCE_FAR_BELOW", config, workload, found, CAUSE, fixes))
    return alarms


#: method (a substring of it) -> what would make such a server draft.
WOULD_DRAFT: tuple[tuple[str, str], ...] = (
    (
        "ngram",
        "n-gram drafting proposes only when the recent output repeats a span of the prompt or of itself: traffic that "
        "copies its input (edit, code that restates it) drafts, fresh prose rarely does; a smaller n-gram minimum "
        "(llama.cpp --spec-ngram-mod-n-min, vLLM prompt_lookup_min) drafts more often",
    ),
    (
        "suffix",
        "suffix decoding drafts from spans seen before in this request or earlier ones: repeated or templated "
        "traffic drafts, first-time prose rarely does",
    ),
)
_HEAD_HINT = (
    "a draft head or draft model drafts every step once loaded: check that the server started with speculation "
    "(vLLM logs its speculative config; llama.cpp --spec-draft-n-max above 0, and a draft model it loaded) and that "
    "the counters it exports are the spec-decode ones"
)


def _would_draft(method: str) -> str:
    low = method.lower()
    return next((hint for key, hint in WOULD_DRAFT if key in low), _HEAD_HINT)


def not_engaged_alarms(j: Judgement | None, facts: Mapping[str, Mapping[str, Any]] | None = None) -> list[Alarm]:
    """One ``NOT_ENGAGED`` alarm per config x workload with a ``not_engaged`` comparison, naming the method, the
    levels and what would make it draft."""
    if j is None:
        return []
    facts = facts or {}
    where: dict[tuple[str, str], list[int]] = {}
    for c in j.comparisons:
        if c.verdict == "not_engaged":
            where.setdefault((c.config, c.workload), []).append(c.level)
    alarms = []
    for (config, workload), levels in where.items():
        method = speculative_method(config, facts.get(config) or {}) or config
        found = (
            f"{method} reported 0 drafts in every cell on {workload} at {j.axis.labels(levels)}: it did not "
            "speculate, so its speed there is the target's alone"
        )
        alarms.append(
            Alarm(
                "NOT_ENGAGED",
                config,
                workload,
                found,
                "the drafter found nothing to propose on this traffic, or speculation is not on",
                (_would_draft(method),),
            )
        )
    return alarms
