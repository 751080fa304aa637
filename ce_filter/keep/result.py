"""What the filter made of one page: ``Extraction`` (its text, blocks and metadata, the
metadata rules run on first reading), made by ``Extractor.extraction`` (extractor.py) from a page's
steps (page.py). It holds what it needs (the blocks, the kept mask, the page's text) and reads
the metadata with the public ``metadata_fields``."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypedDict, cast, overload

import numpy as np

from .. import native
from ..read.segment import TAG_H1, Blocks, parse, segment

if TYPE_CHECKING:
    from ..read.segment import Tree
    from .metadata import Metadata, PageHead
    from .render import Extras


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

    def __init__(self, texts: Sequence[str], scores: np.ndarray, keep: np.ndarray) -> None:
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

    def with_keep(self, keep: np.ndarray) -> BlockList:
        """The same blocks and scores with another kept mask."""
        return BlockList(self._texts, self._scores, keep)

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
# the fields the metadata rules fill (metadata_fields), on their first reading: the
# article's title and every metadata field but the raw <title>, which the walk gives
RULE_FIELDS = ("title", *(k for k in META_FIELDS if k != "html_title"))


# Guards the moment the rules' fields are written into an Extraction (_run_rules): two threads
# reading fields of one Extraction may both run the rules, and only the first writes them.
_RULES_APPLY = threading.Lock()


class _RuleField:
    """A field of an Extraction that the metadata rules fill: they run the first time any such
    field is read (or set, or the Extraction compared, printed or pickled), not in ``extract``,
    so a caller that reads only the text does not pay for them (about a tenth of a page's time:
    the rules and the language identification)."""

    def __init__(self, empty: str | tuple[str, ...] = "") -> None:
        self.empty = empty  # the value where the rules gave none ('' or an empty tuple)

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = "_" + name

    def __get__(self, obj: Extraction | None, owner: type | None = None) -> object:
        if obj is None:
            return self.empty  # the dataclass's default
        d = obj.__dict__
        if "_rules" in d:
            obj._run_rules()
        return d.get(self.key, self.empty)

    def __set__(self, obj: Extraction, value: object) -> None:
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

    def attach(self, blocks: Blocks, keep: np.ndarray, page: str, *, rules: bool = False,
               url: str | None = None) -> None:
        """Give the Extraction what it reads later (Extractor.extraction): the segmented page,
        its kept mask and its text (for the renderers, which walk it again once for their extras,
        and ``resolve``), and with ``rules`` the metadata rules (which read ``url``) to run on
        the first reading of one of their fields."""
        self._page = (blocks, keep, page)
        if rules:
            self.__dict__["_rules"] = (blocks, url)

    def drop_text(self, reason: str) -> None:
        """No block kept and no text, ``reason`` saying why (the target-language gate)."""
        if self._page is not None:
            none = np.zeros(len(self._page[0]), dtype=bool)
            self._page = (self._page[0], none, self._page[2])
            if isinstance(self.blocks, BlockList):
                self.blocks = self.blocks.with_keep(none)
        self.text = ""
        self.reason = reason

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

    def _rendered(self, resolve: bool) -> tuple[Blocks, np.ndarray, Extras]:
        """(blocks, kept mask, render.Extras), the links made absolute where ``resolve``."""
        from .render import base_url

        blocks, keep, page = self._page or (Blocks(), np.zeros(0, dtype=bool), "")
        extras = self.__dict__.get("_extras")
        if extras is None:  # the page walked again once, for every rendering after
            extras = self.__dict__["_extras"] = extras_of(blocks, page)
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
        fields = metadata_fields(blocks, url, self.text)
        with _RULES_APPLY:  # once: another thread's rules may have run meanwhile, and a value
            if "_rules" in self.__dict__:  # set since then (__set__) must stay
                self.__dict__.update({"_" + k: v for k, v in fields.items()})
                self.__dict__.pop("_rules", None)

    def settle(self) -> Extraction:
        """Run the metadata rules now if they have not run (for a caller that must pay for them
        in its own time, as a per-page budget does); returns the Extraction."""
        self._run_rules()
        return self

    def __getstate__(self) -> dict[str, object]:
        # pickled (a worker process's answer): the rules run here, in the process that parsed
        # the page
        return dict(self.settle().__dict__)

    def to_dict(self) -> ExtractionDict:
        """The plain fields and block counts (the pipeline's record is built from these)."""
        # (a cast: the metadata fields come in by META_FIELDS' names, which a TypedDict cannot follow)
        return cast(ExtractionDict, {
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
        })


class ExtractionDict(TypedDict):
    """``Extraction.to_dict``: the plain fields and block counts, in this order."""

    url: str
    text: str
    title: str
    html_title: str
    author: str
    date: str
    sitename: str
    description: str
    canonical_url: str
    language: str
    image: str
    tags: Sequence[str]
    categories: Sequence[str]
    hostname: str
    encoding: str
    reason: str
    truncated: bool
    model: str
    blocks_kept: int
    blocks_total: int
    page_type: str
    page_type_prob: float | None


def extras_of(blocks: Blocks, page: str, tree: Tree | None = None) -> Extras:
    """What the renderers need beyond the blocks (a code block's own line breaks, numbered
    lists, link targets, image alt text): the walk records it when asked, so the page is
    walked again (``tree``: its parse, where the caller still has it) only when Markdown, HTML
    or XML is asked for (the plain text takes its code lines from ``Blocks.code_column``); other
    pages pay nothing."""
    from .render import Extras

    if not page or not len(blocks):
        return Extras()
    again = segment(tree if tree is not None else parse(page), extras=True)
    if again.extras is None or again.texts != blocks.texts:  # cannot happen: the walk is pure
        return Extras()
    pre, ordered, links, images = again.extras
    return Extras(pre, ordered, links, images)


@functools.cache
def metadata_rules() -> tuple[Callable[[Sequence[tuple[str, ...]], str], PageHead],
                              Callable[[PageHead, str | None, Sequence[str], Sequence[int], Sequence[str]],
                                       Metadata],
                              Callable[[str, str | None], str], Callable[[str | None], str]]:
    """(page_head, extract_metadata, page_language, declared), imported on first use
    (compiling the rules' regexes is a good share of the package's import time) and then once
    only."""
    from .language import declared, page_language
    from .metadata import extract_metadata, page_head

    return page_head, extract_metadata, page_language, declared


def page_head(blocks: Blocks) -> PageHead:
    """What the metadata rules read besides the blocks: the head's <meta>/<link>/JSON-LD,
    <time>s and byline elements, as the walk gathered them."""
    return metadata_rules()[0](blocks.head, blocks.title)


def h1_positions(blocks: Blocks) -> list[int]:
    """The indices of the page's <h1> blocks (the title rule reads them): one C loop over the
    walk's tag column (numpy's comparison, nonzero and tolist cost more than the loop on a
    page's few hundred blocks)."""
    return _positions_part().positions(blocks.tag, TAG_H1)


class PositionsC(Protocol):
    """The function of the C part (keep/_metadata.c) that h1_positions calls: the indices of a
    column's items equal to a value (an int64 column, or a list of int)."""

    def positions(self, column: Sequence[int] | np.ndarray, value: int, /) -> list[int]: ...


@functools.cache
def _positions_part() -> PositionsC:
    """The C part's positions (loaded at first use, with the metadata rules)."""
    return cast("PositionsC", native.required("keep._metadata"))


def metadata_fields(blocks: Blocks, url: str | None, text: str) -> dict[str, str | list[str]]:
    """The metadata fields (RULE_FIELDS) of a page from what the walk collected, its
    blocks and its kept ``text`` (docs/OUTPUT.md). The language comes first: dates are read
    in it (and in the declared one) besides English."""
    page_head, extract_metadata, page_language, declared = metadata_rules()
    head = page_head(blocks.head, blocks.title)
    language = page_language(text, head.lang)
    md = extract_metadata(head, url, blocks.texts, h1_positions(blocks), (declared(head.lang), language))
    out: dict[str, str | list[str]] = {k: getattr(md, k) for k in RULE_FIELDS if k != "language"}
    out["language"] = language
    return out

