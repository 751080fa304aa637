"""The short fuzz run: the properties of fuzz/targets.py over inputs hypothesis makes from the
seed corpus (fuzz/seeds.py: the hostile shapes, damaged WARCs, poison messages) by the long
run's mutations and from HTML/WARC/JSON fragments. Derandomized with a fixed number of examples,
so every run tries the same inputs and a failure replays; the long run is ``python -m fuzz.run``."""

from __future__ import annotations

import contextlib
import gzip
import random
import signal

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="in the test extra: pip install -e '.[test]'")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# fuzz/ and tests/ import as packages from the checkout's root, which `python -m pytest` run
# there (scripts/test.sh) has on its path; ce_filter.* is the installed package
from fuzz import targets  # noqa: E402
from fuzz.run import TOKENS, mutate  # noqa: E402
from fuzz.seeds import SEEDS  # noqa: E402

SHORT = settings(max_examples=60, derandomize=True, deadline=None, database=None, print_blob=True,
                 suppress_health_check=list(HealthCheck))
SMALL = 64 << 10  # seeds mutated here (the large hostile shapes are checked in test_precheck)


def _inputs(target: str) -> st.SearchStrategy[bytes]:
    seeds = [s for s in SEEDS[target]().values() if len(s) <= SMALL] if target != "warc" else \
        list(SEEDS[target]().values())
    mutated = st.builds(lambda seed, r: mutate(r, seed, seeds), st.sampled_from(seeds),
                        st.randoms(use_true_random=False))
    fragments = st.lists(st.one_of(st.sampled_from(TOKENS), st.binary(max_size=12),
                                   st.text(max_size=12).map(str.encode)), max_size=40).map(b"".join)
    return st.one_of(mutated, fragments)


@SHORT
@given(_inputs("extract"))
def test_extract_never_raises_and_explains_empty_results(data: bytes) -> None:
    targets.extract(data)


@SHORT
@given(_inputs("warc"))
def test_warc_reader_never_raises_and_its_counts_add_up(data: bytes) -> None:
    targets.warc(data)


@contextlib.contextmanager
def _ends_within(seconds: float):
    """A reader that spins fails the example (TimeoutError) instead of hanging the suite."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds:g} s: the reader does not end")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


_JUNK = st.one_of(
    st.binary(max_size=300),
    st.lists(st.one_of(st.sampled_from(TOKENS), st.binary(max_size=12)), max_size=40).map(b"".join),
    # long runs, across the reader's 64 KiB steps (junk past one step spun once)
    st.builds(lambda unit, n: (unit * (n // max(len(unit), 1) + 1))[:n],
              st.binary(min_size=1, max_size=8), st.integers(60_000, 270_000)),
)


@SHORT
@given(_JUNK)
def test_the_warc_reader_ends_and_gives_every_good_record_after_any_damage(junk: bytes) -> None:
    """For any bytes between good records (gzip and plain): the reader ends, no step of it
    stalls, and the good records before and after the damage all come out."""
    with _ends_within(20):
        targets.resync(junk)


def _members(parts: list[bytes], n: int, tail: bytes) -> bytes:
    return b"".join(gzip.compress(p, mtime=0) for p in parts) * n + tail


_BODIES = st.one_of(
    st.binary(max_size=2000),
    st.builds(_members, st.lists(st.binary(max_size=20), min_size=1, max_size=3),
              st.integers(1, 3000), st.binary(max_size=30)),
)


@SHORT
@given(_BODIES)
def test_body_decoding_is_linear_in_its_input(body: bytes) -> None:
    """gzip / deflate bodies of any bytes, many members among them: zlib is handed at most 40
    bytes per byte of body (handing it the rest of the body at each member was quadratic)."""
    with _ends_within(20):
        targets.decode(body)


@SHORT
@given(_inputs("message"),
       st.one_of(st.none(), st.binary(max_size=30)),
       st.lists(st.tuples(st.sampled_from(["url", "content-type", "ce-filter-encoding", "x"]),
                          st.binary(max_size=20)), max_size=3))
def test_worker_message_decoding_outputs_a_valid_record_or_a_dead_letter(data, key, headers) -> None:
    targets.message(data, key, headers)


@pytest.mark.parametrize("target", sorted(SEEDS))
def test_every_seed_holds_the_properties(target: str) -> None:
    for data in SEEDS[target]().values():
        targets.TARGETS[target](data)


def test_the_targets_can_fail() -> None:
    """A property that breaks must surface (here a decoding that raises, a WARC count that lies)."""
    from unittest import mock

    with mock.patch.object(targets._extractor(), "extract", side_effect=LookupError("hex")):
        with pytest.raises(LookupError):
            targets.extract(b"<p>x</p>")
    with mock.patch("ce_filter.crawler.warc.read_all", return_value=[object()]):
        with pytest.raises(AssertionError):
            targets.warc(SEEDS["warc"]()["warc"])
    with mock.patch.object(targets._extractor(), "extract", side_effect=RecursionError):
        targets.message(b"<p>x</p>")  # an exception of the filter is a dead letter, not a crash


def test_mutation_is_reproducible() -> None:
    seed = SEEDS["extract"]()["article"]
    assert mutate(random.Random(3), seed, [seed]) == mutate(random.Random(3), seed, [seed])
