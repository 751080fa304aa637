"""The ``Extractor``: loads its model once and composes a page's steps (ce_filter/read/page.py:
decode, precheck, parse, segment; then its own: context, scores, kept) into the page's
``Extraction`` (ce_filter/keep/result.py); ``extract`` with the shipped model. The public face
is ce_filter/api.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .keep.articles import COMMENT_KINDS, pass_rules, tidy
from .keep.kindrules import (
    SPAN_FILL,
    SPAN_OUTSIDE,
    KindDecoding,
    decide_groups,
    decoding_for,
    fill_span,
    jsonld_candidates,
    jsonld_cover,
    missing,
)
from .keep.render import pass_form, to_text
from .keep.result import (
    BlockList,
    Extraction,
    metadata_rules,
    page_head,
)
from .read.page import MAX_BYTES, Page, decode, read
from .read.precheck import DEFAULT_LIMITS, Limits
from .read.segment import FLAG_PRE, Blocks
from .score.blockmodel import (
    FALLBACK_REL,
    THIN_ARTICLE_P,
    THIN_MIN_CHARS,
    Model,
    load_default,
    select_c,
    thin_page,
)
from .score.blockmodel import select as select  # public (api)
from .score.features.context import signature_groups
from .score.kindgate import kind_stated
from .score.pagekind import KINDS, page_signals
from .values import language_code, probability
from .version import __version__

if TYPE_CHECKING:
    from .score.site.memory import Memory
    from .score.site.stage import SiteStage


# The precision-leaning cut for a model file that does not record one (files from before
# the training (learn.fit) chose it on CV: Model.precise_threshold).
PRECISE_THRESHOLD = 0.65
# The recall-leaning cut for a model file that does not record one (Model.recall_threshold).
RECALL_THRESHOLD = 0.2
# the reason of a page the thin-page rule empties (model.thin_page)
THIN_REASON = "too little main content"
# why a page's text is empty, by the pass's code (Model.page_pass: 0 it is not, 1 thin, 2 none kept)
NONE_KEPT = "no block classified as content"
_WHY = ("", THIN_REASON, NONE_KEPT)


def code_blocks(blocks: Blocks) -> np.ndarray:
    """Which blocks sit inside a <pre>."""
    return (np.asarray(blocks.flags, dtype=np.int64) & FLAG_PRE) != 0


class Extractor:
    """Loads a model once; ``extract`` is then cheap to call per page.

    ``model``: a Model, the path of a model file, or None for the shipped one.
    ``comments=True`` uses the model trained on article+comments gold.
    ``threshold`` overrides the model's probability cut (higher = more precise);
    ``precise=True`` is the precision-leaning preset: the model's CV-chosen cut (best mean
    page F0.5 on the training pages), never below its default one; ``recall=True`` the
    recall-leaning one (best mean page F2), never above it (trafilatura's favor_precision /
    favor_recall). The two presets exclude each other.
    ``max_bytes``: pages are cut there before parsing (``Extraction.truncated``).

    An Extractor pickles (Spark closures, ``multiprocessing``): it travels as its model's JSON
    and its options, and the receiving process rebuilds the native lookup tables on load.
    ``metadata=False`` skips the metadata rules and the language identification (about a tenth
    of a page's time: docs/OUTPUT.md): the fields stay empty and ``title`` is the raw <title>.
    ``target_language`` (an ISO 639-1 code): a page whose kept text is identified as another
    language gives no text, and its reason names the language found; a page whose language is
    unknown keeps its text.
    ``bylines=True`` keeps the bylines, datelines and photo credits in an article's text (by
    default they are left to the record's author and date: ce_filter/keep/articles.py).
    ``site_memory``: the site's other pages (ce_filter.score.site.memory.Memory): a SiteMemory that
    remembers the pages this Extractor has seen, or an order-free SiteCounts; blocks seen on
    the host's other pages go through the model's site stage (ce_filter.score.site.stage). None (the
    default): every page alone. A host's first page, and every page under a model without a
    site stage, scores as without it.
    """

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        comments: bool = False,
        threshold: float | None = None,
        precise: bool = False,
        recall: bool = False,
        max_bytes: int = MAX_BYTES,
        metadata: bool = True,
        limits: Limits = DEFAULT_LIMITS,
        target_language: str | None = None,
        site_memory: Memory | None = None,
        decoding: KindDecoding | str | bool | None = None,
        bylines: bool = False,
    ) -> None:
        model_path = model if isinstance(model, str) else None
        if model is None:
            model = load_default("comments" if comments else "content")
        elif isinstance(model, str):
            model = Model.load(model)
        self.model = model
        self.comments = comments
        # bylines, datelines and photo credits stay in an article's text (ce_filter/keep/articles.py)
        self.bylines = bylines
        # an explicit cut overrides the model's, per-kind ones included
        self.fixed = threshold is not None
        if precise and recall:
            raise ValueError("precise and recall exclude each other: choose one")
        self.precise = precise
        self.recall = recall
        if threshold is not None:
            threshold = probability(threshold)  # a cut of 2 or nan would empty every page
        elif precise:
            pt = PRECISE_THRESHOLD if model.precise_threshold is None else model.precise_threshold
            threshold = max(model.threshold, pt)
        elif recall:
            rt = RECALL_THRESHOLD if model.recall_threshold is None else model.recall_threshold
            threshold = min(model.threshold, rt)
        else:
            threshold = model.threshold
        self.threshold = threshold  # the cut of a page whose kind has none of its own
        self.max_bytes = max_bytes
        self.metadata = metadata
        self.limits = limits  # the pre-parse caps (precheck.py)
        # a page identified as another language gives no text (trafilatura's target_language)
        self.target_language = None if target_language is None else language_code(target_language)
        self.version = f"ce-filter/{__version__} model/{model.name}@{model.digest}"
        # the page kind: the model's own page-kind model, else the shipped content model's (the
        # comments model is trained on corpora without page types)
        self.kind_model = model.pagekind or load_default("content").pagekind
        self.site_memory, self.site_stage = _site_setup(model, site_memory)
        # the page-kind decoding rules (kinds.after_cut): the file made for this model (by its
        # digest) where there is one, unless ``decoding=False``; an explicit one must match
        self.decoding = decoding_for(model, model_path, decoding)

    def __getstate__(self) -> dict[str, object]:
        # the model holds C lookup tables (capsules) that cannot be pickled: send its JSON
        state = dict(self.__dict__)
        state["model"] = self.model.to_json()
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        state = dict(state)
        state["model"] = Model.from_json(state["model"])
        self.__dict__.update(state)

    def decode(self, html: bytes | str | None, encoding: str | None = None
               ) -> tuple[str, str, bool, str]:
        """(page as text, encoding, truncated, reason): the bytes decoded and cut at
        ``max_bytes`` (or at the pre-parse element cap); the text is '' and reason says why for
        input that is not a page or too costly to parse (page.decode)."""
        p = decode(html, encoding, self.max_bytes, self.limits)
        return p.text, p.encoding, p.truncated, p.reason

    def read(self, html: bytes | str | None, encoding: str | None = None) -> Page:
        """The page decoded, checked, parsed and segmented under this Extractor's caps
        (page.read)."""
        return read(html, encoding, self.max_bytes, self.limits)

    def page(self, html: bytes | str | None, url: str | None = None, *,
             encoding: str | None = None, site: str | None = None) -> Page:
        """The page through every step: ``read``, then its context (kind and style), its
        block scores (through the site stage with a site memory, which then remembers the
        page) and its kept blocks (``kept``; ``reason`` says why none is)."""
        p = self.read(html, encoding)
        blocks = p.blocks
        if blocks is None or not len(blocks):
            return p
        run = self.page_run(blocks, p.text, url)
        if run is not None:
            kind, scores, keep, reason, text = run
            return Page(p.text, p.encoding, p.truncated, reason, p.utf8, p.tree, blocks, kind=kind,
                        scores=scores, kept=keep, kept_text=text)
        kind, style, scores, cut, site_in = self.score_page(blocks, p.text, url, site)
        seen = None if site_in is None else site_in[1] > 0  # blocks of the host's other pages
        keep, reason = self.keep(blocks, scores, kind, len(p.text), seen=seen, cut=cut)
        return Page(p.text, p.encoding, p.truncated, reason, p.utf8, p.tree, blocks, kind=kind,
                    style=style, scores=scores, site=site_in, kept=keep)

    def extract(
        self, html: bytes | str, url: str | None = None, *, encoding: str | None = None,
        site: str | None = None,
    ) -> Extraction:
        """Clean main-content text of one page. Never raises on bad input (a value that is not
        a page at all, such as an int, is a TypeError).

        ``url``: the page's address; it goes into ``Extraction.url`` (relative links resolve
        against it) and the metadata rules read it. ``encoding``: the transport's charset (an
        HTTP header's); only a byte-order mark overrides it, as in the HTML standard's order.
        ``site``: with a site memory, the key of the page's site (default: the URL's host).
        """
        if url is not None and not isinstance(url, str):
            raise TypeError(f"url must be str or None, not {type(url).__name__}")
        return self.extraction(self.page(html, url, encoding=encoding, site=site), url)

    def extraction(self, p: Page, url: str | None = None) -> Extraction:
        """The Extraction of a page through its steps (``page``)."""
        blocks, enc, truncated = p.blocks, p.encoding, p.truncated
        if blocks is None:
            return Extraction("", "", encoding=enc, reason=p.reason, truncated=truncated, model=self.version,
                              url=url or "")
        text_html = p.text
        if p.kept is None or p.scores is None:
            out = Extraction("", blocks.title, encoding=enc, reason="no text in page",
                             truncated=truncated, model=self.version)
            keep = np.zeros(0, dtype=bool)
        else:
            keep, reason, kind, scores = p.kept, p.reason, p.kind, p.scores
            # (the pass wrote it; else the steps: the code blocks' lines from the walk's code column)
            text = p.kept_text if p.kept_text is not None else to_text(blocks, keep)
            if self.decoding is not None and self.decoding.jsonld and kind is not None:
                added = self._jsonld_text(blocks, keep, kind, text)
                if added:  # the page's structured data where the kept blocks miss it
                    text, reason = "\n\n".join(([text] if text else []) + added), ""
            out = Extraction(
                text,
                blocks.title,
                BlockList(blocks.texts, scores, keep),
                encoding=enc,
                truncated=truncated,
                model=self.version,
                reason=reason,
            )
            if (kind is not None and self.kind_model is not None
                    and kind_stated(int(blocks.token_counts().sum()), out.text, blocks.texts)):
                i = int(np.argmax(kind))
                out.page_type, out.page_type_prob = self.kind_model.kinds[i], round(float(kind[i]), 4)
        # the metadata rules run when one of their fields is first read (extraction._RuleField)
        out.attach(blocks, keep, text_html, rules=self.metadata, url=url)
        out.url = url or ""
        out.html_title = blocks.title
        if self.target_language and out.text:
            self._language_gate(out, blocks)
        return out

    def score_page(self, blocks: Blocks, html: str, url: str | None = None, site: str | None = None
                   ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray, np.ndarray | None,
                              tuple[np.ndarray, np.ndarray, int, np.ndarray] | None]:
        """(kind probabilities, style probabilities, block scores, the cut's mask or None, the
        site inputs or None) of a page of >= 1 block: in one C call where it covers the model and
        the options (``page_pass``: the mask is ``decide``'s), else ``page_context``,
        ``Model.block_scores`` and, with a site memory, the site stage (``site_scores``; the page
        is then remembered), the mask left to ``keep``."""
        fused = self.page_pass(blocks, html, url)
        if fused is not None:
            return fused[0], None, fused[1], fused[2], None
        kind, style = self.page_context(blocks, html, url)
        scores = self.model.block_scores(blocks, kind, style)
        mem = self.site_memory
        if mem is None:
            return kind, style, scores, None, None
        scores, site_in = self.site_scores(mem, blocks, scores, url, site)
        return kind, style, scores, None, site_in

    def site_scores(self, mem: Memory, blocks: Blocks, scores: np.ndarray, url: str | None,
                    site: str | None = None
                    ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, int, np.ndarray]]:
        """The page's scores through the site stage where its host has pages remembered, and
        the site inputs; the page is then remembered."""
        from .score.site.memory import block_fingerprints, host_of

        host = site or host_of(url)
        fps = block_fingerprints(blocks)
        k, n = mem.seen(host, fps) if host else (np.zeros(len(fps)), 0)
        out = scores if self.site_stage is None else self.site_stage.apply(scores, fps, k, n)
        if host:
            mem.observe(host, fps, url or "")
        return out, (fps, k, n, scores)

    def _language_gate(self, out: Extraction, blocks: Blocks) -> None:
        """Empty ``out`` (no block kept, reason naming the language found) when its text is
        identified as a language other than ``target_language``; unknown keeps it."""
        lang = out.language if self.metadata else metadata_rules()[2](out.text, page_head(blocks).lang)
        if not lang or lang == self.target_language:
            return
        out.drop_text(f"language {lang}, not the target {self.target_language}")
        if not self.metadata:
            out.language = lang

    def keep(self, blocks: Blocks, scores: np.ndarray, kind: np.ndarray | None, page_chars: int,
             *, seen: np.ndarray | None = None, cut: np.ndarray | None = None
             ) -> tuple[np.ndarray, str]:
        """The blocks a page keeps: those at its cut (``decide``'s mask, or ``cut`` where the
        caller has it: ``scores_and_cut``; ``seen``: as in ``decide``) less what the rules after
        the cut take back (articles.tidy: repeats, hidden text, labels, bylines, comments), none
        on a thin page (model.thin_page: ``page_chars`` is its HTML's length); and why its text is
        empty, '' when it is not."""
        keep = self.decide(blocks, scores, kind, seen=seen)[0] if cut is None else cut
        keep = tidy(blocks, scores, keep, self.kind_name(kind), bylines=self.bylines,
                    comments=self.comments)
        if thin_page(float(blocks.token_counts()[keep].sum()), kind, self.model.min_words, page_chars):
            return np.zeros(len(keep), dtype=bool), THIN_REASON
        return keep, "" if keep.any() else NONE_KEPT

    def kind_name(self, kind: np.ndarray | None) -> str | None:
        """The page's estimated kind: the most probable of the kind probabilities ``kind``
        (None without them)."""
        if kind is None or self.kind_model is None:
            return None
        return str(self.kind_model.kinds[int(np.argmax(kind))])

    def decide(self, blocks: Blocks, scores: np.ndarray, kind: np.ndarray | None, *,
               seen: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """(the blocks kept at the page's cut, then by the page-kind decoding's group rule for
        the page's estimated kind, then by the span rule (``span_added``; ``seen``: with a site
        memory, the blocks the host's other pages hold, which it never adds); the mask of the
        blocks the group rule changed, None where it did not run). The thin-page rule comes
        after (``keep``)."""
        flags = np.asarray(blocks.flags, dtype=np.int64)
        keep = select_c(scores, self.cut(kind), flags, FLAG_PRE, FALLBACK_REL)
        changed = None
        d = self.decoding
        if d is not None and d.groups and kind is not None and self.kind_model is not None:
            g = d.group_rule(self.kind_model.kinds, kind)
            if g is not None:
                keep, changed = decide_groups(keep, scores, signature_groups(blocks), *g, d.min_group)
        added = self.span_added(keep, scores, flags, kind, seen)
        return (keep | added if added is not None else keep), changed

    def page_pass(self, blocks: Blocks, html: str, url: str | None = None, *,
                  kind: np.ndarray | None = None, seen: np.ndarray | None = None
                  ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray] | None:
        """(kind probabilities, block scores, ``decide``'s mask) of a page of >= 1 block in one
        C call without the GIL (Model.page_pass: the page kind, the features, both stages, the
        cut and the span rule), the same bits as ``page_context``, ``Model.block_scores`` and
        ``decide`` one by one; ``kind``: given instead of estimated in the call (``seen``: as in
        ``decide``). None where that call does not cover the model or the options (a site
        memory, a page-style model, a page-kind decoding's group rule): the caller takes the
        steps."""
        got = self._pass(blocks, html, url, kind=kind, seen=seen)
        return None if got is None else got[:3]

    def page_run(self, blocks: Blocks, html: str, url: str | None = None
                 ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, str, str] | None:
        """(kind probabilities, block scores, the kept blocks, why the text is empty ('' when it
        is not), the kept text) of a page of >= 1 block in one C call: ``page_pass``, then the
        rules after the cut, the thin-page rule and the text (``keep``, ``to_text``), the same
        values as those steps. None where it does not cover the page (as ``page_pass``; blocks
        without the walk's class/id values and code column, made by hand; a subclass's own
        ``keep``): the caller takes the steps."""
        code = blocks.code_column()
        if type(self).keep is not Extractor.keep or code is None or not self._pass_covers():
            return None
        article, comment = self._kind_masks()
        rules = pass_rules(blocks, bylines=self.bylines, comments=self.comments)
        after = (*rules, article, comment, self.model.min_words, len(html), THIN_ARTICLE_P,
                 THIN_MIN_CHARS, *pass_form(), code)
        got = self._pass(blocks, html, url, after=after)
        if got is None:
            return None
        kind, scores, keep, out = got
        assert out is not None  # (given after, the pass returns why and the text)
        return kind, scores, keep, _WHY[out[0]], out[1]

    def _pass_covers(self) -> bool:
        """Whether the pass after the walk covers this Extractor's options: not with a site
        memory, a page-style model, a kind decoding's group rule or other page kinds."""
        d = self.decoding
        km = self.kind_model
        return not (self.site_memory is not None or self.model.pagestyle is not None
                    or (d is not None and d.groups) or (km is not None and tuple(km.kinds) != KINDS))

    def _pass(self, blocks: Blocks, html: str, url: str | None, *, kind: np.ndarray | None = None,
              seen: np.ndarray | None = None, after: tuple[object, ...] | None = None
              ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, tuple[int, str] | None] | None:
        """Model.page_pass under this Extractor's options (``page_pass``, ``page_run``)."""
        if not self._pass_covers():
            return None
        cuts, spans = self._kind_cuts()
        return self.model.page_pass(blocks, cuts, spans, SPAN_OUTSIDE, kind=kind,
                                    kind_model=self.kind_model if kind is None else None, html=html,
                                    url=url, seen=seen, after=after)

    def _kind_cuts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per kind (KINDS order): the cut of a page whose most probable kind it is (``cut``), and
        the span rule's level there (-1: none); made again where an option they read changed
        (a copy of the Extractor given another cut: the service's ``?threshold=``)."""
        got = self._per_kind()
        return got[1], got[2]

    def _kind_masks(self) -> tuple[int, int]:
        """The kinds (bits by KINDS index) whose pages the rules after the cut read as articles,
        and those whose reader comments go (``kind_name`` of each: articles.tidy's ``kind``)."""
        got = self._per_kind()
        return got[3], got[4]

    def _per_kind(self) -> tuple[tuple[object, ...], np.ndarray, np.ndarray, int, int]:
        """(key, cuts, span levels, article kinds, comment kinds): ``_kind_cuts`` and
        ``_kind_masks``, made once per set of options they read."""
        key = (self.fixed, self.threshold, self.precise, self.recall, id(self.model),
               id(self.kind_model))
        got = self.__dict__.get("_cuts")
        if got is None or got[0] != key:
            eye = np.eye(len(KINDS))
            kinds = [eye[k] if self.kind_model is not None else None for k in range(len(KINDS))]
            levels = [self.span_level(k) for k in kinds]
            names = [self.kind_name(k) for k in kinds]
            got = self.__dict__["_cuts"] = (
                key, np.array([self.cut(k) for k in kinds]),
                np.array([-1.0 if lo is None else lo for lo in levels]),
                sum(1 << i for i, n in enumerate(names) if n == "article"),
                sum(1 << i for i, n in enumerate(names) if n in COMMENT_KINDS))
        return got

    def span_added(self, keep: np.ndarray, scores: np.ndarray, flags: np.ndarray,
                   kind: np.ndarray | None, seen: np.ndarray | None = None) -> np.ndarray | None:
        """The blocks the span rule (kindrules.fill_span) adds to ``keep`` on a page whose
        estimated kind has a level (``span_level``); None on any other page. ``seen``: with a
        site memory, the blocks the host's other pages hold (never added)."""
        lo = self.span_level(kind)
        return None if lo is None else fill_span(keep, scores, flags, lo, seen)

    def span_level(self, kind: np.ndarray | None) -> float | None:
        """The span rule's level on a page with kind probabilities ``kind``: kindrules.SPAN_FILL's
        for its estimated kind (documentation, collection), None (no rule) for the others."""
        return SPAN_FILL.get(self.kind_name(kind) or "")

    def _jsonld_text(self, blocks: Blocks, keep: np.ndarray, kind: np.ndarray, text: str
                     ) -> list[str]:
        """The JSON-LD text the page-kind decoding adds to ``text`` (kinds.after_cut): none unless
        it has a rule for the page's estimated kind (or for an empty page)."""
        assert self.decoding is not None and self.kind_model is not None
        k = self.kind_name(kind)
        assert k is not None
        cover = jsonld_cover(self.decoding, k, not keep.any())
        if cover is None:
            return []
        scripts = [it[1] for it in blocks.head if it and it[0] == "ld"]
        return missing(jsonld_candidates(scripts), text, cover) if scripts else []

    def cut(self, kind: np.ndarray | None) -> float:
        """The probability cut of a page with kind probabilities ``kind``: the model's cut for
        the most probable kind where it has one (chosen on CV, learn.fit.kind_cuts; precise: that
        kind's precise cut, never below its default one; recall: the lower of that kind's cut and
        the recall cut), else ``threshold``; an explicit ``threshold`` always."""
        m = self.model
        k = self.kind_name(kind)
        if self.fixed or k is None or m.kind_thresholds is None:
            return self.threshold
        t = m.kind_thresholds.get(k)
        if t is None:
            return self.threshold
        if self.precise:
            pt = (m.kind_precise_thresholds or {}).get(k, self.threshold)
            return max(t, pt)
        if self.recall:
            return min(t, self.threshold)
        return t

    def page_context(self, blocks: Blocks, html: str, url: str | None
                     ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The page's kind probabilities (pagekind.KINDS order; None without a kind model) and
        its style probabilities (None unless the model has a page-style model), from one
        reading of the page signals."""
        style_model = self.model.pagestyle
        if self.kind_model is None and style_model is None:
            return None, None
        if style_model is None and self.kind_model is not None:  # the kind alone: one C call
            return self.kind_model.page_proba(blocks, html, url), None
        sig = page_signals(blocks, html, url)
        return (None if self.kind_model is None else self.kind_model.proba(sig),
                None if style_model is None else style_model.proba(sig))


def _site_setup(model: Model, site_memory: Memory | None) -> tuple[Memory | None, SiteStage | None]:
    """(the memory, the site stage) of ``Extractor(site_memory=...)``: the stage is the model's
    "site" section, else the one shipped for this model (site.stage.shipped_stage), else None
    (the memory is kept but changes nothing)."""
    if site_memory is None:
        return None, None
    from .score.site.memory import Memory
    from .score.site.stage import shipped_stage

    if not isinstance(site_memory, Memory):
        raise TypeError(f"site_memory must be a site memory (SiteMemory, SiteCounts: "
                        f"site.memory.Memory) or None, not {type(site_memory).__name__}")
    stage: SiteStage | None = model.site or shipped_stage(model.digest)
    return site_memory, stage


_default: dict[bool, Extractor] = {}


def extract(html: bytes | str, url: str | None = None, *, comments: bool = False) -> Extraction:
    """Clean main-content text of one page with the shipped model (loaded on first use);
    ``url`` as in :meth:`Extractor.extract`. For other options or a model of your own, make
    an :class:`Extractor` once and call it per page. ``html`` must be str or bytes (bytearray,
    memoryview); anything else is a TypeError."""
    ex = _default.get(comments)
    if ex is None:
        ex = _default[comments] = Extractor(comments=comments)
    return ex.extract(html, url)
