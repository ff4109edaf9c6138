"""The census as text: the generated tables of ``docs/architectures.md``.

Two tables are rendered from data and nothing else: the families specscope judges (``architectures.toml``, one row
per family with the engine loaders it was written from) and the census of the engines' registries
(``engine_registry.toml``, one row per model type / draft format an engine loads, with repository, file and commit,
and the family that judges it or "not judged"). Each sits in ``docs/architectures.md`` between
``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``; :func:`render` replaces those blocks and keeps the
prose around them. ``python scripts/gen_architectures_doc.py`` writes the file; ``tests/audit/test_census_rows.py``
fails when the committed file differs from :func:`render` of itself.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from specscope.audit.architectures import Family, families, vision_processors, with_draft_head

__all__ = [
    "RegistryRow",
    "registry_rows",
    "unjudged_draft_row",
    "unjudged_mtp_model_types",
    "unjudged_mtp_row",
    "families_table",
    "registry_table",
    "gguf_architectures_table",
    "vision_processors_table",
    "known_architectures",
    "render",
    "corpus_table",
    "BLOCKS",
    "CORPUS_TEST",
    "PAIR_TEST",
]

_REGISTRY = "engine_registry.toml"


@dataclass(frozen=True)
class RegistryRow:
    """One row of ``engine_registry.toml`` (fields documented at the top of the file)."""

    kind: str
    engine: str
    repository: str
    file: str
    commit: str
    key: str
    loads: str
    family: str
    model_types: tuple[str, ...]
    fc_bias: bool = False
    layers_key: str = ""
    draft_only: bool = False


@cache
def registry_rows() -> tuple[RegistryRow, ...]:
    """The census rows, file order.

    Raises:
        ValueError: a row names a family ``architectures.toml`` does not have (the files ship together: a bug).
    """
    raw = tomllib.loads(resources.files(__package__).joinpath(_REGISTRY).read_text(encoding="utf-8"))
    rows = tuple(
        RegistryRow(
            kind=str(r["kind"]),
            engine=str(r["engine"]),
            repository=str(r["repository"]),
            file=str(r["file"]),
            commit=str(r["commit"]),
            key=str(r["key"]),
            loads=str(r["loads"]),
            family=str(r.get("family", "")),
            model_types=tuple(str(t) for t in r.get("model_types", [])),
            fc_bias=bool(r.get("fc_bias", False)),
            layers_key=str(r.get("layers_key", "")),
            draft_only=bool(r.get("draft_only", False)),
        )
        for r in raw["row"]
    )
    unknown = sorted({r.family for r in rows if r.family and r.family not in families()})
    if unknown:
        raise ValueError(f"{_REGISTRY}: families {unknown} are not in architectures.toml")
    return rows


def unjudged_mtp_model_types() -> frozenset[str]:
    """Model types the census lists for an MTP loader that no family judges (e.g. ``qwen4_exp``, which declares
    ``mtp_num_hidden_layers`` like Qwen3.5 but is loaded by another class): never judged by a nearer family."""
    return frozenset(t for r in registry_rows() if r.kind == "mtp" and not r.family for t in r.model_types)


def unjudged_mtp_row(model_type: str) -> RegistryRow | None:
    """The census MTP row no family judges that names ``model_type`` (e.g. ``minimax_m3_vl``), else None."""
    return next((r for r in registry_rows() if r.kind == "mtp" and not r.family and model_type in r.model_types), None)


def draft_row_for(config: dict[str, Any] | None, family: str) -> tuple[str, RegistryRow] | None:
    """``(architecture, row)``: the census draft row of ``family`` keyed ``architecture ...`` that names one of
    ``config``'s ``architectures`` (e.g. SGLang's ``LlamaForCausalLMEagle``), else None: the engine whose loader
    reads a draft of that architecture."""
    archs = (config or {}).get("architectures")
    for arch in [str(a) for a in archs] if isinstance(archs, list) else []:
        for row in registry_rows():
            if row.kind == "draft" and row.family == family and row.key.startswith("architecture "):
                listed = {a.strip().split(" ")[0] for a in row.key.removeprefix("architecture ").split(",")}
                if arch in listed:
                    return arch, row
    return None


def unjudged_draft_row(config: dict[str, Any] | None, *, as_draft: bool = True) -> tuple[str, RegistryRow] | None:
    """``(architecture, row)`` when ``config``'s ``architectures`` (or, for a row keyed ``model_type ...``, its
    ``model_type``) name a draft format an engine's registry loads but no family judges (census draft rows with family
    ""), else None. The architecture shown is the declared one, else the model type. A ``draft_only`` row (a target's
    architecture the engine renames when it is given as the draft) applies only ``as_draft``."""
    cfg = config or {}
    archs = cfg.get("architectures")
    archs = [str(a) for a in archs] if isinstance(archs, list) else []
    model_type = str(cfg.get("model_type", ""))
    for row in registry_rows():
        if row.family or row.kind != "draft" or (row.draft_only and not as_draft):
            continue
        if model_type and model_type in row.model_types:
            return (", ".join(archs) or f"(none; model_type {model_type})"), row
        if not row.key.startswith("architecture "):
            continue
        listed = {a.strip().split(" ")[0] for a in row.key.removeprefix("architecture ").split(",")}
        for arch in archs:
            if arch in listed:
                return arch, row
    return None


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or "-"


def _names(prefix: str, names: tuple[str, ...]) -> str:
    return ", ".join(f"`{prefix}{n.removesuffix('.weight')}`" for n in names)


def _declared(fam: Family) -> str:
    parts = [", ".join(fam.architectures) or "-", ", ".join(fam.model_types) or "-"]
    parts.append(", ".join(f"`{k}`" for k in fam.keys) or "-")
    return " / ".join(parts)


def _spelled(fam: Family, prefix: str) -> str:
    return prefix.replace("{head}", fam.head_prefix).replace("{main}", "model.").replace("{n}", "N+i")


def _layer(fam: Family) -> str:
    p = _spelled(fam, fam.layer_prefix)
    if not p:
        return "-"
    body = {"target": "= a main decoder layer of the same checkpoint"}.get(fam.layer_body, f"{fam.layer_body} layer")
    glue = f"; glue {_names('', fam.layer_glue)}" if fam.layer_glue else ""
    other = "".join(
        f" (or `{_spelled(fam, s)}*`, max(declared {change:+d}, 1) layers read)" for s, change in fam.layer_spellings
    )
    return f"`{p}*`{other} {body}{glue}"


def _shared(fam: Family) -> str:
    out = [_names(fam.head_prefix, fam.shareable)] if fam.shareable else []
    if fam.layer_shareable:
        out.append("per layer " + _names("", fam.layer_shareable))
    return "; ".join(out) or "-"


#: architectures.toml ``vocab_map`` -> the tensors it means (rules_vocab.py reads them)
_VOCAB_MAPS = {
    "eagle3": "`d2t` [draft_vocab_size] (required when reduced), `t2d` [vocab_size] bool",
    "medusa": "`token_map` when `truncated_vocab_size` < `vocab_size`",
}


def _past_layers(fam: Family) -> str:
    """What ``audit`` says of head layers stored past the count the engine builds, by what the family's loader does
    (``past_layers``; a family whose loader was not read for it is said to be not judged, never guessed)."""
    if fam.kind != "mtp":
        return "-"
    if fam.past_layers == "raises":
        code = "MTP_LAYERS_NOT_BUILT/fixed" if fam.layers_fixed else "MTP_LAYERS_NOT_BUILT"
        return f"the loader raises: `{code}` (error)"
    if fam.past_layers == "skips" and fam.target_past_layers == "raises":
        return "the MTP loader skips them, the target's loader raises first: `MTP_LAYERS_NOT_BUILT/target` (error)"
    if fam.past_layers == "skips":
        text = "the loader skips them: `MTP_LAYERS_NOT_BUILT/skipped` (warning)"
        if fam.target_past_names:
            held = " / ".join(f"`{n}`" for n in fam.target_past_names)
            text += f"; a main layer past those the target drops holding {held}: `MTP_LAYERS_NOT_BUILT/target` (error)"
        return text
    return "not judged (the loader was not read for it)"


def families_table() -> str:
    """One row per family of ``architectures.toml``: how it is declared, what it must hold, what it may share, where a
    missing tensor comes from, and the loaders read."""
    lines = [
        "| family | what | declared by (architectures / model_type / keys) | layers key | head tensors | "
        "per draft layer | fusion | shared with the target (may be omitted) | vocabulary map | source of a missing "
        "tensor | MTP layers stored past the count built | loaders read |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, fam in families().items():
        source = fam.source + (f", e.g. {fam.source_example}" if fam.source_example else "")
        cells = [
            f"`{key}`",
            fam.title,
            _declared(fam),
            f"`{fam.layers_key}`" if fam.layers_key else "-",
            _names(fam.head_prefix, fam.head) or "-",
            _layer(fam),
            f"`{fam.fusion.removesuffix('.weight')}`" if fam.fusion else "-",
            _shared(fam),
            _VOCAB_MAPS.get(fam.vocab_map, fam.vocab_map),
            source,
            _past_layers(fam),
            fam.engines,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def draft_blocks_table() -> str:
    """One row per decoder block a plain draft model is judged by (``[families.draft_model.block_layouts]``): the
    architectures that have it and the names each layer must hold."""
    fam = families()["draft_model"]
    by_block: dict[tuple[tuple[str, ...], str, str], list[str]] = {}
    for arch, names in fam.block_layouts:
        own = with_draft_head(fam, {"architectures": [arch]})
        named = ", ".join(f"`{own.head_prefix}{n}`" for n in own.head)
        head = "" if own is fam else f"head {named}, untied LM head `{own.lm_head}`; "
        layers = own.layer_prefix.replace("{head}", own.head_prefix)
        where = head + f"under `{layers}`: "
        by_block.setdefault((names, where, _built_by(fam, arch) + _moe_rule(fam, arch)), []).append(arch)
    lines = ["| architectures | each layer holds (the head where it is not Llama's `model.`) |", "|---|---|"]
    for (names, where, when), archs in by_block.items():
        lines.append(f"| {', '.join(archs)} | {_cell(where + _names('', names) + when)} |")
    return "\n".join(lines)


def _built_by(fam: Family, arch: str) -> str:
    """``"; built only when: `name` (key, !key)"`` for the names of ``arch``'s head (``head_when``, with the head
    prefix) and block (``block_when``) its loader builds by config keys, or ``""``."""
    head = dict(fam.block_heads).get(arch)
    conds = [(head.head_prefix + n, c) for n, c in head.head_when] if head else []
    conds += dict(fam.block_when).get(arch, ())
    if not conds:
        return ""
    shown = [f"`{name.removesuffix('.weight')}` ({', '.join(k for k, _ in c)})" for name, c in conds]
    return "; built only when: " + ", ".join(shown)


def _moe_rule(fam: Family, arch: str) -> str:
    """``"; sparse layers (...): names in place of names"`` for a MoE architecture's per-layer rule (``block_moe``),
    or ``""``."""
    moe = dict(fam.block_moe).get(arch)
    if moe is None:
        return ""
    rule = [f"`{moe.experts[0]}` (default {moe.experts[1]}) > 0"]
    if moe.step[0]:
        rule.append(f"(i + 1) % `{moe.step[0]}` (default {moe.step[1]}) == 0")
    if moe.dense_layers:
        rule.append(f"i not in `{moe.dense_layers}`")
    held = _names("", moe.sparse + moe.expert)
    instead = f" in place of {_names('', moe.dense)}" if moe.dense else ""
    return f"; layer i sparse when {' and '.join(rule)}: {held} for each expert e{instead}"


def registry_table() -> str:
    """One row per census row: engine, what it keys on, what it loads, the source read, the judging family."""
    lines = [
        "| kind | engine | keys on | loads | source (repository, file @ commit) | judged by |",
        "|---|---|---|---|---|---|",
    ]
    for r in registry_rows():
        code = "MTP_LAYOUT_UNKNOWN" if r.kind == "mtp" else "DRAFT_FORMAT_UNKNOWN"
        judged = f"`{r.family}`" if r.family else f"not judged: `{code}` (warning)"
        cells = [r.kind, r.engine, r.key, r.loads, f"{r.repository} `{r.file}` @{r.commit}", judged]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


@cache
def known_architectures() -> tuple[frozenset[str], dict[str, Any]]:
    """The ``general.architecture`` names the embedded engine accepts and where the list was read
    (``gguf_architectures.toml``: the engine's own ``llm_arch_name`` table, regenerated by
    ``scripts/gen_gguf_architectures.py``)."""
    raw = tomllib.loads(resources.files(__package__).joinpath("gguf_architectures.toml").read_text(encoding="utf-8"))
    return frozenset(raw["names"]), dict(raw["source"])


def gguf_architectures_table() -> str:
    """One row: the GGUF ``general.architecture`` names the embedded engine accepts (``gguf_architectures.toml``),
    with where they were read and the command that regenerates them; a name outside it is ``GGUF_ARCH_UNKNOWN``."""
    names, source = known_architectures()
    ordered = sorted(names)
    lines = [
        "| source | read | regenerate | judged by | architectures |",
        "|---|---|---|---|---|",
        "| "
        + " | ".join(
            _cell(c)
            for c in (
                f"{source['engine']} (revision {source['revision'][:8]}), {source['table']}",
                source["read"],
                f"`{source['regenerate']}`",
                "`GGUF_ARCH_UNKNOWN` (warning) for a name outside the list",
                f"{len(ordered)}: " + ", ".join(f"`{n}`" for n in ordered),
            )
        )
        + " |",
    ]
    return "\n".join(lines)


#: the command test of a corpus row (``audit FOLDER -f json``), parametrized by the row's slug
CORPUS_TEST = "tests/audit/test_corpus.py::test_each_config_audits_as_its_users_expect"
#: the command test of a published pair (``audit TARGET --draft DRAFT -f json``), parametrized by the draft's slug
PAIR_TEST = "tests/audit/test_corpus.py::test_published_pairs_agree"
#: how the table abbreviates a finding: the corpus does not carry the vision processor files a full download has
_SHORT = {"VL_PROCESSOR_CONFIG_MISSING": "VL"}


def _corpus_audit(slug: str, entry: dict[str, Any], entries: dict[str, Any], pairs: list[dict[str, Any]]) -> str:
    codes = sorted({c.partition(":")[2] for c in entry["codes"]}, key=lambda c: (c != "NO_WEIGHTS", c))
    notes = entry.get("code_notes", {})
    text = ", ".join(_SHORT.get(c, c) + (f" ({notes[c]})" if c in notes else "") for c in codes)
    for pair in pairs:
        if pair["draft"] == slug:
            against = ", ".join(["DRAFT_TOKENIZER_UNVERIFIED", *pair["more"]])
            text += f"; against {entries[pair['target']]['model']} only {against} (`{PAIR_TEST}[{slug}]`)"
    return text


def corpus_table(corpus: dict[str, Any]) -> str:
    """The config corpus of the tests (``tests/data/corpus/corpus.toml``, given loaded: it is test data, not shipped)
    as a Markdown table: one row per checkpoint with its source, the family and draft layers the audit names, the
    findings of a configs-only audit (and of each published pair), and the command test that checks them."""
    entries: dict[str, Any] = corpus["corpus"]
    pairs: list[dict[str, Any]] = corpus.get("pair", [])
    lines = [
        "| checkpoint | source (repository @ commit) | family | draft layers | audit | test |",
        "|---|---|---|---|---|---|",
    ]
    for slug, e in entries.items():
        name = e["model"].replace("SpecForge draft config ", "SpecForge ")
        if "hf_quant_config" in e.get("path", ""):
            name += " (+ hf_quant_config)"
        source = "tests/data/fixtures (SOURCES.md)" if "fixture" in e else f"{e['repository']} @{e['commit'][:8]}"
        family = e["family"] or "none"
        if "note" in e:
            family += f" ({e['note']})"
        cells = [name, source, family, str(e["layers"]), _corpus_audit(slug, e, entries, pairs),
                 f"`{CORPUS_TEST}[{slug}]`"]  # fmt: skip
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


#: block name -> renderer
def vision_processors_table() -> str:
    """One row per architecture of the census's ``vision_processors`` table: the processor files its vision-language
    checkpoint needs beyond ``preprocessor_config.json`` (``VL_PROCESSOR_CONFIG_MISSING`` warns for each absent)."""
    lines = ["| architecture | needs beyond preprocessor_config.json |", "|---|---|"]
    for arch, names in vision_processors().items():
        lines.append(f"| `{arch}` | {', '.join(f'`{n}`' for n in names)} |")
    return "\n".join(lines)


BLOCKS = {
    "families": families_table,
    "draft-blocks": draft_blocks_table,
    "census": registry_table,
    "gguf-architectures": gguf_architectures_table,
    "vision-processors": vision_processors_table,
}


def render(doc: str, corpus: dict[str, Any] | None = None) -> str:
    """``doc`` with every ``<!-- generated: NAME -->`` ... ``<!-- end generated: NAME -->`` block re-rendered; with
    ``corpus`` (the tests' ``corpus.toml``, loaded) its ``corpus`` block too (:func:`corpus_table`), else that block is
    kept as it is.

    Raises:
        ValueError: a block of :data:`BLOCKS` is missing from ``doc``.
    """
    blocks: dict[str, Callable[[], str]] = dict(BLOCKS)
    if corpus is not None:
        blocks["corpus"] = lambda: corpus_table(corpus)
    for name, fn in blocks.items():
        begin, end = f"<!-- generated: {name} -->", f"<!-- end generated: {name} -->"
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if pattern.search(doc) is None:
            raise ValueError(f"docs/architectures.md has no {begin} ... {end} block")
        found = pattern.search(doc)
        assert found is not None
        doc = doc[: found.start()] + f"{begin}\n{fn()}\n{end}" + doc[found.end() :]
    return doc
