"""The multilingual boilerplate-heading lexicon (research/boiler_headings.tsv, not adopted): it loads, every
row names its source, known section titles of each language match the multilingual regex, and
English headings match it as they match the shipped (English) one."""

from __future__ import annotations

import pytest

from ce_filter.score.features import headings as H
from research.lexicon import load_lexicon, multilingual_heading
from tests.oracles.headings_regex import boiler_heading

ML = multilingual_heading()

LANGS = ("de", "fr", "es", "pt", "it", "nl", "pl", "sv", "ru", "tr", "ja", "ko", "zh", "ar")
KNOWN = {
    "de": ("Weiterführende Links", "Siehe auch", "Kommentare (3)", "Werbung"),
    "fr": ("Liens connexes", "Voir aussi", "Commentaires", "Lire la suite"),
    "es": ("Enlaces relacionados", "Ver también", "Comentarios", "Etiquetas"),
    "pt": ("Links relacionados", "Ver também", "Comentários", "Compartilhar"),
    "it": ("Vedi anche", "Commenti", "Pubblicità", "Continua a leggere"),
    "nl": ("Zie ook", "Reacties", "Gerelateerde links", "Doorgaan met lezen"),
    "pl": ("Zobacz także", "Komentarze", "Reklama", "Czytaj dalej"),
    "sv": ("Se även", "Kommentarer", "Relaterade länkar", "Läs mer"),
    "ru": ("См. также", "Комментарии", "Поделиться", "Теги"),
    "tr": ("Yorumlar", "Etiketler", "Ayrıca bakınız", "Paylaş"),
    "ja": ("関連リンク", "コメント一覧", "タグ", "この記事を共有"),
    "ko": ("관련 링크", "댓글 3개", "태그", "공유하기"),
    "zh": ("相关链接", "热门评论", "標籤", "分享到："),
    "ar": ("التعليقات", "روابط ذات علاقة", "شاهد أيضا", "شارك"),
}
ENGLISH = ("Comments", "Related stories", "More from The Times", "Leave a Reply", "Share this:",
           "About the author", "Sign up for our newsletter", "Tags", "You may also like",
           "The council decides on harbour dredging", "Commentary", "A related matter",
           "Price tag", "Archive footage", "Recent history", "Labels and brands", "Son of a gun")


def test_the_lexicon_loads_and_every_row_has_a_source():
    rows = load_lexicon()
    assert len(rows) > 200
    for r in rows:
        assert r["language"] and r["phrase"] and r["english"] and r["file"], r
        assert "@" in r["source"], r  # package@version
        assert r["phrase"] == r["phrase"].lower().strip(), r
    assert set(LANGS) <= {r["language"] for r in rows}


@pytest.mark.parametrize("lang", LANGS)
def test_known_titles_of_each_language_match(lang):
    for title in KNOWN[lang]:
        assert ML.search(title.lower()), (lang, title)


def test_english_headings_match_as_with_the_english_list():
    english = boiler_heading(H.BOILER_WORDS)
    for title in ENGLISH:
        assert (english.search(title.lower()) is None) == (ML.search(title.lower()) is None), title
    for w in H.BOILER_WORDS:
        assert ML.search(w) and english.search(w)


def test_unspaced_phrases_match_short_headings_only():
    assert ML.search("网友评论")
    # a headline that holds the phrase is not a section title
    assert not ML.search("新华时评：关于城市更新的评论文章引发广泛讨论和关注")
    # spaced phrases need word boundaries: "kommentare" inside a word does not match
    assert not ML.search("lesekommentarenotizen")


def test_multilingual_phrases_in_c_find_what_the_regex_finds():
    """The lexicon study runs the multilingual lexicon in the features' C part (dense.phrases
    with the unspaced phrases and their slack): it finds what multilingual_heading finds."""
    import random

    import numpy as np

    from ce_filter.read.texts import TextColumn
    from ce_filter.score.features import dense
    from research.lexicon import UNSPACED_SLACK, multilingual_phrases

    bounded, unspaced = multilingual_phrases()
    ph = dense.phrases(bounded, unspaced, UNSPACED_SLACK)
    rnd = random.Random(7)
    pieces = list(bounded[:200]) + list(unspaced) + [w[:2] for w in unspaced] + [
        " ", "  ", "\u3000", "x", "中", "文", "。", "1", "\u00a0", "_", "ё", "Ё", "İ"]
    texts = ["", *bounded, *unspaced]
    texts += ["".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 5))) for _ in range(20000)]
    got = dense.phrase_hits(TextColumn.of(texts), ph, np.arange(len(texts)))
    ref = np.array([ML.search(t.lower()) is not None for t in texts])
    assert not [t for t, a, b in zip(texts, got, ref) if a != b]
    assert 1000 < ref.sum() < len(texts) - 1000
