"""One way long text is clipped for display (issue 37): ``textsafe.clip``. ``cli/crash._cut`` (a path in an error
line: its head and its tail, where the file name is) and ``bench/dry_run._clip`` (a prompt in ``--dry-run``) were
near-copies with three spellings of the count (``...x (N characters)``, `` [+N characters]``); both call it now."""

from __future__ import annotations

from specscope.bench.dry_run import _clip
from specscope.cli.crash import _cut
from specscope.textsafe import clip


def test_clip_keeps_short_text_and_says_how_much_it_cut():
    assert clip("a" * 10, 10) == "a" * 10
    assert clip("a" * 100_000, 64) == "a" * 64 + "…(+99,936 characters)"  # the form report's tests state


def test_clip_with_a_tail_keeps_both_ends_and_marks_the_cut_where_it_was():
    text = "h" * 1000 + "/model.safetensors"
    assert clip(text, 80, tail=17) == "h" * 63 + "…(+938 characters)" + "model.safetensors"
    assert clip(text[:80], 80, tail=17) == text[:80]


def test_a_path_in_an_error_line_and_a_dry_run_prompt_are_clipped_by_clip():
    path = "/tmp/" + "a" * 5000 + "/run.json"
    assert _cut(path) == clip(path, 80, tail=17) == path[:63] + "…(+4,934 characters)" + path[-17:]
    assert _cut("/tmp/x.json") == "/tmp/x.json"
    prompt = "line one\n" + "w" * 1000
    assert _clip(prompt) == clip("line one\\n" + "w" * 1000, 200) == "line one\\n" + "w" * 190 + "…(+810 characters)"
    assert _clip("a\nb") == "a\\nb"
