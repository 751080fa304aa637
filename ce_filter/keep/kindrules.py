"""Page-kind decoding: what is decided after the cut, by the page's estimated kind.

On listings, collections, forums and product pages the content is a repeated structure (cards,
items, posts, reviews), and the cut decides each of its blocks alone. These rules act on the
block probabilities the model already gives:

- ``fill_span`` (shipped, ``SPAN_FILL``): on a page read as documentation or as a collection,
  a block between the first and the last kept block is kept too where its probability is at
  least the kind's level and it sits in no nav, aside, header, footer or form
  (docs/research/DOC_PAGES.md);

and two in a file beside the model, tried out of fold and not shipped
(docs/research/KIND_DECODING.md):

- ``decide_groups``: a signature group (features.context.signature_groups) of at least
  MIN_GROUP blocks with a block inside the kept span is kept whole where its mean probability
  is at least ``hi`` and dropped whole where it is below ``lo``;
- ``jsonld_candidates`` / ``missing``: the page's JSON-LD text (Product, Review, Article,
  ItemList: description, articleBody, reviewBody, item names) added where the kept text does
  not hold it.

The rules and their cuts live in a small JSON file beside the model (``KindDecoding``), tied to
the model's digest: a model without one decodes exactly as the cut alone.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..read.segment import FLAG_NAMES
from ..read.words import tokens
from .metadata import ld_nodes

if TYPE_CHECKING:
    from ..jsontypes import JSONObject
    from ..score.blockmodel import Model

MIN_GROUP = 3  # a group of fewer blocks is not a repeated structure
# fill_span: per estimated page kind, the probability a block inside the kept span needs to be
# kept with it (chosen out of fold on the training corpora: docs/research/DOC_PAGES.md). A
# reference page's parameter lists, notes and signatures and a category page's lower-scored
# cards sit between kept blocks. On pages read as forums, listings, products or services it
# lowered the training corpora's mean out of fold; articles have their own rules (articles.py).
SPAN_FILL: dict[str, float] = {"documentation": 0.05, "collection": 0.1}
_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
# layout a filled span never takes: a sidebar's or a header's links between two kept blocks
SPAN_OUTSIDE = _BIT["nav"] | _BIT["aside"] | _BIT["header"] | _BIT["footer"] | _BIT["form"]
GROUP_KINDS = ("listing", "collection", "forum", "product")
EMPTY = "empty"  # the JSON-LD rule's key for a page left empty, whatever its kind
MIN_CANDIDATE_WORDS = 5  # a shorter JSON-LD string (a name, a price) is not text to add
MAX_CANDIDATES = 50  # JSON-LD strings read per page (an ItemList of thousands is cut here)

# what the JSON-LD rule reads: the objects of these types (lower case, schema.org's subtypes of
# Article included) and these fields of them
_LD_TYPES = frozenset(
    "product productgroup review itemlist article newsarticle blogposting techarticle report "
    "scholarlyarticle analysisnewsarticle opinionnewsarticle reportagenewsarticle "
    "reviewnewsarticle backgroundnewsarticle liveblogposting discussionforumposting "
    "socialmediaposting qapage question answer".split())
_LD_FIELDS = ("articleBody", "reviewBody", "description", "text")
_LD_DESCEND = ("@graph", "mainEntity", "itemListElement", "hasPart", "review", "item",
               "suggestedAnswer", "acceptedAnswer", "comment")
_TAG = re.compile(r"<[^>]{0,2000}>")


@dataclass(frozen=True)
class KindDecoding:
    """The adopted rules and their cuts for one model (``model_digest``): per estimated kind,
    the group rule's (lo, hi) (None: that side off) and the JSON-LD rule's cover (the key
    EMPTY: for a page left empty, whatever its kind), and per kind the probability of it the
    group rule needs (``sure``)."""

    model_digest: str
    groups: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    jsonld: dict[str, float] = field(default_factory=dict)
    min_group: int = MIN_GROUP
    # per kind: the group rule acts only where the estimated kind's probability is at least this
    sure: dict[str, float] = field(default_factory=dict)

    def group_rule(self, kinds: Sequence[str], kind: np.ndarray
                   ) -> tuple[float | None, float | None] | None:
        """The group rule's (lo, hi) for a page of kind probabilities ``kind`` (``kinds``: their
        names), None where it has none or the kind is not sure enough."""
        i = int(np.argmax(kind))
        g = self.groups.get(kinds[i])
        if g is None or float(kind[i]) < self.sure.get(kinds[i], 0.0):
            return None
        return g

    def to_json(self) -> JSONObject:
        return {"format": "ce-filter-kind-decoding/1", "model_digest": self.model_digest,
                "min_group": self.min_group,
                "groups": {k: {"lo": lo, "hi": hi} for k, (lo, hi) in sorted(self.groups.items())},
                "jsonld": dict(sorted(self.jsonld.items())), "sure": dict(sorted(self.sure.items()))}

    @classmethod
    def from_json(cls, d: object) -> KindDecoding:
        """Checked: a malformed file is a ValueError naming what is wrong."""
        if not isinstance(d, dict) or d.get("format") != "ce-filter-kind-decoding/1":
            raise ValueError("not a ce-filter kind-decoding file (format ce-filter-kind-decoding/1)")
        digest = d.get("model_digest")
        if not isinstance(digest, str) or not digest:
            raise ValueError("kind decoding: model_digest missing")
        groups: dict[str, tuple[float | None, float | None]] = {}
        for k, v in (d.get("groups") or {}).items():
            if not isinstance(v, dict):
                raise ValueError(f"kind decoding: groups[{k!r}] is not an object")
            lo, hi = _cut(v.get("lo"), f"groups[{k!r}].lo"), _cut(v.get("hi"), f"groups[{k!r}].hi")
            if lo is not None and hi is not None and lo > hi:
                raise ValueError(f"kind decoding: groups[{k!r}]: lo {lo} above hi {hi}")
            groups[str(k)] = (lo, hi)
        jsonld: dict[str, float] = {}
        for k, v in (d.get("jsonld") or {}).items():
            c = _cut(v, f"jsonld[{k!r}]")
            if c is None:
                raise ValueError(f"kind decoding: jsonld[{k!r}] must be a number in [0, 1]")
            jsonld[str(k)] = c
        sure: dict[str, float] = {}
        for k, v in (d.get("sure") or {}).items():
            c = _cut(v, f"sure[{k!r}]")
            if c is None:
                raise ValueError(f"kind decoding: sure[{k!r}] must be a number in [0, 1]")
            sure[str(k)] = c
        mg = d.get("min_group", MIN_GROUP)
        if not isinstance(mg, int) or isinstance(mg, bool) or mg < 2:
            raise ValueError("kind decoding: min_group must be an integer >= 2")
        return cls(digest, groups, jsonld, mg, sure)

    @classmethod
    def load(cls, path: str | Path) -> KindDecoding:
        with open(path, encoding="utf-8") as f:
            return cls.from_json(json.load(f))

    def save(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1, sort_keys=True)
            f.write("\n")


def _cut(v: object, what: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
        raise ValueError(f"kind decoding: {what} must be null or a number in [0, 1], not {v!r}")
    return float(v)


SUFFIX = ".decoding.json"  # the decoding file of MODEL.json is MODEL.decoding.json


def decoding_for(model: Model, path: str | None, given: KindDecoding | str | bool | None
                 ) -> KindDecoding | None:
    """The decoding an Extractor of ``model`` (loaded from ``path``, None: given as an object
    or the shipped one) applies. ``given``: False, none; a KindDecoding or a file path, that
    one (a ValueError where it was made for another model); None or True, the file beside
    the model file, else the package's decoding file made for this model's digest, else none.
    """
    if given is False:
        return None
    if isinstance(given, (KindDecoding, str)):
        d = given if isinstance(given, KindDecoding) else KindDecoding.load(given)
        if d.model_digest != model.digest:
            raise ValueError(f"this page-kind decoding is for model {d.model_digest}, not "
                             f"{model.digest}")
        return d
    found = _shipped().get(model.digest)
    if path is not None:
        beside = Path(path[:-5] + SUFFIX if path.endswith(".json") else path + SUFFIX)
        if beside.is_file():
            d = KindDecoding.load(beside)
            found = d if d.model_digest == model.digest else found
    return found


_SHIPPED: dict[str, KindDecoding] | None = None


def _shipped() -> dict[str, KindDecoding]:
    """The package's decoding files (ce_filter/models/*.decoding.json) by model digest, read
    once."""
    global _SHIPPED
    if _SHIPPED is None:
        from importlib import resources

        found: dict[str, KindDecoding] = {}
        for ref in (resources.files("ce_filter") / "models").iterdir():
            if ref.name.endswith(SUFFIX):
                d = KindDecoding.from_json(json.loads(ref.read_text(encoding="utf-8")))
                found[d.model_digest] = d
        _SHIPPED = found
    return _SHIPPED


def decide_groups(keep: np.ndarray, scores: np.ndarray, groups: np.ndarray, lo: float | None,
                  hi: float | None, min_group: int = MIN_GROUP) -> tuple[np.ndarray, np.ndarray]:
    """(kept mask after the rule, mask of the blocks the rule changed). A group of at least
    ``min_group`` blocks (``groups``: each block's signature group) with a block inside the
    kept span (first to last kept block) is kept whole where its mean probability is >= ``hi``
    and dropped whole where it is < ``lo``; a page with no kept block is left as it is."""
    n = len(keep)
    if n == 0 or not keep.any() or (lo is None and hi is None):
        return keep, np.zeros(n, dtype=bool)
    kept = np.flatnonzero(keep)
    span = np.zeros(n, dtype=np.float64)
    span[kept[0]: kept[-1] + 1] = 1.0
    size = np.bincount(groups)
    mean = np.bincount(groups, weights=scores) / np.maximum(size, 1)
    inside = np.bincount(groups, weights=span) > 0
    ok = ((size >= min_group) & inside)[groups]
    m = mean[groups]
    out = keep.copy()
    if hi is not None:
        out |= ok & (m >= hi)
    if lo is not None:
        out &= ~(ok & (m < lo))
    return out, out != keep


def fill_span(keep: np.ndarray, scores: np.ndarray, flags: np.ndarray, lo: float,
              seen: np.ndarray | None = None) -> np.ndarray:
    """The mask of the blocks the span rule adds to ``keep``: those between its first and last
    kept block whose probability is at least ``lo`` and whose ``flags`` (the walk's) hold none
    of nav, aside, header, footer, form; with a site memory, none that ``seen`` marks (a block
    the host's other pages hold: the boilerplate the site stage scored down is not added back).
    None added where fewer than two blocks are kept."""
    out = np.zeros(len(keep), dtype=bool)
    k = np.flatnonzero(keep)
    if len(k) < 2:
        return out
    a, b = int(k[0]), int(k[-1]) + 1
    out[a:b] = (np.asarray(scores[a:b]) >= lo) & \
        ((np.asarray(flags[a:b], dtype=np.int64) & SPAN_OUTSIDE) == 0) & ~keep[a:b]
    if seen is not None:
        out[a:b] &= ~seen[a:b]
    return out


def _as_text(v: object) -> str:
    """A JSON-LD field as plain text: strings of a list joined, markup removed, references
    decoded, white space collapsed."""
    from .metadata import clean_ld_text

    if isinstance(v, list):
        v = " ".join(x for x in v if isinstance(x, str))
    if not isinstance(v, str):
        return ""
    return clean_ld_text(_TAG.sub(" ", v)) if "<" in v else clean_ld_text(v)


def jsonld_candidates(scripts: Sequence[str]) -> list[str]:
    """The page's JSON-LD text the rule may add: the fields _LD_FIELDS of objects of the types
    _LD_TYPES, and the names of ItemList items, each of at least MIN_CANDIDATE_WORDS words,
    once each, in document order (at most MAX_CANDIDATES)."""
    from .metadata import MAX_JSONLD_CHARS, ld_types, load_json_ld  # its regexes: on use

    out: list[str] = []
    seen: set[str] = set()

    def add(t: str) -> None:
        if t and t not in seen and len(tokens(t)) >= MIN_CANDIDATE_WORDS:
            seen.add(t)
            out.append(t)

    for s in scripts:
        if len(s) > MAX_JSONLD_CHARS or len(out) >= MAX_CANDIDATES:
            continue
        for node in ld_nodes(load_json_ld(s), _LD_DESCEND, 8):
            ts = ld_types(node) if "@type" in node else set()
            if ts & _LD_TYPES:
                for k in _LD_FIELDS:
                    add(_as_text(node.get(k)))
            if "listitem" in ts:
                it = node.get("item")
                add(_as_text(node.get("name") or (it.get("name") if isinstance(it, dict) else "")))
            if len(out) >= MAX_CANDIDATES:
                break
    return out[:MAX_CANDIDATES]


def jsonld_cover(d: KindDecoding, kind: str, empty: bool) -> float | None:
    """The JSON-LD rule's cover for a page of estimated ``kind`` (``empty``: the cut kept no
    block): its kind's where the decoding has one, else the EMPTY one on an empty page."""
    c = d.jsonld.get(kind)
    return d.jsonld.get(EMPTY) if c is None and empty else c


def missing(candidates: Sequence[str], kept_text: str, cover: float) -> list[str]:
    """The candidates (once each) of which less than ``cover`` of the words (as a multiset)
    are in ``kept_text``: what the kept blocks miss."""
    if not candidates:
        return []
    have = Counter(tokens(kept_text))
    out = []
    for c in dict.fromkeys(candidates):  # a second copy of the same text is not missing
        want = Counter(tokens(c))
        n = sum(want.values())
        if n and sum((want & have).values()) < cover * n:
            out.append(c)
    return out
