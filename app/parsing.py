"""Untrusted text to values: integers, JSON documents. Every failure is a ``ValueError`` whose
message says what is wrong, so each caller can answer its protocol's precise 4xx, never a 500.

Python's own parsers accept more than the protocol does, or fail in ways a caller does not expect:
``str.isdigit`` is true of ``"²"``, which ``int`` refuses; ``int`` refuses over 4,300 digits;
``json.loads`` raises ``RecursionError`` on deep nesting and keeps lone surrogates (``"\\udfff"``),
text that cannot be encoded to UTF-8 when it is echoed or stored.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The largest integer the database holds (a signed 64-bit BIGINT, SQLite's INTEGER too).
INT64_MAX = (1 << 63) - 1
_DIGITS = re.compile(r"[0-9]{1,19}")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: How deep arrays and objects may nest in anything a client sends.
MAX_DEPTH = 32
TOO_DEEP = f"the JSON is nested deeper than {MAX_DEPTH} levels"
SURROGATE = "the JSON's text holds a lone surrogate (\\ud800 to \\udfff), which is no Unicode"
NUL_TEXT = "the text holds a NUL character (U+0000), which no field allows"


def natural(raw: str) -> int | None:
    """``raw`` as a non-negative integer the database can hold, or None if it is not one: ASCII
    digits only, at most 19 of them, at most ``INT64_MAX``.

    >>> natural("42"), natural("²"), natural("9" * 19), natural("-1")
    (42, None, None, None)
    """
    if _DIGITS.fullmatch(raw) is None:
        return None
    value = int(raw)
    return value if value <= INT64_MAX else None


def json_fault(value: object) -> str | None:
    """Why a parsed JSON value is refused, or None: text holding a lone surrogate or a NUL, in a
    value or a key (the other control characters are refused by each field that takes text, with
    its own code: ``bad_name``, ``bad_chat``...), or arrays and
    objects nested deeper than ``MAX_DEPTH`` (no message of the protocol comes close, and deep
    values would cost every later ``repr``, comparison or validation a deep recursion).

    Walked with a stack, not recursion, so the walk itself cannot exhaust the stack.

    >>> json_fault({"a": ["ok"]}), json_fault(["\\udfff"]) == SURROGATE, json_fault({"\\x00": 1})
    (None, True, 'the text holds a NUL character (U+0000), which no field allows')
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return SURROGATE
            if "\x00" in item:
                return NUL_TEXT
        elif isinstance(item, dict | list | tuple):
            if depth >= MAX_DEPTH:
                return TOO_DEEP
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def loads(raw: str | bytes) -> Any:
    """The JSON value of ``raw``; ValueError saying why not (syntax, encoding, an integer of over
    4,300 digits, nesting too deep, a lone surrogate or a NUL in a string)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
    except ValueError:
        raise ValueError("the text is not JSON") from None
    fault = json_fault(value)
    if fault is not None:
        raise ValueError(fault)
    return value
