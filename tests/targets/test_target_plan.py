"""One target parser for bench and gate: --configs, --server NAME=URL, --launch."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.targets import TargetPlan, parse_configs, parse_servers, parse_targets


def test_configs_comma_separated_and_repeated_mean_the_same() -> None:
    assert parse_configs("base,ngram") == ("base", "ngram")
    assert parse_configs(["base", "ngram"]) == ("base", "ngram")
    assert parse_configs(["base,ngram", " draft "]) == ("base", "ngram", "draft")
    assert parse_configs(None) is None and parse_configs([]) is None
    with pytest.raises(ConfigError, match="--configs has an empty item"):
        parse_configs("base,,ngram")
    with pytest.raises(ConfigError, match="names repeat"):
        parse_configs(["base", "base"])


def test_embedded_is_the_default() -> None:
    plan = parse_targets(configs=["base,ngram"])
    assert plan == TargetPlan("embedded", ("base", "ngram"))
    assert parse_targets().names(("base", "ngram")) == ("base", "ngram")


def test_launch_vllm_takes_recipe_names() -> None:
    plan = parse_targets(configs="mtp2,base", launch="vllm", recipes=Path("r.toml"))
    assert plan == TargetPlan("vllm", ("mtp2", "base"), recipes=Path("r.toml"))


def test_servers_named_or_named_by_position() -> None:
    assert parse_servers(["http://h:1"]) == {"server": "http://h:1"}
    assert parse_servers(["http://h:1", "http://h:2"]) == {"server1": "http://h:1", "server2": "http://h:2"}
    assert parse_servers(["http://h:1", "http://h:2"], ("base", "mtp")) == {"base": "http://h:1", "mtp": "http://h:2"}
    plan = parse_targets(servers=["base=http://h:1", "mtp3=https://h:2/v1"])
    assert plan.kind == "external" and plan.servers == {"base": "http://h:1", "mtp3": "https://h:2/v1"}
    assert plan.names(()) == ("base", "mtp3")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"launch": "sglang"}, "invalid value for --launch"),
        ({"servers": ["localhost:8000"]}, "--server must be a URL or NAME=URL"),
        ({"servers": ["=http://h:1"]}, "--server has an empty config name"),
        ({"servers": ["a=http://h:1", "a=http://h:2"]}, "--server names repeat"),
        (
            {"servers": ["http://h:1"], "launch": "vllm"},
            "--server and --launch vllm both choose who serves the configs",
        ),
    ],
)
def test_bad_target_options_are_config_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_targets(**kwargs)
    assert info.value.message == message
