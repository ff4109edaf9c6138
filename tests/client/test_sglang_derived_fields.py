"""SGLang's derived per-request fields are checked against the counts they derive from, not read (issue 26): a 0
beside counts that say otherwise is named (sglang PR #13754's request-level metrics fix; the length formula is PR
#3152's completion_tokens / spec_verify_ct). Inputs in tests/data/engines/per_request (SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

from specscope.client.spec_fields import read_spec

DATA = Path(__file__).parent.parent / "data" / "engines" / "per_request"


def _read(name: str):
    rec = read_spec(json.loads((DATA / name).read_text()))
    assert rec is not None
    return rec


def test_zero_length_and_rate_beside_forty_tokens_over_ten_steps_are_named() -> None:
    rec = _read("sglang_pr13754_ngram_prefix_zeros.json")
    assert rec.engine == "sglang" and rec.verify_steps == 10
    assert (rec.accepted_tokens, rec.draft_tokens) == (None, None)  # the zeros are not read as counts
    assert rec.warnings == (
        "SPEC_FIELDS_DISAGREE(meta_info.spec_accept_length 0 != completion_tokens 40 / spec_verify_ct 10 = 4.00)",
        "SPEC_FIELDS_DISAGREE(meta_info.spec_accept_rate 0.0 while completion_tokens 40 over spec_verify_ct 10 "
        "steps say drafts were accepted)",
    )


def test_derived_fields_that_agree_say_nothing() -> None:
    rec = _read("sglang_pr11144_rate_length_only.json")  # 128 / 41 = 3.1220 as SGLang printed it
    assert rec.verify_steps == 41 and rec.warnings == ()


def test_an_infinite_or_400_digit_number_is_named_never_a_crash() -> None:
    # json.loads reads Infinity and any number of digits: int(inf) and float(10**400) raised OverflowError before
    body = (
        '{"meta_info": {"completion_tokens": 1'
        + "0" * 400
        + ', "spec_verify_ct": Infinity, "spec_accept_length": 1'
        + "0" * 400
        + "}}"
    )
    rec = read_spec(json.loads(body))
    assert rec is not None and rec.verify_steps is None
    assert rec.warnings == ("WRONG_TYPE(meta_info.spec_verify_ct: float inf)",)


def test_more_verify_steps_than_completion_tokens_is_named() -> None:
    """Each verify step commits at least one token (the bonus), so 12 steps over 10 tokens is no count of either;
    it passed without a word (spec_accept_length 0.83 agreed with the two figures it derives from)."""
    rec = read_spec(
        {"meta_info": {"completion_tokens": 10, "spec_verify_ct": 12, "spec_accept_length": 0.833, "id": "x"}}
    )
    assert rec is not None and rec.verify_steps == 12
    assert rec.warnings == (
        "SPEC_FIELDS_DISAGREE(meta_info.spec_verify_ct 12 > completion_tokens 10: each verify step emits at least "
        "one token)",
    )
