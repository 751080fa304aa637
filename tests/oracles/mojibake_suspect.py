"""The byte test of double-encoded UTF-8 as a regular expression: the test oracle of its C part
(ce_filter/read/_mojibake.c, ``mojibake.suspect``)."""

from __future__ import annotations

import re

# the bytes of a lead character (Â..ô) followed by those of a continuation character
_SUSPECT = re.compile(rb"\xc3[\x82-\xb4](?:\xc2[\x80-\xbf]|[\xc5\xcb]|\xc6\x92|\xe2[\x80\x82\x84])")


def suspect(data: bytes) -> bool:
    """``mojibake.suspect``: a lead character's bytes (Â..ô) and a continuation character's."""
    return _SUSPECT.search(data) is not None
