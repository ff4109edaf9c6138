"""vLLM's start-up, KV-cache, configuration and stats lines: what loaded, how big the KV cache is, how it runs.

The failure signatures and the file are read in :mod:`specscope.launch.logfacts` (through
:mod:`specscope.adapters.log_facts`).
Lines are matched by regex search anywhere in the line, so docker / compose prefixes
(``qwen3-1  | (VllmWorker rank=0 pid=105) INFO ...``) and timestamps do not matter.

Wordings handled, with their sources (see tests/data/SOURCES.md and the engine logs it lists):

- ``Resolved architecture: X`` (vllm/config/model.py); the MTP drafter appears as a second one.
- ``Model loading took 18.41 GiB memory and 10.177328 seconds`` (v0.20+) and the older
  ``Model loading took 14.2474 GiB and 558.868858 seconds`` (v0.8.5, fixture block D); the CPU build only has
  ``Loading weights took 1.29 seconds`` (issue 5), so ``weights_loaded_gib`` is None there. Up to 0.7 the
  model runners printed ``Loading model weights took 67.7229 GB`` (vllm PR #12569's log): bytes / 2**30
  (``model_memory_usage / float(2**30)``), so GiB whatever the label, read as ``weights_loaded_gib``.
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
- the stats and KV-layout lines (:func:`parse_log_stats`):

  - the periodic stats line of vllm/v1/metrics/loggers.py: ``Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg
    generation throughput: 35.2 tokens/s, Running: 21 reqs, Waiting: 21 reqs, GPU KV cache usage: 97.2%, Prefix cache
    hit rate: 0.0%`` (seed 000 quotes ``Running: 21 reqs, Waiting: 21 reqs, GPU KV cache usage: 97.2%`` as its capacity
    evidence); older builds say ``Pending: N reqs`` and ``GPU KV cache usage: 0.5%`` without the engine prefix.
  - ``Setting attention block size to 1584 tokens to ensure that attention page size is >= mamba page size`` (hybrid
    models; fixture vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log, seed 003 quotes 1568) and ``block_size`` in the
    non-default args.
  - ``Mamba cache mode is set to 'align'`` (same fixture) and ``Padding mamba page size by 0.51%`` (a hybrid pool).
  - ``# GPU blocks: 2345, # CPU blocks: 512`` (V0 engines) / ``num_gpu_blocks=N`` overrides: the pool in blocks.
  - The ``INFO 05-01 16:50:43`` time stamp vLLM puts after the level (``MM-DD HH:MM:SS``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.logs import (
    LineFact,
    StatsSample,
    count,
    fixed,
    fixed_signed,
    line_facts,
    line_unreadable,
    read_as,
    unreadable_line_number,
)
from specscope.adapters.vllm.logs import (
    RE_ENGINE_START,
    RE_SPEC_REPR,
    SpecCumulativeSample,
    SpecDecodingSample,
    literal_dict,
    spec_cumulative_sample,
    spec_decoding_sample,
    spec_from_args,
    spec_from_repr,
)
from specscope.redact import redact

__all__ = ["FACTS", "MISSING_LOG", "VllmLogFacts", "parse_log_stats", "read_facts"]

#: how ``specscope.launch.read_vllm_log`` names a log file that is not there: the message, what was expected and the
#: fix (the reader of a log's facts began as vLLM's; its words are kept)
MISSING_LOG = (
    "vLLM log not found",
    "a readable vLLM server log file",
    "pass the path of a file holding vLLM's stdout/stderr",
)

# each figure captured whole and read as vLLM prints it (%d, %.1f): "9.7e1%" is named unreadable, never dropped
_RE_STATS = re.compile(r"Running: (\S+) reqs?, (?:Waiting|Pending): (\S+) reqs?.*?(?:GPU )?KV cache usage: (\S+?)%")
#: vLLM's AggregatedLoggingStatLogger prefix (vllm/v1/metrics/loggers.py): running / waiting summed over the
#: data-parallel engines, KV cache usage their mean
_RE_AGGREGATED = re.compile(r"\b(\d+) Engines Aggregated: ")
_RE_PROMPT_TPUT = re.compile(r"Avg prompt throughput: (\S+) tokens/s")
_RE_GEN_TPUT = re.compile(r"Avg generation throughput: (\S+) tokens/s")
_RE_STAMP = re.compile(r"\b(?:INFO|WARNING|ERROR|DEBUG) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
_RE_HYBRID = re.compile(r"Mamba cache mode is set to|Padding mamba page size by")  # a mamba/linear-attention pool
_LAYOUT: tuple[LineFact, ...] = (  # the KV pool's block layout; the last line that says it wins
    (re.compile(r"Setting attention block size to (\d+) tokens"), (("block_size_tokens", int),)),
    (re.compile(r"Mamba cache mode is set to '(\w+)'"), (("mamba_cache_mode", str),)),
    (re.compile(r"# (?:GPU|cuda|CUDA) blocks: (\d+)|num_gpu_blocks_override=(\d+)"), (("gpu_blocks", int),)),
)


def _stamp_s(line: str) -> float | None:
    m = _RE_STAMP.search(line)
    if m is None:
        return None
    month, day, h, mi, s = (int(x) for x in m.groups())
    return ((month * 31 + day) * 24 + h) * 3600.0 + mi * 60 + s  # monotonic within a year; only differences count


def _stats_sample(line: str, number: int, t_s: float | None) -> StatsSample | None:
    """The stats line ``line``'s sample (None: not one).

    Raises:
        ValueError: a figure not printed vLLM's way (:func:`~specscope.adapters.logs.read_as`'s words).
    """
    m = _RE_STATS.search(line)
    if m is None:
        return None
    sample = StatsSample(
        line_number=number,
        t_s=t_s,
        running_reqs=read_as("running_reqs", count, m.group(1)),
        waiting_reqs=read_as("waiting_reqs", count, m.group(2)),
        kv_cache_usage_percent=read_as("kv_cache_usage_percent", fixed, m.group(3)),
    )
    if a := _RE_AGGREGATED.search(line):
        sample.engines_pooled = int(a.group(1))
    if p := _RE_PROMPT_TPUT.search(line):
        sample.prompt_throughput_tokens_per_s = read_as("prompt_throughput_tokens_per_s", fixed, p.group(1))
    if g := _RE_GEN_TPUT.search(line):
        sample.generation_throughput_tokens_per_s = read_as("generation_throughput_tokens_per_s", fixed, g.group(1))
    return sample


def parse_log_stats(lines: list[str]) -> dict[str, Any]:
    """LogFacts fields from ``lines``: ``stats`` (list of StatsSample), ``block_size_tokens``, ``mamba_cache_mode``,
    ``hybrid_kv`` (a mamba/linear-attention pool shares the blocks; None until the log shows it or its KV pool),
    ``gpu_blocks`` (pool size when logged) and ``unreadable_lines`` (``LOG_LINE_UNREADABLE`` per stats line whose
    figure is not printed vLLM's way: it gives no sample)."""
    out: dict[str, Any] = {"stats": [], "block_size_tokens": None, "mamba_cache_mode": None, "hybrid_kv": None}
    out["gpu_blocks"] = None
    out["unreadable_lines"] = []
    t0: float | None = None
    for index, line in enumerate(lines):
        try:  # a line whose number cannot be read (5,000 digits, "1.2.3") gives no fact, never a crash
            t = _stamp_s(line) if _RE_STATS.search(line) else None
            try:
                sample = _stats_sample(line, index + 1, None)
            except ValueError as exc:
                out["unreadable_lines"].append(line_unreadable(index + 1, exc))
                sample = None
            if sample is not None:
                if t is not None and t0 is None:
                    t0 = t
                sample.t_s = None if t is None or t0 is None else t - t0
                out["stats"].append(sample)
            out.update(line_facts(_LAYOUT, line))
            if _RE_HYBRID.search(line):
                out["hybrid_kv"] = True
        except ValueError:
            continue
    return out


_NUM = r"[\d,]+"

# LogFacts fields read from any line; the last line that says it wins. Each figure is captured whole and read as vLLM
# prints it (%.2f / %.4f / %.6f; {:,} counts; a memory figure can be negative), so "1e3 GiB" is named unreadable
# (LOG_LINE_UNREADABLE), never dropped unnamed nor read as a prefix
_LAST: tuple[LineFact, ...] = (
    (
        re.compile(r"Model loading took (\S+) GiB(?: memory)? and (\S+) seconds"),
        (("weights_loaded_gib", fixed_signed), ("model_loading_s", fixed)),
    ),
    (re.compile(r"Loading model weights took (\S+) GB\b"), (("weights_loaded_gib", fixed_signed),)),
    (
        re.compile(r"Available KV cache memory: (\S+) GiB|Auto set \(([^\s/]+)/[^\s)]+\) GiB for KV cache"),
        (("available_kv_cache_memory_gib", fixed_signed),),
    ),
    (
        re.compile(r"(\b[A-Z]+(?: \+ host)?) KV cache size: (\S+) tokens"),
        (("kv_cache_device", str), ("kv_cache_size_tokens", count)),
    ),
    (
        re.compile(r"Maximum concurrency for (\S+) tokens per request: (\S+?)x(?=[\s,.]|$)"),
        (("max_concurrency_at_len_tokens", count), ("max_concurrency_requests", fixed)),
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
        (("kv_cache_size_tokens", count),),
    ),
)
_WEIGHTS: tuple[LineFact, ...] = ((re.compile(r"Loading weights took (\S+) seconds"), (("weights_load_s", fixed),)),)
_RE_ARCH = re.compile(r"Resolved architecture: (\w+)")
_RE_MAX_LEN = re.compile(r"Using max model len (\d+)")
_RE_SPEC_NONE = re.compile(r"speculative_config=None")
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


class VllmLogFacts(BaseModel):
    """Everything specscope reads from one vLLM log but its failure signatures; None / empty when the log lacks it.

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
    log says ``Loading drafter model...`` (the CPU build says it for ngram too) or names an MTP / EAGLE drafter,
    False when a line says the engine runs without speculation, None when the log does not say (a log cut after the
    start, a build that does not print it: never False for silence).
    ``stats``, ``block_size_tokens``, ``mamba_cache_mode``, ``hybrid_kv``, ``gpu_blocks``: see
    :func:`parse_log_stats`. ``unreadable_lines``: ``LOG_LINE_UNREADABLE`` per start-up line whose figure is not
    printed vLLM's way (an exponent, ``1.2.3``): that line gives no fact.
    """

    model_config = ConfigDict(extra="forbid")

    vllm_version: str | None = None
    architectures: list[str] = Field(default_factory=list)
    max_model_len_tokens: int | None = None
    drafter_loaded: bool | None = None
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
    hybrid_kv: bool | None = None
    gpu_blocks: int | None = None
    stats: list[StatsSample] = Field(default_factory=list)
    unreadable_lines: list[str] = Field(default_factory=list)


def _apply_args_and_stats(facts: VllmLogFacts, lines: list[str]) -> None:
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
    for key, value in parse_log_stats(lines).items():  # stats time series and KV block layout
        if key == "unreadable_lines":  # beside the start-up lines', in line order
            value = sorted([*facts.unreadable_lines, *value], key=unreadable_line_number)
        setattr(facts, key, value)
    if facts.block_size_tokens is None and isinstance(args.get("block_size"), int):
        facts.block_size_tokens = args["block_size"]


def _read_figures(facts: VllmLogFacts, line: str, number: int) -> None:
    """The start-up figures of ``line`` (:data:`_LAST`, :data:`_WEIGHTS`) into ``facts``; a figure not printed vLLM's
    way gives the line no fact and is named (``unreadable_lines``)."""
    try:
        values, weights = line_facts(_LAST, line), line_facts(_WEIGHTS, line)
    except ValueError as exc:
        facts.unreadable_lines.append(line_unreadable(number, exc))
        return
    for key, value in values.items():
        setattr(facts, key, value)
    if "weights_load_s" in weights:
        facts.weights_load_s.append(weights["weights_load_s"])


def read_facts(lines: Sequence[str]) -> VllmLogFacts:
    """The vLLM facts of a server log's ``lines`` (any version seen in the fixtures, GPU or CPU build). Never raises
    for unknown lines: a log without any known line gives an all-empty :class:`VllmLogFacts`."""
    facts = VllmLogFacts()
    spec_from_engine: dict[str, Any] | None = None
    spec_engine_seen: str | None = None  # which line stated the speculative config (None: no line did)
    started = False  # an engine start line since the last V0 cumulative line
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
            _read_figures(facts, line, number)
            if m := RE_SPEC_REPR.search(line):
                spec_from_engine = spec_from_repr(m)
                spec_engine_seen = "SpeculativeConfig repr"
            if RE_ENGINE_START.search(line):
                started = True
                if RE_SPEC_REPR.search(line) or _RE_SPEC_NONE.search(line):
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
                facts.non_default_args = redact(literal_dict(m.group(1)))  # api_key: ['..', '..'] masked here
            for regex in _RE_CUDAGRAPH:
                for m in regex.finditer(line):
                    facts.cudagraph_mode = m.group(1).upper()
            if (sample := spec_decoding_sample(line, number)) is not None:
                facts.spec_decoding.append(sample)
            if (v0 := spec_cumulative_sample(line, number)) is not None:
                facts.spec_cumulative.append(v0.model_copy(update={"after_engine_start": started}))
                started = False
            if _RE_KV_SIZE.search(line) and (m := _RE_DP_RANK.search(line)):
                if int(m.group(1)) not in facts.kv_dp_ranks:
                    facts.kv_dp_ranks.append(int(m.group(1)))
        except ValueError:
            continue
    if spec_engine_seen:
        facts.speculative_config = spec_from_engine
        facts.speculative_config_source = spec_engine_seen
    elif facts.non_default_args is not None:
        facts.speculative_config = spec_from_args(facts.non_default_args)
        facts.speculative_config_source = "non-default args"
    if facts.drafter_loaded is None and facts.speculative_config_source and facts.speculative_config is None:
        facts.drafter_loaded = False  # a line said the engine runs without speculation: no drafter, a fact
    _apply_args_and_stats(facts, list(lines))
    if facts.hybrid_kv is None and (facts.kv_cache_size_tokens or facts.gpu_blocks):
        facts.hybrid_kv = False  # the KV pool was logged with no hybrid (mamba / linear-attention) line: a fact
    return facts


#: this engine's log-fact record (see :mod:`specscope.adapters.log_facts`)
FACTS = VllmLogFacts
