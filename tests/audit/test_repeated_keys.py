"""A config.json key given twice (issue 37): ``{"mtp_num_hidden_layers": 1, "mtp_num_hidden_layers": 3}`` was read
last-wins with no word. The value stays the last (``json.loads``, as the engines' config loaders read it:
transformers' ``PreTrainedConfig._dict_from_json_file``); the audit names the key, both values and the one read."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli
from specscope.audit import audit_checkpoint
from specscope.checkpoint import load_checkpoint
from specscope.checkpoint.safefiles import RepeatedKey, decode_json

from .ckmaker import dense_config, dense_model, write


def _twice(tmp_path: Path) -> Path:
    ck = write(tmp_path / "twice", dense_model(2, 64), {**dense_config(2, 64), "model_type": "qwen3_next"})
    text = json.dumps(json.loads((ck / "config.json").read_text()))[:-1]  # the object, open
    (ck / "config.json").write_text(
        text + ', "mtp_num_hidden_layers": 1, "mtp_num_hidden_layers": 3,'
        ' "quantization_config": {"quant_method": "fp8", "quant_method": "fp8", "fmt": "e4m3"}}'
    )
    return ck


def test_decode_json_lists_each_repeated_key_with_its_values_and_place() -> None:
    found: list[RepeatedKey] = []
    raw = b'{"a": 1, "b": {"c": [1], "c": [2], "c": null}, "l": [{"x": 0, "x": "y"}], "a": 2}'
    assert decode_json(raw, "lab", "f.json", repeated=found) == {"a": 2, "b": {"c": None}, "l": [{"x": "y"}]}
    assert sorted(found, key=lambda r: r.path) == [
        RepeatedKey("", "a", (1, 2)),
        RepeatedKey("b", "c", ([1], [2], None)),
        RepeatedKey("l[0]", "x", (0, "y")),
    ]


def test_a_repeated_config_key_is_read_last_and_named_by_the_audit(tmp_path: Path) -> None:
    ck = _twice(tmp_path)
    loaded = load_checkpoint(ck)
    assert loaded.config is not None and loaded.config["mtp_num_hidden_layers"] == 3  # last wins, as engines read
    report = audit_checkpoint(ck)
    repeated = [f for f in report.findings if f.code == "CONFIG_KEY_REPEATED"]
    assert [(f.severity.value, f.file, f.message) for f in repeated] == [
        (
            "warning",
            "config.json",
            'config.json gives the key "mtp_num_hidden_layers" 2 times (1, 3): the value read is the last, 3',
        ),
        (
            "warning",
            "config.json",
            'config.json gives the key "quant_method" 2 times ("fp8", "fp8"): the value read is the last, "fp8"',
        ),
    ]
    assert repeated[0].found == 'config.json, top-level object: "mtp_num_hidden_layers" = 1, 3, in file order'
    assert repeated[1].found == 'config.json, object quantization_config: "quant_method" = "fp8", "fp8", in file order'
    assert repeated[0].details == {"key": "mtp_num_hidden_layers", "path": "", "values": [1, 3], "read": 3}


def test_the_audit_command_prints_the_repeated_key(tmp_path: Path, capsys, monkeypatch) -> None:
    code, out, _err = cli(["audit", _twice(tmp_path)], capsys, monkeypatch, tmp_path)
    text = " ".join(out.split())
    assert code in (0, 1) and "CONFIG_KEY_REPEATED" in text  # 1: the declared head has no tensors (an error)
    assert 'fix: keep one "mtp_num_hidden_layers" in config.json' in text


def test_a_config_without_repeats_has_no_such_finding(tmp_path: Path) -> None:
    ck = write(tmp_path / "once", dense_model(2, 64), dense_config(2, 64))
    assert load_checkpoint(ck).repeated_keys == {}
    assert not [f for f in audit_checkpoint(ck).findings if f.code == "CONFIG_KEY_REPEATED"]
