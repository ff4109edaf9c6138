"""Counts read as English: ``1 round``, never ``1 rounds`` (fresh-user check of a `make bench` report, 2026-12-05:
an n-gram cell with one verify step (draft round) printed "(1 rounds, 13 drafted)")."""

from __future__ import annotations

from specscope.report.acceptance_tables import rests_on
from specscope.stats.acceptance import acceptance_view
from specscope.values import article, count_noun


def test_count_noun():
    assert [count_noun(n, "round") for n in (0, 1, 2, 1.0)] == ["0 rounds", "1 round", "2 rounds", "1 round"]
    assert count_noun(1, "cell") == "1 cell" and count_noun(3, "body", "bodies") == "3 bodies"
    assert count_noun(float("nan"), "round") == "nan rounds"  # a damaged store: printed, never an internal error


def test_article():
    """``an image field``, never ``a image field`` (census refusal of a media row, 2026-12-06)."""
    got = [
        article(w)
        for w in (
            "image",
            "image_uuids",
            "audio",
            "Img",
            "video",
            "wav",
            "picture",
            "assistant",
            "user",
            "uuid",
            "unit",
            "upload",
            "eot",
            "omni",
            "system",
            "mp4",
            "mkv",
            "wav",
            "str",
            "int",
            "'image_url'",
            "",
        )
    ]
    assert got == [
        "an image",
        "an image_uuids",
        "an audio",
        "an Img",
        "a video",
        "a wav",
        "a picture",
        "an assistant",
        "a user",
        "a uuid",
        "a unit",
        "an upload",
        "an eot",
        "an omni",
        "a system",
        "an mp4",
        "an mkv",
        "a wav",
        "a str",
        "an int",
        "an 'image_url'",
        "a ",
    ]


def test_one_verify_step_is_one_step():
    view = acceptance_view(1.0, 13.0, 13.0, [1.0] * 13)
    assert rests_on(view) == "1 verify step, 13 drafted; few verify steps"
