"""gate reads ``GET /v1/models`` as bench does (issue 37, "typed edges"): through the one answer record
(:class:`specscope.seam.answers.ModelsAnswer`). A bare ``r.json()`` took ``{"data": [{"id": ""}]}`` as the model ""
and ``{"data": [{"id": 7}]}`` as the model "7" (``str()`` of whatever was there); both are refused by name."""

from __future__ import annotations

import pytest

from hangguard import HANG_S
from specscope.errors import ServerUnreachable
from specscope.gate.backend import HttpxChat
from specscope.truth.process import TruthServer
from specscope.truth.script import TruthScript


def _name(body: str) -> str:
    script = TruthScript(serve_models=True, garbage={"/v1/models": [0]}, garbage_body={"/v1/models": body})
    with TruthServer(script) as ts, HttpxChat(timeout_s=HANG_S) as chat:
        return chat.model_name(ts.base_url)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('{"data": [{"id": ""}]}', "data.0.id: String should have at least 1 character"),
        ('{"data": [{"id": 7}]}', "data.0.id: Input should be a valid string"),
        ('{"data": [{"id": true}]}', "data.0.id: Input should be a valid string"),
    ],
)
def test_a_model_id_that_is_no_name_is_refused(body: str, why: str) -> None:
    with pytest.raises(ServerUnreachable) as info:
        _name(body)
    err = info.value
    assert err.message == "no OpenAI-compatible server answered"
    assert err.found.endswith(
        f"/v1/models: the server's answer to GET /v1/models is not what it should be ({why}): {body!r}"
    )


def test_a_listed_id_is_the_name() -> None:
    assert _name('{"data": [{"id": "m1"}, {"id": "m2"}]}') == "m1"
