"""The metadata rules run when a metadata field is first read, not in ``extract``: a caller that
reads only the text does not pay for them, and every reader sees what the eager rules gave."""

import pickle

import pytest

import ce_filter.keep.result as extraction
from ce_filter import Extraction, Extractor
from ce_filter.keep.result import RULE_FIELDS
from ce_filter.run.budget import Budget, InProcessBudget, guarded

PAGE = (
    "<html lang='en'><head><title>Council expands bike lanes | The Daily Planet</title>"
    "<meta name='author' content='Jane Doe'><meta property='og:site_name' content='The Daily Planet'>"
    "<meta name='description' content='The council voted to expand the bicycle network.'>"
    "<link rel='canonical' href='https://planet.example/2024/05/bike-lanes'>"
    "<meta property='article:published_time' content='2024-05-07T09:00:00Z'></head><body>"
    "<h1>Council expands bike lanes</h1>"
    + "".join(f"<p>The city council voted on Tuesday to expand the bicycle network, part {i}, after "
              "a consultation that drew more than four thousand responses from residents.</p>"
              for i in range(5))
    + "</body></html>"
)
URL = "https://planet.example/2024/05/bike-lanes"


@pytest.fixture
def runs(monkeypatch):
    """How often the metadata rules ran."""
    count = [0]
    real = extraction.metadata_fields

    def counted(blocks, url, text):
        count[0] += 1
        return real(blocks, url, text)

    monkeypatch.setattr(extraction, "metadata_fields", counted)
    return count


def eager(ex: Extractor) -> Extraction:
    """The fields as the rules give them when run at once."""
    return ex.extract(PAGE, URL).settle()


def test_rules_run_on_the_first_read_of_any_field_and_once(runs):
    ex = Extractor()
    first = eager(ex)
    want = {k: getattr(first, k) for k in RULE_FIELDS}
    assert runs[0] == 1 and want["author"] == "Jane Doe" and want["date"] == "2024-05-07"
    for field in RULE_FIELDS:
        r = ex.extract(PAGE, URL)
        before = runs[0]
        assert r.text  # the text, blocks, kind and reason need no rules
        assert (len(r.blocks), r.reason, r.page_type, r.html_title, r.url)[4] == URL
        assert runs[0] == before
        assert getattr(r, field) == want[field]  # this field first: the rules run
        assert runs[0] == before + 1
        assert {k: getattr(r, k) for k in RULE_FIELDS} == want
        assert runs[0] == before + 1  # and never again


def test_to_dict_equality_and_repr_see_the_rules_values(runs):
    ex = Extractor()
    d = ex.extract(PAGE, URL).to_dict()
    assert d["author"] == "Jane Doe" and d["language"] == "en" and d["sitename"] == "The Daily Planet"
    assert ex.extract(PAGE, URL) == eager(ex)
    assert "Jane Doe" in repr(ex.extract(PAGE, URL))


def test_a_field_set_before_reading_is_kept():
    r = Extractor().extract(PAGE, URL)
    r.author = "Someone Else"
    assert r.author == "Someone Else" and r.date == "2024-05-07"


def test_no_rules_without_metadata_and_on_empty_pages(runs):
    r = Extractor(metadata=False).extract(PAGE, URL)
    assert (r.title, r.author, r.language) == ("Council expands bike lanes | The Daily Planet", "", "")
    r = Extractor().extract(b"")
    assert (r.reason, r.title, r.author) == ("empty input", "", "")
    assert runs[0] == 0
    assert Extraction("x", "T").title == "T" and Extraction("x").title == ""


def test_a_reader_meanwhile_sees_the_rules_values_not_empty_fields(monkeypatch):
    """Another thread reading a field while the rules run (simulated: a read from inside the
    rules) runs them too, and no field reads '' in between."""
    ex = Extractor()
    r = ex.extract(PAGE, URL)
    real = extraction.metadata_fields
    seen = []

    def reentrant(blocks, url, text):
        if not seen:
            seen.append("")
            seen[0] = r.author  # a read while the first run is still going
        return real(blocks, url, text)

    monkeypatch.setattr(extraction, "metadata_fields", reentrant)
    assert r.date == "2024-05-07" and seen == ["Jane Doe"] and r.author == "Jane Doe"


def test_pickling_runs_the_rules_where_the_page_was_parsed(runs):
    r = Extractor().extract(PAGE, URL)
    r._page = None  # as a worker process sends it (a runner child: ce_filter.run.pool)
    data = pickle.dumps(r)
    assert runs[0] == 1
    back = pickle.loads(data)
    assert back.author == "Jane Doe" and back.text == r.text and runs[0] == 1


def test_guarded_and_budgeted_extraction_run_the_rules_inside(runs, monkeypatch):
    ex = Extractor()
    r = guarded(ex, PAGE, URL)
    assert runs[0] == 1 and "_rules" not in r.__dict__
    r = InProcessBudget(ex, Budget(seconds=5.0)).extract(PAGE, URL)
    assert runs[0] == 2 and r.author == "Jane Doe"

    def broken(blocks, url, text):
        raise ValueError("a rule failed")

    monkeypatch.setattr(extraction, "metadata_fields", broken)
    r = guarded(ex, PAGE, URL)  # a failing rule is that page's result, inside the guard
    assert r.reason.endswith("ValueError") and not r.text
