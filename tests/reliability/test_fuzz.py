"""The short fuzz run: the properties of fuzz/targets.py over inputs hypothesis makes from the
seed corpus (fuzz/seeds.py: the hostile shapes, damaged WARCs, poison messages) by the long
run's mutations and from HTML/WARC/JSON fragments. Derandomized with a fixed number of examples,
so every run tries the same inputs and a failure replays; the long run is ``python fuzz/run.py``."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="in the test extra: pip install -e '.[test]'")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
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
    with mock.patch("ce_filter.pipelines.worker.filter_page", side_effect=RecursionError):
        targets.message(b"<p>x</p>")  # an exception of the filter is a dead letter, not a crash


def test_mutation_is_reproducible() -> None:
    seed = SEEDS["extract"]()["article"]
    assert mutate(random.Random(3), seed, [seed]) == mutate(random.Random(3), seed, [seed])
