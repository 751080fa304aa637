"""Kafka over TLS end to end: `ce-filter warc` delivers to a topic through a TLS listener
(--security-protocol SSL, --ssl-cafile), and a consumer reads it back through TLS. The
embedded broker (Tansu 0.6) has no usable TLS listener of its own, so the listener is a TLS
proxy in front of a broker started here, which advertises the proxy's port (as a cluster
advertises its SSL listener). SASL is not exercised against a broker (docs/PIPELINE.md)."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
from pathlib import Path

import pytest

from .conftest import REPO, run_cli, unique
from .kafka_proxy import KafkaProxy

pytestmark = pytest.mark.kafka


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (its own CA) and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_warc_to_kafka_over_tls(tmp_path):
    from ce_filter.pipelines.embedded_broker import EmbeddedBroker
    from ce_filter.pipelines.kafka_io import KafkaSettings, ensure_topics, read_topic

    cert, key = _self_signed(tmp_path)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    proxy = KafkaProxy(tls=ctx)
    try:
        with EmbeddedBroker(advertised_port=proxy.port, log_path=tmp_path / "tansu.log") as b:
            proxy.upstream = ("127.0.0.1", b.port)
            kafka = KafkaSettings(bootstrap_servers=f"127.0.0.1:{proxy.port}", security_protocol="SSL",
                                  ssl_cafile=str(cert))
            topic = unique("tls")
            ensure_topics(kafka, [topic])
            r = run_cli(["warc", str(REPO / "samples" / "sample.warc.gz"), "--to", f"kafka:{topic}", "-q",
                         "--bootstrap-servers", kafka.bootstrap_servers, "--security-protocol", "SSL",
                         "--ssl-cafile", str(cert), "--stats", str(tmp_path / "stats.json")])
            assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
            stats = json.loads((tmp_path / "stats.json").read_text())
            assert stats["pages"] == 5 and stats["sinks"][f"kafka:{topic}"]["delivered"] == 5
            msgs = read_topic(kafka, topic, count=5)
            assert sorted(json.loads(m.value)["url"] for m in msgs) == sorted(m.key.decode() for m in msgs)
            assert len(msgs) == 5
    finally:
        proxy.close()
