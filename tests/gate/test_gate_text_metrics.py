from decimal import Decimal

import pytest

from specscope.gate.text_metrics import (
    extract_final_number,
    first_divergence,
    max_repeated_ngram_count,
    numbers_equal,
    split_think,
    unique_word_ratio,
    words,
)


def _slow_max_ngram(text: str, n: int) -> int:
    """Obvious reference: count every window by scanning the whole list again."""
    w = words(text)
    best = 0
    for i in range(len(w) - n + 1):
        gram = w[i : i + n]
        count = sum(1 for j in range(len(w) - n + 1) if w[j : j + n] == gram)
        best = max(best, count)
    return best


@pytest.mark.parametrize(
    "text,n,expected",
    [
        ("one two three four five six seven eight nine ten", 8, 1),
        ("one two three", 8, 0),
        ("a b c d e f g h a b c d e f g h", 8, 2),
        ("the cat sat. " * 10, 3, 10),
        ("The Cat sat, the cat SAT", 3, 2),
    ],
)
def test_max_repeated_ngram_count(text, n, expected):
    assert max_repeated_ngram_count(text, n) == expected
    assert _slow_max_ngram(text, n) == expected


def test_unique_word_ratio():
    assert unique_word_ratio("a b a b") == 0.5
    assert unique_word_ratio("It's it's IT'S fine") == 0.5  # "it's" x3 + "fine" -> 2 / 4
    assert unique_word_ratio("...") is None


def test_split_think():
    assert split_think("<think>hmm 17*19</think>The answer is 323") == ("hmm 17*19", "The answer is 323", True)
    assert split_think("<think>hmm and hmm") == ("hmm and hmm", "", False)
    # template opened <think> in the prompt: only the closing tag is generated
    assert split_think("reasoning here</think>\n323") == ("reasoning here", "\n323", True)
    assert split_think("plain answer 5") == (None, "plain answer 5", False)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("17 x 19 = 323", Decimal("323")),
        ("First 17*20=340, minus 17 gives 323.\nAnswer: 323", Decimal("323")),
        ("The answer is 1,000 and then 5 apples", Decimal("1000")),
        ("\\boxed{391} so 17 more", Decimal("391")),
        ("stuff\n#### 42\nthanks 7", Decimal("42")),
        ("-12 degrees", Decimal("-12")),
        ("no digits here", None),
        ("value 12.5", Decimal("12.5")),
    ],
)
def test_extract_final_number(text, expected):
    assert extract_final_number(text) == expected


def test_numbers_equal():
    assert numbers_equal(Decimal("323.0"), "323")
    assert not numbers_equal(Decimal("324"), 323)
    assert not numbers_equal(None, "1")


def test_first_divergence():
    assert first_divergence(["a", "b"], ["a", "b"]) is None
    assert first_divergence(["a", "b", "c"], ["a", "x", "c"]) == 1
    assert first_divergence("abc", "ab") == 2
    assert first_divergence([], ["a"]) == 0
