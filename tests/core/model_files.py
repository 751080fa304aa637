"""Model-file helpers shared by the tests of the model's options: a round trip through a file,
and a file refused after one edit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ce_filter.score.blockmodel import Linear, Model, ModelError
from ce_filter.score.features import feature_names


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


def without_trees(m: Model) -> Model:
    """``m`` without its tree-leaf inputs (stage 1 cut to the spec's features): a base for the
    tests that append feature columns to a model's stage 1."""
    if m.trees is None:
        return m
    from dataclasses import replace

    n, s = len(feature_names(m.spec)), m.stage1
    return replace(m, trees=None, stage1=Linear(s.mean[:n], s.scale[:n], s.coef[:n], s.intercept),
                   meta={})
