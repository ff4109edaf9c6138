"""The config corpus (issue 27 item 7): real configs of public speculative checkpoints (tests/data/corpus/corpus.toml
names each one's repository, path and commit); each audits to the family, draft layers and findings a user of that
model expects, and the published draft / target pairs agree."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from clirun import cli
from paths import DATA, FIXTURES
from specscope.audit import audit_checkpoint, families

CORPUS = DATA / "corpus"
ENTRIES = tomllib.loads((CORPUS / "corpus.toml").read_text())["corpus"]


def _folder(slug: str, tmp_path: Path) -> Path:
    entry = ENTRIES[slug]
    if "fixture" in entry:  # a real config already kept in tests/data/fixtures: audited from a copy
        folder = tmp_path / slug
        folder.mkdir()
        shutil.copy(FIXTURES / entry["fixture"], folder / "config.json")
        return folder
    return CORPUS / slug


def test_the_corpus_has_twenty_configs_across_the_families() -> None:
    assert len(ENTRIES) >= 20
    fams = {e["family"] for e in ENTRIES.values()} - {""}
    assert fams == {"qwen3_5_mtp", "deepseek_mtp", "glm4_moe_mtp", "mimo_mtp", "eagle3", "dflash"}
    assert fams <= set(families())
    for slug, entry in ENTRIES.items():
        assert entry["repository"] and entry["commit"], slug
        if "fixture" not in entry:
            assert (CORPUS / slug / "config.json").is_file(), slug


@pytest.mark.parametrize("slug", sorted(ENTRIES))
def test_each_config_audits_as_its_users_expect(slug: str, tmp_path: Path, capsys, monkeypatch) -> None:
    """docs/architectures.md's corpus table, row by row, through the command a user runs (``audit FOLDER -f json``):
    the family, the draft layers and the findings (exit 1 only with an error)."""
    entry = ENTRIES[slug]
    code, out, err = cli(["audit", _folder(slug, tmp_path), "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    assert code == (1 if any(c.startswith("error:") for c in entry["codes"]) else 0), err
    named = doc["facts"].get("mtp") or doc["facts"].get("draft_family") or {}
    assert named.get("family", "") == entry["family"]
    assert named.get("layers", 0) == entry["layers"]
    assert sorted(f"{f['severity']}:{f['code']}" for f in doc["findings"]) == sorted(entry["codes"])


@pytest.mark.parametrize(
    "draft,target,more",
    [
        # yuhuili/EAGLE3-LLaMA3.1-Instruct-8B declares max_position_embeddings 2048 against Llama-3.1's 131072: the
        # draft of vllm-project/vllm issue #48894 (device-side assert past 2048 tokens in v0.24.0)
        ("llama3-8b-eagle3", "llama-3.1-8b", ["DRAFT_CONTEXT_SHORTER"]),
        ("deepseek-v3-671b-eagle3", "deepseek-v3", []),
        ("qwen3.6-27b-dflash", "qwen3.6-27b", []),
        ("dflash-qwen3.5-27b", "qwen3.5-27b", []),
    ],
)
def test_published_pairs_agree(draft: str, target: str, more: list[str], tmp_path: Path) -> None:
    r = audit_checkpoint(_folder(target, tmp_path), draft=_folder(draft, tmp_path))
    draft_findings = [f for f in r.findings if (f.file or "").startswith("draft")]
    draft_codes = [f.code for f in draft_findings if f.code.startswith(("DRAFT_", "PREFLIGHT_"))]
    # configs only: the corpus carries no tokenizer files, so one draft finding says the tokenizers went unchecked
    assert sorted(draft_codes) == sorted(["DRAFT_TOKENIZER_UNVERIFIED", *more]), draft_codes
    assert not [f.code for f in draft_findings if f.severity.value == "error"]
    (unchecked,) = [f for f in draft_findings if f.code == "DRAFT_TOKENIZER_UNVERIFIED"]
    assert (unchecked.severity.value, unchecked.details) == ("warning", {"missing": ["draft", "target"]})
    assert r.facts["draft"]["draft_family"]["family"] == ENTRIES[draft]["family"]


def test_a_draft_paired_with_the_wrong_target_is_caught(tmp_path: Path) -> None:
    """The Qwen3.6-27B DFlash draft reads target layers up to 61 and hidden size 5120: DeepSeek-V3 has 61 layers and
    hidden size 7168."""
    r = audit_checkpoint(_folder("deepseek-v3", tmp_path), draft=_folder("qwen3.6-27b-dflash", tmp_path))
    assert {"DRAFT_HIDDEN_MISMATCH", "DRAFT_TARGET_LAYER_OUT_OF_RANGE"} <= {f.code for f in r.errors}
