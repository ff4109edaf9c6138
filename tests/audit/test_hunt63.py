"""Round 63 of the new-user checkpoint hunt (issue 36).

- VL_PROCESSOR_CONFIG_MISSING asked every vision-language checkpoint for processor_config.json and
  video_preprocessor_config.json. Which files a model's processor reads depends on its processor class
  (transformers): Llama4Processor has an image processor and a tokenizer, no video processor, and init kwargs
  (patch_size, the image tokens) it saves to processor_config.json; Qwen3.5 / 3.6 (Qwen3VLProcessor) has a video
  processor too. The census's ``vision_processors`` table says which files beyond preprocessor_config.json an
  architecture's processor needs; an architecture not in it is asked for preprocessor_config.json only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint


def _vl(ck: Path, arch: str, files: tuple[str, ...] = ()) -> list[tuple[str, str | None]]:
    ck.mkdir()
    cfg = {"architectures": [arch], "model_type": "x", "vision_config": {}, "text_config": {"hidden_size": 8}}
    (ck / "config.json").write_text(json.dumps(cfg))
    for name in files:
        (ck / name).write_text("{}")
    r = audit_checkpoint(ck)
    return sorted((f.severity.value, f.file) for f in r.by_code("VL_PROCESSOR_CONFIG_MISSING"))


def test_a_llama4_target_is_not_asked_for_a_video_processor(tmp_path: Path) -> None:
    assert _vl(tmp_path / "a", "Llama4ForConditionalGeneration") == [
        ("error", "preprocessor_config.json"),
        ("warning", "processor_config.json"),
    ]
    assert _vl(tmp_path / "b", "Llama4ForConditionalGeneration", ("preprocessor_config.json", "processor_config.json")) == []


@pytest.mark.parametrize("arch", ["Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"])
def test_a_qwen3_5_checkpoint_is_asked_for_its_video_processor(tmp_path: Path, arch: str) -> None:
    assert _vl(tmp_path / "a", arch, ("preprocessor_config.json",)) == [
        ("warning", "processor_config.json"),
        ("warning", "video_preprocessor_config.json"),
    ]


def test_an_architecture_not_in_the_table_needs_its_preprocessor_config_only(tmp_path: Path) -> None:
    assert _vl(tmp_path / "a", "SomeNewVLForConditionalGeneration") == [("error", "preprocessor_config.json")]
    assert _vl(tmp_path / "b", "SomeNewVLForConditionalGeneration", ("preprocessor_config.json",)) == []
