"""Reading WARC inputs into pages: ``iter_pages`` over every source, ``iter_stream`` over one.

The loop that ties the parts together: unit by unit (units), parsed by warcio (lines), each
record made a page or a skip (pages), damage reported and passed over to the next record start
(resync), so one bad record costs only itself and every step consumes input.
"""

from __future__ import annotations

import io
from collections.abc import Generator, Iterable, Iterator
from typing import cast

from ce_filter.read.rawpage import RawPage

from .arc import iter_arc
from .bodies import decode_budget
from .lines import Records, WarcRecord
from .pages import TRUNCATED, page_from_record
from .rawinput import SCAN, Halted, RawInput
from .resync import GZIP_MAGIC, next_any, next_member, next_plain
from .revisits import RevisitIndex, revisit_index
from .sources import Readable, Source, expand_sources
from .stats import WarcStats, unreadable_message
from .units import Damage, Unit, gzip_unit, length_ok, plain_unit, skip_blank

HOLD_BYTES = 32 << 20  # pages of one gzip member held until its CRC is checked (see _read_unit)


def iter_pages(
    source: Source | Iterable[Source], stats: WarcStats | None = None, *, all_statuses: bool = False,
    revisits: bool | RevisitIndex = False, halt: object = None, seconds: float | None = None,
) -> Iterator[RawPage]:
    """Pages from WARC files, globs, directories, ``-`` (stdin) or binary streams.

    Inputs are resolved at call time (a missing file raises FileNotFoundError here, not
    later); records are read lazily. ``all_statuses`` keeps non-2xx responses too.
    ``revisits`` resolves revisit records against the originals read before them (True, or
    a :class:`RevisitIndex` to choose its size or share it between calls). ``halt``: an
    object that turns truthy to stop the run (a signal handler's flag): the reader checks it
    at every read of the input (at most 64 KiB apart) and then ends, as at the end of the
    input. ``seconds``: the CPU seconds one body's Content-Encoding may take to undo (the
    page budget; default DECODE_SECONDS, 0 for no limit): a body past it is skipped.
    """
    inputs = expand_sources(source)
    stats = stats if stats is not None else WarcStats()
    index = revisit_index(revisits)
    return _iter_inputs(inputs, stats, all_statuses, index, halt, decode_budget(seconds))


def _iter_inputs(inputs: list[tuple[str, str | Readable]], stats: WarcStats, all_statuses: bool,
                 revisits: RevisitIndex | None, halt: object = None,
                 seconds: float = 0.0) -> Iterator[RawPage]:
    try:
        for name, src in inputs:
            stats.files += 1
            if hasattr(src, "read"):
                yield from iter_stream(name, cast(Readable, src), stats, all_statuses, revisits=revisits,
                                        halt=halt, seconds=seconds)
            else:
                with open(src, "rb") as fh:
                    yield from iter_stream(name, fh, stats, all_statuses, revisits=revisits,
                                            halt=halt, seconds=seconds)
    except Halted:
        return  # stopped from outside: the caller says so (offline.RunStats.interrupted)


def iter_stream(name: str, fh: Readable, stats: WarcStats, all_statuses: bool,
                 base: int = 0, stop: int | None = None, revisits: RevisitIndex | None = None,
                 halt: object = None, seconds: float = 0.0) -> Iterator[RawPage]:
    """``base``: the stream's offset in the file (error offsets are file offsets); ``stop``:
    records starting at or after this file offset belong to the next shard (warc_shards);
    ``halt``, ``seconds``: as in iter_pages.

    Gzip WARCs are read member by member, uncompressed ones record by record; a damaged one
    (CRC error, corrupt data, bad Content-Length, bytes that are no record) is reported with
    its offset and kind, and reading goes on at the next record (the next gzip member that
    decompresses to a WARC record, or the next ``WARC/1.x`` line), so one bad record costs
    only itself. ARC files are read by warcio alone, up to the first damage.

    Every step consumes input (a step that did not would spin forever): a step that ends
    where it began is a bug, reported as ``unreadable`` and passed over by one byte."""
    src = RawInput(fh, base, stats, halt)
    head = src.peek(9)
    if not head:
        return
    if head.startswith(b"filedesc:"):
        yield from iter_arc(name, src, stats, all_statuses, revisits, seconds)
        return
    if not head.startswith((GZIP_MAGIC, b"WARC/")):  # damage at the start: which records follow?
        src.skip_to(next_any, stop)
        stats.error(name, base, "bytes that are not a WARC record", kind="not-a-record",
                    skipped=src.pos - base)
    gz = src.peek(3) == GZIP_MAGIC
    find = next_member if gz else next_plain
    while src.fill(1) and (stop is None or src.pos < stop):
        if not gz and not skip_blank(src):
            break
        start = src.pos
        unit, damage = gzip_unit(src) if gz else plain_unit(src)
        if unit is not None:
            held: list[RawPage] = []
            damage = yield from _read_unit(unit, name, stats, all_statuses, revisits, held,
                                           seconds)
            if damage is None or damage.kind == "truncated":
                yield from _commit(held, stats)  # a cut input still has whole records
        if damage is None:
            _progress(src, start, stop, name, stats)
            continue
        if damage.kind == "truncated" and (unit is None or unit.d is None):
            while src.take(SCAN):  # what is left is the cut record
                pass
        elif damage.kind == "truncated" and unit is not None:  # a cut member may have run on into the members
            unit.rewind()  # after it (its deflate data need not fail on their bytes): look
            src.skip_to(find, stop)  # again, as after a corrupt member
        elif unit is None or unit.damage is not None:
            if unit is not None:
                unit.rewind()  # the member's end is unknown: look again from its start
            src.skip_to(find, stop)  # (else the unit was whole: the next one follows it)
        if damage.kind != "not-a-record":  # (bytes that are no record are not counted as one)
            stats.records += 1
            stats.skip("damaged record")
        stats.error(name, start, damage.message, kind=damage.kind, skipped=src.pos - start)
        _progress(src, start, stop, name, stats)


def _progress(src: RawInput, start: int, stop: int | None, name: str, stats: WarcStats) -> None:
    """The guard of "every step consumes input": none of the steps above can end where it
    began (the fuzz properties check that this never fires), but if one did, the reader
    would spin forever; instead the byte is passed over and said."""
    if src.pos <= start and src.fill(1) and (stop is None or src.pos < stop):
        src.take(1)
        stats.error(name, start, STALLED, kind="unreadable", skipped=1)


STALLED = "the reader made no progress here (a bug): one byte passed over"


def _read_unit(unit: Unit, name: str, stats: WarcStats, all_statuses: bool,
               revisits: RevisitIndex | None, held: list[RawPage], seconds: float = 0.0
               ) -> Generator[RawPage, None, Damage | None]:
    """Parse the records of one unit into ``held`` (a generator returning the damage, if any).
    Pages and counts wait until the unit is read to its end and its CRC checked, so a damaged
    member gives none and counts as one damaged record; a member holding more than HOLD_BYTES
    of pages (many records in one gzip stream) lets them out early, and damage found later can
    then only be reported."""
    it = Records(unit, arc2warc=True)
    local = WarcStats()  # counts of the records in ``held``
    damage = None
    try:
        for record in it:
            page, reason = page_from_record(record, name, all_statuses, revisits, seconds)
            if reason == TRUNCATED:
                damage = Damage("content-length", _length_message(record, unit))
                break
            local.records += 1
            if page is None:
                local.skip(reason)
                continue
            if revisits is not None and record.rec_type != "revisit":
                revisits.add(page, record.rec_headers.get_header("WARC-Payload-Digest"))
            held.append(page)
            if sum(len(p.body) for p in held) > HOLD_BYTES:
                stats.merge(local)
                local = WarcStats()
                yield from _commit(held, stats)
    except Exception as e:  # noqa: BLE001 - a broken record is data, not a crash
        damage = Damage("unreadable", unreadable_message(e))
        if isinstance(e, ValueError) and "integer string conversion" in str(e):
            damage = Damage("content-length", "bad Content-Length (thousands of digits)")
    if it.err_count:  # warcio found a record not followed by a blank line
        damage = Damage("content-length", "bad Content-Length: a record's data continues past "
                        "its declared length")
    unit.drain()
    if unit.damage is not None:  # what went wrong underneath explains the rest
        damage = unit.damage
    if damage is not None and damage.kind != "truncated":
        held.clear()  # not given out: the unit counts as one damaged record
    else:
        stats.merge(local)
    return damage


def _length_message(record: WarcRecord, unit: Unit) -> str:
    declared = (record.rec_headers.get_header("Content-Length") or "").strip()
    if not length_ok(declared):
        return f"bad Content-Length ({declared[:40]!r})"
    return (f"bad Content-Length: the record declares {int(declared)} bytes, its "
            f"{'gzip member' if unit.d is not None else 'file'} ends before that")


def _commit(held: list[RawPage], stats: WarcStats) -> Iterator[RawPage]:
    stats.pages += len(held)
    yield from held
    held.clear()


def read_all(data: bytes, stats: WarcStats | None = None) -> list[RawPage]:
    """Every page of an in-memory WARC (handy for tests and small tools)."""
    return list(iter_pages(io.BytesIO(data), stats))
