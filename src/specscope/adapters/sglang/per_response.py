"""SGLang's per-response speculative fields, read into the engine-neutral :class:`~specscope.records.SpecRequest`
(issues 16, 26; docs/engines.md has the field-by-field table).

``meta_info`` (native ``/generate``; on OpenAI responses where a build forwards it): three generations of names for
the same counts (its derived ``spec_accept_length`` = completion_tokens / spec_verify_ct and ``spec_accept_rate`` =
accepted / drafted are checked against them: ``SPEC_FIELDS_DISAGREE``, e.g. the zeros PR #13754 fixed):
``spec_accept_token_num`` / ``spec_draft_token_num`` (<= 0.5.9), ``spec_accepted_drafts`` / ``spec_proposed_drafts``,
``spec_num_correct_drafts`` / ``spec_num_proposed_drafts`` (current, with the older as aliases), always with
``spec_verify_ct`` (verify steps) and a histogram ``spec_accept_histogram`` / ``spec_correct_drafts_histogram``.
``spec_num_proposed_drafts`` is SGLang's own ``verify_ct x (speculative_num_draft_tokens - 1)``, not a count of
drafted tokens (PR #34814); it is read as the engine's drafted figure and the docs say so. OpenAI responses:
``sglext.spec_tokens_details`` (request ``return_spec_tokens_details``, PR #33518), whose absent metrics SGLang fills
with 0 (``spec_tokens_details_from_meta_info``: ``or 0``): every 0 there is a fill, read as None
(``SGLANG_FILLED_ZERO``). SGLang reports no queue wait per response, and nothing is derived in its place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from specscope.adapters.per_response import SPEC_WORDS, Reader, ResponseField, spec_record, unread_paths
from specscope.records import SpecRequest

__all__ = [
    "CHOICE_ORDER",
    "DERIVED",
    "FIELDS",
    "HISTOGRAMS",
    "KNOWN",
    "NAMES",
    "ROOT_KEYS",
    "WHERE",
    "read_choice",
    "read_payload",
]

#: (accepted name, drafted name, the generation it marks), newest first; spec_verify_ct in all of them
NAMES = (
    ("spec_num_correct_drafts", "spec_num_proposed_drafts", "sglang current names (PR #33518 era)"),
    ("spec_accepted_drafts", "spec_proposed_drafts", "sglang spec_accepted_drafts names"),
    ("spec_accept_token_num", "spec_draft_token_num", "sglang names of 0.5.9 and before"),
)
HISTOGRAMS = ("spec_correct_drafts_histogram", "spec_accept_histogram")
DERIVED = frozenset({"spec_accept_rate", "spec_accept_length"})  # SGLang computes them from the counts
# DSpark-era fields whose meaning the pinned sources do not document: reported as unread
KNOWN = frozenset({n for names in NAMES for n in names[:2]} | set(HISTOGRAMS) | DERIVED | {"spec_verify_ct"})
#: the top-level keys it reads
ROOT_KEYS = frozenset({"meta_info", "sglext"})
#: where its responses carry the fields, as a note names it
WHERE = "meta_info / sglext.spec_tokens_details"
#: last among a choice's readers
CHOICE_ORDER = 2


def _number(x: Any) -> float | None:
    """``x`` as a float, None when it is no number or beyond a float (a count of 400 digits)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return None
    try:
        return float(x)
    except OverflowError:
        return None


def _derived(payload: Mapping[str, Any], path: str, accepted: int | None, drafted: int | None) -> list[str]:
    """``SPEC_FIELDS_DISAGREE`` where SGLang's derived ``spec_accept_length`` (completion_tokens / spec_verify_ct, PR
    #3152) or ``spec_accept_rate`` (accepted / drafted) contradicts the counts beside it (PR #13754 fixed request-level
    figures that read 0). Derived fields are checked, never read; a 3-decimal rounding is no disagreement."""
    out: list[str] = []
    length, rate = _number(payload.get("spec_accept_length")), _number(payload.get("spec_accept_rate"))
    completion, steps = _number(payload.get("completion_tokens")), _number(payload.get("spec_verify_ct"))
    if completion is not None and steps is not None and steps > completion:
        # every verify step commits at least one token (the bonus): more steps than tokens is no count of either
        out.append(
            f"SPEC_FIELDS_DISAGREE({path}.spec_verify_ct {steps:g} > completion_tokens {completion:g}: each verify "
            "step emits at least one token)"
        )
    if length is not None and completion is not None and steps:
        expected = completion / steps
        if abs(length - expected) > 5e-4 + 1e-4 * expected:
            out.append(
                f"SPEC_FIELDS_DISAGREE({path}.spec_accept_length {payload['spec_accept_length']} != completion_tokens "
                f"{completion:g} / spec_verify_ct {steps:g} = {expected:.2f})"
            )
    if rate is not None and accepted is not None and drafted:
        if abs(rate - accepted / drafted) > 5e-4:
            out.append(
                f"SPEC_FIELDS_DISAGREE({path}.spec_accept_rate {payload['spec_accept_rate']} != accepted {accepted} / "
                f"drafted {drafted} = {accepted / drafted:.4f})"
            )
    elif rate == 0 and completion is not None and steps and completion > steps + 1:
        # more tokens than one per verify step (and the prefill's): some step accepted a draft
        out.append(
            f"SPEC_FIELDS_DISAGREE({path}.spec_accept_rate {payload['spec_accept_rate']} while completion_tokens "
            f"{completion:g} over spec_verify_ct {steps:g} steps say drafts were accepted)"
        )
    return out


def read_payload(payload: Mapping[str, Any], path: str, shape: str, *, filled_zeros: bool) -> SpecRequest:
    """A ``meta_info`` or ``sglext.spec_tokens_details`` at ``path``, recorded as ``shape``; ``filled_zeros``: every
    0 in it is SGLang's fill (``sglext``), read as None."""
    r = Reader(payload, path)
    for key, value in payload.items():  # meta_info holds much else (prompt_tokens, e2e_latency ...)
        if not any(w in key for w in SPEC_WORDS) or key in KNOWN:
            continue
        if not (filled_zeros and value in (0, [], None)):  # an sglext fill says nothing
            r.warnings.append(f"UNREAD_SPEC_FIELD({path}.{key})")
    generation = next((g for g in NAMES if g[0] in payload or g[1] in payload), None)
    accepted = drafted = None
    if generation is not None:
        accepted, drafted = r.count(generation[0]), r.count(generation[1])
        for older in NAMES[NAMES.index(generation) + 1 :]:  # aliases must say the same
            for new_name, old_name in zip(generation[:2], older[:2], strict=True):
                if old_name in payload and payload[old_name] != payload.get(new_name):
                    r.warnings.append(f"SPEC_FIELDS_DISAGREE({path}.{old_name} != {new_name})")
    steps = r.count("spec_verify_ct")
    hist = r.histogram(*HISTOGRAMS)
    if filled_zeros:  # sglext: SGLang wrote 0 for every metric it did not have
        values = {"accepted_tokens": accepted, "draft_tokens": drafted, "verify_steps": steps}
        for name, v in values.items():
            if v == 0:
                r.warnings.append(f"SGLANG_FILLED_ZERO({name})")
        accepted, drafted, steps = (None if v == 0 else v for v in values.values())
    r.warnings += _derived(payload, path, accepted, drafted)  # after the fills: a filled 0 is no count
    rec = spec_record(
        "sglang", shape, r, accepted_tokens=accepted, draft_tokens=drafted, verify_steps=steps, histogram=hist
    )
    return dataclasses.replace(rec, engine_version=None if generation is None else generation[2])


def _meta_info(meta: Any, path: str) -> list[SpecRequest]:
    if isinstance(meta, dict) and any(k.startswith("spec_") for k in meta):
        return [read_payload(meta, path, "sglang.meta_info", filled_zeros=False)]
    return []


def _sglext(ext: Mapping[str, Any]) -> list[SpecRequest]:
    out: list[SpecRequest] = []
    details = ext.get("spec_tokens_details")
    if isinstance(details, dict):
        shape = "sglang.sglext.spec_tokens_details"
        out.append(read_payload(details, "sglext.spec_tokens_details", shape, filled_zeros=True))
    elif details is not None:
        warning = f"WRONG_TYPE(sglext.spec_tokens_details: {type(details).__name__})"
        seen = ("sglext.spec_tokens_details",)
        out.append(SpecRequest("sglang", "sglang.sglext", source_fields=seen, warnings=(warning,)))
    others = [k for k in ext if k != "spec_tokens_details" and any(w in k for w in SPEC_WORDS)]
    if others:
        paths = tuple(f"sglext.{k}" for k in others)
        out.append(SpecRequest("sglang", "sglang.sglext", source_fields=paths, warnings=unread_paths(paths)))
    return out


def read_root(obj: Mapping[str, Any]) -> list[SpecRequest]:
    """Top-level ``meta_info`` (when it holds a ``spec_`` key), then ``sglext``: its ``spec_tokens_details``, and
    any other speculative key there as unread."""
    out = _meta_info(obj.get("meta_info"), "meta_info")
    ext = obj.get("sglext")
    if isinstance(ext, dict):
        out += _sglext(ext)
    return out


def read_choice(i: int, choice: Mapping[str, Any]) -> list[SpecRequest]:
    """``choices[i].meta_info`` when it holds a ``spec_`` key."""
    return _meta_info(choice.get("meta_info"), f"choices[{i}].meta_info")


#: what this reader declares of each per-response field, as docs/engines.md's per-response table shows it
# the command-level test of the shapes read (bench against the truth server scripted to each)
_CLI = "tests/cli/test_per_response_shapes_cli.py::test_bench_reads_each_per_response_shape"
FIELDS: tuple[ResponseField, ...] = (
    ResponseField(
        "<= 0.5.9 (`tokenizer_manager.py`; public reproduction note)",
        "`meta_info.spec_accept_token_num` / `spec_draft_token_num`",
        "read",
        '`accepted_tokens` / `draft_tokens`, `engine_version` "sglang names of 0.5.9 and before"',
        f"sglang-0.5.9-names; CLI: `{_CLI}[sglang_059]`",
    ),
    ResponseField(
        "`fill_spec_decoding_meta` (index id 55294862469)",
        "`meta_info.spec_accepted_drafts` / `spec_proposed_drafts`",
        "read",
        "as above",
        f"sglang-accepted-drafts-names; CLI: `{_CLI}[sglang]`",
    ),
    ResponseField(
        "current (`fill_spec_decoding_meta`, index id 55563244339; PR #33518 payload)",
        "`meta_info.spec_num_correct_drafts` / `spec_num_proposed_drafts`",
        "read",
        "as above (the older names are aliases: `SPEC_FIELDS_DISAGREE` if they differ)",
        f"sglang-current-names-pr33518; integration `sglang`; CLI: `{_CLI}[sglang]`",
    ),
    ResponseField(
        "all three",
        "`meta_info.spec_verify_ct`",
        "read",
        '`verify_steps` (a reader that ignored it printed "drafts 0")',
        f"same cases; CLI: `{_CLI}[sglang_059]`, `{_CLI}[sglang]`",
    ),
    ResponseField(
        "all three",
        "`meta_info.spec_correct_drafts_histogram` / `spec_accept_histogram`",
        "read",
        "`histogram`",
        f"sglang-current-names-pr33518; CLI: `{_CLI}[sglang]`",
    ),
    ResponseField(
        "all three",
        "`spec_num_proposed_drafts` is SGLang's `verify_ct x (speculative_num_draft_tokens - 1)`, not a count of"
        " drafted tokens (PR #34814, PR #13212)",
        "read, caveat",
        "the engine's own drafted figure; wrong for adaptive width",
        "docs only",
    ),
    ResponseField(
        "all three",
        "`meta_info.spec_accept_rate`, `spec_accept_length` (= completion_tokens / verify_ct)",
        "derived",
        "not read",
        "sglang-0.5.9-names",
    ),
    ResponseField(
        "PR #11144 (request-level rate / length); PR #13754 (fixed request-level zeros)",
        "`spec_accept_length` / `spec_accept_rate` against `completion_tokens` / `spec_verify_ct` and the counts",
        "derived, checked",
        "`SPEC_FIELDS_DISAGREE` (e.g. length 0 beside 40 tokens over 10 steps = 4.00)",
        "test_sglang_derived_fields.py",
    ),
    ResponseField(
        "current (DSpark)",
        "`meta_info.spec_cap_length`, `spec_block_accept_length`, `spec_cap_lens_histogram`",
        "ignored",
        "`UNREAD_SPEC_FIELD` (meaning not documented at the pinned source)",
        "unit: unknown fields",
    ),
    ResponseField(
        "PR #33518 (merged; `entrypoints/openai/utils.py` `spec_tokens_details_from_meta_info`)",
        "`sglext.spec_tokens_details.*` (request `return_spec_tokens_details`)",
        "read",
        "as `meta_info`, shape `sglang.sglext.spec_tokens_details`",
        f"sglang-sglext-spec-tokens-details; integration `sglang_sglext`; CLI: `{_CLI}[sglang_sglext]`",
    ),
    ResponseField(
        "same",
        "a 0 in `sglext.spec_tokens_details` (SGLang fills absent metrics with `or 0`)",
        "ignored",
        "`SGLANG_FILLED_ZERO(field)`, count None",
        "sglang-sglext-filled-zeros",
    ),
    ResponseField(
        "PR #34814 (open, not released)",
        "`sglext.speculative_decoding_stats` / `meta_info.speculative_decoding_stats` (`verify_lengths`,"
        " `accept_lengths`)",
        "ignored",
        "`UNREAD_SPEC_FIELD` until released",
        "sglang-open-pr34814-stats",
    ),
)
