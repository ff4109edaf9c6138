"""Byte sizes written by people (``17.61GB``, ``0.85 GiB``): the one size parser is
:func:`specscope.values.parse_bytes` (decimal prefixes powers of 1000, binary ones powers of 1024, IEC 80000-13);
re-exported here for the statistics that read sizes."""

from __future__ import annotations

from specscope.values import parse_bytes

__all__ = ["parse_bytes"]
