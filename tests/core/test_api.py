"""The public API on good pages and on the bad input a crawler sees every day."""

import ce_filter
from ce_filter import Extractor, extract
from ce_filter.read.page import decode

PARAS = [
    "The city council voted on Tuesday to expand the bicycle network across the northern "
    "districts, after a two-year consultation that drew more than four thousand responses.",
    "Supporters said the new lanes would make commuting safer for children and older riders, "
    "while shop owners worried that fewer parking spaces could reduce the number of visitors.",
    "Construction is expected to begin next spring and to last about eighteen months, according "
    "to the transport department, which will publish a detailed timetable in the coming weeks.",
    "The mayor described the plan as a turning point for the city, saying that cleaner air and "
    "quieter streets were worth the disruption that the building work would inevitably cause.",
]
NAV = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
ARTICLE = (
    "<html><head><title>Council expands bike lanes</title></head><body>"
    f'<div id="header"><ul class="nav">{NAV}</ul></div>'
    '<div id="content"><div class="article"><h1>Council expands bike lanes</h1>'
    + "".join(f"<p>{p}</p>" for p in PARAS)
    + '</div><div class="related"><h3>Related stories</h3><ul>'
    + "".join(f'<li><a href="/r{i}">Another story headline number {i}</a></li>' for i in range(8))
    + '</ul></div></div><div id="footer"><a href="/privacy">Privacy</a> | '
    '<a href="/terms">Terms of use</a> | Copyright 2024</div></body></html>'
)


def test_article_kept_navigation_dropped():
    r = extract(ARTICLE)
    for p in PARAS:
        assert p in r.text
    assert "Section 3" not in r.text
    assert "Privacy" not in r.text
    assert r.title == "Council expands bike lanes"
    assert r.blocks_kept >= len(PARAS) and len(r.blocks) > r.blocks_kept
    assert all(0.0 <= b.score <= 1.0 for b in r.blocks)


def test_bytes_and_str_agree_and_extractor_reuse():
    ex = Extractor()
    a = ex.extract(ARTICLE.encode("utf-8"))
    b = ex.extract(ARTICLE)
    assert a.text == b.text and a.encoding == "utf-8"
    assert ex.version.startswith(f"ce-filter/{ce_filter.__version__}")


def test_precision_setting_keeps_less():
    loose = Extractor(threshold=0.05).extract(ARTICLE)
    strict = Extractor(threshold=0.95).extract(ARTICLE)
    assert loose.blocks_kept >= strict.blocks_kept


def test_empty_and_whitespace():
    for data in (b"", b"   \n", "", None):
        r = extract(data)
        assert r.text == "" and r.reason


def test_binary_garbage():
    import random

    rng = random.Random(1)
    junk = bytes(rng.randrange(256) for _ in range(20000))
    r = extract(junk)
    assert isinstance(r.text, str)
    assert extract(b"\x89PNG\r\n\x1a\n" + junk).reason == "binary content"
    assert extract(b"%PDF-1.4 " + junk).reason == "binary content"


def test_gigantic_page_is_cut_not_fatal():
    body = ("<p>" + "word " * 200 + "</p>") * 50_000  # ~50 MB
    r = extract(f"<html><body>{body}</body></html>".encode())
    assert r.truncated and len(r.text) > 0


def test_absurdly_deep_document():
    depth = 10_000
    r = extract(("<div>" * depth + "<p>" + " ".join(PARAS) + "</p>" + "</div>" * depth).encode())
    assert PARAS[0] in r.text


def test_cp1251_without_declared_charset():
    ru = (
        "Городской совет во вторник проголосовал за расширение сети велосипедных дорожек в "
        "северных районах после двухлетних консультаций, в которых приняли участие тысячи жителей."
    )
    html = f"<html><body><div class='article'><p>{ru}</p><p>{ru}</p></div></body></html>"
    r = extract(html.encode("cp1251"))
    assert ru in r.text


def test_truncated_html():
    cut = ARTICLE[: ARTICLE.index(PARAS[2]) + 40]
    r = extract(cut.encode())
    assert PARAS[0] in r.text and PARAS[1] in r.text


def test_page_without_text():
    r = extract(b"<html><head><script>var a=1;</script></head><body><img src=x></body></html>")
    assert r.text == "" and r.reason == "no text in page"


def test_precise_preset_uses_the_models_cv_cut():
    from dataclasses import replace

    from ce_filter.api import PRECISE_THRESHOLD
    from ce_filter.score.blockmodel import load_default

    m = load_default()
    ex = Extractor(precise=True)
    assert ex.threshold == max(m.threshold, m.precise_threshold) > Extractor().threshold
    old = replace(m, precise_threshold=None)  # a model file from before the CV choice
    assert Extractor(old, precise=True).threshold == max(m.threshold, PRECISE_THRESHOLD)


def test_blocks_are_made_on_read_and_behave_like_a_list():
    from ce_filter.api import Block

    r = extract("<div><p>" + "word " * 40 + "</p></div><ul><li><a href=/>Home</a></li></ul>")
    blocks = list(r.blocks)
    assert all(isinstance(b, Block) for b in blocks) and len(blocks) == len(r.blocks) == 2
    assert r.blocks[-1] == blocks[-1] and r.blocks[:1] == blocks[:1] and r.blocks == blocks
    assert r.blocks_kept == sum(b.is_content for b in blocks) >= 1
    assert r.text == "\n\n".join(b.text for b in blocks if b.is_content)


def test_url_reaches_the_extraction_on_every_path():
    url = "https://news.example.org/city/2024/bikes.html"
    for page in (ARTICLE, ARTICLE.encode(), b"", None, b"%PDF-1.4 x", "<script>x</script>"):
        r = extract(page, url)
        assert r.url == url, page
        assert r.resolve("../photos/1.jpg") == "https://news.example.org/city/photos/1.jpg"
        assert r.resolve("//cdn.example.net/a.css") == "https://cdn.example.net/a.css"
        assert r.resolve("mailto:x@example.org") == "mailto:x@example.org"
    r = extract(ARTICLE)
    assert r.url == "" and r.resolve("/a") == "/a"  # no page address: links stay as they are
    assert extract(ARTICLE, url).to_dict()["url"] == url


def _extract_in(ex: Extractor, page: str) -> tuple[str, list[float], str]:
    r = ex.extract(page)
    return r.text, [b.score for b in r.blocks], ex.version


def test_extractor_pickles_and_works_in_a_fresh_process(tmp_path):
    """Spark and multiprocessing send the Extractor itself; its model carries C lookup tables
    (capsules) once used, so it travels as JSON and is rebuilt on load."""
    import multiprocessing as mp
    import pickle

    from ce_filter.score.blockmodel import load_default

    path = tmp_path / "m.json"
    path.write_text(load_default("comments").dumps())
    for ex in (Extractor(threshold=0.7), Extractor(str(path), precise=True), Extractor(comments=True)):
        want = _extract_in(ex, ARTICLE)  # used first: the tables exist now
        back = pickle.loads(pickle.dumps(ex))
        assert (back.threshold, back.max_bytes, back.version) == (ex.threshold, ex.max_bytes, ex.version)
        assert _extract_in(back, ARTICLE) == want
    # a process that imports ce_filter afresh (spawn) gets the extractor and agrees
    ex = Extractor(threshold=0.3)
    want = _extract_in(ex, ARTICLE)
    with mp.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_extract_in, (ex, ARTICLE)) == want


def test_every_public_name_says_what_it_is_for():
    import inspect

    names = [getattr(ce_filter, n) for n in ce_filter.__all__ if n != "__version__"]
    missing = []
    for obj in names:
        if not inspect.getdoc(obj):
            missing.append(obj.__name__)
        if inspect.isclass(obj):
            for name, member in vars(obj).items():
                if (not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
                        and not inspect.getdoc(member)):
                    missing.append(f"{obj.__name__}.{name}")
    assert not missing, missing


def test_the_parse_takes_the_pages_own_bytes_only_where_they_are_exactly_its_utf8():
    """A page that was valid UTF-8 (labelled so or not) is parsed from its own bytes (not
    re-encoded from the text); anything else (a replaced byte, another charset, a repaired
    double encoding, a cut page) from the text's UTF-8; the result is the same either way."""
    ex = Extractor()
    page = ARTICLE.replace("Council", "Cöuncil ✓").encode("utf-8")
    latin1 = ARTICLE.replace("Council", "Cöuncil").replace("<html>", '<html><meta charset="iso-8859-1">', 1)
    latin1 = latin1.encode("latin-1")
    mislabelled = page.replace(b"<html>", b'<html><meta charset="iso-8859-1">', 1)
    right = ARTICLE.replace("Council", "Cöuncil’s").encode("utf-8")
    double = right.decode("cp1252").encode("utf-8")
    cases = {
        "utf-8": (page, page),
        "BOM": (b"\xef\xbb\xbf" + page, page),
        "a bad byte": (page.replace(b"\xc3\xb6", b"\xc3", 1), None),
        "latin-1": (latin1, None),
        "UTF-8 labelled latin-1": (mislabelled, mislabelled),
        "double-encoded": (double, right),  # the repaired text's UTF-8, not the page's bytes
    }
    for name, (data, own) in cases.items():
        p = decode(data, max_bytes=ex.max_bytes, limits=ex.limits)
        text, reason, utf8 = p.text, p.reason, p.utf8
        assert reason == "" and utf8 == own, name
        if utf8 is not None:
            assert utf8 == text.encode("utf-8"), name
        assert ex.extract(data).text == ex.extract(text).text, name  # a str goes the other way
