"""Dates, times, UUIDs and decimals from the text the model wrote (pure).

The agreed forms are ISO 8601 (``2024-05-17T14:30:00+02:00``, ``2024-05-17``, ``14:30:00``),
a UUID's usual text, and a decimal number as a string (``"12.50"``). ``parse_text`` reads
them the same way on every Python from 3.9, whose ``fromisoformat`` knows neither ``Z``, nor
``+0200``, nor fractions of other than 3 or 6 digits.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FORMAT_WORDS", "parse_text"]

FORMAT_WORDS = {
    "date-time": "an ISO 8601 date-time",
    "date": "an ISO 8601 date",
    "time": "an ISO 8601 time",
    "uuid": "a UUID",
    "decimal": "a decimal number as a string",
}
"""How an error message names what was expected, by ``format``."""

_ISO_DATETIME = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<time>\d{2}:\d{2}(?::\d{2})?)(?:\.(?P<fraction>\d+))?"
    r"(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?$"
)
_ISO_TIME = re.compile(
    r"^(?P<time>\d{2}:\d{2}(?::\d{2})?)(?:\.(?P<fraction>\d+))?(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?$"
)


def parse_text(tp: Any, text_format: str, value: str) -> Any:
    """``value`` as an instance of ``tp`` (``datetime``, ``date``, ``time``, ``UUID``,
    ``Decimal`` or a subclass), read in the form ``text_format`` names.

    Raises:
        ValueError: not that form, or no such date/time; ``decimal.InvalidOperation`` (an
            ``ArithmeticError``) for text that is no number.
    """
    if text_format == "date-time":
        match = _ISO_DATETIME.match(value)
        if match is None:
            raise ValueError("")
        return tp.fromisoformat(f"{match.group('date')}T{_canonical_time(match)}")
    if text_format == "time":
        match = _ISO_TIME.match(value)
        if match is None:
            raise ValueError("")
        return tp.fromisoformat(_canonical_time(match))
    if text_format == "date":
        return tp.fromisoformat(value)
    if text_format == "decimal":
        number = tp(value)
        if not number.is_finite():
            raise ValueError("not a finite number")
        return number
    return tp(value)  # uuid


def _canonical_time(match: re.Match[str]) -> str:
    """The ``HH:MM[:SS][.ffffff][+HH:MM]`` part in the one form ``fromisoformat`` takes on
    every Python from 3.9."""
    text = match.group("time")
    fraction = match.group("fraction")
    if fraction:
        text += "." + (fraction + "000000")[:6]
    zone = match.group("zone")
    if zone:
        if zone in ("Z", "z"):
            zone = "+00:00"
        digits = zone[1:].replace(":", "")
        zone = f"{zone[0]}{digits[:2]}:{(digits[2:] or '00')}"
        text += zone
    return text
