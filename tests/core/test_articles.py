"""The story once and nothing that is not the story (ce_filter/keep/articles.py): a page of each
class of extra words, through the shipped model."""

import numpy as np
import pytest

from ce_filter import Extractor
from ce_filter.keep.articles import tidy
from ce_filter.read import segment as seg
from ce_filter.read.words import count_words
from tests.oracles import walk_python
from tests.oracles.tidy_python import is_byline, is_label

PARAS = [
    "The city council voted on Tuesday to expand the riverside park by another forty acres, "
    "ending a debate that had divided the neighbourhood for more than three years.",
    "Supporters said the new land would give families a place to walk and play, while critics "
    "argued that the money should have gone to repairing roads and schools across the district.",
    "The plan, which will cost about twelve million dollars, includes new trails, a boat launch "
    "and a community garden that volunteers will run with help from the parks department.",
    "Construction is expected to begin next spring and to take about two years, the mayor said, "
    "adding that the city would hold public meetings before the final design is approved.",
    "Residents who live near the river said they were relieved that the long fight was over and "
    "hoped the work would not close the existing paths for too long during the summer months.",
]


def article(extra_top: str = "", between: str = "", after: str = "", hidden: str = "") -> str:
    body = f"\n<p>{PARAS[0]}</p>\n<p>{PARAS[1]}</p>\n{between}\n" + "\n".join(
        f"<p>{p}</p>" for p in PARAS[2:])
    return (
        "<html><head><title>Council votes to expand riverside park</title>"
        '<meta property="og:type" content="article">'
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Council votes"}'
        "</script></head><body>"
        '<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>'
        '<main><article class="story"><h1>Council votes to expand riverside park</h1>'
        f"{extra_top}<div class='story-body'>{body}</div></article>"
        f"{after}</main>{hidden}"
        "<footer><p>Copyright 2019 The Daily Example. All rights reserved.</p>"
        '<a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>')


URL = "https://www.example.com/news/2019/11/13/council-votes-to-expand-riverside-park.html"


@pytest.fixture(scope="module")
def ex():
    return Extractor()


def test_hidden_schema_copy_is_not_a_second_story(ex):
    copy = ('<div style="display:none" itemscope itemtype="https://schema.org/NewsArticle">'
            '<span itemprop="headline">Council votes to expand riverside park</span>'
            '<span itemprop="keywords">park, council, river, budget</span>'
            '<span itemprop="datePublished">2019-11-13T10:28:00-05:00</span>'
            '<span itemprop="image">https://example.com/img/park.jpg</span>'
            '<div itemprop="articleBody">' + "".join(f"<p>{p}</p>" for p in PARAS) + "</div></div>")
    out = ex.extract(article(hidden=copy), URL).text
    for p in PARAS:
        assert out.count(p) == 1, out
    assert "2019-11-13T10:28" not in out and "park.jpg" not in out
    # the same copy as one hidden block (its paragraphs run together) goes too
    one = copy.replace("</p><p>", " ").replace('"><p>', '">').replace("</p></div>", "</div>")
    out = ex.extract(article(hidden=one), URL).text
    assert all(out.count(p) == 1 for p in PARAS), out


def test_ad_labels_and_promos_between_paragraphs(ex):
    slots = ('<div class="ad-slot"><span>Advertisement</span></div>'
             "<p>ADVERTISEMENT - Scroll to continue</p><div>Anzeige</div><div>广告</div>"
             '<div class="promo"><h3>Sign up for our newsletter</h3></div><div>Video</div>')
    out = ex.extract(article(between=slots), URL).text
    assert all(p in out for p in PARAS)
    for label in ("Advertisement", "ADVERTISEMENT", "Anzeige", "广告", "newsletter", "Video"):
        assert label not in out, out


def test_byline_and_credit_left_to_the_record(ex):
    top = ('<div class="byline">By Maria Lopez · Updated Nov 13, 2019, 10:28am EST</div>'
           '<figure><img src="p.jpg"><figcaption>Sanjeev Verma/Hindustan Times/Getty Images'
           "</figcaption></figure>")
    out = ex.extract(article(extra_top=top), URL).text
    assert all(p in out for p in PARAS)
    assert "Maria Lopez" not in out and "Getty" not in out, out
    kept = Extractor(bylines=True).extract(article(extra_top=top), URL).text
    assert "Maria Lopez" in kept


def test_reader_comments_left_out_unless_asked(ex):
    comments = ('<section id="comments" class="comments"><h3>Top Rated Comments</h3>'
                + "".join(f'<div class="comment"><p class="comment-body">{t}</p></div>' for t in (
                    "This is the best news I have heard all year, the park is where my kids learn "
                    "to ride their bikes and we go there every single weekend.",
                    "What a waste of money when the roads on my street have potholes big enough "
                    "to swallow a car, the council never listens to anyone.",
                    "I hope they keep the old oak trees by the water, they are the reason most of "
                    "us go to the park in the first place."))
                + "</section>")
    out = ex.extract(article(after=comments), URL).text
    assert all(p in out for p in PARAS)
    assert "potholes" not in out and "oak trees" not in out, out


def test_rules_alone():
    assert is_label("Advertisement", 1) and is_label("Publicité", 1) and is_label("広告", 2)
    assert not is_label("Advertisements for the new phone ran on every channel last week.", 10)
    for t in ("By Maria Lopez · Updated Nov 13, 2019, 10:28am EST",
              "Sanjeev Verma/Hindustan Times/Getty Images",
              "October 15, 2018 / 0 Comments / in News / by admin"):
        assert is_byline(t, count_words(t)), t
    for t in ("Bypass surgery is common.", "The council met on Nov 13, 2019 and voted to expand the park."):
        assert not is_byline(t, count_words(t)), t


def test_repeats_keep_the_first_visible_copy():
    b = walk_python.walk(
        "<body><p>" + PARAS[0] + "</p><p>" + PARAS[1] + "</p><p>" + PARAS[0]
        + "</p><p>Yes</p><p>Yes</p><div hidden><p>" + PARAS[1] + "</p></div></body>")
    keep = np.ones(len(b), dtype=bool)
    out = tidy(b, np.ones(len(b)), keep, "article")
    assert out.tolist() == [True, True, False, True, True, False]
    # off article pages (a forum's replies quote the posts) nothing goes
    assert tidy(b, np.ones(len(b)), keep, "forum").all()
    # a hidden tab panel between the visible paragraphs is part of the text
    tabs = walk_python.walk(
        "<body><p>" + PARAS[0] + "</p><div hidden><p>" + PARAS[0] + "</p></div><p>" + PARAS[1]
        + "</p></body>")
    assert tidy(tabs, np.ones(len(tabs)), np.ones(len(tabs), dtype=bool), "article").all()


@pytest.mark.parametrize("html", [
    "<div style='display:none'><p>a</p></div><p>b</p>",
    "<div STYLE='visibility : Hidden'>a<span>b</span></div>",
    "<p hidden>a</p><p aria-hidden='TRUE '>b</p><p aria-hidden='false'>c</p>",
    "<section aria-hidden=true><div><p>a</p></div></section><b hidden>x</b><p>y</p>",
])
def test_hidden_flag_same_in_the_walk_and_its_oracle(html):
    py = walk_python.walk(html)
    c = seg.segment(seg.parse(html))
    assert py.same_as(c)
    assert any(int(f) & seg.FLAG_HIDDEN for f in py.flags)


def test_table_inside_the_story_decided_whole():
    from ce_filter.keep.render import to_markdown, to_text

    html = ("<body><p>" + PARAS[0] + "</p><table><tr><th>Item</th><th>Cost</th></tr>"
            "<tr><td>New trails</td><td>$4 million</td></tr>"
            "<tr><td>Boat launch</td><td>$3 million</td></tr>"
            "<tr><td>Community garden</td><td>$1 million</td></tr></table><p>" + PARAS[1]
            + "</p><ul><li>one</li><li>two</li></ul><p>" + PARAS[2] + "</p></body>")
    b = seg.segment(seg.parse(html), extras=True)
    assert len(b) == 13
    # the header kept, the rows under the cut (0.24-0.30), as the cut left a short article's table
    scores = np.array([0.9, 0.6, 0.6, 0.3, 0.28, 0.26, 0.25, 0.3, 0.24, 0.9, 0.05, 0.06, 0.9])
    keep = scores >= 0.35
    out = tidy(b, scores, keep, "article")
    assert out[:10].all()
    assert not out[10:12].any()  # a list of mixed decisions is not made whole: none was kept
    text = to_text(b, out)
    assert ("Item | Cost\nNew trails | $4 million\nBoat launch | $3 million\n"
            "Community garden | $1 million") in text
    assert "| Community garden | $1 million |" in to_markdown(b, out)
    # a table of low probability throughout is dropped whole, header included
    low = scores.copy()
    low[1:9] = 0.12
    low[1] = 0.5
    out = tidy(b, low, low >= 0.35, "article")
    assert not out[1:9].any()


def test_comments_after_the_story_go_where_the_model_kept_them():
    html = ("<body><article>" + "".join(f"<p>{p}</p>" for p in PARAS) + "</article>"
            '<div id="comments"><h3>Top Rated Comments</h3>'
            '<div class="comment"><p>I have used this park for years and the new trails are '
            "long overdue, thank you to the council.</p></div>"
            '<div class="comment"><p>What a waste of money when the roads have potholes.</p></div>'
            "</div></body>")
    b = seg.segment(seg.parse(html))
    keep = np.ones(len(b), dtype=bool)
    out = tidy(b, np.ones(len(b)), keep, "article")
    assert out.tolist() == [True] * len(PARAS) + [False] * 3
    # the comments model, or a forum page, keeps them
    assert tidy(b, np.ones(len(b)), keep, "article", comments=True).all()
    assert tidy(b, np.ones(len(b)), keep, "forum").all()
    # a page whose story itself sits in a "comments" container keeps everything
    wrapped = seg.segment(seg.parse('<body><div id="comments">' + html[6:-7] + "</div></body>"))
    assert tidy(wrapped, np.ones(len(wrapped)), np.ones(len(wrapped), dtype=bool), "article").all()


def _tail_blocks(texts_tags: list[tuple[str, str]]) -> seg.Blocks:
    html = "<html><body>" + "".join(f"<{t}>{x}</{t}>" for x, t in texts_tags) + "</body></html>"
    return seg.segment(seg.parse(html))


def test_tail_sections_after_the_story_in_other_languages():
    """After the story's last long paragraph: a heading of the words file drops its section up to
    the next heading of its level or above; a line that is a prompt as a whole goes alone."""
    story = [(p, "p") for p in PARAS]
    tail = [("Ähnliche Einträge", "h2"), ("Ein anderer Beitrag über den Park", "p"),
            ("Weitere Nachrichten", "h3"), ("Ein dritter Beitrag", "p"),
            ("Weiterlesen", "p"), ("Kommentare (3)", "h2"), ("Sehr gut!", "p"),
            ("相关文章推荐", "h2"), ("一篇文章", "p"), ("Die Lage am Fluss", "h2"), ("Ein Satz.", "p")]
    b = _tail_blocks(story + tail)
    keep = np.ones(len(b), dtype=bool)
    out = tidy(b, np.full(len(b), 0.9), keep, "article")
    gone = {t for t, k in zip(b.texts, out) if not k}
    assert gone == {"Ähnliche Einträge", "Ein anderer Beitrag über den Park", "Weitere Nachrichten",
                    "Ein dritter Beitrag", "Weiterlesen", "Kommentare (3)", "Sehr gut!",
                    "相关文章推荐", "一篇文章"}, gone
    # not on another kind of page, nor with the comments model, nor before the story's end
    assert tidy(b, np.full(len(b), 0.9), keep, "forum").all()
    assert tidy(b, np.full(len(b), 0.9), keep, "article", comments=True).all()
    before = _tail_blocks([("Ähnliche Einträge", "h2")] + story + [("Die Lage", "h2"), ("Ein Satz.", "p")])
    assert tidy(before, np.full(len(before), 0.9), np.ones(len(before), dtype=bool), "article").all()


def test_tail_match_titles_prompts_and_ordinary_headings():
    from tests.oracles.tidy_python import tail_match

    for t in ("Related posts", "Ähnliche Einträge", "Entradas relacionadas", "Voir aussi",
              "Comentários", "Похожие записи", "関連記事", "관련 글", "相关文章推荐", "Weiterlesen »"):
        assert tail_match(t) == 2, t
    for t in ("Related Stories ▼", "More from Athletics Nation", "Kommentare zu diesem Artikel"):
        assert tail_match(t) == 1, t
    # headings of a story, a French "how", and a long headline holding a phrase
    for t in ("The park's new trails", "Comment ça marche", "Die Lage am Fluss",
              "新华时评：关于城市更新的评论文章引发广泛讨论和关注", "Relatedness of species"):
        assert tail_match(t) == 0, t


def test_the_words_file_states_a_source_for_every_row():
    from ce_filter.keep.articles import load_words

    rows = load_words()
    assert len(rows) > 500
    langs = {r["language"] for r in rows if r["role"] == "tail"}
    assert {"de", "fr", "es", "pt", "it", "nl", "pl", "sv", "ru", "tr", "ja", "ko", "zh", "ar"} <= langs
    for r in rows:
        assert r["role"] in ("tail", "credit", "agency") and r["phrase"] and r["source"], r
        assert r["phrase"] == r["phrase"].lower().strip(), r
        if r["role"] == "tail":  # a catalogue (package@version, file) or the shipped English list
            assert ("@" in r["source"] and r["file"]) or r["source"] == "ce-filter", r


def test_author_box_after_the_story_goes_with_its_bio_and_links():
    """An author box without a title, known by its class/id tokens, after the story: its name, bio
    and social links go; the byline-like block before the story and the story stay."""
    box = ('<div class="author-box"><p>Maria Lopez</p><p>Maria Lopez covers city hall and the '
           'parks for the Daily Example.</p><p><a href="https://twitter.com/mlopez">Twitter</a> '
           '<a href="https://www.linkedin.com/in/mlopez">LinkedIn</a></p></div>')
    html = ('<body><div class="post-author"><p>Maria Lopez</p></div><article>'
            + "".join(f"<p>{p}</p>" for p in PARAS) + f"</article>{box}<p>Last line.</p></body>")
    b = seg.segment(seg.parse(html))
    keep = np.ones(len(b), dtype=bool)
    s = np.ones(len(b))
    out = tidy(b, s, keep, "article")
    gone = [t for t, k in zip(b.texts, out) if not k]
    assert gone == ["Maria Lopez", "Maria Lopez covers city hall and the parks for the Daily "
                    "Example.", "Twitter LinkedIn"], gone
    assert out[0] and out[-1]  # before the story (a byline's place) and outside the box
    # not with bylines kept, nor the comments model, nor on another kind of page
    for kw in ({"bylines": True}, {"comments": True}):
        assert tidy(b, s, keep, "article", **kw).all()
    assert tidy(b, s, keep, "forum").all()
    # an element that names an author without saying bio, box, ... is not a box
    plain = seg.segment(seg.parse(html.replace('class="author-box"', 'class="author-name"')))
    assert tidy(plain, np.ones(len(plain)), np.ones(len(plain), dtype=bool), "article").all()
    # a story that sits inside such a box has no story outside it: nothing goes
    inside = seg.segment(seg.parse("<body><div class='author-bio'>" + html[6:-7] + "</div></body>"))
    assert tidy(inside, np.ones(len(inside)), np.ones(len(inside), dtype=bool), "article").all()


def test_a_page_whose_class_values_hold_no_piece_names_no_container():
    """The rules skip their class/id columns on a page whose class/id values hold none of their
    pieces (Blocks.may_name): so every comment pattern, and every author-box pattern that names
    the author (bits 0 and 2: bit 1 says only what of the author), holds a piece, whatever the
    case of its first letter."""
    from ce_filter.keep import articles as A

    for pieces, patterns in ((A._COMMENT_BYTES, A.COMMENT_PATTERNS),
                             (A._AUTHOR_BYTES, [p for p in A.AUTHOR_PATTERNS if p[0] != 1])):
        for _, _, word in patterns:
            for w in (word, word.capitalize(), word.upper()[:1] + word[1:]):
                assert any(k in w.encode() for k in pieces), (word, pieces)
    # a page naming its comments "respond" (WordPress's reply form) or "talkback" has them read
    b = seg.segment(seg.parse("<div id=respond><p>x</p></div><div class=TalkBack><p>y</p></div>"))
    assert b.may_name(A._COMMENT_BYTES)
