"""TensorRT-LLM's server log, as far as it speaks of speculation: recognised, with no acceptance to read.

Form, with its source: the PyTorch backend's per-iteration line, printed with ``print_iter_log: true``
(tensorrt_llm/_torch/pyexecutor/py_executor.py, 0.20 and later): ``[TRT-LLM] [I] iter = 37, global_rank = 0, rank = 0,
currank_total_requests = 0/1, host_step_time = 12.3ms, prev_device_step_time = 11.9ms, timestamp = ...,
num_scheduled_requests: 1, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 4}``
(newer builds spell ``num_scheduled_requests = N`` and add ``kv_cache_util`` / ``cached_kv_len``). The line carries no
drafted or accepted count: ``num_generation_tokens`` is the tokens the iteration verified (drafts included), not what
was accepted. TensorRT-LLM's acceptance is in its iteration statistics (``specDecodingStats`` of ``/metrics``) and
per-request ``/perf_metrics``, which the log does not print; the log is recognised and its statistics are empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from specscope.adapters.logs import EngineLog, LogField, LogForm

__all__ = ["FORMS", "LOG_FIELDS", "read_log"]

_SOURCE = "tensorrt_llm/_torch/pyexecutor/py_executor.py"
ITER = "iteration log"
FORMS: tuple[LogForm, ...] = (
    LogForm(
        "trtllm",
        ITER,
        "iter = N, global_rank = R, ... host_step_time = X ms, states = {...}",
        _SOURCE,
        "0.20",
        status="recognised",
        test="tests/launch/test_engine_logs.py::test_trtllm_iteration_log_is_recognised_and_says_it_has_no_acceptance",
    ),
)
LOG_FIELDS: tuple[LogField, ...] = (
    LogField("num_generation_tokens", "ignored", _SOURCE, "0.20", "tokens verified, drafts included: no acceptance"),
    LogField("num_scheduled_requests", "ignored", _SOURCE, "0.20", "capacity, not speculation"),
    LogField("host_step_time / prev_device_step_time", "ignored", _SOURCE, "0.20", "timing, not speculation"),
    LogField("specDecodingStats", "ignored", _SOURCE, "0.20", "not printed in the log: read /metrics instead"),
)
_RE_ITER = re.compile(r"\biter = \d+, global_rank = \d+, rank = \d+,.*\bhost_step_time = ")


def read_log(lines: Sequence[str]) -> EngineLog | None:
    """A TensorRT-LLM log's reading: its form seen, no statistics (see the module doc); None without an iteration
    line."""
    if not any(_RE_ITER.search(line) for line in lines):
        return None
    note = "NO_ACCEPTANCE_IN_LOG(TensorRT-LLM logs no drafted or accepted counts; read its /metrics)"
    return EngineLog(engine="trtllm", forms=[ITER], warnings=[note])
