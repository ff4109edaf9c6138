"""The census (audit/engine_registry.toml) row by row, and the generated doc.

Every row of the engines' registries is exercised on a checkpoint written here with the loader's own tensor names
(tests/audit/test_families.py holds one complete checkpoint per family, written from the loaders named there):

- a row judged by a family: for each model type (MTP) or architecture (draft; and an MTP row keyed on the target's
  architecture, e.g. MiMoV2FlashForCausalLM, when its family lists it) the row names, the complete checkpoint exits 0
  and is named as that family; with its glue removed it exits 1 naming every removed tensor;
- a row not judged: a checkpoint declaring it gets the named warning (MTP_LAYOUT_UNKNOWN / DRAFT_FORMAT_UNKNOWN),
  exit 0, and no family's error or fix.

A row that yields no case fails ``test_every_row_has_a_test``; a doc that differs from the generated text fails
``test_committed_doc_equals_the_generated_text``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from specscope.audit import audit_checkpoint, families
from specscope.audit.archdoc import RegistryRow, registry_rows, render
from specscope.cli import app

from .ckmaker import H, dense_config, dense_model, layer, write
from .test_families import CASES, Case, V

DOC = Path(__file__).parents[2] / "docs" / "architectures.md"


def _architectures(row: RegistryRow) -> list[str]:
    """The architecture names a row keys on ("architecture A, B (note)")."""
    key = row.key.split(";")[-1].strip() if ";" in row.key else row.key
    if not key.startswith("architecture "):
        return []
    return [a.strip().split(" ")[0] for a in key.removeprefix("architecture ").split(",") if a.strip()]


def _qwen_case(model_type: str) -> Case:
    """Qwen3.5 / Qwen3-Next (qwen3_5_mtp.py, qwen3_next_mtp.py): mtp.fc, mtp.pre_fc_norm_*, mtp.norm, mtp.layers.0."""
    shapes = dense_model(2, V)
    glue = {"mtp.fc.weight": [H, 2 * H], "mtp.pre_fc_norm_hidden.weight": [H]}
    glue |= {"mtp.pre_fc_norm_embedding.weight": [H], "mtp.norm.weight": [H]}
    shapes.update(glue)
    shapes.update(layer("mtp.layers.0."))
    key = "num_nextn_predict_layers" if model_type == "qwen3_next" else "mtp_num_hidden_layers"
    cfg = {**dense_config(2, V), "model_type": model_type, key: 1}
    if model_type == "qwen3_next":
        return Case("qwen3_next_mtp", shapes, cfg, "mtp.fc.weight", "Qwen/Qwen3-Next-80B", glue=tuple(glue))
    return Case("qwen3_5_mtp", shapes, cfg, "mtp.fc.weight", "Qwen/Qwen3.6-27B", glue=tuple(glue))


def _judged_cases() -> list[tuple[str, Case]]:
    out: list[tuple[str, Case]] = []
    for row in registry_rows():
        if not row.family:
            continue
        if row.kind == "mtp":
            for mt in row.model_types:
                if row.family in ("qwen3_5_mtp", "qwen3_next_mtp"):
                    out.append((f"{row.family}:{mt}", _qwen_case(mt)))
                    continue
                base = CASES[row.family]
                cfg = {**base.config, "model_type": mt}
                out.append((f"{row.family}:{mt}", Case(**{**base.__dict__, "config": cfg})))
            listed = families()[row.family].architectures  # a family keyed on the target's architecture
            for arch in [a for a in _architectures(row) if a in listed or not row.model_types]:
                base = CASES[row.family]
                cfg = {**base.config, "architectures": [arch], "model_type": arch.lower()}
                out.append((f"{row.family}:{arch}", Case(**{**base.__dict__, "config": cfg})))
        elif row.family == "draft_model":
            out.append((f"{row.family}", CASES["draft_model"]))
        else:
            for arch in _architectures(row):
                base = CASES[row.family]
                cfg = {**base.config, "architectures": [arch]}
                shapes = dict(base.shapes)
                if row.fc_bias:  # its fc has a bias it reads (SGLang llama_eagle.py)
                    shapes["fc.bias"] = [shapes["fc.weight"][0]]
                out.append((f"{row.family}:{arch}", Case(**{**base.__dict__, "config": cfg, "shapes": shapes})))
    return out


def _unjudged() -> list[tuple[str, str, str]]:
    """(kind, model_type or architecture, label) for every row no family judges."""
    out = []
    for row in registry_rows():
        if row.family:
            continue
        names = list(row.model_types) or _architectures(row)
        out += [(row.kind, n, f"{row.kind}:{n}") for n in names]
    return out


JUDGED = dict(_judged_cases())
UNJUDGED = _unjudged()


def test_every_row_has_a_test() -> None:
    for row in registry_rows():
        if row.family:
            assert row.family in families()
            tested = [k for k in JUDGED if k.split(":")[0] == row.family]
            named = list(row.model_types) if row.kind == "mtp" and row.model_types else _architectures(row)
            if row.family != "draft_model":
                assert named and all(f"{row.family}:{n}" in JUDGED for n in named), row
            assert tested, row
        else:
            assert list(row.model_types) or _architectures(row), row
    assert set(families()) <= {k.split(":")[0] for k in JUDGED}, "a family no census row reaches"
    judged = {t: r.family for r in registry_rows() if r.family for t in r.model_types}
    for r in registry_rows():  # one model type, one verdict across engines
        assert all(judged.get(t, r.family) == r.family for t in r.model_types), r


def test_committed_doc_equals_the_generated_text() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert render(doc) == doc, "docs/architectures.md is stale: run python scripts/gen_architectures_doc.py"
    for r in registry_rows():
        assert f"{r.repository} `{r.file}` @{r.commit}" in doc


def _audit(case: Case, root: Path, tmp_path: Path) -> SimpleNamespace:
    """A draft family's checkpoint is audited as ``--draft`` of a plain target; an MTP family's on its own; through
    the command a user runs (``specscope audit ... -f json``): its exit code, error findings and facts."""
    write(root, case.shapes, case.config)
    argv = ["audit", str(root)]
    if families()[case.key].kind == "draft":
        target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
        argv = ["audit", str(target), "--draft", str(root)]
    r = CliRunner().invoke(app, [*argv, "-f", "json"])
    assert r.exit_code in (0, 1), r.output
    doc = json.loads(r.stdout)
    errors = [SimpleNamespace(**f) for f in doc["findings"] if f["severity"] == "error"]
    return SimpleNamespace(exit_code=r.exit_code, errors=errors, facts=doc["facts"])


@pytest.mark.parametrize("label", sorted(JUDGED))
def test_judged_row_complete_exits_0_and_without_glue_exits_1_naming_it(tmp_path: Path, label: str) -> None:
    case = JUDGED[label]
    r = _audit(case, tmp_path / "ck", tmp_path)
    assert r.exit_code == 0 and r.errors == [], [(f.code, f.message) for f in r.errors]
    fam = r.facts.get("mtp") or r.facts.get("draft_family") or r.facts["draft"]["draft_family"]
    assert fam["family"] == case.key
    shapes = {n: s for n, s in case.shapes.items() if n not in case.glue}
    bare = Case(**{**case.__dict__, "shapes": shapes})
    r = _audit(bare, tmp_path / "bare", tmp_path)
    assert r.exit_code == 1
    (f,) = [f for f in r.errors if f.code in ("MTP_INCOMPLETE", "DRAFT_TENSORS_MISSING")]
    assert [g for g in case.glue if g not in f.message] == [], f.message


@pytest.mark.parametrize("model_type", sorted({n for k, n, _ in UNJUDGED if k == "mtp" and not n[:1].isupper()}))
def test_a_model_type_the_census_gives_another_loader_is_not_judged_as_qwen(tmp_path: Path, model_type: str) -> None:
    """Declared with Qwen's key (``mtp_num_hidden_layers``, as Qwen4-Exp and Intern-S2 do) and holding ``mtp.*``
    tensors: still the named warning, never Qwen3.5's rule or fix."""
    shapes = dense_model(2, V) | layer("mtp.layers.0.") | {"mtp.norm.weight": [H]}
    cfg = {**dense_config(2, V), "model_type": model_type, "mtp_num_hidden_layers": 1}
    r = audit_checkpoint(write(tmp_path / "ck", shapes, cfg))
    assert r.errors == [] and [f.code for f in r.warnings] == ["MTP_LAYOUT_UNKNOWN"] and r.exit_code == 0
    assert "the nearest family, Qwen3.5, would need mtp.fc.weight" in r.warnings[0].message
    assert "Qwen/Qwen3.6-27B" not in " ".join(f.fix or "" for f in r.findings)


@pytest.mark.parametrize(("kind", "name", "label"), UNJUDGED, ids=[u[2] for u in UNJUDGED])
def test_row_not_judged_is_a_named_warning_and_no_family_fix(tmp_path: Path, kind: str, name: str, label: str) -> None:
    if kind == "mtp":  # a DeepSeek-like head under a model type no family lists: listed, not judged
        shapes = dense_model(2, V)
        p = "model.layers.2."
        shapes.update(layer(p))
        shapes.update({p + "enorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]})
        cfg = {**dense_config(2, V), "model_type": name, "num_nextn_predict_layers": 1}
        if name[:1].isupper():  # a row keyed on the target's architecture: declare it, with a model type of its own
            cfg |= {"architectures": [name], "model_type": name.lower()}
        r = audit_checkpoint(write(tmp_path / "ck", shapes, cfg))
        code = "MTP_LAYOUT_UNKNOWN"
    else:  # an EAGLE-like draft under an architecture no family judges
        shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
        cfg = {**dense_config(1, V), "architectures": [name]}
        if not name[:1].isupper():  # a row keyed on the draft's model type (gemma4_assistant)
            cfg["model_type"] = name
        target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
        r = audit_checkpoint(target, draft=write(tmp_path / "draft", shapes, cfg))
        code = "DRAFT_FORMAT_UNKNOWN"
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    (f,) = [f for f in r.warnings if f.code == code]
    assert (name if kind == "draft" else cfg["model_type"]) in f.message and "outside specscope's census" in f.message
    fixes = " ".join(x.fix or "" for x in r.findings)
    assert "graft" not in fixes and not re.search(r"\b(deepseek-ai|yuhuili|Qwen/)", fixes)


def test_census_rows_name_real_files_of_the_families_loaders() -> None:
    """Each judged row's loader file is named in its family's sources (the census and the table agree)."""
    for row in registry_rows():
        if row.family and row.kind == "mtp":
            loaders = re.findall(r"\w+\.py", row.loads)
            if loaders:  # a row that names its loader file: the family's sources name it too
                assert any(x in families()[row.family].engines for x in loaders), (row.family, loaders)


def test_every_row_names_its_engine_repository_file_and_commit() -> None:
    repos = {"vLLM": "vllm-project/vllm", "SGLang": "sgl-project/sglang"}
    for r in registry_rows():
        assert repos[r.engine] == r.repository and r.file.endswith(".py"), r
        assert re.fullmatch(r"[0-9a-f]{8}", r.commit) and r.kind in ("mtp", "draft"), r


def test_every_architecture_a_family_accepts_has_a_census_row() -> None:
    """A family accepts only names some engine's registry (or config class) keys on: ``EAGLEModel`` was accepted as
    EAGLE with no row saying where it comes from (vLLM's EAGLEConfig default name)."""
    keyed = {a for row in registry_rows() for a in _architectures(row)}
    missing = sorted((key, a) for key, fam in families().items() for a in fam.architectures if a not in keyed)
    assert missing == []
