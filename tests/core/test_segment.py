"""The segmenter cuts where layout changes and records what the features need."""

from ce_filter.read.segment import name_tokens, parse, segment


def blocks_of(html: str):
    return segment(parse(html))


def test_blocks_cut_at_layout_tags_and_skip_invisible():
    b = blocks_of(
        "<html><head><title> My  page </title><style>p{}</style></head><body>"
        "<div>one <b>bold</b> two<p>para</p>tail</div><script>var x=1;</script>"
        "<ul><li>a</li><li>b</li></ul></body></html>"
    )
    assert b.texts == ["one bold two", "para", "tail", "a", "b"]
    assert b.title == "My page"


def test_noscript_content_is_walked_as_its_own_blocks():
    """What a client without JavaScript sees (Discourse serves the whole thread there) is text;
    its own block, never glued to the text around it."""
    b = blocks_of("<body><p>before <noscript>Enable <b>JavaScript</b></noscript> after</p>"
                  "<noscript data-path='/t/1'><div id='main-outlet'><h1>Thread</h1>"
                  "<div class='post'><p>First post text</p></div><style>p{}</style></div></noscript>"
                  "<noscript><img src='pixel.gif'></noscript><div>tail</div></body>")
    assert b.texts == ["before", "Enable JavaScript", "after", "Thread", "First post text", "tail"]
    assert "main" in b.anc_tokens[4] and "post" in b.anc_tokens[4]


def test_br_runs_split_but_single_br_does_not():
    b = blocks_of("<div>line one<br>line two<br><br>next block</div>")
    assert b.texts == ["line one line two", "next block"]


def test_anchor_text_and_class_tokens():
    b = blocks_of('<div id="mainNav" class="menu-top"><a href="/">Home page</a> more</div>')
    assert b.anchor_texts == ["Home page"]
    assert set(b.own_tokens[0]) == {"menu", "top", "main", "nav"}


def test_ancestor_tokens_and_paths():
    b = blocks_of('<div class="article"><section id="story"><p>x</p></section></div>')
    assert b.anc_tokens[0] == ("article", "story")
    path = b.container_ids()[0]
    assert path[0] > path[1] > path[2] > 0


def test_name_tokens_split_camel_and_digits():
    assert name_tokens("postBody col2 x") == ("post", "body", "col")


def test_deep_nesting_does_not_recurse():
    depth = 10_000
    b = blocks_of("<div>" * depth + "deep text" + "</div>" * depth)
    assert b.texts == ["deep text"]


def test_rx_flags_per_ancestor_level():
    """Readability's class/id patterns as features: each of the block's nearest elements apart,
    and any ancestor; compound names count (relatedPosts, entry-content)."""
    from ce_filter.score.features import RX_LEVELS, FeatureSpec, feature_names, page_features

    b = blocks_of('<div class="entry-content"><div id="relatedPosts"><p class="lead">a</p></div>'
                  '<span>no<br><br>class</span></div><div class="ad">x</div><p class="ads">y</p>')
    spec = FeatureSpec(groups=("rx",))
    names = feature_names(spec)
    assert len(names) == 3 * (RX_LEVELS + 2)
    rows = [dict(zip(names, r)) for r in page_features(b, spec)]
    x = rows[0]  # "a": p.lead < div#relatedPosts < div.entry-content
    assert x["rx0_unlikely"] == 0 and x["rx1_unlikely"] == 1 and x["rx2_positive"] == 1
    assert x["rx1_positive"] == 1  # "posts" contains "post"
    assert x["rx_anc_unlikely"] == 1 and x["rx_anc_positive"] == 1 and x["rx3_positive"] == 0
    assert rows[-2]["rx0_negative"] == 1 and rows[-1]["rx0_negative"] == 0  # "ad" whole token only


def test_governing_heading_columns():
    """A block under a heading that reads as boilerplate ("Comments", "Related stories") or
    whose class/id does is marked, until the next heading of any level; a long heading (prose
    in a heading tag) is not matched by the lexicon; the walk and its oracle agree."""
    from ce_filter.score.features import FeatureSpec, feature_names, page_features
    from tests.oracles import walk_python

    html = ("<p>before any heading</p><h1>Storm hits the coast</h1><p>article text</p>"
            "<h2 id='comments'>12 Responses</h2><div><p>first comment</p></div>"
            "<h3>Ann says</h3><p>second comment</p>"
            "<h2>Related stories</h2><ul><li>other story</li></ul>"
            "<h2 class='sidebar-title'>Weather</h2><p>widget</p>"
            "<h2>Why we should read more comments than we do in a long heading</h2><p>prose</p>")
    spec = FeatureSpec(groups=("rx", "head"))
    names = feature_names(spec)
    for b in (blocks_of(html), walk_python.walk(html)):
        rows = {t: dict(zip(names, r)) for t, r in zip(b.texts, page_features(b, spec))}
        col = {t: (r["head_lex"], r["head_rx"], r["gov_head_lex"], r["gov_head_rx"])
               for t, r in rows.items()}
        assert col["before any heading"] == (0, 0, 0, 0)
        assert col["Storm hits the coast"] == (0, 0, 0, 0)
        assert col["article text"] == (0, 0, 0, 0)
        assert col["12 Responses"] == (1, 1, 0, 0)  # lexicon, and id "comments" (rx)
        assert col["first comment"] == (0, 0, 1, 1)
        assert col["Ann says"] == (0, 0, 0, 0)  # a heading ends the last one's scope
        assert col["second comment"] == (0, 0, 0, 0)
        assert col["Related stories"] == (1, 0, 0, 0)
        assert col["other story"] == (0, 0, 1, 0)
        assert col["widget"] == (0, 0, 0, 1)  # class sidebar-title: rx unlikely / negative
        assert col["prose"] == (0, 0, 0, 0)  # an 11-word heading is not a section title
