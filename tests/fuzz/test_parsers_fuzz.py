"""Property-based fuzzing: no input makes a parser raise anything but a SpecscopeError (or return normally).

Parsers: safetensors headers (:func:`parse_header`), checkpoint JSON (config.json, hf_quant_config.json and the
index, through the whole audit), SSE byte streams (:func:`parse_sse_capture` / :func:`parse_capture`) and
Prometheus text (:func:`parse_metrics`). The profile (fast by default, deep with ``SPECSCOPE_FUZZ=deep``) is
chosen in ``conftest.py``; each test counts its cases in ``FUZZ_COUNTS``.
"""

from __future__ import annotations

import json
import os
import random
import struct
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specscope.audit import audit_checkpoint
from specscope.checkpoint import parse_header
from specscope.client.metrics import parse_metrics
from specscope.client.parse import RawCapture, parse_capture, parse_sse_capture
from specscope.errors import SpecscopeError

from .boundaries import MemorySource
from .profiles import MUTATIONS, PROFILE
from .strategies import json_values, mutate, prometheus_texts, safetensors_files, sse_chunks

FUZZ_COUNTS: Counter[str] = Counter()


_CONFIG_KEYS = [
    "architectures",
    "model_type",
    "num_hidden_layers",
    "mtp_num_hidden_layers",
    "num_nextn_predict_layers",
    "hidden_size",
    "vocab_size",
    "num_experts",
    "num_experts_per_tok",
    "layer_types",
    "sliding_window",
    "dflash_config",
    "text_config",
]
_QUANT_KEYS = [
    "quant_method",
    "quant_algo",
    "format",
    "group_size",
    "ignore",
    "exclude_modules",
    "config_groups",
    "quantized_layers",
    "kv_cache_scheme",
    "kv_cache_quant_algo",
    "global_quant_config",
]
_small_ints = st.one_of(st.integers(min_value=-3, max_value=70), st.integers(min_value=-(2**40), max_value=2**40))
_field_values = st.one_of(_small_ints, json_values, st.lists(st.text(max_size=12), max_size=4))


def _keyed(keys: list[str]) -> st.SearchStrategy[dict]:
    return st.dictionaries(st.sampled_from(keys), _field_values, max_size=6)


@st.composite
def checkpoint_files(draw) -> dict[str, bytes]:
    """config.json / hf_quant_config.json / index built from the keys specscope reads, with values of any type."""
    cfg = draw(st.one_of(_keyed(_CONFIG_KEYS), json_values))
    if isinstance(cfg, dict) and draw(st.booleans()):
        cfg["quantization_config"] = draw(st.one_of(_keyed(_QUANT_KEYS), json_values))
    files = {"config.json": json.dumps(cfg).encode()}
    if draw(st.booleans()):
        files["hf_quant_config.json"] = json.dumps({"quantization": draw(_keyed(_QUANT_KEYS))}).encode()
    names = draw(st.lists(st.sampled_from(["mtp.fc.weight", "model.layers.0.mlp.down_proj.weight", "lm_head.weight"])))
    header = {n: {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]} for i, n in enumerate(names)}
    raw = json.dumps(header).encode()
    files["model.safetensors"] = struct.pack("<Q", len(raw)) + raw + b"\0" * (4 * len(header))
    if draw(st.booleans()):
        index = draw(
            st.one_of(
                st.fixed_dictionaries(
                    {"metadata": st.one_of(json_values, _keyed(["total_size"])), "weight_map": json_values}
                ),
                st.just({"weight_map": dict.fromkeys(header, "model.safetensors")}),
                json_values,
            )
        )
        files["model.safetensors.index.json"] = json.dumps(index).encode()
    if draw(st.booleans()):
        depth = draw(st.integers(min_value=50, max_value=2000))
        files["config.json"] = ('{"a":' + "[" * depth + "]" * depth + "}").encode()
    return files


def _variants(data: bytes, seed: int) -> list[bytes]:
    """``data`` and MUTATIONS mutated copies of it (deep profile), each mutation stacked on a random earlier one."""
    rnd = random.Random(seed)
    out = [data]
    for _ in range(MUTATIONS):
        out.append(mutate(rnd.choice(out), rnd))
    return out


_seeds = st.integers(min_value=0, max_value=2**32 - 1)


@settings(settings.get_profile(PROFILE))
@given(safetensors_files(), _seeds)
def test_safetensors_header_parser_never_crashes(data, seed):
    for case in _variants(data, seed):
        FUZZ_COUNTS["safetensors header"] += 1
        try:
            header = parse_header(case, len(case))
        except SpecscopeError as exc:
            assert exc.one_line()
            continue
        assert header.file_size_bytes == len(case)


@settings(settings.get_profile(PROFILE))
@given(checkpoint_files(), _seeds)
def test_checkpoint_json_never_crashes_the_audit(files, seed):
    rnd = random.Random(seed)
    cases = [files]
    for _ in range(MUTATIONS):  # deep: mutate one JSON file of the checkpoint (or the shard) per variant
        name = rnd.choice(sorted(files))
        cases.append({**files, name: mutate(files[name], rnd)})
    for case in cases:
        FUZZ_COUNTS["config / quant config / index (audit)"] += 1
        try:
            report = audit_checkpoint(MemorySource(case))
        except SpecscopeError as exc:
            assert exc.exit_code == 2 and exc.one_line()
            continue
        assert report.exit_code in (0, 1)


@settings(settings.get_profile(PROFILE))
@given(sse_chunks(), st.one_of(st.none(), st.integers(min_value=0, max_value=64)), _seeds)
def test_sse_stream_parser_never_crashes(chunks, max_tokens, seed):
    body = b"".join(c for _t, c in chunks)
    rnd = random.Random(seed)
    cases = [chunks]
    for variant in _variants(body, seed)[1:]:  # deep: mutated bodies, re-split at random byte positions
        cuts = sorted(rnd.randrange(len(variant) + 1) for _ in range(rnd.randrange(4)))
        bounds = [0, *cuts, len(variant)]
        cases.append([(i * 1000, variant[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))])
    for case in cases:
        FUZZ_COUNTS["SSE byte stream"] += 1
        events = parse_sse_capture(case)
        assert all(isinstance(t, int) for t, _ev in events)
        raw = RawCapture("p", 0, 0, http_status=200, chunks=case, end_ns=10**6, max_tokens=max_tokens)
        assert parse_capture(raw).status in ("ok", "degraded", "failed")


@settings(settings.get_profile(PROFILE))
@given(prometheus_texts(), _seeds)
def test_prometheus_parser_never_crashes(text, seed):
    for case in _variants(text.encode("utf-8", "surrogatepass"), seed):
        FUZZ_COUNTS["Prometheus text"] += 1
        try:
            parse_metrics(case.decode("utf-8", "replace"))
        except SpecscopeError as exc:
            assert exc.one_line()


@pytest.fixture(scope="module", autouse=True)
def _write_counts():
    """Write the case counts to ``$SPECSCOPE_FUZZ_COUNTS`` (JSON) when the module is done (for the deep runner)."""
    yield
    target = os.environ.get("SPECSCOPE_FUZZ_COUNTS")
    if target:
        Path(target).write_text(json.dumps(dict(FUZZ_COUNTS), indent=2))


def test_prometheus_crashes_found_by_the_deep_run_are_clean_errors():
    """Both were tracebacks before: a 5,000-digit position label (int digit limit), a 400-digit value (float)."""
    per_pos = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
    with pytest.raises(SpecscopeError, match="no usable position label"):
        parse_metrics(f'{per_pos}{{position="{"9" * 5000}"}} 1\n')
    with pytest.raises(SpecscopeError, match="out of range") as info:
        parse_metrics(f"vllm:spec_decode_num_drafts_total {'1' * 400}\n")
    assert "an integer of 400 digits" in info.value.one_line()
