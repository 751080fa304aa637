"""The embedded broker picks its port itself: a port taken between the choice and the bind
(another process got there first) makes it start again on another port, and a port that is
answered by someone else is never taken for the broker's."""

from __future__ import annotations

import socket

import pytest
from ce_filter.pipelines import embedded_broker as eb

pytestmark = pytest.mark.kafka


@pytest.fixture
def taken():
    """A port another process listens on."""
    with socket.create_server(("127.0.0.1", 0)) as s:
        yield s.getsockname()[1]


def test_a_port_taken_before_the_broker_binds_it_is_chosen_again(taken, tmp_path, monkeypatch):
    ports = iter([taken])  # the first choice is taken by the time the broker binds it
    real = eb.free_port
    monkeypatch.setattr(eb, "free_port", lambda: next(ports, None) or real())
    with eb.EmbeddedBroker(log_path=tmp_path / "tansu.log") as b:
        assert b.port != taken and b.advertised_port == b.port
        assert eb.listens(b.proc.pid, b.port) is True
        assert "AddrInUse" in (tmp_path / "tansu.log").read_text(errors="replace")


def test_a_port_asked_for_and_taken_is_an_error(taken, tmp_path):
    b = eb.EmbeddedBroker(port=taken, log_path=tmp_path / "tansu.log")
    with pytest.raises(RuntimeError, match=f"port {taken} was taken"):
        b.start()
    assert b.proc is not None and b.proc.poll() is not None  # stopped
