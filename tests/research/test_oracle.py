"""The label oracle and the gold-outside-blocks tally: the tools that say where the gold is."""

from __future__ import annotations

from core.test_api import ARTICLE, PARAS

from ce_filter.learn.corpus import Doc
from ce_filter.learn.labels import LabelRule
from research.oracle import oracle
from research.outside import in_blocks, sources, tally

GOLD = "Council expands bike lanes\n\n" + "\n\n".join(PARAS)


def test_oracle_keeps_what_the_labels_keep_and_scores_with_the_real_metric():
    # the forum thread only in <noscript>: the walk reads it, so the oracle finds it
    thread = (b"<html><body><div id='splash'>Loading</div><noscript data-path='/t/1'>"
              b"<h1>Pump valve</h1><div class='post'><p>Reset the valve and the pump works again "
              b"after the update.</p></div></noscript><div id='footer'>Powered by a forum engine"
              b"</div></body></html>")
    docs = [Doc("a", ARTICLE.encode(), GOLD, page_type="article"),
            Doc("f", thread, "Pump valve\n\nReset the valve and the pump works again after the update.",
                page_type="forum")]
    best, every = oracle(docs)
    assert best.n == every.n == 2
    assert best.by_type()["forum"].mean_f1 == 1.0
    assert best.by_type()["article"].precision == 1.0 and best.by_type()["article"].recall == 1.0
    assert every.recall == 1.0 and every.precision < 1.0  # all blocks: the menus come along


def test_oracle_with_the_lines_rule_finds_sections_in_another_order():
    html = (b"<html><body><div class='specs'>Weight 2 kg and width 30 cm with a battery that lasts "
            b"ten hours</div><ul><li>Home</li><li>Shop</li></ul><div class='desc'>This lamp gives a "
            b"warm light for reading at night and folds flat for travel</div></body></html>")
    gold = ("This lamp gives a warm light for reading at night and folds flat for travel\n"
            "Weight 2 kg and width 30 cm with a battery that lasts ten hours")
    plain = oracle([Doc("p", html, gold)])[0]
    lines = oracle([Doc("p", html, gold)], LabelRule(lines=True))[0]
    assert plain.recall < 0.6 and lines.recall == 1.0 and lines.precision == 1.0


def test_outside_credits_each_source_with_the_missing_gold():
    html = ("<html><head><title>Page</title><meta name='description' content='A short summary "
            "here'><script type='application/ld+json'>{\"@type\": \"Product\", \"description\": "
            "\"Durable steel frame\"}</script></head><body><p>Visible words stay inside</p>"
            "<img src='x.jpg' alt='Blue widget photo'><button>Frequently asked question</button>"
            "</body></html>")
    src = sources(html)
    assert src["alt"] == ["Blue widget photo"] and src["<button>"] == ["Frequently asked question"]
    assert src["JSON-LD description"] == ["Durable steel frame"]
    gold = "Visible words stay inside. Blue widget photo. Frequently asked question. Durable steel frame"
    assert in_blocks(["Visible words stay inside"], gold) == (4, 13)
    t = tally([Doc("1", html.encode(), gold, page_type="product")], "x")["product"]
    assert (t.pages, t.gold, t.outside) == (1, 13, 9)
    assert t.by_source["alt"] == 3 and t.by_source["<button>"] == 3
    assert t.by_source["JSON-LD description"] == 3 and t.by_source["meta description"] == 0
