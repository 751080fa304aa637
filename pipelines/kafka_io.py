"""Kafka plumbing shared by the sinks, the worker, the Scrapy pipeline and the CLI (kafka-python).

Connection and security settings are passed through to kafka-python as they are named there
(``security_protocol``, ``sasl_mechanism``, ``sasl_plain_username``, ``ssl_cafile``, ...).
Every client bootstraps within a bounded time: a broker that cannot be reached is a
:class:`BrokerUnavailable` error, never a hang.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, TypeVar, cast

from ce_filter.options import CONNECTION_OPTIONS as CONNECTION_OPTIONS

if TYPE_CHECKING:
    from typing_extensions import Unpack

log = logging.getLogger(__name__)

DEFAULT_BOOTSTRAP = "localhost:9092"
BOOTSTRAP_TIMEOUT_MS = 10_000
REQUEST_TIMEOUT_MS = 30_000


class BrokerUnavailable(RuntimeError):
    """The Kafka broker could not be reached (or refused us) when a client started."""


# kafka-python ships no type information (mypy knows nothing of its classes): what the stages use of its
# clients and values, as Protocols that its classes meet

Headers = Sequence[tuple[str, "bytes | None"]]  # a message's headers: (name, value) pairs


class Partition(Protocol):
    """A topic's partition: kafka-python's TopicPartition (a named tuple; a dict key)."""

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...


class Message(Protocol):
    """A message read from Kafka: kafka-python's ConsumerRecord (key and value as bytes: no
    deserializers are set)."""

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...

    @property
    def offset(self) -> int: ...

    @property
    def key(self) -> bytes | None: ...

    @property
    def value(self) -> bytes | None: ...

    @property
    def headers(self) -> Headers | None: ...


class Delivery(Protocol):
    """The future of one send: kafka-python's FutureRecordMetadata."""

    is_done: bool
    exception: BaseException | None

    def failed(self) -> bool: ...

    def add_callback(self, f: Callable[..., object], *args: object, **kwargs: object) -> Delivery: ...

    def add_errback(self, f: Callable[..., object], *args: object, **kwargs: object) -> Delivery: ...


class Producer(Protocol):
    """kafka-python's KafkaProducer."""

    config: Mapping[str, object]  # its options, as given and defaulted

    def send(self, topic: str, value: bytes | None = None, key: bytes | None = None,
             headers: Headers | None = None) -> Delivery: ...

    def flush(self, timeout: float | None = None) -> None: ...

    def close(self, timeout: float | None = None) -> None: ...


class Consumer(Protocol):
    """kafka-python's KafkaConsumer."""

    def subscribe(self, topics: Sequence[str] = (), pattern: str | None = None,
                  listener: object = None) -> None: ...

    def poll(self, timeout_ms: int = 0, max_records: int | None = None
             ) -> dict[Partition, list[Message]]: ...

    def assignment(self) -> set[Partition]: ...

    def assign(self, partitions: list[Partition]) -> None: ...

    def partitions_for_topic(self, topic: str) -> set[int] | None: ...

    def seek(self, partition: Partition, offset: int) -> None: ...

    def seek_to_beginning(self, *partitions: Partition) -> None: ...

    def position(self, partition: Partition, timeout_ms: int | None = None) -> int: ...

    def highwater(self, partition: Partition) -> int | None: ...

    def beginning_offsets(self, partitions: list[Partition], timeout_ms: int | None = None
                          ) -> dict[Partition, int]: ...

    def end_offsets(self, partitions: list[Partition], timeout_ms: int | None = None
                    ) -> dict[Partition, int]: ...

    def committed(self, partition: Partition) -> int | None: ...

    def commit(self, offsets: Mapping[Partition, object] | None = None) -> None: ...

    def close(self, autocommit: bool = True) -> None: ...


class Admin(Protocol):
    """kafka-python's KafkaAdminClient."""

    def list_topics(self) -> list[str]: ...

    def create_topics(self, new_topics: list[object]) -> object: ...

    def close(self) -> None: ...


_Client = TypeVar("_Client")


@dataclass
class KafkaSettings:
    bootstrap_servers: str = DEFAULT_BOOTSTRAP
    security_protocol: str | None = None
    sasl_mechanism: str | None = None
    sasl_plain_username: str | None = None
    sasl_plain_password: str | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_password: str | None = None
    client_id: str | None = None
    bootstrap_timeout_ms: int = BOOTSTRAP_TIMEOUT_MS
    extra: dict[str, object] = field(default_factory=dict)  # any other kafka-python option

    @classmethod
    def from_mapping(cls, m: argparse.Namespace | _Getter, prefix: str = "") -> KafkaSettings:
        """From argparse's Namespace (``prefix=''``) or Scrapy settings / os.environ
        (``prefix='CE_FILTER_'``, upper-case keys)."""
        get = m.get if hasattr(m, "get") else (lambda k, d=None: getattr(m, k, d))
        kw: dict[str, Any] = {}  # Any: each field's own type (a str, the timeout an int)
        for f in fields(cls):
            if f.name == "extra":
                continue
            key = (prefix + f.name.upper()) if prefix else f.name
            v = get(key, None)
            if v not in (None, ""):
                kw[f.name] = int(cast("str | int", v)) if f.name == "bootstrap_timeout_ms" else v
        return cls(**kw)

    def client_config(self) -> dict[str, object]:
        cfg = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        cfg = {k: v for k, v in cfg.items() if v is not None}
        cfg["bootstrap_servers"] = [s.strip() for s in str(self.bootstrap_servers).split(",") if s.strip()]
        cfg["request_timeout_ms"] = REQUEST_TIMEOUT_MS
        cfg.update(self.extra)
        return cfg

    def describe(self) -> str:
        return ",".join(cast("list[str]", self.client_config()["bootstrap_servers"]))


class _Getter(Protocol):
    """What settings are read from by name: Scrapy's Settings, os.environ, a dict."""

    def get(self, key: str, default: None = None, /) -> object: ...


def _supported(cls: type, cfg: dict[str, object]) -> dict[str, object]:
    """Only the options this kafka-python version knows (2.x lacks e.g. bootstrap_timeout_ms)."""
    known = getattr(cls, "DEFAULT_CONFIG", None)
    if known is None:
        return cfg
    dropped = sorted(set(cfg) - set(known))
    if dropped:
        log.debug("kafka-python %s ignores unknown options %s", cls.__name__, dropped)
    return {k: v for k, v in cfg.items() if k in known}


def _start(cls: type[_Client], settings: KafkaSettings, what: str, *args: object,
           **overrides: object) -> _Client:
    from kafka.errors import KafkaError

    cfg = settings.client_config()
    # kafka-python 2.x: the version probe is its bootstrap step; bound it the same way.
    cfg["api_version_auto_timeout_ms"] = settings.bootstrap_timeout_ms
    cfg.update(overrides)
    try:
        return cls(*args, **_supported(cls, cfg))
    except KafkaError as e:
        raise BrokerUnavailable(
            f"cannot reach Kafka broker at {settings.describe()} ({what}): {type(e).__name__}: {e}"
        ) from e
    except OSError as e:  # e.g. an unreadable ssl_cafile
        raise BrokerUnavailable(f"cannot connect to Kafka at {settings.describe()} ({what}): {e}") from e


# Producer defaults: nothing acknowledged until every in-sync replica has it, retried on
# transient errors, compressed (gzip is always available), batched.
PRODUCER_DEFAULTS: dict[str, object] = {
    "acks": "all",
    "retries": 5,
    "compression_type": "gzip",
    "linger_ms": 20,
    "batch_size": 256 * 1024,
    "max_request_size": 4 * 1024 * 1024,
    "max_block_ms": 15_000,
    "delivery_timeout_ms": 60_000,
}


class ProducerOptions(TypedDict, total=False):
    """kafka-python producer options a stage sets over PRODUCER_DEFAULTS (None: the default)."""

    acks: str | int
    retries: int
    compression_type: str | None  # gzip, snappy, lz4, zstd; none or '' for no compression
    linger_ms: int
    batch_size: int
    max_request_size: int
    max_block_ms: int
    delivery_timeout_ms: int


def make_producer(settings: KafkaSettings, **overrides: Unpack[ProducerOptions]) -> Producer:
    from kafka import KafkaProducer

    cfg = dict(PRODUCER_DEFAULTS)
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    if cfg.get("compression_type") in ("none", ""):
        cfg["compression_type"] = None
    return _start(KafkaProducer, settings, "producer", **cfg)


def make_consumer(settings: KafkaSettings, *topics: str, **overrides: object) -> Consumer:
    from kafka import KafkaConsumer

    return _start(KafkaConsumer, settings, "consumer", *topics, **overrides)


def make_admin(settings: KafkaSettings) -> Admin:
    from kafka import KafkaAdminClient

    return _start(KafkaAdminClient, settings, "admin")


def ensure_topics(settings: KafkaSettings, topics: list[str], partitions: int = 1) -> None:
    """Create the topics that do not exist yet (for the demo and tests; production topics
    are normally made by whoever runs the cluster)."""
    from kafka.admin import NewTopic
    from kafka.errors import TopicAlreadyExistsError

    admin = make_admin(settings)
    try:
        existing = set(admin.list_topics())
        new = [NewTopic(t, partitions, 1) for t in topics if t not in existing]
        if new:
            try:
                admin.create_topics(new)
            except TopicAlreadyExistsError:
                pass
    finally:
        admin.close()


def read_topic(
    settings: KafkaSettings,
    topic: str,
    *,
    count: int | None = None,
    timeout_s: float = 30.0,
) -> list[Message]:
    """Messages of ``topic`` from the beginning, without a consumer group (partitions are
    assigned directly, so there is no group join to wait for). With ``count``: waits until
    that many have arrived or ``timeout_s`` passed; without: reads to the current end."""
    from kafka import TopicPartition

    consumer = make_consumer(settings, enable_auto_commit=False, auto_offset_reset="earliest")
    try:
        deadline = time.monotonic() + timeout_s
        parts = None
        while not parts and time.monotonic() < deadline:
            parts = consumer.partitions_for_topic(topic)
            if not parts:
                time.sleep(0.2)
        if not parts:
            return []
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        end = consumer.end_offsets(tps) if count is None else None
        out: list[Message] = []
        while time.monotonic() < deadline:
            if count is not None and len(out) >= count:
                break
            if end is not None and all(consumer.position(tp) >= end[tp] for tp in tps):
                break
            for batch in consumer.poll(timeout_ms=200).values():
                out.extend(batch)
        return out
    finally:
        consumer.close()
