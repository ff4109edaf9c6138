"""The config corpus (issue 27 item 7): real configs of public speculative checkpoints (tests/data/corpus/corpus.toml
names each one's repository, path and commit); each audits to the family, draft layers and findings a user of that
model expects, and the published draft / target pairs agree."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from clirun import cli
from commandtests import command_test_problem
from paths import DATA, FIXTURES, ROOT
from specscope.audit import audit_checkpoint, families
from specscope.audit.archdoc import CORPUS_TEST, PAIR_TEST, corpus_table, render

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


PAIRS = tomllib.loads((CORPUS / "corpus.toml").read_text())["pair"]


@pytest.mark.parametrize("draft", [p["draft"] for p in PAIRS])
def test_published_pairs_agree(draft: str, tmp_path: Path, capsys, monkeypatch) -> None:
    """Each published draft / target pair of corpus.toml, through ``audit TARGET --draft DRAFT -f json``."""
    (pair,) = [p for p in PAIRS if p["draft"] == draft]
    target, more = pair["target"], pair["more"]
    argv = ["audit", _folder(target, tmp_path), "--draft", _folder(draft, tmp_path), "-f", "json"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    draft_findings = [f for f in doc["findings"] if (f.get("file") or "").startswith("draft")]
    draft_codes = [f["code"] for f in draft_findings if f["code"].startswith(("DRAFT_", "PREFLIGHT_"))]
    # configs only: the corpus carries no tokenizer files, so one draft finding says the tokenizers went unchecked
    assert sorted(draft_codes) == sorted(["DRAFT_TOKENIZER_UNVERIFIED", *more]), draft_codes
    assert not [f["code"] for f in draft_findings if f["severity"] == "error"]
    (unchecked,) = [f for f in draft_findings if f["code"] == "DRAFT_TOKENIZER_UNVERIFIED"]
    assert (unchecked["severity"], unchecked["details"]) == ("warning", {"missing": ["draft", "target"]})
    assert doc["facts"]["draft"]["draft_family"]["family"] == ENTRIES[draft]["family"]


def test_the_docs_corpus_table_is_generated_from_corpus_toml() -> None:
    """docs/architectures.md's corpus table is :func:`corpus_table` of this file (issue 36: one home)."""
    doc = (ROOT / "docs" / "architectures.md").read_text("utf-8")
    corpus = tomllib.loads((CORPUS / "corpus.toml").read_text())
    assert render(doc, corpus) == doc, "run: python scripts/gen_architectures_doc.py"
    assert corpus_table(corpus).count(CORPUS_TEST + "[") == len(ENTRIES)


ROW_TESTS = [f"{CORPUS_TEST}[{slug}]" for slug in ENTRIES] + [f"{PAIR_TEST}[{p['draft']}]" for p in PAIRS]


@pytest.mark.parametrize("node", ROW_TESTS)
def test_every_corpus_row_names_a_test_that_runs_a_command(node: str) -> None:
    """Each test the table names (one per checkpoint, one per published pair) is a case of a test that runs
    ``specscope audit``; the table names nothing else (documented means reachable, issue 36)."""
    assert not command_test_problem(node), command_test_problem(node)
    corpus = tomllib.loads((CORPUS / "corpus.toml").read_text())
    assert set(re.findall(r"`(tests/\S+?)`", corpus_table(corpus))) == set(ROW_TESTS)


def test_a_draft_paired_with_the_wrong_target_is_caught(tmp_path: Path) -> None:
    """The Qwen3.6-27B DFlash draft reads target layers up to 61 and hidden size 5120: DeepSeek-V3 has 61 layers and
    hidden size 7168."""
    r = audit_checkpoint(_folder("deepseek-v3", tmp_path), draft=_folder("qwen3.6-27b-dflash", tmp_path))
    assert {"DRAFT_HIDDEN_MISMATCH", "DRAFT_TARGET_LAYER_OUT_OF_RANGE"} <= {f.code for f in r.errors}
