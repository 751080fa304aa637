"""The public face: ``extract(html, url)`` and an ``Extractor`` that loads its model once."""

from __future__ import annotations

import functools
import threading
from codecs import BOM_UTF8
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from . import __version__
from .decode import decode_bytes, looks_binary
from .features.context import signature_groups
from .kinds.after_cut import (
    KindDecoding,
    decide_groups,
    decoding_for,
    jsonld_candidates,
    jsonld_cover,
    missing,
)
from .kinds.gate import kind_stated
from .kinds.model import page_signals
from .model import Model, load_default, thin_page
from .mojibake import repair_str
from .precheck import DEFAULT_LIMITS, Limits, prepare
from .render import to_text
from .segment import FLAG_PRE, Blocks, _id, parse, segment
from .values import language_code, probability

# Pages above this size are cut before parsing: a 50 MB "page" is a dump, not an article,
# and the cut keeps memory and latency bounded for the stream.
MAX_BYTES = 8 * 1024 * 1024


@dataclass
class Block:
    """One block of the page: its text, the model's probability that it is content, and
    whether the filter kept it (``score >= threshold``, or the page's fallback; none on a thin
    page: model.thin_page)."""

    text: str
    score: float
    is_content: bool


class BlockList(Sequence[Block]):
    """An Extraction's blocks, made into Block objects only when read: most callers want the
    text, and a few hundred small objects per page were a measurable share of the time."""

    __slots__ = ("_texts", "_scores", "_keep")

    def __init__(self, texts: list[str], scores: np.ndarray, keep: np.ndarray) -> None:
        self._texts, self._scores, self._keep = texts, scores, keep

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, i: int) -> Block: ...
    @overload
    def __getitem__(self, i: slice) -> list[Block]: ...
    def __getitem__(self, i: int | slice) -> Block | list[Block]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return Block(self._texts[i], float(self._scores[i]), bool(self._keep[i]))

    def kept(self) -> int:
        """How many blocks were kept (without making the Block objects)."""
        return int(np.count_nonzero(self._keep))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))


# The metadata fields of an Extraction and of the record (docs/OUTPUT.md), '' (tags, categories:
# an empty list) where none
META_FIELDS = ("html_title", "author", "date", "sitename", "description", "canonical_url", "language",
               "image", "tags", "categories", "hostname")
# the fields the metadata rules fill (Extractor._metadata_fields), on their first reading: the
# article's title and every metadata field but the raw <title>, which the walk gives
_RULE_FIELDS = ("title", *(k for k in META_FIELDS if k != "html_title"))


# Guards the moment the rules' fields are written into an Extraction (_run_rules): two threads
# reading fields of one Extraction may both run the rules, and only the first writes them.
_RULES_APPLY = threading.Lock()


class _RuleField:
    """A field of an Extraction that the metadata rules fill: they run the first time any such
    field is read (or set, or the Extraction compared, printed or pickled), not in ``extract``,
    so a caller that reads only the text does not pay for them (about a tenth of a page's time:
    the rules and the language identification)."""

    def __init__(self, empty: Any = "") -> None:
        self.empty = empty  # the value where the rules gave none ('' or an empty tuple)

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self.empty  # the dataclass's default
        d = obj.__dict__
        if "_rules" in d:
            obj._run_rules()
        return d.get(self.key, self.empty)

    def __set__(self, obj: Any, value: Any) -> None:
        if "_rules" in obj.__dict__:
            obj._run_rules()  # a value set now must not be overwritten by the rules later
        obj.__dict__[self.key] = value


@dataclass
class Extraction:
    """What the filter made of one page. ``text`` is empty when ``reason`` says why.

    ``url`` is the page's address as the caller gave it ('' when none): what relative links,
    a canonical link and other page-level signals are resolved against (:meth:`resolve`).
    ``title`` is the article's own title and ``html_title`` the raw ``<title>``; the other
    metadata fields are '' where nothing credible was found (docs/OUTPUT.md). The metadata
    rules run when one of their fields is first read."""

    text: str
    title: str = _RuleField()  # type: ignore[assignment]
    blocks: Sequence[Block] = field(default_factory=list)
    encoding: str = ""
    reason: str = ""
    truncated: bool = False
    model: str = ""
    url: str = ""
    html_title: str = ""
    author: str = _RuleField()  # type: ignore[assignment]
    date: str = _RuleField()  # type: ignore[assignment]  # published, YYYY-MM-DD
    sitename: str = _RuleField()  # type: ignore[assignment]
    description: str = _RuleField()  # type: ignore[assignment]
    canonical_url: str = _RuleField()  # type: ignore[assignment]
    language: str = _RuleField()  # type: ignore[assignment]  # ISO 639-1
    image: str = _RuleField()  # type: ignore[assignment]  # og:image and kin, absolute
    # lists (as JSON has them), () where the rules did not run
    tags: Sequence[str] = _RuleField(())  # type: ignore[assignment]  # article:tag, keywords
    categories: Sequence[str] = _RuleField(())  # type: ignore[assignment]  # article:section
    hostname: str = _RuleField()  # type: ignore[assignment]  # the URL's host without "www."
    # the page kind (pagekind.KINDS: article, documentation, service, forum, collection, listing,
    # product) and the page-kind model's probability for it; '' / None where no estimate was made
    page_type: str = ""
    page_type_prob: float | None = None
    # the segmented page, the kept mask and the page's text, for to_markdown / to_html
    _page: tuple[Blocks, np.ndarray, str] | None = field(default=None, repr=False, compare=False)

    def to_markdown(self, *, links: bool = False, images: bool = False) -> str:
        """The kept blocks as Markdown (headings, lists, code, tables; docs/OUTPUT.md); links
        and images resolved against the page's ``url`` and ``<base href>``."""
        from .render import to_markdown

        blocks, keep, extras = self._rendered(links or images)
        return to_markdown(blocks, keep, extras, links=links, images=images)

    def to_html(self, *, links: bool = False, images: bool = False) -> str:
        """The kept blocks as a small clean HTML document."""
        from .render import to_html

        blocks, keep, extras = self._rendered(links or images)
        return to_html(blocks, keep, extras, links=links, images=images, title=self.title,
                       lang=self.language)

    def to_xml(self, *, links: bool = False, images: bool = False) -> str:
        """The kept blocks and the metadata as trafilatura's XML (``<doc>``, ``<main>``)."""
        from .render import to_xml, xml_meta

        blocks, keep, extras = self._rendered(links or images)
        return to_xml(blocks, keep, extras, links=links, images=images, meta=xml_meta(self))

    def render(self, format: str = "text", *, links: bool = False, images: bool = False,
               with_metadata: bool = False) -> str:
        """The page in one of ``render.FORMATS`` but ``jsonl`` (text, markdown, html, json, xml,
        csv: docs/OUTPUT.md); ``with_metadata`` puts YAML front matter before text and markdown."""
        from .render import render_extraction

        return render_extraction(self, format, links=links, images=images, with_metadata=with_metadata)

    def _rendered(self, resolve: bool) -> tuple[Blocks, np.ndarray, Any]:
        """(blocks, kept mask, render.Extras), the links made absolute where ``resolve``."""
        from .render import base_url

        blocks, keep, page = self._page or (Blocks(), np.zeros(0, dtype=bool), "")
        extras = self.__dict__.get("_extras") or _extras(blocks, page)
        return blocks, keep, extras.resolved(base_url(page, self.url)) if resolve else extras

    @property
    def blocks_kept(self) -> int:
        """How many of ``blocks`` the filter kept."""
        if isinstance(self.blocks, BlockList):
            return self.blocks.kept()
        return sum(b.is_content for b in self.blocks)

    def resolve(self, link: str) -> str:
        """``link`` (an href or src of the page) made absolute against the page's ``<base
        href>`` and ``url``; unchanged when neither gives an absolute address or the link is
        already absolute."""
        from .render import absolute, base_url

        base = base_url(self._page[2] if self._page else "", self.url)
        return absolute(base, link) if base else link

    def _run_rules(self) -> None:
        """Fill the metadata fields from what the walk gathered (``_rules``: the blocks and the
        url, set by Extractor.extract), once. The fields are set before ``_rules`` goes, so a
        thread reading a field meanwhile runs the same rules rather than reading ''."""
        src = self.__dict__.get("_rules")
        if src is None:
            return
        blocks, url = src
        fields = Extractor._metadata_fields(blocks, url, self.text)
        with _RULES_APPLY:  # once: another thread's rules may have run meanwhile, and a value
            if "_rules" in self.__dict__:  # set since then (__set__) must stay
                self.__dict__.update({"_" + k: v for k, v in fields.items()})
                self.__dict__.pop("_rules", None)

    def settle(self) -> Extraction:
        """Run the metadata rules now if they have not run (for a caller that must pay for them
        in its own time, as a per-page budget does); returns the Extraction."""
        self._run_rules()
        return self

    def __getstate__(self) -> dict[str, Any]:
        # pickled (a worker process's answer): the rules run here, in the process that parsed
        # the page
        return dict(self.settle().__dict__)

    def to_dict(self) -> dict[str, Any]:
        """The plain fields and block counts (the pipeline's record is built from these)."""
        return {
            "url": self.url,
            "text": self.text,
            "title": self.title,
            **{k: getattr(self, k) for k in META_FIELDS},
            "encoding": self.encoding,
            "reason": self.reason,
            "truncated": self.truncated,
            "model": self.model,
            "blocks_kept": self.blocks_kept,
            "blocks_total": len(self.blocks),
            "page_type": self.page_type,
            "page_type_prob": self.page_type_prob,
        }


def _extras(blocks: Blocks, page: str, tree: Any = None) -> Any:
    """What the renderers need beyond the blocks (a code block's own line breaks, numbered
    lists, link targets, image alt text): the walk records it when asked, so the page is
    walked again (``tree``: its parse, where the caller still has it) only when a page keeps a
    code block or Markdown, HTML or XML is asked for; other pages pay nothing."""
    from .render import Extras

    if not page or not len(blocks):
        return Extras()
    again = segment(tree if tree is not None else parse(page), extras=True)
    if again.extras is None or again.texts != blocks.texts:  # cannot happen: the walk is pure
        return Extras()
    pre, ordered, links, images = again.extras
    return Extras(pre, ordered, links, images)


@functools.cache
def _metadata_rules() -> tuple[Any, Any, Any, Any]:
    """(page_head, extract_metadata, page_language, declared), imported on first use
    (compiling the rules' regexes is a good share of the package's import time) and then once
    only."""
    from .language import declared, page_language
    from .metadata import extract_metadata, page_head

    return page_head, extract_metadata, page_language, declared


def _page_head(blocks: Blocks) -> Any:
    """What the metadata rules read besides the blocks: the head's <meta>/<link>/JSON-LD,
    <time>s and byline elements, as the walk gathered them."""
    return _metadata_rules()[0](blocks.head, blocks.title)


def _own_utf8(raw: bytes, text: str, enc: str) -> bytes | None:
    """``raw`` (the page's bytes, BOM and all) where, BOM aside, they are exactly ``text``'s
    UTF-8: decoded as UTF-8 with no byte replaced (no U+FFFD in the text; a page with a U+FFFD
    of its own just takes the slow way)."""
    if enc != "utf-8" or "\ufffd" in text:
        return None
    return raw[len(BOM_UTF8):] if raw.startswith(BOM_UTF8) else raw


FALLBACK_REL = 0.8
TAG_H1 = _id("h1")
# The precision-leaning cut for a model file that does not record one (files from before
# the training (learn.fit) chose it on CV: Model.precise_threshold).
PRECISE_THRESHOLD = 0.65
# The recall-leaning cut for a model file that does not record one (Model.recall_threshold).
RECALL_THRESHOLD = 0.2
# the reason of a page the thin-page rule empties (model.thin_page)
THIN_REASON = "too little main content"


def select(scores: np.ndarray, threshold: float, in_code: np.ndarray | None = None) -> np.ndarray:
    """Blocks at or above the threshold; on a page where none is, the best-scored ones
    (within FALLBACK_REL of the top score), since an empty page is the worst answer.

    ``in_code`` (blocks inside a ``<pre>``): a code block between the first and the last kept
    block is kept too. The model scores code low (its text looks like nothing it keeps: 2 % of
    the annotated code blocks of wcxb-dev's documentation pages were kept); inside the kept
    span it belongs to the text. Mean word F1 on wcxb-dev documentation pages 0.628 -> 0.692,
    all wcxb-dev 0.688 -> 0.694; dragnet train and cleaneval-dev unchanged."""
    keep = scores >= threshold
    if not keep.any() and len(scores):
        keep = scores >= scores.max() * FALLBACK_REL
    if in_code is not None and keep.any():
        kept = np.flatnonzero(keep)
        span = np.zeros(len(keep), dtype=bool)
        span[kept[0] + 1: kept[-1]] = True
        keep |= in_code & span
    return keep


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
    ``site_memory``: the site's other pages (ce_filter.site.memory): a SiteMemory (or True for
    one with its defaults) that remembers the pages this Extractor has seen, or an order-free
    SiteCounts; blocks seen on the host's other pages go through the model's site stage
    (ce_filter.site.stage). None (the default): every page alone. A host's first page, and every
    page under a model without a site stage, scores as without it.
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
        site_memory: Any = None,
        decoding: KindDecoding | str | bool | None = None,
    ) -> None:
        model_path = model if isinstance(model, str) else None
        if model is None:
            model = load_default("comments" if comments else "content")
        elif isinstance(model, str):
            model = Model.load(model)
        self.model = model
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

    def __getstate__(self) -> dict[str, Any]:
        # the model holds C lookup tables (capsules) that cannot be pickled: send its JSON
        state = dict(self.__dict__)
        state["model"] = self.model.to_json()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        state["model"] = Model.from_json(state["model"])
        self.__dict__.update(state)

    def decode(self, html: bytes | str | None, encoding: str | None = None
               ) -> tuple[str, str, bool, str]:
        """(page as text, encoding, truncated, reason): the bytes decoded and cut at
        ``max_bytes`` (or at the pre-parse element cap); the text is '' and reason says why for
        input that is not a page or too costly to parse."""
        return self._decode(html, encoding)[:4]

    def _decode(self, html: bytes | str | None, encoding: str | None = None
                ) -> tuple[str, str, bool, str, bytes | None]:
        """``decode``'s four, and the text's UTF-8 where the page's own bytes are exactly that
        (for the parse), else None."""
        if html is None:
            return "", "", False, "no input", None
        if not isinstance(html, (str, bytes, bytearray, memoryview)):  # a caller's mistake, not a page
            raise TypeError(f"html must be str, bytes, bytearray or memoryview (or None), "
                            f"not {type(html).__name__}")
        truncated = False
        if isinstance(html, (bytes, bytearray, memoryview)):
            data = bytes(html)
            if not data.strip():
                return "", "", False, "empty input", None
            if looks_binary(data):
                return "", "", False, "binary content", None
            if len(data) > self.max_bytes:
                data, truncated = data[: self.max_bytes], True
            text_html, enc, repaired = decode_bytes(data, encoding)
            # the scan reads markup bytes: the page's own, unless it is UTF-16/32 (or the text
            # is no longer theirs)
            raw = None if repaired or enc.startswith(("utf-16", "utf-32")) else data
        else:
            text_html, enc, raw = repair_str(html), "str", None
            if len(text_html) > self.max_bytes:
                text_html, truncated = text_html[: self.max_bytes], True
            if not text_html.strip():
                return "", "", False, "empty input", None
        if raw is None:
            raw = text_html.encode("utf-8", "surrogatepass")
            enc_raw = "utf-8"
        else:
            enc_raw = enc
        page, cut, why = prepare(raw, self.limits)
        if why:
            return "", enc, truncated, why, None
        if cut < len(raw) or page is not raw:  # past the element cap, or a select's options renamed
            return page[:cut].decode(enc_raw, "replace"), enc, truncated or cut < len(raw), "", None
        return text_html, enc, truncated, "", _own_utf8(raw, text_html, enc)

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
        text_html, enc, truncated, reason, utf8 = self._decode(html, encoding)
        if reason:
            return Extraction("", "", encoding=enc, reason=reason, truncated=truncated, model=self.version,
                              url=url or "")
        tree = parse(text_html, utf8)
        blocks = segment(tree)
        if not code_blocks(blocks).any():  # kept only to walk a page's code blocks again (to_text)
            tree = None
        if not len(blocks):
            out = Extraction("", blocks.title, encoding=enc, reason="no text in page",
                             truncated=truncated, model=self.version)
            keep = np.zeros(0, dtype=bool)
        else:
            kind, style = self.page_context(blocks, text_html, url)
            scores = self.model.block_scores(blocks, kind, style)
            site_in = None
            if self.site_memory is not None:
                scores, site_in = self._site(blocks, scores, url, site)
            keep, reason = self.keep(blocks, scores, kind, len(text_html))
            walked: list[Any] = []  # the page walked again for its code blocks' own lines

            def rewalk() -> Any:
                walked.append(_extras(blocks, text_html, tree))
                return walked[0]

            text = to_text(blocks, keep, rewalk)
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
            if walked:
                out.__dict__["_extras"] = walked[0]
            if site_in is not None:  # (fingerprints, k, n, model scores): what explain shows
                out.__dict__["_site"] = site_in
            if (kind is not None and self.kind_model is not None
                    and kind_stated(int(blocks.token_counts().sum()), out.text, blocks.texts)):
                i = int(np.argmax(kind))
                out.page_type, out.page_type_prob = self.kind_model.kinds[i], round(float(kind[i]), 4)
        out._page = (blocks, keep, text_html)
        out.url = url or ""
        out.html_title = blocks.title
        if self.metadata:  # run when a metadata field is first read (_RuleField)
            out.__dict__["_rules"] = (blocks, url)
        if self.target_language and out.text:
            self._language_gate(out, blocks)
        return out

    def _site(self, blocks: Blocks, scores: np.ndarray, url: str | None, site: str | None = None
              ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, int, np.ndarray]]:
        """The page's scores through the site stage where its host has pages remembered, and
        the site inputs; the page is then remembered."""
        from .site.memory import block_fingerprints, host_of

        host = site or host_of(url)
        fps = block_fingerprints(blocks)
        mem = self.site_memory
        k, n = mem.seen(host, fps) if host else (np.zeros(len(fps)), 0)
        out = scores if self.site_stage is None else self.site_stage.apply(scores, fps, k, n)
        if host:
            mem.observe(host, fps, url or "")
        return out, (fps, k, n, scores)

    def _language_gate(self, out: Extraction, blocks: Blocks) -> None:
        """Empty ``out`` (no block kept, reason naming the language found) when its text is
        identified as a language other than ``target_language``; unknown keeps it."""
        lang = out.language if self.metadata else _metadata_rules()[2](out.text, _page_head(blocks).lang)
        if not lang or lang == self.target_language:
            return
        none = np.zeros(len(blocks), dtype=bool)
        if isinstance(out.blocks, BlockList):
            out.blocks = BlockList(blocks.texts, out.blocks._scores, none)
        if out._page is not None:
            out._page = (out._page[0], none, out._page[2])
        out.text = ""
        out.reason = f"language {lang}, not the target {self.target_language}"
        if not self.metadata:
            out.language = lang

    @staticmethod
    def _metadata_fields(blocks: Blocks, url: str | None, text: str) -> dict[str, Any]:
        """The metadata fields (_RULE_FIELDS) of a page from what the walk collected, its
        blocks and its kept ``text`` (docs/OUTPUT.md). The language comes first: dates are read
        in it (and in the declared one) besides English."""
        page_head, extract_metadata, page_language, declared = _metadata_rules()
        head = page_head(blocks.head, blocks.title)
        h1_at = (np.asarray(blocks.tag, dtype=np.int64) == TAG_H1).nonzero()[0].tolist()
        language = page_language(text, head.lang)
        md = extract_metadata(head, url, blocks.texts, h1_at, (declared(head.lang), language))
        out: dict[str, Any] = {k: getattr(md, k) for k in _RULE_FIELDS if k != "language"}
        out["language"] = language
        return out

    def keep(self, blocks: Blocks, scores: np.ndarray, kind: np.ndarray | None, page_chars: int
             ) -> tuple[np.ndarray, str]:
        """The blocks a page keeps: those at its cut (``select``), none on a thin page
        (model.thin_page: ``page_chars`` is its HTML's length); and why its text is empty, ''
        when it is not."""
        keep = self.decide(blocks, scores, kind)[0]
        if thin_page(float(blocks.token_counts()[keep].sum()), kind, self.model.min_words, page_chars):
            return np.zeros(len(keep), dtype=bool), THIN_REASON
        return keep, "" if keep.any() else "no block classified as content"

    def decide(self, blocks: Blocks, scores: np.ndarray, kind: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray | None]:
        """(the blocks kept at the page's cut, then by the page-kind decoding's group rule for
        the page's estimated kind; the mask of the blocks that rule changed, None where it did
        not run). The thin-page rule comes after (``keep``)."""
        keep = select(scores, self.cut(kind), code_blocks(blocks))
        d = self.decoding
        if d is None or not d.groups or kind is None or self.kind_model is None:
            return keep, None
        g = d.group_rule(self.kind_model.kinds, kind)
        if g is None:
            return keep, None
        return decide_groups(keep, scores, signature_groups(blocks), *g, d.min_group)

    def _jsonld_text(self, blocks: Blocks, keep: np.ndarray, kind: np.ndarray, text: str
                     ) -> list[str]:
        """The JSON-LD text the page-kind decoding adds to ``text`` (kinds.after_cut): none unless
        it has a rule for the page's estimated kind (or for an empty page)."""
        assert self.decoding is not None and self.kind_model is not None
        k = self.kind_model.kinds[int(np.argmax(kind))]
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
        if self.fixed or kind is None or m.kind_thresholds is None or self.kind_model is None:
            return self.threshold
        k = self.kind_model.kinds[int(np.argmax(kind))]
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
        sig = page_signals(blocks, html, url)
        return (None if self.kind_model is None else self.kind_model.proba(sig),
                None if style_model is None else style_model.proba(sig))

    def scores(self, html: str, url: str | None = None) -> np.ndarray:
        """Every block's content probability for a page given as text (no threshold applied)."""
        blocks = segment(parse(html))
        return self.model.block_scores(blocks, *self.page_context(blocks, html, url))


def _site_setup(model: Model, site_memory: Any) -> tuple[Any, Any]:
    """(the memory, the site stage) of ``Extractor(site_memory=...)``: True makes a SiteMemory
    with its defaults; the stage is the model's "site" section, else the one shipped for this
    model (site.stage.shipped_stage), else None (the memory is kept but changes nothing)."""
    if site_memory is None or site_memory is False:
        return None, None
    from .site.memory import SiteMemory
    from .site.stage import shipped_stage

    if site_memory is True:
        site_memory = SiteMemory()
    if not (hasattr(site_memory, "seen") and hasattr(site_memory, "observe")):
        raise TypeError("site_memory must be a SiteMemory, a SiteCounts, True or None")
    stage = getattr(model, "site", None) or shipped_stage(model.digest)
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
