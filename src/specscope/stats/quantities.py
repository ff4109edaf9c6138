"""Parse byte sizes written by people ("17.61GB", "0.85 GiB"); bandwidths: ``specscope.audit.census.parse_bandwidth``.

Decimal prefixes are powers of 1000 and binary ones powers of 1024 (IEC 80000-13), as pydantic's
``ByteSize`` parses them: ``17.61GB`` = 17,610,000,000 bytes, ``1GiB`` = 1,073,741,824 bytes.
"""

from __future__ import annotations

from pydantic import ByteSize, TypeAdapter, ValidationError

from specscope.errors import ConfigError

__all__ = ["parse_bytes"]

_BYTES = TypeAdapter(ByteSize)


def parse_bytes(text: str | float | int) -> float:
    """``"17.61GB"`` -> 17.61e9 (bytes). A bare number is bytes.

    Raises:
        ConfigError: not a size, or not positive.
    """
    try:
        value = float(_BYTES.validate_python(text.strip() if isinstance(text, str) else text))
    except (ValidationError, ValueError):
        raise ConfigError(
            "not a byte size",
            found=text,
            expected="a size such as 17.61GB, 850MB or 0.79GiB",
            fix="write the number with a unit (B, KB, MB, GB, KiB, MiB, GiB)",
        ) from None
    if value <= 0:
        raise ConfigError("a byte size must be positive", found=text, expected="> 0 bytes")
    return value
