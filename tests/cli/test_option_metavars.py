"""Every option that takes a value names what it takes (user61: docs/cli.md's option table showed `serve --log`,
`--parse-log`, `--plan` and `--census` as a bare VALUE while every other option says FILE, DURATION, NAME=URL ...)."""

from __future__ import annotations

from specscope.cli.clidoc import option_rows


def test_no_option_value_is_a_bare_value():
    bare = [(cmd, opt) for cmd, opt, value, _ in option_rows() if value == "VALUE"]
    assert bare == []
