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
