"""Recipes -> exact vLLM argv for each method, TOML loading and its errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.launch.recipes import (
    Recipe,
    docker_argv,
    load_recipes,
    parse_recipes,
    speculative_config,
    vllm_argv,
)

# seed 000's common flags, in the order vllm_argv writes them
SEED_FLAGS = [
    "--kv-cache-dtype",
    "fp8",
    "--attention-backend",
    "flashinfer",
    "--max-model-len",
    "262144",
    "--gpu-memory-utilization",
    "0.72",
    "--max-num-seqs",
    "64",
    "--reasoning-parser",
    "qwen3",
    "--trust-remote-code",
    "--enable-auto-tool-choice",
    "--tool-call-parser",
    "qwen3_xml",
]
MODEL = "PassingByPixels/Qwen3.6-27B-Architect-Polaris2-Fable-B-F451-NVFP4"
HEAD = ["vllm", "serve", MODEL, "--host", "127.0.0.1", "--port", "8000"]


def _seed_recipe(**kw) -> Recipe:
    base = dict(
        model=MODEL,
        kv_cache_dtype="fp8",
        attention_backend="flashinfer",
        max_model_len_tokens=262144,
        gpu_memory_utilization=0.72,
        max_num_seqs=64,
        reasoning_parser="qwen3",
        trust_remote_code=True,
        tool_call_parser="qwen3_xml",
    )
    return Recipe(**{**base, **kw})


@pytest.mark.parametrize(
    "kw, spec_json",
    [
        ({"method": "base"}, None),
        ({"method": "mtp", "num_speculative_tokens": 2}, '{"method":"mtp","num_speculative_tokens":2}'),
        (
            {"method": "draft", "draft_model": "org/small", "num_speculative_tokens": 5},
            '{"method":"draft_model","model":"org/small","num_speculative_tokens":5}',
        ),
        (
            {"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 2, "prompt_lookup_max": 5},
            '{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_min":2,"prompt_lookup_max":5}',
        ),
        (
            {
                "method": "suffix",
                "num_speculative_tokens": 8,
                "speculative_extra": {
                    "suffix_decoding_max_tree_depth": 24,
                    "suffix_decoding_max_cached_requests": 10000,
                    "suffix_decoding_max_spec_factor": 1.0,
                    "suffix_decoding_min_token_prob": 0.1,
                },
            },
            '{"method":"suffix","num_speculative_tokens":8,"suffix_decoding_max_tree_depth":24,'
            '"suffix_decoding_max_cached_requests":10000,"suffix_decoding_max_spec_factor":1.0,'
            '"suffix_decoding_min_token_prob":0.1}',
        ),
        ({"method": "suffix"}, '{"method":"suffix"}'),
        (
            {"method": "dflash", "draft_model": "<your-dflash-draft>", "num_speculative_tokens": 15},
            '{"method":"dflash","model":"<your-dflash-draft>","num_speculative_tokens":15}',
        ),
        (
            {"method": "eagle3", "draft_model": "org/eagle3-head", "num_speculative_tokens": 3},
            '{"method":"eagle3","model":"org/eagle3-head","num_speculative_tokens":3}',
        ),
    ],
    ids=["base", "mtp", "draft", "ngram", "suffix-seed002", "suffix-plain", "dflash-seed000", "eagle3"],
)
def test_exact_argv_per_method(kw, spec_json):
    argv = vllm_argv(_seed_recipe(**kw), port=8000)
    expected = HEAD + SEED_FLAGS + ([] if spec_json is None else ["--speculative-config", spec_json])
    assert argv == expected


def test_seed000_mtp_command_line_matches_the_seed_text():
    # seed 000: `--speculative-config '{"method":"mtp","num_speculative_tokens":2}'`
    import shlex

    line = shlex.join(vllm_argv(_seed_recipe(method="mtp", num_speculative_tokens=2), port=8000))
    assert line.endswith("""--speculative-config '{"method":"mtp","num_speculative_tokens":2}'""")


def test_weights_track_memory_and_cpu_flags():
    r = Recipe(
        model="m",
        dtype="float32",
        enforce_eager=True,
        kv_cache_memory_bytes=15032385536,
        tensor_parallel_size=2,
        served_model_name="s",
        enable_weights_track=True,
        extra_args=["--seed", "0"],
        vllm_command=["/opt/venv/bin/python", "-m", "specscope_vllm_cpu_launcher"],
    )
    assert vllm_argv(r, port=9001, host="127.0.0.2") == [
        "/opt/venv/bin/python",
        "-m",
        "specscope_vllm_cpu_launcher",
        "serve",
        "m",
        "--host",
        "127.0.0.2",
        "--port",
        "9001",
        "--served-model-name",
        "s",
        "--dtype",
        "float32",
        "--kv-cache-memory-bytes",
        "15032385536",
        "--tensor-parallel-size",
        "2",
        "--enforce-eager",
        "--model-loader-extra-config",
        '{"enable_weights_track": true}',
        "--seed",
        "0",
    ]


def test_tilde_expanded_in_model_and_command(monkeypatch):
    monkeypatch.setenv("HOME", "/home/u")
    r = Recipe(
        model="~/m", vllm_command=["~/venv/bin/python"], method="draft", draft_model="~/d", num_speculative_tokens=3
    )
    argv = vllm_argv(r, port=1)
    assert argv[:3] == ["/home/u/venv/bin/python", "serve", "/home/u/m"]
    assert json.loads(argv[-1]) == {"method": "draft_model", "model": "/home/u/d", "num_speculative_tokens": 3}


def test_docker_form(tmp_path):
    model_dir = tmp_path / "ckpt"
    model_dir.mkdir()
    r = Recipe(
        model=str(model_dir),
        method="mtp",
        num_speculative_tokens=1,
        env={"NCCL_P2P_DISABLE": "1"},
        docker_image="vllm/vllm-openai:v0.26.0",
        docker_gpus='"device=0,1"',
        max_model_len_tokens=32768,
    )
    argv = docker_argv(r, port=8123, container_name="specscope-x-8123", hf_cache=str(tmp_path / "hf"))
    assert argv == [
        "docker",
        "run",
        "--rm",
        "--name",
        "specscope-x-8123",
        "--gpus",
        '"device=0,1"',
        "--ipc=host",
        "-p",
        "127.0.0.1:8123:8000",
        "-v",
        f"{tmp_path / 'hf'}:/root/.cache/huggingface",
        "-v",
        f"{model_dir}:{model_dir}:ro",
        "-e",
        "NCCL_P2P_DISABLE=1",
        "vllm/vllm-openai:v0.26.0",
        str(model_dir),
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--max-model-len",
        "32768",
        "--speculative-config",
        '{"method":"mtp","num_speculative_tokens":1}',
    ]


@pytest.mark.parametrize(
    "kw, needle",
    [
        ({"method": "mtp"}, "needs num_speculative_tokens"),
        ({"method": "dflash", "num_speculative_tokens": 15}, "needs draft_model"),
        ({"method": "mtp", "num_speculative_tokens": 1, "draft_model": "x"}, "draft_model is only used"),
        ({"method": "mtp", "num_speculative_tokens": 1, "prompt_lookup_min": 2}, "only used by method 'ngram'"),
        ({"method": "base", "num_speculative_tokens": 2}, "takes no speculative settings"),
        (
            {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 5, "prompt_lookup_max": 2},
            "> prompt_lookup_max",
        ),
        ({"method": "medusa"}, "Input should be"),
        ({"num_speculative_tokens": 0, "method": "mtp"}, "greater than or equal to 1"),
    ],
)
def test_invalid_recipes_raise_config_error_naming_the_recipe(kw, needle):
    body = "\n".join(f"{k} = {json.dumps(v)}" for k, v in {"model": "m", **kw}.items())
    with pytest.raises(ConfigError) as info:
        parse_recipes(f"[recipes.bad]\n{body}\n", source="r.toml")
    assert "'bad'" in info.value.message
    assert needle in str(info.value.found)


def test_defaults_merge_and_inherit_defaults_false():
    book = parse_recipes(
        """
[defaults]
model = "org/big"
max_model_len_tokens = 1024
num_speculative_tokens = 3

[recipes.base]
method = "base"

[recipes.mtp]
method = "mtp"

[recipes.cpu]
inherit_defaults = false
model = "small"
"""
    )
    assert book.get("base").max_model_len_tokens == 1024
    assert book.get("base").num_speculative_tokens is None  # spec defaults do not leak into base
    assert speculative_config(book.get("mtp")) == {"method": "mtp", "num_speculative_tokens": 3}
    assert book.get("cpu").model == "small" and book.get("cpu").max_model_len_tokens is None
    assert book.get("mtp").name == "mtp"


def test_unknown_recipe_lists_known_ones():
    book = parse_recipes('[recipes.a]\nmodel="m"\n[recipes.b]\nmodel="m"\n', source="f.toml")
    with pytest.raises(ConfigError) as info:
        book.get("c")
    assert info.value.expected == "a recipe of the file: a, b"
    assert info.value.fix == "pick one of those; or add [recipes.c] to f.toml"  # the user's own file, not the package's


@pytest.mark.parametrize(
    "text, message",
    [
        ("[recipes.a\n", "recipe file is not valid TOML"),
        ("[other]\nx=1\n", "unknown top-level table in recipe file"),
        ('[recipes.a]\nmodel="m"\ncolour="red"\n', "invalid recipe 'a'"),
        ('[recipes.a]\nmodel="m"\ninherit_defaults="no"\n', "inherit_defaults must be true or false"),
    ],
)
def test_bad_files(text, message):
    with pytest.raises(ConfigError) as info:
        parse_recipes(text)
    assert info.value.message == message


def test_load_from_file_and_missing_file(tmp_path):
    p = tmp_path / "r.toml"
    p.write_text('[recipes.x]\nmodel = "m"\nmethod = "ngram"\nnum_speculative_tokens = 4\n')
    assert vllm_argv(load_recipes(p).get("x"), port=5) == [
        "vllm",
        "serve",
        "m",
        "--host",
        "127.0.0.1",
        "--port",
        "5",
        "--speculative-config",
        '{"method":"ngram","num_speculative_tokens":4}',
    ]
    with pytest.raises(ConfigError) as info:
        load_recipes(tmp_path / "missing.toml")
    assert info.value.message == "recipe file not found"


def test_shipped_default_file(monkeypatch):
    monkeypatch.setenv("HOME", "/home/u")
    book = load_recipes()
    assert sorted(book.recipes) == sorted(
        [
            "base",
            "mtp2",
            "mtp2-checked",
            "dflash15",
            "ngram4",
            "suffix8",
            "eagle3",
            "cpu-base",
            "cpu-ngram",
            "cpu-ngram-per-request",
        ]
    )
    # seed 000's table: MTP only on the -MTP build, which carries mtp.fc.weight; base stays on the plain build
    assert vllm_argv(book.get("base"), port=8000)[:3] == ["vllm", "serve", MODEL]
    assert vllm_argv(book.get("mtp2"), port=8000) == ["vllm", "serve", MODEL + "-MTP", *HEAD[3:]] + SEED_FLAGS + [
        "--speculative-config",
        '{"method":"mtp","num_speculative_tokens":2}',
    ]
    assert vllm_argv(book.get("cpu-ngram"), port=8000) == [
        "/home/u/.cache/specscope/vllm-cpu-venv/bin/python",
        "-m",
        "specscope_vllm_cpu_launcher",
        "serve",
        "/home/u/.cache/specscope/smollm2-135m-instruct-f32",
        "--host",
        "127.0.0.1",
        "--port",
        "8000",
        "--served-model-name",
        "smollm2-135m",
        "--dtype",
        "float32",
        "--max-model-len",
        "4096",
        "--gpu-memory-utilization",
        "0.2",
        "--enforce-eager",
        "--enable-per-request-metrics",  # per_request_metrics = true: each response's queue wait
        "--speculative-config",
        '{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_min":2,"prompt_lookup_max":5}',
    ]
    assert Path(os.fspath(book.source)).name == "recipes.toml"


def test_per_request_metrics_flag():
    """``per_request_metrics`` asks vLLM for each response's timing (``metrics.queue_time_ms``); off by default."""
    flag = "--enable-per-request-metrics"
    assert flag in vllm_argv(Recipe(model="m", per_request_metrics=True), port=8000)
    assert flag not in vllm_argv(Recipe(model="m"), port=8000)


def test_docker_form_refuses_a_recipe_with_its_own_command():
    import pytest

    from specscope.errors import ConfigError
    from specscope.launch.recipes import docker_argv, load_recipes

    with pytest.raises(ConfigError) as e:
        docker_argv(load_recipes().get("cpu-ngram"), port=8000, container_name="x")
    assert "vllm_command" in e.value.one_line()
