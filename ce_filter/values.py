"""What a value given by a user may be: the checks every option, setting and API argument
shares (a bad value is a ValueError naming it; ``UsageError`` is the one-line mistake of a
command). No import of the rest of the package but the model loader and the charset labels, so the API and the
options can both use them."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .score.blockmodel import Model

N = TypeVar("N", int, float)


class UsageError(ValueError):
    """An ordinary mistake in what the user asked for: one line, exit 2."""


# ------------------------------------------------------------------ value checks


def _checked(value: object, convert: Callable[[Any], N],  # Any: int or float, given what the user gave
             what: str, ok: Callable[[N], bool], why: str) -> N:
    """``convert(value)`` when that works and ``ok`` of it holds; else ValueError naming ``value``
    (``convert`` takes any value: a TypeError is one of its answers)."""
    try:
        x = convert(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not {what}") from None
    if not ok(x):
        raise ValueError(f"{value!r}{why}")
    return x


def probability(value: object) -> float:
    """A block-probability cut: a finite number in [0, 1] (nan, inf and 2 are mistakes)."""
    return _checked(value, float, "a number", lambda x: math.isfinite(x) and 0.0 <= x <= 1.0,
                    " is not a number in [0, 1]")


def positive_int(value: object) -> int:
    """A count of processes, pages, ...: 1 or more."""
    return _checked(value, int, "a whole number", lambda n: n >= 1, ": must be 1 or more")


def positive_number(value: object) -> float:
    """A duration: a finite number above 0."""
    return _checked(value, float, "a number", lambda x: math.isfinite(x) and x > 0,
                    ": must be a number above 0")


def non_negative_number(value: object) -> float:
    """A budget in seconds: a finite number, 0 (no limit) or more."""
    return _checked(value, float, "a number", lambda x: math.isfinite(x) and x >= 0,
                    ": must be 0 (no limit) or more")


def non_negative_int(value: object) -> int:
    """A budget in MiB: a whole number, 0 (no limit) or more."""
    return _checked(value, int, "a whole number", lambda n: n >= 0, ": must be 0 (no limit) or more")


def text_codec(value: str) -> str:
    """A charset label a browser accepts (the WHATWG Encoding Standard's labels: ``utf-8``,
    ``latin1``, ``windows-1251``, ``gbk``, ...), the same rule as a page's own label.
    ``hex``, ``charmap`` or ``latin-1`` name Python codecs, not page charsets."""
    from .read.decode import normalize_charset

    if normalize_charset(value) is None:
        raise ValueError(f"{value!r} is not a charset label browsers accept (WHATWG Encoding "
                         "Standard; e.g. utf-8, iso-8859-1, windows-1251, gbk, shift_jis)")
    return value  # as given: the decoder maps labels the web's way (latin-1 is cp1252)


def language_code(value: str) -> str:
    """A target language: an ISO 639-1 code (``en``, ``de``), as the record's ``language`` gives
    it; a region (``en-US``, ``pt_BR``) is dropped, case is ignored."""
    code = str(value).strip().replace("_", "-").split("-", 1)[0].lower()
    if len(code) != 2 or not code.isascii() or not code.isalpha():
        raise ValueError(f"{value!r} is not an ISO 639-1 language code (two letters, e.g. en, de)")
    return code


loaded_models: dict[str, Model] = {}  # model files checked in this process (path -> Model)


def model_file(value: str) -> str:
    """A model JSON file that exists and loads (it is kept, so it is read once)."""
    from .score.blockmodel import Model

    if value in loaded_models:
        return value
    if not os.path.exists(value):
        raise ValueError(f"{value}: no such model file")
    try:
        loaded_models[value] = Model.load(value)
    except Exception as e:  # noqa: BLE001 - ModelError, OSError, or any malformed JSON shape
        detail = str(e).removeprefix(f"{value}: ")
        raise ValueError(f"{value}: not a ce-filter model file ({type(e).__name__}: {detail})") from None
    return value


def writable_file(value: str) -> str:
    """An output file that can be written: checked before a run, not after it."""
    if os.path.isdir(value):
        raise ValueError("it is a directory")
    parent = os.path.dirname(os.path.abspath(value))
    if not os.path.isdir(parent):
        raise ValueError(f"no directory {parent}")
    if not os.access(value if os.path.exists(value) else parent, os.W_OK):
        raise ValueError("permission denied")
    return value
