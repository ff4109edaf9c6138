"""Medusa heads fewer than the config declares (issue 36): ``medusa_num_heads`` 4 with 3 heads stored.

vLLM's ``medusa.py`` (@01dbb081) builds ``config.num_heads`` blocks (``blocks.{h}.layers.{l}``) and ``lm_heads.{h}``
and its ``load_weights`` fills only the names it finds: a head the draft lacks stays uninitialised. Stored in the
Medusa repository's own names (``{h}.{l}.linear.weight``, ``{h}.{L}.weight``), the audit told only the renaming, which
would leave head 3 missing; stored in vLLM's names, it said "download the draft again" without naming that the
config declares one head more than the draft holds. The fix now names both counts and the missing heads.
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, write

V = 64
CONFIG = {"medusa_num_heads": 4, "medusa_num_layers": 1, "hidden_size": H, "vocab_size": V}
MISMATCH = 'config.json declares 4 heads ("medusa_num_heads": 4) and the draft stores 3 (heads 0, 1, 2; head 3 missing)'


def _original(n: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for h in range(n):
        out |= {f"{h}.0.linear.weight": [H, H], f"{h}.0.linear.bias": [H], f"{h}.1.weight": [V, H]}
    return out


def _vllm(n: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for h in range(n):
        out |= {f"blocks.{h}.layers.0.weight": [H, H], f"lm_heads.{h}.weight": [V, H]}
    return out


def test_three_heads_in_medusa_names_under_four_declared_name_the_count_and_the_renaming(tmp_path: Path) -> None:
    r = audit_checkpoint(write(tmp_path / "heads", _original(3), CONFIG))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert f.fix.startswith(MISMATCH + ": ")
    assert 'if the heads were trained as 3, declare "medusa_num_heads": 3 in config.json' in f.fix
    assert "0.0.linear.weight -> blocks.0.layers.0.weight" in f.fix  # the renaming is still told
    assert f.details["heads"] == {"declared": 4, "stored": [0, 1, 2], "missing": [3], "not_loaded": []}
    assert r.exit_code == 1


def test_three_heads_in_vllm_names_under_four_declared_name_the_count(tmp_path: Path) -> None:
    r = audit_checkpoint(write(tmp_path / "heads", _vllm(3), CONFIG))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert f.fix.startswith(MISMATCH + ": ")
    assert "download the draft again" in f.fix
    assert f.details["heads"] == {"declared": 4, "stored": [0, 1, 2], "missing": [3], "not_loaded": []}


def test_a_middle_head_missing_is_named(tmp_path: Path) -> None:
    shapes = {k: v for k, v in _vllm(4).items() if not k.startswith(("blocks.1.", "lm_heads.1."))}
    r = audit_checkpoint(write(tmp_path / "heads", shapes, CONFIG))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert f.fix.startswith(
        'config.json declares 4 heads ("medusa_num_heads": 4) and the draft stores 3 (heads 0, 2, 3; head 1 missing)'
    )


def test_all_heads_stored_is_no_count_mismatch(tmp_path: Path) -> None:
    assert audit_checkpoint(write(tmp_path / "heads", _vllm(4), CONFIG)).exit_code == 0
    r = audit_checkpoint(write(tmp_path / "orig", _original(4), CONFIG))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")  # the renaming only
    assert "declares 4 heads" not in f.fix and "heads" not in f.details


def test_four_heads_stored_under_three_declared_name_the_count(tmp_path: Path) -> None:
    """The other direction: ``medusa_num_heads`` 3 with 4 heads stored. vLLM's ``medusa.py`` builds 3 heads and skips
    the names it has no parameter for, so head 3 is stored and never loaded; the audit gave only the generic
    DRAFT_TENSORS_UNREAD fix (check the architectures) without naming the count."""
    r = audit_checkpoint(write(tmp_path / "heads", _vllm(4), CONFIG | {"medusa_num_heads": 3}))
    (f,) = r.by_code("DRAFT_TENSORS_UNREAD")
    assert f.fix == (
        'config.json declares 3 heads ("medusa_num_heads": 3) and the draft stores 4 (heads 0, 1, 2, 3; head 3 not '
        'loaded): if the heads were trained as 4, declare "medusa_num_heads": 4 in config.json; else re-export the '
        "draft without head 3"
    )
    assert f.details["heads"] == {"declared": 3, "stored": [0, 1, 2, 3], "missing": [], "not_loaded": [3]}
    assert r.exit_code == 0  # a warning: the loader skips them
