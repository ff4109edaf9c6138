"""Nothing outside ``src/specscope/adapters/`` names an engine or one of its metrics (issue 34, "a new engine is one
folder"): an AST/token walk of every other module of src/ counts the engine names written in its code (identifiers and
string literals; docstrings and comments are prose and not counted) and the full metric names its adapters declare
(anywhere in the text, docstrings included: a copied name rots). A module not in :data:`ALLOWED` must have none; a
module in it may have at most its count, and a count that fell is a stale entry to shrink.

:data:`ALLOWED` is the state measured when the metric names moved into the adapters (issue 34, items 1 and 6): what
other parts of the issue are still moving, each marked with who moves it, so the list shrinks as they land."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

from specscope.adapters.names import adapter_metrics

SRC = Path(__file__).resolve().parents[1] / "src" / "specscope"
ENGINE = re.compile(r"vllm|sglang|llama\.?cpp|tensorrt[-_]llm|trtllm", re.I)

LOGS = "MOVING (issue 34 item 4, server logs -> adapters/<engine>/logs.py)"
DIALECT = "MOVING (issue 34 item 3, request dialects and endpoints -> adapters/openai/endpoints.py)"
PER_RESPONSE = "TO MOVE (issue 34 item 1: per-response speculative fields -> adapters/<engine>/)"
FACTS = "TO MOVE (issue 34 item 4 of 'what to do': server facts -> adapters, neutral record)"
TRUTH = "TO MOVE (the truth server writes each engine's wire shapes; to take them from the adapters' declarations)"
LAUNCH = "TO MOVE (launching an engine: --engine vllm / the embedded llama.cpp engine, recipes)"
PROSE = "TO MOVE (user-facing text naming an engine's flag or log; to come from the adapters)"
AUDIT = "TO MOVE (checkpoint audit rules name the engine whose loader they model)"
PEER = "SOURCE (a peer tool's result file names the tool and engine that wrote it: importers and exports, issue 38)"
CENSUS = "SOURCE (the census of peer tools' workload readers names the tool each layout comes from, issue 36)"

#: path under src/specscope -> (engine names in code, full metric names in text, why it is still allowed)
ALLOWED: dict[str, tuple[int, int, str]] = {
    "cli/serve.py": (6, 0, LAUNCH),  # the recipe server it runs (vllm_argv, VllmServer) and its log and stop wording
    "cli/command_options.py": (3, 0, LAUNCH),  # serve's --docker (vllm/vllm-openai image) and --log default
    "launch/serverlog.py": (2, 0, LOGS),
    "launch/capacity.py": (12, 0, LOGS),  # +5 (user62): --plan on another engine's log names it
    "launch/__init__.py": (8, 0, LOGS),
    "launch/logstats.py": (4, 0, LOGS),
    "workload/request.py": (10, 0, DIALECT),
    "workload/context.py": (7, 0, DIALECT),
    "report/server_facts.py": (1, 0, FACTS),
    "report/k_tables.py": (1, 0, FACTS),
    "truth/spec_shapes.py": (26, 4, TRUTH),
    "truth/script.py": (15, 4, TRUTH),
    "truth/state.py": (13, 0, TRUTH),
    "truth/server.py": (4, 0, TRUTH),
    "truth/endpoints.py": (1, 0, TRUTH),
    "truth/spec_steps.py": (2, 0, TRUTH),
    "launch/recipes.py": (23, 0, LAUNCH),  # +3 (user62): an engine key says a recipe is vllm serve's
    "launch/process.py": (14, 0, LAUNCH),
    "targets/plan.py": (2, 0, LAUNCH),  # RECIPE_LAUNCHER, the one spelling of the recipe launcher, and Kind
    "targets/servers.py": (6, 0, LAUNCH),
    "targets/preflight.py": (1, 0, LAUNCH),
    "targets/k_axis.py": (2, 0, LAUNCH),
    "bench/spec.py": (7, 0, LAUNCH),
    "bench/plan.py": (3, 0, LAUNCH),
    "bench/runner.py": (1, 0, LAUNCH),
    "bench/machine.py": (1, 0, LAUNCH),
    "cli/bench.py": (3, 0, LAUNCH),
    "cli/options.py": (4, 0, LAUNCH),
    "cli/vocab.py": (1, 0, LAUNCH),
    "engine/server.py": (6, 0, LAUNCH),
    "engine/serve.py": (5, 0, LAUNCH),
    "engine/config.py": (2, 0, LAUNCH),
    "engine/cost.py": (1, 0, LAUNCH),
    "gate/session.py": (5, 0, LAUNCH),
    "__init__.py": (2, 0, LAUNCH),
    "report/alarms.py": (5, 0, PROSE),
    "report/acceptance_tables.py": (1, 0, PROSE),
    "stats/predict_published.py": (1, 0, PROSE),
    "bench/counters_source.py": (1, 0, PROSE),
    "surgery/patch.py": (1, 0, PROSE),
    "workload/dataset_defs.py": (5, 0, PROSE),  # +3: docs/workloads.md's Datasets tables, generated from here
    # +6: SHAREGPT_TURNS_NOTE and the vllm.sharegpt row name the readers; +3: the OpenAI Batch API refusal's source
    # (vllm-project/vllm vllm/entrypoints/openai/run_batch.py, its BatchRequestInput)
    "workload/census.py": (165, 0, CENSUS),  # FIELD_USE (issue 36) keys its declarations by census key
    "workload/userfile_layouts.py": (4, 0, CENSUS),  # docs/workloads.md's user-file layouts: each row's source
    "workload/census_hub.py": (11, 0, CENSUS),  # AIPerf's hub datasets: the vLLM templates and readers they match
    "workload/layout_of.py": (16, 0, CENSUS),  # the census keys a row is read as (vllm.sharegpt, sglang.openai, ...)
    "export/profile.py": (2, 0, PEER),
    # predict's fix for an imported run without one-stream cells names the peer tools' flags that measure one
    "stats/predict_run.py": (2, 0, PEER),
    # +20 (imp60): the hints naming vLLM's pooling, throughput and *.pytorch.json files, SGLang's offline and
    # one-batch results, trtllm-bench's report, and the serving runs to make instead
    "importers/peers.py": (24, 0, PEER),  # the hints naming the tools whose files are not imported (+1 imp63)
    "importers/sglang_serving.py": (4, 0, PEER),
    "importers/shapes.py": (19, 0, PEER),
    "importers/vllm_serve.py": (9, 0, PEER),  # +3 (imp63): the sweep's overrides and warm-up named in refusals
    "workload/userfile_fields.py": (10, 0, CENSUS),
    # the file layouts moved out of userfile_fields.py (kname53): the BurstGPT header's source, the agentic trace's fix
    "workload/userfile_text.py": (2, 0, CENSUS),
    "workload/userfile.py": (2, 0, CENSUS),  # the --drop-bad-rows fix names the readers that skip such rows (the
    # GuideLLM column check no longer names vllm.custom: census FIELD_USE declares every layout's fields, issue 36)
    "bench/workload_rows.py": (1, 0, PROSE),
    "audit/gguf_audit.py": (
        6,
        0,
        AUDIT,
    ),  # +1: imports rules_llamacpp_types (gguf61); +1: rules_llamacpp_nextn (gguf62)
    "audit/rules_shapes.py": (3, 0, AUDIT),
    "audit/census.py": (2, 0, AUDIT),
    "audit/rules_quant.py": (2, 0, AUDIT),
    "audit/rules_heads.py": (2, 0, AUDIT),  # the Medusa fixes name the loader that skips the old names / counts 5 heads
    # +1: the finding code LLAMACPP_GGUF_UNLOADABLE (a GGUF whose vocabulary the engine cannot load); +1: the finding
    # code LLAMACPP_PRE_TOKENIZER_UNKNOWN (a BPE pre-tokenizer name the engine's vocabulary loader does not know);
    # +1: the finding code LLAMACPP_DRAFT_TYPE_AUTO (a DFlash / DSpark / MTP draft the pair rule does not judge)
    "audit/rules_llamacpp.py": (8, 0, AUDIT),
    # the llama.cpp speculative type of a GGUF draft and the draft-eagle3 layer rule (gguf61): finding codes and the
    # type names, as rules_llamacpp.py names its rule
    "audit/rules_llamacpp_types.py": (6, 0, AUDIT),  # +1: LLAMACPP_DFLASH_LAYERS (aud62)
    # a GGUF target's NextN head as llama.cpp's loader reads it (gguf62): four finding-code literals, the two
    # fixes naming llama.cpp's converter and its gguf-py script, and the census's draft-mtp bytes rule
    "audit/rules_llamacpp_nextn.py": (7, 0, AUDIT),
    "audit/rules_vocab.py": (1, 0, AUDIT),
    "checkpoint/source.py": (2, 0, AUDIT),
    "checkpoint/gguf_file.py": (3, 0, AUDIT),  # +2: a ggml tensor type llama.cpp's gguf reader refuses (gguf61)
    "checkpoint/tokenizer.py": (1, 0, AUDIT),
}


def metric_names() -> set[str]:
    """Every full Prometheus sample name the adapters declare (prefix + name)."""
    return {
        p + r.name for _e, mod in adapter_metrics() for r in mod.ROWS if r.surface == "prometheus" for p in mod.PREFIXES
    }


def _docstring_lines(tree: ast.Module) -> list[tuple[int, int]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.append((first.lineno, first.end_lineno or first.lineno))
    return out


def engine_names_in_code(text: str) -> int:
    """Engine names in ``text``'s identifiers and non-docstring string literals (f-string parts included)."""
    docs = _docstring_lines(ast.parse(text))
    kinds = {tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    n = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in kinds:
            continue
        if tok.type == tokenize.STRING and any(a <= tok.start[0] <= b for a, b in docs):
            continue
        n += len(ENGINE.findall(tok.string))
    return n


@cache
def measure() -> dict[str, tuple[int, int]]:
    """Per module outside the adapters: (engine names in code, declared metric names in text), where either > 0."""
    names = metric_names()
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("adapters/"):
            continue
        text = path.read_text()
        found = (engine_names_in_code(text), sum(text.count(m) for m in names))
        if any(found):
            out[rel] = found
    return out


def test_no_engine_or_metric_name_outside_the_adapters() -> None:
    found = measure()
    new = {p: v for p, v in found.items() if p not in ALLOWED}
    assert not new, f"engine or metric names outside src/specscope/adapters/ (put them in the engine's adapter): {new}"
    grown = {p: (v, ALLOWED[p][:2]) for p, v in found.items() if v[0] > ALLOWED[p][0] or v[1] > ALLOWED[p][1]}
    assert not grown, f"more engine or metric names than allowed (found, allowed): {grown}"


def test_the_allow_list_has_no_stale_entry() -> None:
    """An entry whose module now names fewer engines than allowed is shrunk (or dropped when it names none)."""
    found = measure()
    stale = {p: (found.get(p, (0, 0)), a[:2]) for p, a in ALLOWED.items() if found.get(p, (0, 0)) != a[:2]}
    assert not stale, f"shrink ALLOWED in tests/test_engine_names.py (found, allowed): {stale}"


def test_the_walk_finds_what_it_is_for() -> None:
    """The counters count: an identifier and a string name an engine, a docstring and a comment do not, and a
    metric name is found by its full declared name."""
    code = '"""Reads vLLM."""\n# sglang here\nx = "llama.cpp"\nvllm_mode = 1\n'
    assert engine_names_in_code(code) == 2
    assert "sglang:spec_verify_calls_total" in metric_names() and "trtllm_num_requests_waiting" in metric_names()
