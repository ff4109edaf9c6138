"""Pure text measurements used by the gate checkers: answer extraction, repetition and sequence divergence.

No I/O. Every function takes strings (or lists of token strings) and returns plain numbers, so the checkers
can be tested on recorded outputs.

Sources: the repetition measures (maximum repeated word 8-gram count, unique-word ratio) are the ones seed 003
reports for a healthy build ("max repeated 8-gram count of 1 and a mean unique-word ratio of 0.528" over six
1,500-token prose generations); thinking-block handling follows the Qwen3 chat format (``<think>...</think>``)
and vLLM's reasoning parsers (separate ``reasoning`` / ``reasoning_content`` message field).
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal, InvalidOperation

__all__ = [
    "words",
    "max_repeated_ngram_count",
    "unique_word_ratio",
    "split_think",
    "extract_final_number",
    "numbers_equal",
    "first_divergence",
]

_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
# A number: optional sign, digits with optional thousands separators, optional decimals.
_NUM_RE = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\w.])-?\d+(?:\.\d+)?(?![\d])")
_BOXED_RE = re.compile(r"\\boxed\{([^{}]*)\}")
_MARKER_RE = re.compile(
    r"(?:final answer|answer|result)\s*(?:is|:|=)?\s*[:=]?\s*\**\s*\$?\s*(-?[\d,]*\d(?:\.\d+)?)",
    re.IGNORECASE,
)
_HASHES_RE = re.compile(r"####\s*(-?[\d,]*\d(?:\.\d+)?)")


def words(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` (runs of letters/digits, inner apostrophes kept)."""
    return [w.lower() for w in _WORD_RE.findall(text)]


def max_repeated_ngram_count(text: str, n: int = 8) -> int:
    """The largest number of times any word n-gram occurs in ``text``.

    1 means no n-gram occurs twice (seed 003's healthy value at n = 8); 0 when the text has fewer than
    ``n`` words. A repetition loop gives a count that grows with the length of the loop.
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    w = words(text)
    if len(w) < n:
        return 0
    grams = Counter(tuple(w[i : i + n]) for i in range(len(w) - n + 1))  # len(w)-n+1 n-grams
    return max(grams.values())


def unique_word_ratio(text: str) -> float | None:
    """Distinct words / total words (``None`` for a text with no words). Lower means more repetitive."""
    w = words(text)
    if not w:
        return None
    return len(set(w)) / len(w)


def split_think(text: str) -> tuple[str | None, str, bool]:
    """Split an answer that carries its thinking inline as ``<think>...</think>``.

    Returns ``(reasoning, content, closed)``: ``reasoning`` is the text inside the think block (``None`` when
    the text has no think tags at all), ``content`` the text after ``</think>`` (or the whole text when there
    is no block), and ``closed`` whether the block was closed. A template that opens ``<think>`` in the
    prompt leaves only ``</think>`` in the output; that counts as a closed block too.
    """
    open_i = text.find("<think>")
    close_i = text.find("</think>")
    if open_i < 0 and close_i < 0:
        return None, text, False
    if close_i < 0:  # opened, never closed
        return text[open_i + len("<think>") :], "", False
    start = open_i + len("<think>") if 0 <= open_i < close_i else 0
    return text[start:close_i], text[close_i + len("</think>") :], True


def _to_decimal(s: str) -> Decimal | None:
    try:
        return Decimal(s.replace(",", ""))
    except InvalidOperation:
        return None


def extract_final_number(text: str) -> Decimal | None:
    """The final numeric answer in ``text``, or ``None`` when there is no number.

    Preference order: the last ``\\boxed{N}``; the last ``#### N`` (GSM8K style); the last "answer is N" /
    "answer: N"; otherwise the last number in the text. Thousands separators are removed (``1,000`` -> 1000).
    """
    for pattern in (_BOXED_RE, _HASHES_RE, _MARKER_RE):
        hits = pattern.findall(text)
        for hit in reversed(hits):
            nums = _NUM_RE.findall(hit) if pattern is _BOXED_RE else [hit]
            if nums:
                value = _to_decimal(nums[-1])
                if value is not None:
                    return value
    nums = _NUM_RE.findall(text)
    return _to_decimal(nums[-1]) if nums else None


def numbers_equal(found: Decimal | None, expected: str | int | float) -> bool:
    """Exact numeric equality (``323`` equals ``323.0``); ``False`` when nothing was found."""
    if found is None:
        return False
    exp = _to_decimal(str(expected))
    return exp is not None and found == exp


def first_divergence(a: list[str] | str, b: list[str] | str) -> int | None:
    """Index of the first position where two sequences (token lists or strings) differ.

    ``None`` when they are identical; ``min(len(a), len(b))`` when one is a strict prefix of the other.
    """
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    if len(a) == len(b):
        return None
    return min(len(a), len(b))
