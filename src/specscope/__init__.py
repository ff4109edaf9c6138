"""specscope: trustworthy speculative-decoding benchmarks, checkpoint audits and draft-head surgery.

The public API is re-exported here; ``tests/test_public_api.py`` checks ``__all__``.
"""

from __future__ import annotations

from specscope.errors import SpecscopeError
from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "SpecscopeError",
    "CellKey",
    "CellResult",
    "SpecCounters",
    "StreamRecord",
]
