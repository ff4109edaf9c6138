"""The run's alarms in words: what was found, the likely cause and what to check, for every screen alike.

Every alarm is decided once, in the judgement (:mod:`specscope.stats.alarms`, its rules and thresholds in
:mod:`specscope.stats.low_acceptance`); this module only renders each :class:`~specscope.stats.alarms.JudgedAlarm`
(:func:`judgement_alarms`), so ``report`` and ``advise`` print the same alarms for the same run:

* ``ACCEPTANCE_NEAR_ZERO`` / ``ACCEPTANCE_FAR_BELOW`` (the one symptom of a silently broken draft head, issue 13): the
  method, the rate, the verify steps; the fix names ``specscope audit`` on the checkpoint and vLLM's weight-tracking
  load check;
* ``NOT_ENGAGED``: the method, the workload, the levels and what would make it draft (:data:`WOULD_DRAFT`);
* ``DRIFT``: rendered with the run's drift note (:func:`specscope.report.verdicts.drift_notes`);
* ``LOW_ACCEPTANCE`` / ``INCONSISTENT``: a stored server log's pool (``log_pools`` of the server facts, ``bench
  --server-log``: each pool judged once by :mod:`specscope.launch.logpool` with the same low-acceptance rule and
  ``counters``' consistency rules, carried into the judgement by :func:`specscope.stats.alarms.log_pool_alarms`),
  so ``report`` and ``advise`` say and exit on what ``serve --parse-log`` says of the same file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from specscope.facts import RunFacts, ServerFacts
from specscope.report import units
from specscope.report.document import Alarm
from specscope.report.spec_notes import spec_alarms
from specscope.report.verdicts import drift_notes
from specscope.stats.alarms import JudgedAlarm, find_alarms
from specscope.stats.groups import LevelAxis
from specscope.stats.judgement import Judgement
from specscope.stats.low_acceptance import NEAR_ZERO
from specscope.stats.noise import DriftCheck
from specscope.stats.server_spec import log_pools_of, methods_of
from specscope.stats.summary import CellSummary
from specscope.textsafe import shell_word

__all__ = ["WOULD_DRAFT", "judgement_alarms", "render_alarm"]

#: the judged alarms of a stored server log's pools (:func:`specscope.stats.alarms.log_pool_alarms`).
LOG_CODES = frozenset({"LOW_ACCEPTANCE", "INCONSISTENT"})

CAUSE = "an uninitialised or mis-quantized draft head (its weights missing from the checkpoint, or excluded wrongly)"
WEIGHTS_TRACK = """vLLM: --model-loader-extra-config '{"enable_weights_track": true}' turns a draft weight left """ + (
    "uninitialised into a load error"
)


def _model(facts: ServerFacts) -> str:
    """What ``specscope audit`` should read for the config: the model its server names when that names a checkpoint
    (a path, as the server loaded it, or a hub repo id ``org/name``, as vLLM names a model it loads; or a folder that
    exists here), else ``MODEL``: a served name such as ``default`` is no checkpoint audit can open."""
    model = facts.model
    name = (model.path or model.name or "") if model is not None else ""
    names_one = "/" in name.strip("/") or name.startswith(("/", "~/", "./"))  # a path or org/name, not a bare alias
    if name and not re.search(r"\s", name) and (names_one or Path(name).expanduser().is_dir()):
        return shell_word(name)
    return "MODEL"


def _audit_fix(config: str, facts: ServerFacts) -> str:
    """``specscope audit CHECKPOINT``, or with ``MODEL`` and what to put there when the server named none."""
    model = _model(facts)
    what = "" if model != "MODEL" else f" (MODEL: the checkpoint folder or hub repo id that {config}'s server loads)"
    return f"specscope audit {model}{what}"


def _acceptance_alarm(a: JudgedAlarm, facts: ServerFacts) -> Alarm:
    method = a.method or "unknown method"
    rate = a.figure or 0.0
    found = f"{method} acceptance {units.rate(rate).text} over {int(a.drafts or 0):,} verify steps"
    if a.code == "ACCEPTANCE_NEAR_ZERO":
        found += f" (below {units.rate(NEAR_ZERO).text})"
    else:
        found += f", under a tenth of the {units.rate(a.reference_rate).text} that {a.reference} reaches"
    fixes = (_audit_fix(a.config, facts), WEIGHTS_TRACK)
    return Alarm(a.code, a.config, a.workload, found, CAUSE, fixes)


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
#: what to check when a stored server log's counts contradict each other.
INCONSISTENT_LOG_FIX = (
    "check that the captured log is one server's own (not several servers' logs joined) and that its lines are whole "
    "(each line is named by: specscope serve --parse-log FILE)"
)
_HEAD_HINT = (
    "a draft head or draft model drafts every step once loaded: check that the server started with speculation "
    "(vLLM logs its speculative config; llama.cpp --spec-draft-n-max above 0, and a draft model it loaded) and that "
    "the counters it exports are the spec-decode ones"
)


def _would_draft(method: str) -> str:
    low = method.lower()
    return next((hint for key, hint in WOULD_DRAFT if key in low), _HEAD_HINT)


def _not_engaged_alarm(a: JudgedAlarm, axis: LevelAxis) -> Alarm:
    method = a.method or a.config
    who = a.config if method == a.config else f"{a.config} ({method})"  # the config, never its method alone
    found = (
        f"{who} reported 0 drafts in every cell on {a.workload} at {axis.labels(list(a.levels))}: it did not "
        "speculate, so any difference from the baseline there is not speculation's gain or loss (the drafter's search "
        "that found nothing, and noise: its comparison says which)"
    )
    cause = "the drafter found nothing to propose on this traffic, or speculation is not on"
    return Alarm("NOT_ENGAGED", a.config, a.workload, found, cause, (_would_draft(method),))


def render_alarm(a: JudgedAlarm, facts: RunFacts | None = None, axis: LevelAxis | None = None) -> Alarm | None:
    """One judged alarm in words (module docstring); None for ``DRIFT``, which :func:`judgement_alarms` renders with
    the run's drift note."""
    facts = facts or RunFacts()
    if a.code.startswith("ACCEPTANCE_"):
        return _acceptance_alarm(a, facts.of(a.config))
    if a.code == "NOT_ENGAGED":
        return _not_engaged_alarm(a, axis or LevelAxis())
    if a.code in LOG_CODES:
        return _log_alarm(a, facts.of(a.config))
    return None


def _log_alarm(a: JudgedAlarm, facts: ServerFacts) -> Alarm:
    """A stored server log's pool alarm (``LOW_ACCEPTANCE``) or its counts that contradict each other
    (``INCONSISTENT``), in words."""
    where = a.source or "server log"
    if a.code == "LOW_ACCEPTANCE":
        return Alarm(
            a.code,
            a.config,
            None,
            f"{where}: {'; '.join(a.details)}",
            CAUSE,
            (_audit_fix(a.config, facts), WEIGHTS_TRACK),
        )
    found = f"{where} prints counts that contradict each other: {'; '.join(a.details)}"
    cause = "counts that contradict each other are no measurement: a log of several servers, or lines cut"
    return Alarm(a.code, a.config, None, found, cause, (INCONSISTENT_LOG_FIX,))


def judgement_alarms(
    j: Judgement | None, facts: RunFacts | None = None, cells: Sequence[CellSummary] = ()
) -> list[Alarm]:
    """Every alarm of a judged run in words, in the judgement's order (``report`` and ``advise`` print these), the
    drift alarm with the run's drift note. A run with no judgement (no baseline and another config) still has its
    acceptance alarms and its stored server logs' (judged from ``cells`` and ``facts`` by the same rule)."""
    facts = facts or RunFacts()
    if j is None:
        found = find_alarms(cells, (), DriftCheck(), methods_of(facts), "", log_pools_of(facts))
        return [x for a in found if (x := render_alarm(a, facts)) is not None]
    own = [x for a in j.alarms if a.code not in LOG_CODES and (x := render_alarm(a, facts, j.axis)) is not None]
    logs = [x for a in j.alarms if a.code in LOG_CODES and (x := render_alarm(a, facts, j.axis)) is not None]
    return own + drift_notes(j)[1] + logs


def run_alarms(j: Judgement | None, facts: RunFacts | None, cells: Sequence[CellSummary]) -> list[Alarm]:
    """Every alarm of a run, the one list ``report`` and ``advise`` print (and exit 1 on): the judgement's
    (:func:`judgement_alarms`), then each config x workload whose server counters drafted and accepted nothing in
    every window (:func:`specscope.report.spec_notes.spec_alarms`). ``cells``: all the run's cell summaries."""
    return judgement_alarms(j, facts, cells) + spec_alarms(cells, facts)
