"""The stage budgets (every stage of the breakdown has one, and they add up as declared) and the
allocation / garbage-collector counts of the speed run (per page, in range). No timing
assertions."""

from __future__ import annotations

import pytest
from ce_filter.bench import allocs, measure, speed
from ce_filter.bench.stages import (
    METADATA_MAX_SHARE,
    RECORD_BUDGET_FACTOR,
    STAGE_BUDGETS,
    STAGES,
    staged_extract,
)

from .conftest import TOPICS, page


def test_every_stage_the_report_names_has_a_budget():
    """A stage added to the breakdown must get its budget in STAGE_BUDGETS (and a stage taken out
    must lose it), and the budgets keep the record within its declared share of the floor."""
    from ce_filter import Extractor

    assert set(STAGE_BUDGETS) == set(STAGES)
    # the stages the breakdown actually times are the ones it names
    assert len(staged_extract(Extractor(), page(0, TOPICS[0])[0].encode())[1]) == len(STAGES)
    assert all(v > 0 for v in STAGE_BUDGETS.values())
    record = sum(STAGE_BUDGETS.values())
    assert record <= RECORD_BUDGET_FACTOR * (STAGE_BUDGETS["parse"] + STAGE_BUDGETS["walk"]) + 1e-9
    assert STAGE_BUDGETS["metadata"] <= METADATA_MAX_SHARE * record


def test_stage_table_shows_each_budget_and_marks_a_stage_over_it():
    over_stage = "select"
    per_page = [STAGE_BUDGETS[s] / 2000 for s in STAGES]  # seconds: half of each budget
    per_page[STAGES.index(over_stage)] = 3 * STAGE_BUDGETS[over_stage] / 1000
    st = {"stages": list(STAGES), "stage_runs": [[per_page] * 3], "floor_runs": [[[0.0003, 0.0005]] * 3],
          "nodes": [100, 200, 300]}
    stage_t, _, _, over = speed.breakdown_tables(st, None, "best")  # type: ignore[arg-type]
    assert over == [over_stage]
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.strip("|").split("|")]
            for ln in stage_t.splitlines() if ln.startswith("| ")}
    assert "budget ms/page p50" in rows["stage"]
    for s in STAGES:
        assert float(rows[s][2]) == pytest.approx(STAGE_BUDGETS[s], abs=5e-4)
        assert ("**over**" in rows[s][3]) == (s == over_stage)


def _garbage(_data: bytes, _url: str | None = None) -> int:
    """A page that leaves reference cycles behind, so the collector has to run."""
    for _ in range(3000):
        a: list[object] = []
        a.append(a)
    return 0


def test_allocations_and_gc_come_out_per_page():
    from ce_filter import Extractor

    ex = Extractor()
    pages = [(page(i, t)[0].encode(), None) for i, t in enumerate(TOPICS[:3])]
    counts, why = allocs.count_allocations(lambda d, u: ex.extract(d, u).to_dict(), pages)
    assert counts is not None, why
    assert len(counts) == len(pages) and all(n > 0 for n in counts)
    # the counter's own reading is taken out: a page that allocates nothing counts nothing
    assert allocs.count_allocations(lambda d, u: None, pages)[0] == [0, 0, 0]
    # the timed passes: collector seconds per [pass][page], collections per generation
    runs, gc_runs, collections = measure.timed_passes(pages, _garbage, 2)
    assert [len(r) for r in gc_runs] == [len(pages)] * 2 == [len(r) for r in runs]
    assert len(collections) == 3 and collections[0] > 0
    g = allocs.gc_summary(runs, gc_runs, collections)
    assert 0 < g["share"] <= 1 and g["ms_per_page"] > 0
    assert g["per_page"][0] == pytest.approx(collections[0] / (2 * len(pages)))
    # a run that makes no garbage: no collection, a share of 0
    runs, gc_runs, collections = measure.timed_passes(pages, lambda d, u: None, 1)
    assert allocs.gc_summary(runs, gc_runs, collections)["share"] == 0


def test_allocation_table_for_ce_filter_rows():
    res = {"ce-filter": {"ok": True, "runs": [[0.001, 0.002]], "gc_runs": [[0.0, 0.0005]],
                         "gc_collections": [1, 0, 0], "allocs": [700, 900], "blocks": [100, 100]},
           "resiliparse": {"ok": True, "runs": [[0.001, 0.002]], "gc_runs": [[0.0, 0.0]],
                           "gc_collections": [0, 0, 0]}}
    t = speed.alloc_table(res)  # type: ignore[arg-type]
    assert t is not None
    row = next(ln for ln in t.splitlines() if ln.startswith("| ce-filter |"))
    assert "| 800 | 800 | 8.0 | 0.50 / 0.00 / 0.00 | 0.250 | 16.7 % |" in row
    assert "resiliparse" not in t  # ce-filter's rows only
    no_count = {"ce-filter": {**res["ce-filter"], "alloc_error": "no C compiler (cc: FileNotFoundError)"}}
    del no_count["ce-filter"]["allocs"]
    t = speed.alloc_table(no_count)  # type: ignore[arg-type]
    assert t is not None and "| — | — | — |" in t and "no C compiler" in t
    assert speed.alloc_table({}) is None
