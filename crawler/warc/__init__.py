"""WARC in: ``.warc`` / ``.warc.gz`` (multi-member gzip) from paths, globs, directories or stdin.

``iter_pages(source, stats)`` yields one :class:`~ce_filter.read.rawpage.RawPage` per HTML-ish
``response`` (or ``resource``) record, with HTTP chunking and content-encoding undone and the
``Content-Type`` charset kept as the filter's encoding hint. Everything else is skipped and
counted by reason in :class:`WarcStats`, never silently. A broken or truncated file does not
raise: every whole record before the break is yielded, then the break (file and offset) is
recorded in ``stats.errors`` and reading goes on with the next file.

``revisit`` records (a later capture whose payload is identical to an earlier one, so the
archive stores no body) are skipped by default: a corpus wants each text once. With
``revisits=True`` they are resolved against the originals read earlier in the same run (see
:class:`RevisitIndex`) and become pages of their own, dated and addressed as the revisit.

One job per module, so each can be read (and fuzzed) on its own:

- ``reader``: ``iter_pages`` / ``iter_stream`` / ``read_all``, the loop over inputs and units
- ``sources``: paths, directories, globs, stdin and streams to (name, input) pairs
- ``stats``: :class:`WarcStats`, the counts, skips and breaks of a run
- ``rawinput``: one input's bytes with lookahead (stdin cannot seek), and ``Halted``
- ``units``: one gzip member or plain record at a time, and the damage found in it
- ``resync``: where the next record starts after damage (also warc_shards' cut points)
- ``lines``: warcio's iterator with a linear ``readline``
- ``pages``: a record as a page, or the reason it is skipped
- ``bodies``: chunking and Content-Encoding (gzip, deflate, br, zstd) undone, capped in bytes and CPU
- ``revisits``: :class:`RevisitIndex`, revisits resolved against originals read earlier
- ``arc``: ARC files, read by warcio alone

The caps live in their modules and are read from there: ``units.MEMBER_CAP`` (read as each
gzip member is opened, so a test can set a small one there), ``bodies.BODY_CAP``.
"""

from .bodies import BODY_CAP, DECODE_SECONDS, PAYLOAD_CAP, DecodeOverBudget, decode_budget, decode_content
from .pages import TRUNCATED
from .rawinput import Halted
from .reader import STALLED, iter_pages, iter_stream, read_all
from .resync import GZIP_MAGIC, member_starts_record
from .revisits import REVISIT_SKIPPED, REVISIT_UNRESOLVED, RevisitIndex
from .sources import WARC_SUFFIXES, Readable, Source, expand_sources
from .stats import WarcStats

__all__ = [
    "BODY_CAP", "DECODE_SECONDS", "GZIP_MAGIC", "PAYLOAD_CAP", "REVISIT_SKIPPED", "REVISIT_UNRESOLVED",
    "STALLED", "TRUNCATED", "WARC_SUFFIXES", "DecodeOverBudget", "Halted", "Readable", "RevisitIndex",
    "Source", "WarcStats", "decode_budget", "decode_content", "expand_sources", "iter_pages",
    "iter_stream", "member_starts_record", "read_all",
]
