"""The fuzzed boundaries of issue 29: one seeded generator and one check per external shape specscope reads.

Each :class:`Boundary` turns a ``random.Random`` into a case (``bytes``: the raw input, so a crash is saved as a
corpus file and replayed by ``tests/fuzz/test_corpus.py``) and checks it through the boundary's public entry point.
A check passes when the entry point returns, or raises one of the boundary's documented exceptions (a
:class:`~specscope.errors.SpecscopeError`: exit 2 material); any other exception, and any JSON output that a strict
parser refuses, fails it (:class:`Finding`). ``tests/fuzz/runner.py`` drives them (``make fuzz``).

Generators are structure-aware (fields the parser reads, with values of every JSON type, huge and non-finite
numbers, deep nesting, control characters) and then mutated byte-wise (:func:`tests.fuzz.strategies.mutate`).
"""

from __future__ import annotations

import json
import random
import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope.errors import SpecscopeError

try:
    from .strategies import mutate
except ImportError:  # run as a script (tests/fuzz/runner.py puts this folder on sys.path)
    from strategies import mutate  # type: ignore[no-redef]


class Finding(Exception):
    """A check that failed: ``kind`` is ``uncaught`` or ``invalid_json``; ``detail`` says what."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def strict_json(text: str, what: str) -> Any:
    """``text`` parsed by a strict JSON parser (no NaN / Infinity); a refusal is an ``invalid_json`` finding."""

    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")

    try:
        return json.loads(text, parse_constant=refuse)
    except ValueError as exc:
        raise Finding("invalid_json", f"{what}: {exc}") from None


@dataclass(frozen=True)
class Boundary:
    """One fuzzed boundary: ``make(rnd) -> bytes`` and ``check(case)`` (raises :class:`Finding` on a failure)."""

    name: str
    make: Callable[[random.Random], bytes]
    check: Callable[[bytes], None]
    owner: str = "i29"


def _guard(call: Callable[[], Any], allowed: tuple[type[BaseException], ...] = (SpecscopeError,)) -> Any:
    """``call()``; an exception outside ``allowed`` becomes an ``uncaught`` finding naming its type and place."""
    try:
        return call()
    except allowed:
        return None
    except Finding:
        raise
    except RecursionError as exc:
        raise Finding("uncaught", f"RecursionError: {str(exc)[:80]}") from exc
    except Exception as exc:  # noqa: BLE001 - every other exception is the finding
        import traceback

        tb = traceback.extract_tb(exc.__traceback__)
        where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb) if "specscope" in f.filename), "?")
        raise Finding("uncaught", f"{type(exc).__name__} at {where}: {str(exc)[:80]}") from exc


# -- value pools ---------------------------------------------------------------------------------------------------
NASTY_NUMBERS = [0, -1, 1, 2**31, 2**63, -(2**63), 10**30, 1.5, -0.0, 1e308, "1e400", "NaN", "Infinity", "-Infinity"]
NASTY_TEXT = ["", "x", "\x00", "\x1b]0;t\x07", "\u2028", "\ufeff", "é" * 3, "a" * 300, "null", "{", "9" * 50]


def _raw(v: Any) -> str:
    """A JSON literal for ``v`` (strings in NASTY_NUMBERS are bare tokens: NaN, 1e400)."""
    return v if isinstance(v, str) and v in ("1e400", "NaN", "Infinity", "-Infinity") else json.dumps(v)


def any_json(rnd: random.Random, depth: int = 0) -> str:
    """A JSON value of any type as text (numbers huge / non-finite sometimes, nesting up to a few levels)."""
    kind = rnd.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return _raw(rnd.choice(NASTY_NUMBERS))
    if kind == 1:
        return json.dumps(rnd.choice(NASTY_TEXT))
    if kind == 2:
        return rnd.choice(["true", "false", "null"])
    if kind == 3:
        return str(rnd.randrange(-5, 200))
    if kind == 4:
        return json.dumps(rnd.random())
    if kind == 5:
        return "[" + ",".join(any_json(rnd, depth + 1) for _ in range(rnd.randrange(4))) + "]"
    if kind == 6:
        keys = ["a", "content", "text", "0", "value"]
        return "{" + ",".join(f'"{rnd.choice(keys)}":{any_json(rnd, depth + 1)}' for _ in range(rnd.randrange(4))) + "}"
    n = rnd.randrange(1, 3000)
    return "[" * n + "]" * n


def obj(rnd: random.Random, fields: dict[str, Callable[[random.Random], str]], p_any: float = 0.3) -> str:
    """A JSON object with a random subset of ``fields`` (each value from its maker, or any JSON with ``p_any``)."""
    parts = []
    for name, maker in fields.items():
        if rnd.random() < 0.7:
            value = any_json(rnd) if rnd.random() < p_any else maker(rnd)
            parts.append(f"{json.dumps(name)}:{value}")
    return "{" + ",".join(parts) + "}"


def _mutated(data: bytes, rnd: random.Random, p: float = 0.5) -> bytes:
    """``data`` with 1-3 stacked random mutations, with probability ``p``."""
    if rnd.random() < p:
        for _ in range(rnd.randrange(1, 4)):
            data = mutate(data, rnd)
    return data


def _tmpdir() -> Path:
    """A per-process scratch folder for boundaries that read files."""
    global _TMP
    if _TMP is None:
        _TMP = Path(tempfile.mkdtemp(prefix="specscope-fuzz-"))
    return _TMP


_TMP: Path | None = None


# -- 1. SSE events (client/parse.py: i30-client) ---------------------------------------------------------------------
def _chunk(rnd: random.Random) -> str:
    delta = obj(
        rnd,
        {
            "content": lambda r: json.dumps(r.choice(["a", "", " b", "é"])),
            "role": lambda r: '"assistant"',
            "reasoning_content": lambda r: '"t"',
        },
    )
    choice = obj(
        rnd,
        {
            "delta": lambda r: delta,
            "finish_reason": lambda r: r.choice(['"stop"', '"length"', "null", "[1]", "{}"]),
            "index": lambda r: "0",
        },
    )
    usage = obj(rnd, {"completion_tokens": lambda r: _raw(r.choice(NASTY_NUMBERS)), "prompt_tokens": lambda r: "3"})
    return obj(
        rnd,
        {
            "choices": lambda r: "[" + ",".join(choice for _ in range(r.randrange(1, 3))) + "]",
            "usage": lambda r: usage,
            "timings": lambda r: obj(r, {"draft_n": lambda q: "4", "draft_n_accepted": lambda q: "2"}),
        },
    )


def make_sse(rnd: random.Random) -> bytes:
    lines = []
    for _ in range(rnd.randrange(1, 12)):
        k = rnd.randrange(10)
        if k < 7:
            lines.append("data: " + _chunk(rnd))
        elif k == 7:
            lines.append("data: [DONE]")
        elif k == 8:
            lines.append(rnd.choice([":", "event: error", "retry: x", "id: 1", "data:", "data: " + any_json(rnd)]))
        else:
            lines.append("")
        lines.append("")
    return _mutated("\n".join(lines).encode(), rnd, 0.3)


def check_sse(case: bytes) -> None:
    from specscope.client.parse import RawCapture, parse_capture

    rnd = random.Random(case)
    cuts = sorted({rnd.randrange(len(case) + 1) for _ in range(rnd.randrange(4))})
    bounds = [0, *cuts, len(case)]
    chunks = [(1000 * (i + 1), case[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))]
    raw = RawCapture("p", 0, 0, http_status=200, chunks=chunks, end_ns=10**7, max_tokens=rnd.choice([None, 8]))
    record = _guard(lambda: parse_capture(raw), ())
    if record.status not in ("ok", "degraded", "failed"):
        raise Finding("uncaught", f"status {record.status!r}")


# -- 2. per-request metrics (client/spec_fields.py: i26-engines) -------------------------------------------------------
def make_per_request(rnd: random.Random) -> bytes:
    def num(r: random.Random) -> str:
        return _raw(r.choice(NASTY_NUMBERS))

    def nums(r: random.Random) -> str:
        return "[" + ",".join(num(r) for _ in range(r.randrange(4))) + "]"

    def hist(r: random.Random) -> str:  # dense list, or a map with string keys (the per-choice shape)
        return (
            nums(r)
            if r.random() < 0.5
            else "{" + ",".join(f'"{r.choice(["0", "1", "x", "-1"])}":{num(r)}' for _ in range(2)) + "}"
        )

    vllm = {
        "num_draft_tokens": num,
        "num_accepted_draft_tokens": num,
        "num_spec_steps": num,
        "num_spec_tokens": num,
        "acceptance_histogram": hist,
        "per_step_accepted": nums,
        "per_step_drafted": nums,
        "mean_acceptance_length": num,
        "draft_acceptance_rate": num,
    }
    trt = {
        "total_accepted_draft_tokens": num,
        "total_draft_tokens": num,
        "num_spec_steps": num,
        "acceptance_histogram": hist,
        "num_spec_tokens": num,
        "acceptance_rate": num,
    }
    sglang = {
        "spec_verify_ct": num,
        "spec_draft_token_num": num,
        "spec_accept_token_num": num,
        "spec_accepted_drafts": num,
        "spec_proposed_drafts": num,
        "spec_num_correct_drafts": num,
        "spec_num_proposed_drafts": num,
        "spec_accept_histogram": hist,
        "spec_correct_drafts_histogram": hist,
    }
    choice = {
        "speculative_decoding_stats": lambda r: obj(r, vllm),
        "speculative_decoding": lambda r: obj(r, trt),
        "meta_info": lambda r: obj(r, sglang),
        "index": num,
    }
    text = obj(
        rnd,
        {
            "timings": lambda r: obj(r, {"draft_n": num, "draft_n_accepted": num, "predicted_n": num}),
            "metrics": lambda r: obj(r, {"speculative_decoding": lambda q: obj(q, vllm), "queue_time_ms": num}),
            "meta_info": lambda r: obj(r, sglang),
            "sglext": lambda r: obj(r, {"spec_tokens_details": lambda q: obj(q, sglang)}),
            "choices": lambda r: "[" + ",".join(obj(r, choice) for _ in range(r.randrange(3))) + "]",
            "usage": lambda r: obj(r, {"completion_tokens_details": lambda q: obj(q, {"reasoning_tokens": num})}),
        },
    )
    return _mutated(text.encode(), rnd, 0.2)


def check_per_request(case: bytes) -> None:
    from specscope.client.spec_fields import merge_spec, per_response_queue_s, read_spec
    from specscope.strictjson import dumps_strict

    try:  # decoded as the client decodes a chunk (client/parse.py: orjson, which refuses NaN and 1e400)
        import orjson

        value = orjson.loads(case)
    except ImportError:
        value = json.loads(case)
    except (ValueError, RecursionError):
        return  # not JSON: the SSE boundary refuses it before these readers see it
    if not isinstance(value, dict):
        return
    _guard(lambda: per_response_queue_s(value), ())
    spec = _guard(lambda: read_spec(value), ())
    if spec is not None:
        both = _guard(lambda: merge_spec(spec, spec), ())
        for s in (spec, both):
            if s is not None:
                strict_json(_guard(lambda s=s: dumps_strict(s.to_dict()), ()), "per-request spec record")


# -- 3. /metrics text (client/metrics.py, stats/counters_doc.py) ---------------------------------------------------
_METRICS = [
    "vllm:spec_decode_num_drafts_total",
    "vllm:spec_decode_num_draft_tokens_total",
    "vllm:spec_decode_num_accepted_tokens_total",
    "vllm:spec_decode_num_accepted_tokens_per_pos_total",
    "vllm:generation_tokens_total",
    "vllm:prompt_tokens_total",
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "llamacpp:tokens_predicted_total",
    "llamacpp:n_drafted_total",
    "sglang:generation_tokens_total",
]
_VALUES = ["1", "0", "-1", "NaN", "+Inf", "-Inf", "1e400", "0x10", "", "abc", "1" * 400, "3.5", "1e-300", "12"]


def make_metrics(rnd: random.Random) -> bytes:
    lines = []
    for _ in range(rnd.randrange(0, 14)):
        k = rnd.randrange(6)
        name = rnd.choice(_METRICS)
        if k < 4:
            labels = rnd.choice(
                ["", '{engine="0"}', '{engine="1"}', '{position="0"}', '{position="-1"}', '{position="x"}', "{a=}"]
            )
            lines.append(f"{name}{labels} {rnd.choice(_VALUES)}")
        elif k == 4:
            lines.append(f"# TYPE {name} {rnd.choice(['counter', 'gauge', 'histogram', 'x'])}")
        else:
            lines.append(f"{name.removesuffix('_total')}_created {rnd.choice(_VALUES)}")
    return _mutated("\n".join(lines).encode(), rnd, 0.3)


def check_metrics(case: bytes) -> None:
    from specscope.client.metrics import parse_metrics
    from specscope.stats.counters_doc import counters_doc, counters_text
    from specscope.strictjson import dumps_strict

    text = case.decode("utf-8", "replace")
    snap = _guard(lambda: parse_metrics(text))
    if snap is None:
        return
    base = parse_metrics("vllm:spec_decode_num_drafts_total 1\nvllm:spec_decode_num_draft_tokens_total 2\n")
    for before, after in ((base, snap), (snap, snap)):
        doc = _guard(lambda before=before, after=after: counters_doc(before, after), ())
        _guard(lambda doc=doc: counters_text(doc), ())
        strict_json(_guard(lambda doc=doc: dumps_strict(doc, indent=2), ()), "counters -f json")


# -- 4. server log lines (launch/logfacts.py, logstats.py, failures.py: i26-engines) -------------------------------
_LOG_LINES = [
    "INFO 01-01 00:00:00 [loader.py:1] Model loading took {f} GiB and {f} seconds",
    "INFO [kv_cache_utils.py:1] GPU KV cache size: {n} tokens",
    "INFO [kv_cache_utils.py:1] Maximum concurrency for {n} tokens per request: {f}x",
    "INFO [gpu_worker.py:1] Available KV cache memory: {f} GiB",
    "INFO [metrics.py:1] SpecDecoding metrics: Mean acceptance length: {f}, Accepted throughput: {f} tokens/s, "
    "Drafted throughput: {f} tokens/s, Accepted: {n} tokens, Drafted: {n} tokens, Per-position acceptance rate: "
    "{f}, {f}, Avg Draft acceptance rate: {f}%",
    "INFO [loggers.py:1] Engine 000: Avg prompt throughput: {f} tokens/s, Avg generation throughput: {f} tokens/s, "
    "Running: {n} reqs, Waiting: {n} reqs, GPU KV cache usage: {f}%, Prefix cache hit rate: {f}%",
    "INFO [utils.py:1] non-default args: {{'model': 'm', 'max_model_len': {n}, 'speculative_config': {{'method': "
    "'mtp', 'num_speculative_tokens': {n}}}, 'kv_cache_dtype': 'fp8', 'block_size': {n}}}",
    "INFO [core.py:1] Initializing a V1 LLM engine (v0.1) with config: model='m', speculative_config="
    "SpeculativeConfig(method='mtp', model=None, num_spec_tokens={n}), kv_cache_dtype=auto, quantization=fp8, "
    "enforce_eager=True, dtype=torch.bfloat16",
    "INFO Using max model len {n}",
    "INFO Resolved architecture: Qwen3ForCausalLM",
    "INFO estimated maximum model length is {n}",
    "ERROR EngineDeadError: Engine core died",
    "ERROR torch.OutOfMemoryError: CUDA out of memory",
    "WARNING Following weights were not initialized from checkpoint: {{'mtp.fc.weight'}}",
]


def make_log(rnd: random.Random) -> bytes:
    def fill(template: str) -> str:
        out = template
        while "{f}" in out or "{n}" in out:
            v = rnd.choice(["1.5", "nan", "1e400", "-3", "9" * rnd.choice([2, 30, 400, 5000]), "0", "447,637"])
            out = out.replace("{f}" if "{f}" in out else "{n}", v, 1)
        return out.replace("{{", "{").replace("}}", "}")

    lines = [fill(rnd.choice(_LOG_LINES)) for _ in range(rnd.randrange(1, 10))]
    return _mutated("\n".join(lines).encode(), rnd, 0.3)


def check_log(case: bytes) -> None:
    from specscope.launch import parse_vllm_log
    from specscope.launch.failures import match_failures
    from specscope.launch.logstats import parse_log_stats

    text = case.decode("utf-8", "replace")
    lines = text.split("\n")
    facts = _guard(lambda: parse_vllm_log(text))
    _guard(lambda: parse_log_stats(lines))
    _guard(lambda: match_failures(lines))
    if facts is not None:
        strict_json(_guard(lambda: facts.model_dump_json(), ()), "log facts")


# -- 5. workload rows (workload/userfile.py) --------------------------------------------------------------------------
def make_workload(rnd: random.Random) -> bytes:
    def turn(r: random.Random) -> str:
        return obj(r, {"role": lambda q: '"user"', "content": lambda q: '"hi"'})

    def share(r: random.Random) -> str:
        return obj(r, {"from": lambda q: '"human"', "value": lambda q: '"hi"'})

    lines = []
    for _ in range(rnd.randrange(1, 5)):
        k = rnd.randrange(5)
        if k == 0:
            lines.append(obj(rnd, {"messages": lambda r: "[" + ",".join(turn(r) for _ in range(r.randrange(3))) + "]"}))
        elif k == 1:
            lines.append(obj(rnd, {"conversations": lambda r: "[" + share(r) + "," + share(r) + "]"}))
        elif k == 2:
            lines.append(
                obj(
                    rnd,
                    {
                        "prompt": lambda r: json.dumps(r.choice(NASTY_TEXT + ["a\u2028b", "x\x85y"])),
                        "max_tokens": lambda r: _raw(r.choice(NASTY_NUMBERS)),
                        "category": lambda r: json.dumps(r.choice(NASTY_TEXT)),
                    },
                )
            )
        elif k == 3:
            lines.append(rnd.choice(["plain prompt", "a\x0cb\x85c", " ", "[1]", "{"]))
        else:
            lines.append(any_json(rnd))
    sep = rnd.choice(["\n", "\r\n", "\u2028", "\x0c"])
    return _mutated((rnd.choice(["", "\ufeff"]) + sep.join(lines)).encode(), rnd, 0.3)


def check_workload(case: bytes) -> None:
    from specscope.workload.userfile import load_prompt_file

    path = _tmpdir() / "prompts.jsonl"
    path.write_bytes(case)
    prompts = _guard(lambda: load_prompt_file("mine", path))
    for p in prompts or ():
        if not any(m["role"] == "user" and isinstance(m["content"], str) for m in p.messages):
            raise Finding("uncaught", f"prompt without a user turn: {p.messages!r:.80}")
    first = (prompts or [None])[0]
    if case.startswith(b"\xef\xbb\xbf{") and first is not None and first.messages[0]["content"].startswith("\ufeff{"):
        raise Finding("uncaught", "a byte-order mark and the raw JSON line sent as the prompt")


# -- 6. run-folder rows (store/schema.py, then stats.cells) -----------------------------------------------------------
_ROW_COLUMNS = ["config", "workload", "concurrency", "repeat", "crashed", "reasons_json", "start_ns", "end_ns"]
_JSON_COLUMNS = ["before_json", "after_json", "client_json", "record_json", "samples_json", "facts_json"]


def _good_row() -> dict[str, Any]:
    from specscope.records import SpecCounters, StreamRecord

    rec = StreamRecord("p", 0, 0, 10, 10, 90, 100, 3, 0, 8, 4, "usage", "length", "ok", None, 200)
    counters = SpecCounters(
        drafts=4, draft_tokens=8, accepted_tokens=5, accepted_per_position=(3, 2), present=frozenset({"spec"})
    )
    return {
        "config": "base",
        "workload": "prose",
        "concurrency": 1,
        "repeat": 0,
        "crashed": 0,
        "reasons_json": "[]",
        "start_ns": 0,
        "end_ns": 100,
        "before_json": json.dumps(SpecCounters(present=frozenset({"spec"})).to_dict()),
        "after_json": json.dumps(counters.to_dict()),
        "client_json": json.dumps({"self_check": {"client_limited": None}}),
        "record_json": json.dumps(rec.to_dict()),
        "samples_json": "[[0, 1, 0], [50, 1, 0, 0.5, 1]]",
        "facts_json": json.dumps({"log_facts": {"kv_cache_size_tokens": 10}, "command_line": "x"}),
    }


def make_run_row(rnd: random.Random) -> bytes:
    row = _good_row()
    for _ in range(rnd.randrange(1, 4)):
        column = rnd.choice(_ROW_COLUMNS + _JSON_COLUMNS)
        if column in _JSON_COLUMNS and rnd.random() < 0.6:  # one field inside the JSON changed
            try:
                inner = json.loads(row[column])
            except (ValueError, TypeError, RecursionError):
                continue
            if isinstance(inner, dict) and inner:
                key = rnd.choice(sorted(inner))
                row[column] = json.dumps(inner).replace(
                    json.dumps(key) + ": " + json.dumps(inner[key]), json.dumps(key) + ": " + any_json(rnd), 1
                )
                continue
            row[column] = any_json(rnd)
        elif rnd.random() < 0.5:
            row[column] = rnd.choice(NASTY_NUMBERS + NASTY_TEXT + [None, b"\x00\xff"])
        else:
            row[column] = any_json(rnd)
    data = json.dumps({k: (v.hex() if isinstance(v, bytes) else v) for k, v in row.items()}).encode()
    return _mutated(data, rnd, 0.1)


def check_run_row(case: bytes) -> None:
    from specscope.records import CellResult
    from specscope.stats.cells import summarize_cell
    from specscope.store.schema import CELL_COLUMNS, cell_from_row, facts_from_json, gauges_from_json, stream_from_json
    from specscope.strictjson import dumps_strict

    try:
        row = json.loads(case)
    except (ValueError, RecursionError):
        return
    if not isinstance(row, dict):
        return
    good = _good_row()
    columns = [c.strip() for c in CELL_COLUMNS[2].split(",")]
    values = tuple(row.get(c, good[c]) for c in columns)
    stream = _guard(lambda: stream_from_json(row.get("record_json", good["record_json"]), 2))
    _guard(lambda: gauges_from_json(row.get("samples_json", good["samples_json"]), 2))
    _guard(lambda: facts_from_json(row.get("facts_json", good["facts_json"]), 2, "server_facts"))
    cell: CellResult | None = _guard(lambda: cell_from_row(values, (stream,) if stream else (), 2))
    if cell is None:
        return
    summary = _guard(lambda: summarize_cell(cell), ())
    text = _guard(lambda: dumps_strict(_asdict(summary), default=str), ())
    strict_json(text, "cell summary")


def _asdict(value: Any) -> Any:
    import dataclasses

    return dataclasses.asdict(value)


# -- 7. CLI arguments (specscope.cli.main) -----------------------------------------------------------------------------
_CLI_VALUES = [
    "",
    "0",
    "-1",
    "1",
    "nan",
    "inf",
    "1e400",
    "9" * 50,
    "a=b=c",
    "1,,2",
    ",",
    "x" * 200,
    "\x1b[2J",
    "base=1",
    "prose=0.5,code=0.5",
    "1=0.6,4=0.4",
    "17.61GB",
    "273GB/s",
    "0.5",
    "NaN%",
    "{DEEP}",
    "{CSV}",
    "{PROM}",
    "{RUN}",
    "{NOWHERE}",
]
# files only ever read (never a value of an option that names something to write: /dev/zero must stay a device)
_CLI_READ = ["{PROM}", "{FIFO}", "{ZERO}", "{DEEP}", "{NOWHERE}", "{CSV}"]
# command -> (weight, options); the report, advise and bench forms cost 10-60 ms a case (a report's statistics,
# httpx's TLS context), so they get a smaller share of the cases than the parsers of numbers, sizes and files
_CLI_COMMANDS: dict[str, tuple[int, list[str]]] = {
    "counters {READ} {READ}": (20, ["-f", "--format", "--max-bytes", "--timeout"]),
    "counters": (2, ["-f"]),
    "predict": (
        22,
        [
            "--per-position",
            "--bytes-per-step",
            "--draft-bytes",
            "--bandwidth",
            "--measured",
            "--max-k",
            "--fit-k",
            "--compare",
            "--lm-head-bytes",
            "--overhead",
            "-f",
        ],
    ),
    "advise --from-csv {CSV} -f json": (6, ["--level-mix", "--mix", "--acceptance"]),
    "advise {RUN} -f json": (8, ["--mix", "--level-mix", "--acceptance", "--baseline"]),
    "report {RUN} -f json": (5, ["--baseline"]),  # the text form is rich's layout (~0.3 s a report), not a parser
    "report": (2, []),
    "audit {NOWHERE}": (10, ["-f", "--bandwidth", "--draft"]),
    "audit {DEEP}": (10, ["-f", "--strict"]),
    "bench --server base=http://127.0.0.1:9 --out {OUT}": (
        5,
        [
            "--max-concurrency",
            "--repeats",
            "--max-tokens",
            "--workloads",
            "--configs",
            "--request-rate",
            "--slo",
            "--target-ci",
            "--temperature",
            "--k",
            "--read-timeout",
            "--api-key",
            "--workload",
            "--crash-trials",
            "--baseline",
        ],
    ),
    "bench --resume {RUN} -f json": (
        4,
        ["--max-concurrency", "--request-rate", "--profile", "--target-ci", "--baseline", "--workload"],
    ),
}


def make_cli(rnd: random.Random) -> bytes:
    names = sorted(_CLI_COMMANDS)
    command = rnd.choices(names, weights=[_CLI_COMMANDS[n][0] for n in names])[0]
    argv = [rnd.choice(_CLI_READ) if a == "{READ}" else a for a in command.split()]
    options = _CLI_COMMANDS[command][1]
    for _ in range(rnd.randrange(0, 5)):
        if options and rnd.random() < 0.85:
            argv += [rnd.choice(options), rnd.choice(_CLI_VALUES)]
        else:
            argv.append(rnd.choice(_CLI_VALUES + ["--help", "--nope", "-"]))
    return json.dumps(argv).encode()


def _cli_files() -> dict[str, str]:
    """Placeholders of the CLI boundary -> paths made once per process (a FIFO, /dev/zero, a deep JSON file...)."""
    import os

    root = _tmpdir() / "cli"
    if not root.exists():
        root.mkdir()
        os.mkfifo(root / "fifo")
        (root / "deep").mkdir()
        (root / "deep" / "config.json").write_text('{"a":' + "[" * 3000 + "]" * 3000 + "}")
        header = json.dumps({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
        (root / "deep" / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
        (root / "cells.csv").write_text(
            "config,workload,concurrency,repeat,output_tok_s\nbase,prose,1,0,50\nmtp,prose,1,0,90\n"
        )
        (root / "a.prom").write_text("vllm:spec_decode_num_drafts_total 5\nvllm:spec_decode_num_draft_tokens_total 9\n")
        from run_damage import small_run  # tests/ is on sys.path (pytest rootdir, or the runner)

        small_run(root / "run")
    return {
        "{FIFO}": str(root / "fifo"),
        "{ZERO}": "/dev/zero",
        "{DEEP}": str(root / "deep"),
        "{CSV}": str(root / "cells.csv"),
        "{PROM}": str(root / "a.prom"),
        "{RUN}": str(root / "run"),
        "{NOWHERE}": str(root / "nowhere"),
        "{OUT}": str(root / "out"),
    }


_COMMAND: Any = None


def _click_command() -> Any:
    """specscope's typer app as the click command ``specscope.cli.main`` runs (built once per process)."""
    global _COMMAND
    if _COMMAND is None:
        import typer.main

        from specscope.cli import app

        _COMMAND = typer.main.get_command(app)
    return _COMMAND


def check_cli(case: bytes) -> None:
    import contextlib
    import io
    import os

    from specscope.cli.crash import run_guarded

    try:
        argv = json.loads(case)
    except (ValueError, RecursionError):
        return
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or not argv:
        return
    files = _cli_files()
    argv = [files.get(a, a) for a in argv]
    crash = _tmpdir() / "crash"
    os.environ["SPECSCOPE_CRASH_DIR"] = str(crash)
    os.environ.pop("SPECSCOPE_DEBUG", None)
    out, err = io.StringIO(), io.StringIO()
    code: Any = None
    command = _click_command()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:  # what specscope.cli.main runs, with typer's click command built once (it costs ~20 ms a call)
            code = run_guarded(lambda: command.main(args=argv, prog_name="specscope", standalone_mode=False), argv=argv)
        except SystemExit as exc:
            code = exc.code
    if code == 3 or (crash.exists() and any(crash.iterdir())):
        for p in crash.iterdir():
            p.unlink()
        raise Finding("uncaught", f"exit 3 for {argv!r:.120}: {err.getvalue()[-160:]}")
    if code not in (0, 1, 2, None):
        raise Finding("uncaught", f"exit {code!r} for {argv!r:.120}")
    if code in (0, None) and "json" in argv and "--help" not in argv and out.getvalue().strip():
        strict_json(out.getvalue(), f"stdout of {argv!r:.80}")


class MemorySource:
    """A checkpoint held in memory (file name -> bytes): the ByteSource surface, nothing on disk."""

    label = "mem"

    def __init__(self, files: dict[str, bytes]):
        self._files = files

    def files(self) -> dict[str, int]:
        return {k: len(v) for k, v in self._files.items()}

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
        return self._files[name][start_bytes : start_bytes + length_bytes]

    def read_json(self, name: str) -> object | None:
        from specscope.checkpoint.safefiles import decode_json

        raw = self._files.get(name)
        return None if raw is None else decode_json(raw, self.label, name)


# -- 8. checkpoint JSON and safetensors headers (checkpoint/*, audit: i27-checkpoints) ------------------------------
def make_checkpoint(rnd: random.Random) -> bytes:
    header = obj(
        rnd,
        {
            "model.layers.0.mlp.down_proj.weight": lambda r: obj(
                r,
                {
                    "dtype": lambda q: json.dumps(q.choice(["F32", "BF16", "U8", "F8_E4M3", "XX"])),
                    "shape": lambda q: (
                        "[" + ",".join(_raw(q.choice(NASTY_NUMBERS)) for _ in range(q.randrange(3))) + "]"
                    ),
                    "data_offsets": lambda q: f"[0,{q.choice([4, 8, 2**64, -1])}]",
                },
            ),
            "mtp.fc.weight": lambda r: '{"dtype":"F32","shape":[1],"data_offsets":[4,8]}',
            "__metadata__": lambda r: obj(r, {"format": lambda q: '"pt"'}),
        },
    ).encode()
    config = obj(
        rnd,
        {
            "architectures": lambda r: '["Qwen3ForCausalLM"]',
            "num_hidden_layers": lambda r: _raw(r.choice(NASTY_NUMBERS)),
            "mtp_num_hidden_layers": lambda r: _raw(r.choice([1, 2, 10**9, -1, "NaN"])),
            "quantization_config": lambda r: obj(
                r, {"quant_method": lambda q: '"modelopt"', "ignore": lambda q: '["lm_head"]'}
            ),
        },
    ).encode()
    files = {
        "config.json": _mutated(config, rnd, 0.3).hex(),
        "model.safetensors": _mutated(struct.pack("<Q", len(header)) + header + b"\0" * 8, rnd, 0.3).hex(),
    }
    return json.dumps(files).encode()


def check_checkpoint(case: bytes) -> None:
    from specscope.audit import audit_checkpoint
    from specscope.checkpoint import parse_header
    from specscope.strictjson import dumps_strict

    try:
        files = {k: bytes.fromhex(v) for k, v in json.loads(case).items()}
    except (ValueError, AttributeError, TypeError, RecursionError):
        return
    shard = files.get("model.safetensors", b"")
    _guard(lambda: parse_header(shard, len(shard)))
    report = _guard(lambda: audit_checkpoint(MemorySource(files)))
    if report is not None:
        strict_json(_guard(lambda: dumps_strict(report.to_dict(), default=str), ()), "audit -f json")


def _model_entry(rnd: random.Random) -> str:
    fields = {"id": lambda q: q.choice(['"m"', '""', "5"]), "max_model_len": lambda q: _raw(q.choice(NASTY_NUMBERS))}
    return obj(rnd, fields)


def make_answer(rnd: random.Random) -> bytes:
    """A server's JSON answer to ``GET /v1/models``, ``POST /tokenize``, ``/detokenize`` or ``/apply-template``
    (issue 37: the answers read outside the stream), or a proxy's HTML page; mutated byte-wise."""
    kind = rnd.randrange(5)
    if kind == 0:
        data = lambda r: "[" + ",".join(_model_entry(r) for _ in range(r.randrange(3))) + "]"  # noqa: E731
        body = obj(rnd, {"object": lambda r: '"list"', "data": data})
    elif kind == 1:
        body = obj(rnd, {"count": lambda r: _raw(r.choice(NASTY_NUMBERS)), "tokens": lambda r: "[1,2,-3]"})
    elif kind == 2:
        body = obj(rnd, {"content": lambda r: '"text"', "prompt": lambda r: any_json(r)})
    elif kind == 3:
        body = any_json(rnd)
    else:
        body = "<html><body>502 Bad Gateway</body></html>"
    return _mutated(body.encode(), rnd, 0.4)


def check_answer(case: bytes) -> None:
    from specscope.seam.answers import (
        DetokenizeAnswer,
        ModelsAnswer,
        TemplateAnswer,
        TokenCount,
        TokenIds,
        read_answer,
    )

    for shape in (ModelsAnswer, TokenCount, TokenIds, DetokenizeAnswer, TemplateAnswer):
        got = _guard(lambda shape=shape: read_answer(shape, case, path="/x", fix="f"))
        if isinstance(got, DetokenizeAnswer):
            _guard(lambda got=got: got.text, ())


# -- 9. GGUF headers (checkpoint/gguf_bounds.py, gguf_file.py: issue 37 G1) --------------------------------------
_GGUF_COUNTS = [0, 1, 3, 2**31, 2**32 + 1, 10**12, 2**63, 2**64 - 1]


def _gguf_str(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def make_gguf(rnd: random.Random) -> bytes:
    """A small GGUF v3 file (docs/gguf.md): an architecture, arrays whose counts may say more than the file holds,
    a tensor info with any ``n_dims``; then mutated."""
    kvs = [_gguf_str(b"general.architecture") + struct.pack("<I", 8) + _gguf_str(b"llama")]
    for _ in range(rnd.randrange(0, 4)):
        item = rnd.choice([5, 8, 9, 4, 13])  # int32, string, array (nested), uint32, not a type
        body = b"".join(_gguf_str(b"t") if item == 8 else b"\0\0\0\0" for _ in range(rnd.randrange(4)))
        count = rnd.choice(_GGUF_COUNTS)
        key = rnd.choice([b"tokenizer.ggml.token_type", b"tokenizer.ggml.tokens", b"x.y"])
        kvs.append(_gguf_str(key) + struct.pack("<IIQ", 9, item, count) + body)
    tensors = b""
    n_tensors = rnd.randrange(0, 2)
    if n_tensors:
        n_dims = rnd.choice([0, 1, 2, 2**31])
        tensors = _gguf_str(b"w") + struct.pack("<I", n_dims) + struct.pack("<QQIQ", 4, 4, 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, rnd.choice([n_tensors, n_tensors, 10**12]), len(kvs))
    return _mutated(head + b"".join(kvs) + tensors + bytes(rnd.randrange(0, 64)), rnd, 0.3)


def check_gguf(case: bytes) -> None:
    from specscope.checkpoint.gguf_file import read_gguf

    path = _tmpdir() / "case.gguf"
    path.write_bytes(case)
    _guard(lambda: read_gguf(path))


# -- 10. other tools' result files (importers/shapes.py: specscope import; attack53) --------------------------------
_RESULT_SEEDS = [
    "vllm_mtp_r0.json",
    "vllm_cpu_mtp_r0.json",
    "sglang_eagle.jsonl",
    "sglang_2024_num_prompts_inf.jsonl",
    "aiperf_spec_decode_r0.json",
    "aiperf_0.10.0_chatbot_c4.json",
    "aiperf_0.1.1_fixed_schedule.json",
    "guidellm_legacy_spec_r0.json",
    "guidellm_spec_r0.json",
    "aiperf_records/profile_export.jsonl",
]
_SEED_DOCS: dict[str, list[Any]] = {}


def _seed_docs(name: str) -> list[Any]:
    """The documents of the tests/data/imports file ``name`` (one, or one per JSON line), read once per process."""
    if name not in _SEED_DOCS:
        text = (Path(__file__).resolve().parent.parent / "data" / "imports" / name).read_text()
        try:
            _SEED_DOCS[name] = [json.loads(text)]
        except ValueError:
            _SEED_DOCS[name] = [json.loads(line) for line in text.splitlines() if line.strip()]
    return _SEED_DOCS[name]


def _leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _leaf_paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _leaf_paths(v, (*path, i))
    return out


def _dump_raw(value: Any) -> str:
    """``value`` as JSON text; a ``_Raw`` leaf is written as its text (NaN, 1e400, a second key of one object)."""
    if isinstance(value, _Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_dump_raw(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump_raw(v) for v in value) + "]"
    return json.dumps(value)


@dataclass
class _Raw:
    text: str


def make_result_file(rnd: random.Random) -> bytes:
    """A result file of tests/data/imports (vLLM, SGLang, AIPerf, GuideLLM) with 1-3 fields of one record set to
    any JSON (huge, non-finite, of another type, nested deep), removed, or written twice; then mutated byte-wise."""
    import copy

    name = rnd.choice(_RESULT_SEEDS)
    docs = copy.deepcopy(_seed_docs(name))
    doc_i = rnd.randrange(len(docs))
    for _ in range(rnd.randrange(1, 4)):
        paths = _leaf_paths(docs[doc_i])
        if not paths:
            break
        path = rnd.choice(paths)
        parent: Any = docs[doc_i]
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, _Raw):
            continue
        how = rnd.random()
        if how < 0.1 and isinstance(parent, dict):
            del parent[path[-1]]
        elif how < 0.15 and isinstance(parent, dict):  # the key written twice in its object
            key = path[-1]
            parent[key] = _Raw(f"{_dump_raw(parent[key])},{json.dumps(key)}:{any_json(rnd)}")
        else:
            parent[path[-1]] = _Raw(any_json(rnd))
    lines = [_dump_raw(d) for d in docs]
    data = ("\n".join(lines) + "\n").encode()
    if rnd.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    return _mutated(data, rnd, 0.2)


class _Twice(Exception):
    pass


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({k for k, _ in pairs}) < len(pairs):
        raise _Twice
    return dict(pairs)


def _duplicate_key(case: bytes) -> bool:
    """Whether a document (or a JSON line) of ``case`` holds a key twice in one object (this check's own reading)."""
    try:
        text = case.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    for doc in [text, *text.splitlines()]:
        try:
            json.loads(doc, object_pairs_hook=_no_twice)
        except _Twice:
            return True
        except (ValueError, RecursionError):
            continue
    return False


def check_result_file(case: bytes) -> None:
    from specscope.importers.shapes import read_records
    from specscope.importers.write import _cells, _plan
    from specscope.stats.cells import summarize_cell
    from specscope.strictjson import dumps_strict

    path = _tmpdir() / "result.json"
    path.write_bytes(case)
    records = _guard(lambda: read_records(path))
    if not records:
        return
    if _duplicate_key(case):  # Python's reader keeps the last of two values silently: a misread, refused by name
        raise Finding("uncaught", "a record holding a key twice was imported (no refusal)")
    planned = _guard(lambda: _plan([], [(path, r) for r in records], "spec-k3", None, _tmpdir() / "run"))
    cells = _guard(lambda: _cells(planned)) if planned else None
    for cell in cells or ():
        summary = _guard(lambda cell=cell: summarize_cell(cell), ())
        strict_json(_guard(lambda summary=summary: dumps_strict(_asdict(summary), default=str), ()), "cell summary")


BOUNDARIES: dict[str, Boundary] = {
    b.name: b
    for b in (
        Boundary("sse_events", make_sse, check_sse, owner="i30-client"),
        Boundary("per_request_metrics", make_per_request, check_per_request, owner="i26-engines"),
        Boundary("metrics_text", make_metrics, check_metrics),
        Boundary("log_lines", make_log, check_log, owner="i26-engines"),
        Boundary("workload_rows", make_workload, check_workload),
        Boundary("run_folder_rows", make_run_row, check_run_row),
        Boundary("cli_arguments", make_cli, check_cli),
        Boundary("checkpoint_json_headers", make_checkpoint, check_checkpoint, owner="i27-checkpoints"),
        Boundary("server_answers", make_answer, check_answer, owner="i37-edges"),
        Boundary("gguf_headers", make_gguf, check_gguf, owner="i37-faults"),
        Boundary("result_files", make_result_file, check_result_file, owner="i37-imports"),
    )
}
