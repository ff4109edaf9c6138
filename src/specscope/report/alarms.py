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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from specscope.report import units
from specscope.report.document import Alarm
from specscope.report.server_facts import spec_method
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.low_acceptance import FAR_BELOW, HEAD_METHODS, MIN_DRAFTS, NEAR_ZERO
from specscope.stats.summary import CellSummary

__all__ = ["NEAR_ZERO", "FAR_BELOW", "MIN_DRAFTS", "drafts_with_a_head", "acceptance_alarms"]

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
    model = (facts or {}).get("model")
    if isinstance(model, Mapping):
        model = model.get("path") or model.get("name")
    return str(model) if model else "MODEL"


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
        fixes = (f"specscope audit {_model(facts.get(config))}", WEIGHTS_TRACK)
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
