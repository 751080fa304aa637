"""What a model's features are: the switchable groups and the learned token lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...jsontypes import JSONObject, Loaded

GROUPS = ("st", "cetr", "ic", "dom", "text", "ctx", "rx", "head", "kind", "struct", "cmt", "shop",
          "item", "itemg", "ritem", "ritemg", "ritemlc")
# the last groups: the C part (features/dense.py) leaves them to features.page_inputs, which
# appends their columns after its own, in this order
AFTER_GROUPS = ("cmt", "shop", "item", "itemg", "ritem", "ritemg", "ritemlc")

# Token-list columns (0/1 per token of a learned list) are named with these prefixes.
TOKEN_PREFIXES = ("ic_own:", "ic_anc:", "head:")
# (name prefix, each block's tokens, vocab): a token list as the serving path reads it
TokenRows = tuple[str, Sequence[tuple[str, ...]], dict[str, int]]


@dataclass
class FeatureSpec:
    """Which feature groups a model uses and the learned token lists it needs."""

    groups: tuple[str, ...] = GROUPS
    ic_own: list[str] = field(default_factory=list)
    ic_anc: list[str] = field(default_factory=list)
    heading_words: list[str] = field(default_factory=list)
    # dense columns (by name) that also get one column per page kind, times that kind's
    # probability (features.kind.kind_mix_columns; needs the ``kind`` group); empty: none
    kind_mix: tuple[str, ...] = ()
    # the ``shop`` group's cues are zero on pages whose product probability is under this
    # (features.shop.shop_columns); 0: computed on every page
    shop_min_p: float = 0.0
    # the training corpora whose annotation conventions the page-style model tells apart
    # (Model.pagestyle, features.style): each gets a column of the page's probability of
    # resembling it, and its products with the ``style_mix`` dense columns; empty: none
    style: tuple[str, ...] = ()
    style_mix: tuple[str, ...] = ()
    # the ``ritemlc`` group's columns are zero on pages whose listing + collection probability
    # is under this (features.repitem.lc_weight); 0: weighted on every page
    ritem_min_p: float = 0.0

    def to_json(self) -> JSONObject:
        d: JSONObject = {"groups": list(self.groups), "ic_own": self.ic_own,
                             "ic_anc": self.ic_anc, "heading_words": self.heading_words}
        if self.kind_mix:  # written only when set: model files without it keep their bytes
            d["kind_mix"] = list(self.kind_mix)
        if self.shop_min_p:  # likewise
            d["shop_min_p"] = self.shop_min_p
        if self.ritem_min_p:  # likewise
            d["ritem_min_p"] = self.ritem_min_p
        if self.style:  # likewise
            d["style"] = list(self.style)
            d["style_mix"] = list(self.style_mix)
        return d

    @classmethod
    def from_json(cls, d: Loaded) -> FeatureSpec:
        p, r = d.get("shop_min_p", 0.0), d.get("ritem_min_p", 0.0)
        for key, v in (("shop_min_p", p), ("ritem_min_p", r)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise ValueError(f"{key} must be a number in [0, 1], not {v!r}")
        style, mix = (tuple(d.get(k, ())) for k in ("style", "style_mix"))
        if not all(isinstance(t, str) for t in style + mix) or (mix and not style):
            raise ValueError("style and style_mix must be lists of names, style_mix only with style")
        return cls(tuple(d["groups"]), list(d.get("ic_own", [])), list(d.get("ic_anc", [])),
                   list(d.get("heading_words", [])), tuple(d.get("kind_mix", ())), float(p),
                   style, mix, float(r))

    def vocabs(self) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        cache = self.__dict__.get("_vocabs")
        if cache is None:
            cache = tuple({t: i for i, t in enumerate(v)}
                          for v in (self.ic_own, self.ic_anc, self.heading_words))
            self.__dict__["_vocabs"] = cache
        return cache
