"""Facts read from a vLLM server log: what loaded, how big the KV cache is, what speculation did, what failed.

Parsing is apart from I/O: :func:`parse_vllm_log` takes the log text, :func:`read_vllm_log` reads a file.
Lines are matched by regex search anywhere in the line, so docker / compose prefixes
(``qwen3-1  | (VllmWorker rank=0 pid=105) INFO ...``) and timestamps do not matter.

Wordings handled, with their sources (see ../shared/fixtures/SOURCES.md):

- ``Resolved architecture: X`` (vllm/config/model.py); the MTP drafter appears as a second one.
- ``Model loading took 18.41 GiB memory and 10.177328 seconds`` (v0.20+) and the older
  ``Model loading took 14.2474 GiB and 558.868858 seconds`` (v0.8.5, fixture block D); the CPU build only has
  ``Loading weights took 1.29 seconds`` (issue 5), so ``weights_loaded_gib`` is None there.
- KV memory: ``Available KV cache memory: 4.8 GiB`` (GPU) or, on the CPU build, ``Auto set (1.51/16.34) GiB for
  KV cache on node 0`` (vllm/v1/worker/cpu_worker.py, 0.32).
- KV capacity: two lines ``GPU KV cache size: 36,432 tokens`` / ``Maximum concurrency for 65,536 tokens per
  request: 1.82x`` (v0.20, blocks A, E) or one merged line ``CPU KV cache size: 46,592 tokens, Maximum
  concurrency for 4,096 tokens per request: 11.38x`` (block B, vllm/v1/core/kv_cache_utils.py in 0.32).
- ``Initializing a V1 LLM engine (v0.20.0) with config: ... speculative_config=SpeculativeConfig(method='mtp',
  model='...', num_spec_tokens=1) ...`` (vllm/v1/engine/core.py, SpeculativeConfig.__repr__).
- ``non-default args: {...}`` (vllm/entrypoints/serve/utils/api_utils.py), a Python dict literal.
- cudagraph mode: ``Enforce eager set ... -cc.cudagraph_mode=none``, ``...; setting cudagraph_mode=PIECEWISE``
  (seed 003) and ``'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>`` in the config line; the last
  one in the log wins.
- ``SpecDecoding metrics: Mean acceptance length: 2.31, Accepted throughput: 1.20 tokens/s, Drafted throughput:
  ..., Accepted: 12 tokens, Drafted: 36 tokens, Per-position acceptance rate: 0.583, 0.417, 0.333, Avg Draft
  acceptance rate: 33.3%`` (vllm/v1/spec_decode/metrics.py); older builds lack some fields, vLLM main adds
  ``Rejected: N tokens, Effective tokens/forward: X, Proposer latency: ..., Verification latency: ...``. vLLM
  0.8.0-0.8.4 wrote only ``SpecDecoding metrics: Draft acceptance rate: 0.0%, Accepted: 0 tokens, Drafted: 3000
  tokens`` (the shape PR #15902 replaced): no mean length, no draft count. Every window is kept (a line needs its
  counts or its mean length); :func:`specscope.launch.logstats.pooled_spec_windows` pools them.
- V0 (0.6.x, vllm/engine/metrics.py ``_format_spec_decode_metrics_str``): ``Speculative metrics: Draft acceptance
  rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of
  draft tokens: 13311, Number of emitted tokens: 10616.``: totals since the engine started (issues #9539, #7301), so
  the last line is the run's total; they are kept apart (``spec_cumulative``) and never pooled as windows.
- ``SpeculativeConfig(method='eagle', model='...', num_spec_tokens=3)`` (V1) and V0's
  ``SpeculativeConfig(draft_model='...', num_spec_tokens=3)`` (``draft_model='ngram'`` for prompt lookup), on the
  engine config line (``Initializing a V1 LLM engine`` / V0 ``Initializing an LLM engine``) or a config line of its
  own; V0's engine line gives ``max_seq_len=N``.
- Data parallelism: ``data_parallel_size`` in the non-default args, and the ``EngineCore_DPn`` prefix of each engine's
  KV-cache lines (each engine has its own KV pool).
- KV capacity statements of older builds: ``# GPU blocks: N`` (V0 adds ``, # CPU blocks: M``; 0.7 V1 logs it alone)
  and ``The model's max seq len (L) is larger than the maximum number of tokens that can be stored in KV cache (T)``
  (V0); the banner ``version X`` of newer API servers.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from specscope.errors import require_path
from specscope.launch.failures import FailureSignature, match_failures
from specscope.launch.logstats import LineFact, StatsSample, line_facts, parse_log_stats
from specscope.launch.sglang_log import SglangSpecWindow, sglang_log_facts

__all__ = [
    "LogFacts",
    "SpecCumulativeSample",
    "SpecDecodingSample",
    "StatsSample",
    "parse_vllm_log",
    "read_vllm_log",
]

_NUM = r"[\d,]+"


def _int(text: str) -> int:
    return int(text.replace(",", ""))


# LogFacts fields read from any line; the last line that says it wins
_LAST: tuple[LineFact, ...] = (
    (
        re.compile(r"Model loading took (-?[\d.]+) GiB(?: memory)? and ([\d.]+) seconds"),
        (("weights_loaded_gib", float), ("model_loading_s", float)),
    ),
    (
        re.compile(r"Available KV cache memory: (-?[\d.]+) GiB|Auto set \((-?[\d.]+)/[\d.]+\) GiB for KV cache"),
        (("available_kv_cache_memory_gib", float),),
    ),
    (
        re.compile(r"(\b[A-Z]+(?: \+ host)?) KV cache size: (" + _NUM + r") tokens"),
        (("kv_cache_device", str), ("kv_cache_size_tokens", _int)),
    ),
    (
        re.compile(r"Maximum concurrency for (" + _NUM + r") tokens per request: ([\d.]+)x"),
        (("max_concurrency_at_len_tokens", _int), ("max_concurrency_requests", float)),
    ),
    (re.compile(r"estimated maximum model length is (\d+)"), (("estimated_max_model_len_tokens", int),)),
    (
        re.compile(
            r"Initializing an? (?:V1 )?LLM engine \(v([^)\s]+)\)|vLLM API server version ([^\s,]+)"
            r"|█ {2,}version (\d[^\s]*)"
        ),
        (("vllm_version", str),),
    ),
    (
        re.compile(r"maximum number of tokens that can be stored in KV cache \((" + _NUM + r")\)"),
        (("kv_cache_size_tokens", _int),),
    ),
)
_RE_ARCH = re.compile(r"Resolved architecture: (\w+)")
_RE_MAX_LEN = re.compile(r"Using max model len (\d+)")
_RE_WEIGHTS = re.compile(r"Loading weights took ([\d.]+) seconds")
# SpeculativeConfig.__repr__: V1 ``method='m', model='x'|None``; V0 ``draft_model='x'`` ('ngram' for prompt lookup)
_RE_SPEC_REPR = re.compile(
    r"SpeculativeConfig\((?:method='([^']*)', model=(None|'[^']*')|draft_model='([^']*)'), num_spec_tokens=(\d+)\)"
)
_RE_SPEC_NONE = re.compile(r"speculative_config=None")
_RE_ENGINE_LINE = re.compile(r"Initializing an? (?:V1 )?LLM engine")
_RE_V0_MAX_SEQ = re.compile(r"\bmax_seq_len=(\d+)")
_RE_DP_RANK = re.compile(r"EngineCore_DP(\d+)")
_RE_KV_SIZE = re.compile(r"KV cache size: [\d,]+ tokens")
_RE_NON_DEFAULT = re.compile(r"non-default args: (\{.*\})\s*$")
# LogFacts fields read from the engine config line ("None" there means unset)
_ENGINE_CONFIG = (
    (re.compile(r"\bkv_cache_dtype=(\w+)"), "kv_cache_dtype"),
    (re.compile(r"\bquantization=(\w+)"), "quantization"),
    (re.compile(r"\bdtype=torch\.(\w+)"), "dtype"),
    (re.compile(r"\bdevice_config=(\w+)"), "device"),
)
_RE_CFG_EAGER = re.compile(r"\benforce_eager=(True|False)")
_RE_CUDAGRAPH = (
    re.compile(r"cudagraph_mode=(\w+)"),
    re.compile(r"'cudagraph_mode': <CUDAGraphMode\.(\w+)"),
)
_RE_DRAFTER_KIND = re.compile(r"Detected (MTP|EAGLE) model")
_RE_SPEC_METRICS = re.compile(r"SpecDecoding metrics: (.*)$")
# SpecDecodingSample fields after "SpecDecoding metrics:" (``Name: value`` separated by ``, ``); older builds lack some
_SPEC_FIELDS: tuple[LineFact, ...] = (
    (re.compile(r"Mean acceptance length: ([\d.]+)"), (("mean_acceptance_length", float),)),
    (re.compile(r"Accepted throughput: ([\d.]+) tokens/s"), (("accepted_throughput_tokens_per_s", float),)),
    (re.compile(r"Drafted throughput: ([\d.]+) tokens/s"), (("drafted_throughput_tokens_per_s", float),)),
    (re.compile(r"Accepted: (\d+) tokens"), (("accepted_tokens", int),)),
    (re.compile(r"Drafted: (\d+) tokens"), (("drafted_tokens", int),)),
    (re.compile(r"Rejected: (\d+) tokens"), (("rejected_tokens", int),)),
    (re.compile(r"Effective tokens/forward: ([\d.]+|nan)"), (("effective_tokens_per_forward", float),)),
    (
        re.compile(r"Per-position acceptance rate: ((?:[\d.]+(?:, )?)+)"),
        (("per_position_acceptance_rates", lambda text: [float(x) for x in text.rstrip(", ").split(", ")]),),
    ),
    (re.compile(r"(?:^|Avg )Draft acceptance rate: ([\d.]+|nan)%"), (("draft_acceptance_rate_percent", float),)),
)
_RE_V0_SPEC = re.compile(r"Speculative metrics: (.*)$")
# SpecCumulativeSample fields after V0's "Speculative metrics:"
_V0_SPEC_FIELDS: tuple[LineFact, ...] = (
    (re.compile(r"Draft acceptance rate: ([\d.]+|nan)"), (("draft_acceptance_rate", float),)),
    (re.compile(r"System efficiency: ([\d.]+|nan)"), (("system_efficiency", float),)),
    (re.compile(r"Number of speculative tokens: (\d+)"), (("num_spec_tokens", int),)),
    (re.compile(r"Number of accepted tokens: (\d+)"), (("accepted_tokens", int),)),
    (re.compile(r"Number of draft tokens: (\d+)"), (("draft_tokens", int),)),
    (re.compile(r"Number of emitted tokens: (\d+)"), (("emitted_tokens", int),)),
)


class SpecDecodingSample(BaseModel):
    """One periodic ``SpecDecoding metrics:`` line (vLLM logs one per ~10 s interval with drafts).

    Counts are for that interval only. ``per_position_acceptance_rates`` has one entry per draft position
    (length k), each in [0, 1]: accepted at position i / drafts. ``draft_acceptance_rate_percent`` is
    accepted / drafted * 100 (``Avg Draft acceptance rate``, or 0.8.x's leading ``Draft acceptance rate``). Fields
    absent from a build are None: ``mean_acceptance_length`` before PR #15902 (0.8.0-0.8.4); ``rejected_tokens`` and
    ``effective_tokens_per_forward`` are in vLLM main's line only (vllm/v1/spec_decode/metrics.py @ ee4ceaae).
    """

    model_config = ConfigDict(extra="forbid")

    line_number: int
    mean_acceptance_length: float | None = None
    accepted_throughput_tokens_per_s: float | None = None
    drafted_throughput_tokens_per_s: float | None = None
    accepted_tokens: int | None = None
    drafted_tokens: int | None = None
    rejected_tokens: int | None = None
    effective_tokens_per_forward: float | None = None
    per_position_acceptance_rates: list[float] = Field(default_factory=list)
    draft_acceptance_rate_percent: float | None = None


class SpecCumulativeSample(BaseModel):
    """One V0 ``Speculative metrics:`` line: totals since the engine started (vllm/engine/metrics.py, 0.6.x), so
    the last line of a log is its run's total and lines are never summed. ``draft_acceptance_rate`` (accepted /
    drafted) and ``system_efficiency`` (emitted / (drafts x (k + 1))) are V0's own derived figures, as logged."""

    model_config = ConfigDict(extra="forbid")

    line_number: int
    draft_acceptance_rate: float | None = None
    system_efficiency: float | None = None
    num_spec_tokens: int | None = None
    accepted_tokens: int | None = None
    draft_tokens: int | None = None
    emitted_tokens: int | None = None


class LogFacts(BaseModel):
    """Everything specscope reads from one vLLM log. Every field is None / empty when the log lacks it.

    Units are in the names: ``*_tokens`` token counts, ``*_gib`` GiB (2**30 bytes) as vLLM prints them,
    ``*_s`` seconds. ``architectures`` lists each ``Resolved architecture`` in log order without repeats
    (target first, an MTP drafter second). ``max_concurrency_requests`` is vLLM's "Maximum concurrency" figure:
    KV pool / ``max_concurrency_at_len_tokens``. ``speculative_config`` is a dict with ``method``, ``model``,
    ``num_speculative_tokens`` (from the engine config line, or from the non-default args), or None when the
    engine ran without speculation or the log does not say; ``speculative_config_source`` says which line said it
    (``engine config line`` / ``SpeculativeConfig repr`` / ``non-default args``; with a None config, that line said
    there is none), None when no line says. ``data_parallel_size`` is the non-default args' value and
    ``kv_dp_ranks`` the ``EngineCore_DPn`` ranks that logged a KV cache size (each engine has its own pool).
    ``spec_cumulative``: V0's cumulative lines (:class:`SpecCumulativeSample`). ``drafter_loaded`` is True when the
    log says ``Loading drafter model...`` (the CPU build says it for ngram too) or names an MTP / EAGLE drafter.
    ``stats``, ``block_size_tokens``, ``mamba_cache_mode``, ``hybrid_kv``, ``gpu_blocks``: see
    :mod:`specscope.launch.logstats`. ``sglang_spec_windows`` / ``sglang_speculative``: an SGLang log's decode-batch
    windows and speculative server args (:mod:`specscope.launch.sglang_log`).
    """

    model_config = ConfigDict(extra="forbid")

    vllm_version: str | None = None
    architectures: list[str] = Field(default_factory=list)
    max_model_len_tokens: int | None = None
    drafter_loaded: bool = False
    drafter_kind: str | None = None
    weights_loaded_gib: float | None = None
    model_loading_s: float | None = None
    weights_load_s: list[float] = Field(default_factory=list)
    available_kv_cache_memory_gib: float | None = None
    kv_cache_device: str | None = None
    kv_cache_size_tokens: int | None = None
    max_concurrency_at_len_tokens: int | None = None
    max_concurrency_requests: float | None = None
    estimated_max_model_len_tokens: int | None = None
    speculative_config: dict[str, Any] | None = None
    speculative_config_source: str | None = None
    data_parallel_size: int | None = None
    kv_dp_ranks: list[int] = Field(default_factory=list)
    kv_cache_dtype: str | None = None
    quantization: str | None = None
    dtype: str | None = None
    device: str | None = None
    enforce_eager: bool | None = None
    cudagraph_mode: str | None = None
    non_default_args: dict[str, Any] | None = None
    spec_decoding: list[SpecDecodingSample] = Field(default_factory=list)
    spec_cumulative: list[SpecCumulativeSample] = Field(default_factory=list)
    block_size_tokens: int | None = None
    mamba_cache_mode: str | None = None
    hybrid_kv: bool = False
    gpu_blocks: int | None = None
    stats: list[StatsSample] = Field(default_factory=list)
    sglang_spec_windows: list[SglangSpecWindow] = Field(default_factory=list)
    sglang_speculative: dict[str, Any] | None = None
    failures: list[FailureSignature] = Field(default_factory=list)

    def failure_codes(self) -> list[str]:
        """The ``code`` of each failure found, in log order."""
        return [f.code for f in self.failures]


def _parse_spec_metrics(body: str, line_number: int) -> SpecDecodingSample | None:
    """Parse the part after ``SpecDecoding metrics:``; fields are ``Name: value`` separated by ``, ``. A line with
    neither its counts (``Accepted`` and ``Drafted``) nor a mean acceptance length says nothing to pool: None."""
    fields = line_facts(_SPEC_FIELDS, body)
    counted = "accepted_tokens" in fields and "drafted_tokens" in fields
    if not counted and "mean_acceptance_length" not in fields:
        return None
    return SpecDecodingSample(line_number=line_number, **fields)


def _spec_from_repr(m: re.Match[str]) -> dict[str, Any]:
    """The speculative config a ``SpeculativeConfig(...)`` repr states (V1 method / model, or V0 draft_model)."""
    k = int(m.group(4))
    if m.group(3) is not None:  # V0: draft_model='ngram' for prompt lookup, else a draft model
        v0_model = m.group(3)
        method = "ngram" if v0_model == "ngram" else "draft_model"
        return {"method": method, "model": None if method == "ngram" else v0_model, "num_speculative_tokens": k}
    model = None if m.group(2) == "None" else m.group(2)[1:-1]
    return {"method": m.group(1), "model": model, "num_speculative_tokens": k}


def _literal_dict(text: str) -> dict[str, Any] | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _spec_from_args(args: dict[str, Any]) -> dict[str, Any] | None:
    spec = args.get("speculative_config")
    if isinstance(spec, str):
        spec = _literal_dict(spec.replace("true", "True").replace("false", "False").replace("null", "None"))
    if not isinstance(spec, dict):
        return None
    out = dict(spec)
    out.setdefault("model", None)
    return out


def _apply_args_and_stats(facts: LogFacts, lines: list[str]) -> None:
    """Fill what the engine line lacked from the non-default args; add the stats series and KV block layout."""
    args = facts.non_default_args or {}
    if args:
        if facts.max_model_len_tokens is None and isinstance(args.get("max_model_len"), int):
            facts.max_model_len_tokens = args["max_model_len"]
        if facts.kv_cache_dtype is None and isinstance(args.get("kv_cache_dtype"), str):
            facts.kv_cache_dtype = args["kv_cache_dtype"]
        if facts.enforce_eager is None and isinstance(args.get("enforce_eager"), bool):
            facts.enforce_eager = args["enforce_eager"]
        dp = args.get("data_parallel_size")
        if isinstance(dp, int) and not isinstance(dp, bool) and dp >= 1:
            facts.data_parallel_size = dp
    for key, value in parse_log_stats(lines).items():  # stats time series and KV block layout (logstats.py)
        setattr(facts, key, value)
    if facts.block_size_tokens is None and isinstance(args.get("block_size"), int):
        facts.block_size_tokens = args["block_size"]


def parse_vllm_log(text: str) -> LogFacts:
    """Parse a vLLM server log (any version seen in the fixtures, GPU or CPU build) into :class:`LogFacts`.

    Args:
        text: the whole log as text (lines separated by ``\\n``; a ``\\r`` inside a line is kept).

    Returns:
        LogFacts. Never raises for unknown lines: a log without any known line gives an all-empty LogFacts.
    """
    # split on "\n" only, so line numbers match editors and grep -n (progress bars use bare "\r")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    facts = LogFacts()
    spec_from_engine: dict[str, Any] | None = None
    spec_engine_seen: str | None = None  # which line stated the speculative config (None: no line did)
    for index, line in enumerate(lines):
        try:  # a line whose number cannot be read (5,000 digits, "1.2.3") gives no fact, never a crash
            number = index + 1
            if m := _RE_ARCH.search(line):
                if m.group(1) not in facts.architectures:
                    facts.architectures.append(m.group(1))
            if facts.max_model_len_tokens is None and (m := _RE_MAX_LEN.search(line)):
                facts.max_model_len_tokens = int(m.group(1))
            if "Loading drafter model" in line:
                facts.drafter_loaded = True
            if m := _RE_DRAFTER_KIND.search(line):
                facts.drafter_loaded = True
                facts.drafter_kind = m.group(1).lower()
            if m := _RE_WEIGHTS.search(line):
                facts.weights_load_s.append(float(m.group(1)))
            for key, value in line_facts(_LAST, line).items():
                setattr(facts, key, value)
            if m := _RE_SPEC_REPR.search(line):
                spec_from_engine = _spec_from_repr(m)
                spec_engine_seen = "SpeculativeConfig repr"
            if _RE_ENGINE_LINE.search(line):
                if _RE_SPEC_REPR.search(line) or _RE_SPEC_NONE.search(line):
                    spec_engine_seen = "engine config line"
                if _RE_SPEC_NONE.search(line):
                    spec_from_engine = None
                if facts.max_model_len_tokens is None and (m := _RE_V0_MAX_SEQ.search(line)):
                    facts.max_model_len_tokens = int(m.group(1))
                for regex, attr in _ENGINE_CONFIG:
                    if (m := regex.search(line)) and m.group(1) != "None":
                        setattr(facts, attr, m.group(1))
                if m := _RE_CFG_EAGER.search(line):
                    facts.enforce_eager = m.group(1) == "True"
            if m := _RE_NON_DEFAULT.search(line):
                facts.non_default_args = _literal_dict(m.group(1))
            for regex in _RE_CUDAGRAPH:
                for m in regex.finditer(line):
                    facts.cudagraph_mode = m.group(1).upper()
            if m := _RE_SPEC_METRICS.search(line):
                sample = _parse_spec_metrics(m.group(1), number)
                if sample is not None:
                    facts.spec_decoding.append(sample)
            if m := _RE_V0_SPEC.search(line):
                v0 = line_facts(_V0_SPEC_FIELDS, m.group(1))
                facts.spec_cumulative.append(SpecCumulativeSample(line_number=number, **v0))
            if _RE_KV_SIZE.search(line) and (m := _RE_DP_RANK.search(line)):
                if int(m.group(1)) not in facts.kv_dp_ranks:
                    facts.kv_dp_ranks.append(int(m.group(1)))
        except ValueError:
            continue
    if spec_engine_seen:
        facts.speculative_config = spec_from_engine
        facts.speculative_config_source = spec_engine_seen
    elif facts.non_default_args is not None:
        facts.speculative_config = _spec_from_args(facts.non_default_args)
        facts.speculative_config_source = "non-default args"
    _apply_args_and_stats(facts, lines)
    facts.sglang_spec_windows, facts.sglang_speculative = sglang_log_facts(lines)
    facts.failures = match_failures(lines)
    return facts


def read_vllm_log(path: str | Path) -> LogFacts:
    """Read a vLLM log file (UTF-8, undecodable bytes replaced) and parse it with :func:`parse_vllm_log`.

    Raises:
        ConfigError: the file does not exist or is not a regular file.
    """
    fix = "pass the path of a file holding vLLM's stdout/stderr"
    p = require_path(path, "vLLM log not found", expected="a readable vLLM server log file", fix=fix)
    return parse_vllm_log(p.read_bytes().decode("utf-8", errors="replace"))  # keep bare "\r" inside lines
