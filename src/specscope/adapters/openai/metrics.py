"""A plain OpenAI-compatible server: no metrics specscope knows (its ``/metrics``, if any, is read by shape and every
speculative-looking name in it is named ``UNREAD_SPEC_FIELD``)."""

from __future__ import annotations

from specscope.adapters.declare import Row

PREFIXES: tuple[str, ...] = ()
ROWS: tuple[Row, ...] = ()
