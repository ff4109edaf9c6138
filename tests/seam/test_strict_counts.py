"""A count in a server's answer is a JSON integer (issue 37, "typed edges"): ``POST /tokenize`` answering
``{"count": "7"}`` or ``{"count": true}`` was read as 7 and 1 tokens (pydantic's lax mode turns a numeric string,
a boolean and a whole float into an int), and ``{"tokens": ["1", true]}`` as two token ids. vLLM's
``TokenizeResponse`` declares ``count: int`` and ``tokens: list[int]``, which its JSON writer only ever writes as
integers; anything else is a bad answer, named, and asked again (``workload.context``)."""

from __future__ import annotations

import pytest

from specscope.errors import ServerError
from specscope.seam.answers import ModelsAnswer, TokenCount, TokenIds, read_answer


@pytest.mark.parametrize("value", ['"7"', "true", "false", "7.0", "7.5", "null"])
def test_a_token_count_that_is_no_json_integer_is_a_bad_answer(value: str) -> None:
    with pytest.raises(ServerError) as info:
        read_answer(TokenCount, '{"count": ' + value + "}", path="/tokenize", fix="f")
    assert str(info.value.message) == (
        "the server's answer to /tokenize is not what it should be (count: Input should be a valid integer)"
    )
    assert info.value.found == repr('{"count": ' + value + "}")


@pytest.mark.parametrize("value", ['"1"', "true", "2.0"])
def test_a_token_id_that_is_no_json_integer_is_a_bad_answer(value: str) -> None:
    with pytest.raises(ServerError) as info:
        read_answer(TokenIds, '{"tokens": [5, ' + value + "]}", path="/tokenize", fix="f")
    assert str(info.value.message) == (
        "the server's answer to /tokenize is not what it should be (tokens.1: Input should be a valid integer)"
    )


def test_integers_are_read() -> None:
    assert read_answer(TokenCount, b'{"count": 7, "tokens": [1]}', path="/tokenize", fix="f").count == 7
    assert read_answer(TokenIds, b'{"tokens": [0, 9]}', path="/tokenize", fix="f").tokens == [0, 9]


def test_max_model_len_as_a_string_or_boolean_stays_a_named_absent_fact() -> None:
    for value, named in (('"4096"', "4096"), ("true", "True")):
        body = '{"data": [{"id": "m", "max_model_len": ' + value + "}]}"
        entry = read_answer(ModelsAnswer, body, path="GET /v1/models", fix="f").data[0]
        assert (entry.max_model_len, entry.unreadable) == (None, (f"MODEL_FIELD_UNREADABLE(max_model_len={named})",))
