"""The facts a server log states (not its statistics: :mod:`specscope.adapters.logs`), as one record of every log
adapter's fields.

:class:`EngineLogFacts` is the record (each adapter's facts class, its fields in the order they have always had:
vLLM's, then SGLang's); :func:`engine_log_facts` reads every adapter's facts of the lines into it. The log's failure
signatures and the file itself are read in :mod:`specscope.launch.logfacts`, whose ``LogFacts`` adds the failures.
This is the one place the adapters' facts classes are put together (a record's fields are typed, so the classes are
named here, not found through the registry): an engine whose log states facts adds its class and reader here.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.adapters.sglang.logs import SglangLogFacts, parse_sglang_facts
from specscope.adapters.vllm.log_facts import MISSING_LOG, VllmLogFacts, parse_vllm_facts
from specscope.adapters.vllm.logs import SpecCumulativeSample, SpecDecodingSample

__all__ = [
    "MISSING_LOG",
    "EngineLogFacts",
    "SpecCumulativeSample",
    "SpecDecodingSample",
    "engine_log_facts",
]


class EngineLogFacts(SglangLogFacts, VllmLogFacts):  # the last base's fields come first
    """Everything the adapters read from one server log as facts: :class:`VllmLogFacts`' fields, then
    :class:`SglangLogFacts`'; every field None / empty when the log lacks it."""


def engine_log_facts(lines: Sequence[str]) -> EngineLogFacts:
    """Every adapter's facts of ``lines`` (split by :func:`specscope.adapters.logs.split_log_lines`)."""
    return EngineLogFacts(**dict(parse_vllm_facts(list(lines))), **dict(parse_sglang_facts(lines)))
