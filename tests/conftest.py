"""Shared test fixtures: where the labelled corpora are (they are optional)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["kafka_fixtures"]  # the session's Kafka broker (tests/kafka_fixtures.py)

DATA = Path(os.environ.get("CE_FILTER_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not (DATA / "dragnet" / "split.tsv").exists():
        pytest.skip(f"labelled corpora not found at {DATA} (set CE_FILTER_DATA); quality checks skipped")
    return DATA


@pytest.fixture(scope="session")
def custom_model(tmp_path_factory) -> Path:
    """The shipped model under another name (so another digest in every record's ``model``):
    a model file of one's own, to see the extraction options reach a stage."""
    import json

    from ce_filter.model import load_default

    d = load_default().to_json()
    d["name"] = "custom"
    path = tmp_path_factory.mktemp("model") / "custom.json"
    path.write_text(json.dumps(d))
    return path


@pytest.fixture(params=[True, False], ids=["c-part", "numpy"])
def c_part(request, monkeypatch) -> bool:
    """A test that takes it runs twice: with the dense features' C part, and with the numpy
    reference in its place (the two must give the same values)."""
    if not request.param:
        from ce_filter.features import dense

        monkeypatch.setattr(dense, "_c", None)
    return request.param
