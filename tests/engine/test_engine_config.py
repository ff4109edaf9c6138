"""EngineConfig validation, named configs, the llama-server argv and the xllamacpp parameter mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.engine.config import engine_config_from_dict, get_config, llama_server_argv, named_configs
from specscope.errors import ConfigError


def test_named_configs_issue_names() -> None:
    configs = named_configs()
    assert list(configs) == ["base", "ngram", "draft", "draft-ngram", "self-draft", "synth"]
    assert configs["base"].spec_types == ()
    assert configs["ngram"].spec_types == ("ngram-mod",)
    assert configs["draft"].spec_types == ("draft-simple",)
    assert configs["draft"].draft_quant == "Q4_0"
    assert configs["draft"].draft_n_max_tokens == 8
    assert configs["draft-ngram"].spec_type_arg == "draft-simple,ngram-mod"
    assert configs["synth"].synth_rates == (0.8, 0.6, 0.4)
    assert all(c.threads == 1 for c in configs.values())
    assert all(name == c.name for name, c in configs.items())


def test_unknown_config_lists_known_names() -> None:
    with pytest.raises(ConfigError) as exc:
        get_config("eagle")
    assert exc.value.found == "eagle"
    assert exc.value.expected == "one of base, ngram, draft, draft-ngram, self-draft, synth"
    assert exc.value.one_line() == (
        "invalid value for --configs; found: eagle; expected: one of base, ngram, draft, draft-ngram, self-draft, "
        "synth; fix: pick one of the listed configs, or pass --server URL to use your own server"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("none", ()),
        ("", ()),
        ("ngram-cache", ("ngram-cache",)),
        ("draft-simple, ngram-mod,draft-simple", ("draft-simple", "ngram-mod")),
        (["ngram-simple", "ngram-map-k"], ("ngram-simple", "ngram-map-k")),
    ],
)
def test_spec_types_forms(value: object, expected: tuple[str, ...]) -> None:
    extra = {"draft_quant": "self"} if "draft-simple" in expected else {}
    cfg = engine_config_from_dict({"name": "x", "spec_types": value, **extra})
    assert cfg.spec_types == expected
    assert cfg.spec_type_arg == (",".join(expected) or "none")


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"name": "x", "n_gpu_layers": 3}, "n_gpu_layers: Extra inputs are not permitted"),
        ({"name": "x", "spec_types": "eagle9"}, "spec_types.0"),
        ({"name": "x", "spec_types": "draft-simple"}, "needs a draft model"),
        ({"name": "x", "draft_quant": "Q4_0"}, "a draft model alone never drafts"),
        ({"name": "x", "draft_quant": "Q3_X", "spec_types": "draft-simple"}, "draft_quant"),
        (
            {"name": "x", "spec_types": "draft-simple", "draft_quant": "self", "synth_rates": [0.8, 0.6]},
            "synth_rates has 2 values but draft_n_max_tokens is 8",
        ),
        ({"name": "x", "spec_types": "ngram-mod", "synth_rates": [0.5]}, "synth_rates needs spec type draft-simple"),
        (
            {
                "name": "x",
                "spec_types": "draft-simple",
                "draft_quant": "self",
                "draft_n_max_tokens": 1,
                "synth_rates": [1.5],
            },
            "outside [0, 1]",
        ),
        (
            {
                "name": "x",
                "spec_types": "draft-simple",
                "draft_quant": "self",
                "draft_n_max_tokens": 2,
                "draft_n_min_tokens": 3,
            },
            "draft_n_min_tokens 3 > draft_n_max_tokens 2",
        ),
        ({"name": "x", "n_parallel": 0}, "n_parallel"),
        ({"name": "x", "threads": 0}, "threads"),
    ],
)
def test_invalid_configs_are_one_line_config_errors(data: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as exc:
        engine_config_from_dict(data)
    line = exc.value.one_line()
    assert needle in line
    assert "\n" not in line


def test_with_updates_validates_and_scales_context() -> None:
    base = get_config("base")
    assert base.n_ctx_tokens == 4096 * 2
    wide = base.with_updates(n_parallel=4)
    assert wide.n_parallel == 4
    assert wide.n_ctx_tokens == 16384
    assert base.n_parallel == 2  # frozen original untouched
    with pytest.raises(ConfigError):
        base.with_updates(n_parallel=-1)


def test_argv_base() -> None:
    argv = llama_server_argv(
        get_config("base"), model_path=Path("/m/model.gguf"), draft_path=None, host="127.0.0.1", port=8080
    )
    assert argv == [
        "llama-server",
        "-m",
        "/m/model.gguf",
        "--host",
        "127.0.0.1",
        "--port",
        "8080",
        "-c",
        "8192",
        "-np",
        "2",
        "-t",
        "1",
        "-tb",
        "1",
        "--metrics",
    ]


def test_argv_draft_with_ngram_knobs_and_synth() -> None:
    cfg = engine_config_from_dict(
        {
            "name": "combo",
            "spec_types": "draft-simple,ngram-mod",
            "draft_quant": "self",
            "draft_n_max_tokens": 3,
            "ngram_mod_n_match_tokens": 12,
            "synth_rates": [0.8, 0.6, 0.4],
            "threads_http": 4,
            "cache_prompt": False,
        }
    )
    argv = llama_server_argv(
        cfg, model_path=Path("/m/t.gguf"), draft_path=Path("/d/d.gguf"), host="127.0.0.1", port=9, alias="tiny"
    )
    assert argv == [
        "llama-server",
        "-m",
        "/m/t.gguf",
        "--alias",
        "tiny",
        "--host",
        "127.0.0.1",
        "--port",
        "9",
        "-c",
        "8192",
        "-np",
        "2",
        "-t",
        "1",
        "-tb",
        "1",
        "--metrics",
        "--threads-http",
        "4",
        "--no-cache-prompt",
        "--spec-type",
        "draft-simple,ngram-mod",
        "-md",
        "/d/d.gguf",
        "-td",
        "1",
        "-tbd",
        "1",
        "--spec-draft-n-max",
        "3",
        "--spec-draft-n-min",
        "0",
        "--spec-ngram-mod-n-match",
        "12",
        "--spec-synth-rates",
        "0.8,0.6,0.4",
    ]


def test_xllamacpp_params_mapping() -> None:
    xllamacpp = pytest.importorskip("xllamacpp")
    from specscope.engine.serve import build_params

    T = xllamacpp.common_speculative_type
    cfg = engine_config_from_dict(
        {
            "name": "combo",
            "spec_types": "draft-simple,ngram-mod",
            "draft_quant": "self",
            "draft_n_max_tokens": 3,
            "draft_n_min_tokens": 1,
            "ngram_mod_n_min_tokens": 16,
            "synth_rates": [0.8, 0.6, 0.4],
            "n_parallel": 3,
            "ctx_per_slot_tokens": 1024,
        }
    )
    p = build_params(cfg, model_path="/m/t.gguf", draft_path="/d/d.gguf", alias="tiny", host="127.0.0.1", port=0)
    assert p.model.path == "/m/t.gguf"
    assert p.model_alias == {"tiny"}
    assert (p.n_ctx, p.n_parallel, p.port, p.hostnames) == (3072, 3, 0, ["127.0.0.1"])
    assert p.endpoint_metrics is True
    assert (p.cpuparams.n_threads, p.cpuparams_batch.n_threads) == (1, 1)
    s = p.speculative
    assert list(s.types) == [T.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE, T.COMMON_SPECULATIVE_TYPE_NGRAM_MOD]
    assert s.draft.mparams.path == "/d/d.gguf"
    assert (s.draft.n_max, s.draft.n_min) == (3, 1)
    assert (s.draft.cpuparams.n_threads, s.draft.cpuparams_batch.n_threads) == (1, 1)
    assert (s.ngram_mod.n_match, s.ngram_mod.n_min, s.ngram_mod.n_max) == (24, 16, 64)
    assert s.synth_rates == pytest.approx([0.8, 0.6, 0.4])

    base = build_params(get_config("base"), model_path="/m/t.gguf", draft_path=None, alias="a", host="h", port=5)
    assert list(base.speculative.types) == [T.COMMON_SPECULATIVE_TYPE_NONE]
    assert base.speculative.draft.mparams.path == ""
    assert base.speculative.synth_rates == []


def test_every_spec_type_maps_to_an_xllamacpp_enum() -> None:
    pytest.importorskip("xllamacpp")
    from specscope.engine.config import SPEC_TYPES
    from specscope.engine.serve import build_params

    for t in SPEC_TYPES:
        extra = {"draft_quant": "self"} if t == "draft-simple" else {}
        cfg = engine_config_from_dict({"name": t, "spec_types": t, **extra})
        p = build_params(cfg, model_path="m", draft_path="d" if extra else None, alias="a", host="h", port=0)
        assert [x.name for x in p.speculative.types] == ["COMMON_SPECULATIVE_TYPE_" + t.upper().replace("-", "_")]
