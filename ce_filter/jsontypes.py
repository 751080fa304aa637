"""The types of JSON values: what the ``to_json`` methods write (model files, records, the
``explain`` view) and what ``json.loads`` gives back before its reader has checked it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# A value json.dumps writes as it is. Its containers are the read-only ABCs, which are
# covariant: a list[str] or a dict[str, float] is a JSONValue too (a list[JSONValue] would not
# take a list[str]).
JSONValue = Mapping[str, "JSONValue"] | Sequence["JSONValue"] | str | int | float | bool | None
# A JSON object being written: a dict that still takes fields.
JSONObject = dict[str, JSONValue]
# A value json.loads gave (a model file, a page's JSON-LD), before its shape is known: its
# reader checks each field where it takes it, so that a wrong shape is the reader's error.
Loaded = Any  # Any: a value json.loads gave, its shape not yet checked (its reader checks it)
