"""A cell whose responses send no accepted-count histogram (SGLang 0.5.9's meta_info, llama.cpp's timings) has no
histogram: absent (None), never an empty one that reads as "zero steps" (absent52 item 2)."""

from __future__ import annotations

from specscope.records import SpecRequest
from specscope.stats.acceptance import request_steps
from specscope.stats.spec_pool import pool_requests


def test_no_response_histogram_leaves_the_pooled_histogram_absent() -> None:
    specs = [SpecRequest(engine="e", shape="s", accepted_tokens=6, draft_tokens=12, verify_steps=4)]
    pooled = pool_requests(specs)
    assert pooled is not None
    assert pooled["histogram"] is None
    assert pooled["histogram_steps"] is None
    assert pooled["draft_lengths"] is None
    # the steps still stand; the per-position split needs the histogram, so none
    assert request_steps(pooled) == (4.0, ())


def test_a_sent_histogram_is_pooled() -> None:
    specs = [
        SpecRequest(engine="e", shape="s", verify_steps=2, histogram=((0, 1), (2, 1))),
        SpecRequest(engine="e", shape="s", verify_steps=1, histogram=((2, 1),)),
    ]
    pooled = pool_requests(specs)
    assert pooled is not None
    assert pooled["histogram"] == {"0": 1, "2": 2}
    assert pooled["histogram_steps"] == 3
