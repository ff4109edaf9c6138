"""The facts SGLang's log lines state, as fields of a server log's facts (found through the registry by
:mod:`specscope.adapters.log_facts`): the speculative decode-batch windows and the ``server_args`` line's speculative
fields, read by :func:`specscope.adapters.sglang.logs.sglang_log_facts` (wordings and sources: that module's doc)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.sglang.finish import is_finish_line
from specscope.adapters.sglang.logs import SglangSpecWindow, sglang_log_facts

__all__ = ["FACTS", "SglangLogFacts", "read_facts"]


class SglangLogFacts(BaseModel):
    """What a server log's SGLang lines state, as fields of the log's facts (``launch.logfacts.LogFacts``):
    ``sglang_spec_windows`` the speculative decode-batch windows in log order, ``sglang_speculative`` the last
    ``server_args`` line's speculative fields (:func:`~specscope.adapters.sglang.logs.sglang_log_facts`), None
    without one; ``sglang_finish_spec_lines`` the ``--log-requests`` Finish lines that name ``spec_verify_ct`` (their
    counts are read by :mod:`specscope.adapters.sglang.finish` into the log's pool)."""

    model_config = ConfigDict(extra="forbid")

    sglang_spec_windows: list[SglangSpecWindow] = Field(default_factory=list)
    sglang_speculative: dict[str, Any] | None = None
    sglang_finish_spec_lines: int = 0


def read_facts(lines: Sequence[str]) -> SglangLogFacts:
    """:class:`SglangLogFacts` of ``lines`` (every field empty / None when the log has no SGLang line)."""
    windows, spec = sglang_log_facts(lines)
    finish = sum(1 for line in lines if "spec_verify_ct" in line and is_finish_line(line))
    return SglangLogFacts(sglang_spec_windows=windows, sglang_speculative=spec, sglang_finish_spec_lines=finish)


#: this engine's log-fact record (see :mod:`specscope.adapters.log_facts`)
FACTS = SglangLogFacts
