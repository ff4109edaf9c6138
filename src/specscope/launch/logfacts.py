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
  ``Rejected: N tokens, Effective tokens/forward: X, Proposer latency: ..., Verification latency: ...``. Every window
  is kept; :func:`specscope.launch.logstats.pooled_spec_windows` pools them.
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

__all__ = ["LogFacts", "SpecDecodingSample", "StatsSample", "parse_vllm_log", "read_vllm_log"]

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
            r"Initializing a V1 LLM engine \(v([^)\s]+)\)|vLLM API server version ([^\s,]+)|█ {2,}version (\d[^\s]*)"
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
_RE_SPEC_REPR = re.compile(
    r"speculative_config=SpeculativeConfig\(method='([^']*)', model=(None|'[^']*'), num_spec_tokens=(\d+)\)"
)
_RE_SPEC_NONE = re.compile(r"speculative_config=None")
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
_RE_MEAN_ACCEPTANCE = re.compile(r"Mean acceptance length: ([\d.]+)")
# SpecDecodingSample fields after "SpecDecoding metrics:" (``Name: value`` separated by ``, ``); older builds lack some
_SPEC_FIELDS: tuple[LineFact, ...] = (
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
    (re.compile(r"Avg Draft acceptance rate: ([\d.]+|nan)%"), (("draft_acceptance_rate_percent", float),)),
)


class SpecDecodingSample(BaseModel):
    """One periodic ``SpecDecoding metrics:`` line (vLLM logs one per ~10 s interval with drafts).

    Counts are for that interval only. ``per_position_acceptance_rates`` has one entry per draft position
    (length k), each in [0, 1]: accepted at position i / drafts. ``draft_acceptance_rate_percent`` is
    accepted / drafted * 100. Fields absent from older builds are None; ``rejected_tokens`` and
    ``effective_tokens_per_forward`` are in vLLM main's line only (vllm/v1/spec_decode/metrics.py @ ee4ceaae).
    """

    model_config = ConfigDict(extra="forbid")

    line_number: int
    mean_acceptance_length: float
    accepted_throughput_tokens_per_s: float | None = None
    drafted_throughput_tokens_per_s: float | None = None
    accepted_tokens: int | None = None
    drafted_tokens: int | None = None
    rejected_tokens: int | None = None
    effective_tokens_per_forward: float | None = None
    per_position_acceptance_rates: list[float] = Field(default_factory=list)
    draft_acceptance_rate_percent: float | None = None


class LogFacts(BaseModel):
    """Everything specscope reads from one vLLM log. Every field is None / empty when the log lacks it.

    Units are in the names: ``*_tokens`` token counts, ``*_gib`` GiB (2**30 bytes) as vLLM prints them,
    ``*_s`` seconds. ``architectures`` lists each ``Resolved architecture`` in log order without repeats
    (target first, an MTP drafter second). ``max_concurrency_requests`` is vLLM's "Maximum concurrency" figure:
    KV pool / ``max_concurrency_at_len_tokens``. ``speculative_config`` is a dict with ``method``, ``model``,
    ``num_speculative_tokens`` (from the engine config line, or from the non-default args), or None when the
    engine ran without speculation or the log does not say. ``drafter_loaded`` is True when the log says
    ``Loading drafter model...`` (the CPU build says it for ngram too) or names an MTP / EAGLE drafter.
    ``stats``, ``block_size_tokens``, ``mamba_cache_mode``, ``hybrid_kv``, ``gpu_blocks``: see
    :mod:`specscope.launch.logstats`.
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
    kv_cache_dtype: str | None = None
    quantization: str | None = None
    dtype: str | None = None
    device: str | None = None
    enforce_eager: bool | None = None
    cudagraph_mode: str | None = None
    non_default_args: dict[str, Any] | None = None
    spec_decoding: list[SpecDecodingSample] = Field(default_factory=list)
    block_size_tokens: int | None = None
    mamba_cache_mode: str | None = None
    hybrid_kv: bool = False
    gpu_blocks: int | None = None
    stats: list[StatsSample] = Field(default_factory=list)
    failures: list[FailureSignature] = Field(default_factory=list)

    def failure_codes(self) -> list[str]:
        """The ``code`` of each failure found, in log order."""
        return [f.code for f in self.failures]


def _parse_spec_metrics(body: str, line_number: int) -> SpecDecodingSample | None:
    """Parse the part after ``SpecDecoding metrics:``; fields are ``Name: value`` separated by ``, ``."""
    m = _RE_MEAN_ACCEPTANCE.search(body)
    if m is None:
        return None
    return SpecDecodingSample(
        line_number=line_number, mean_acceptance_length=float(m.group(1)), **line_facts(_SPEC_FIELDS, body)
    )


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
    spec_engine_seen = False
    for index, line in enumerate(lines):
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
        if "Initializing a V1 LLM engine" in line:
            spec_engine_seen = True
            if m := _RE_SPEC_REPR.search(line):
                model = None if m.group(2) == "None" else m.group(2)[1:-1]
                spec_from_engine = {"method": m.group(1), "model": model, "num_speculative_tokens": int(m.group(3))}
            elif _RE_SPEC_NONE.search(line):
                spec_from_engine = None
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
    if spec_engine_seen:
        facts.speculative_config = spec_from_engine
    elif facts.non_default_args is not None:
        facts.speculative_config = _spec_from_args(facts.non_default_args)
    _apply_args_and_stats(facts, lines)
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
