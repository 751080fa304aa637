"""Model-file helpers shared by the tests of the model's options: a round trip through a file,
and a file refused after one edit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ce_filter.model import Model, ModelError


def reloaded(m: Model, tmp_path: Path) -> Model:
    """``m`` saved to a file and loaded back; the loaded model writes the same bytes."""
    m.save(tmp_path / "m.json")
    back = Model.load(tmp_path / "m.json")
    assert back.dumps() == m.dumps()
    return back


def refused(m: Model, mutate: Callable[[dict[str, Any]], Any], match: str | None = None) -> None:
    """``m``'s file, edited by ``mutate``, is refused with a ModelError (matching ``match``)."""
    d = json.loads(m.dumps())
    mutate(d)
    with pytest.raises(ModelError, match=match):
        Model.from_json(d)
