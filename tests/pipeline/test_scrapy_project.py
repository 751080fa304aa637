"""ce-filter in someone else's Scrapy project: a throwaway project made by ``scrapy
startproject``, with its own spider and item classes, the README's settings block and spider
snippet as written, crawling the fixture site on 127.0.0.1. Each kind of item (dict,
scrapy.Item, dataclass, attrs) keeps its own fields and gains the record; an item class
without the field passes through unchanged with one error line in the log."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ce_filter import Extractor
from ce_filter.record import SCHEMA_ID, validate

from .conftest import REPO, SITE

pytest.importorskip("scrapy", reason="Scrapy not installed (pip install 'ce-filter[crawl]')")
TIMEOUT = 180  # a hang guard, not a timing assertion
PAGES = ("a.html", "b.html", "c.html")


def readme_blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### Embed in my Scrapy crawler\n", 1)[1].split("\n#", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


ITEMS = '''
import dataclasses

import attr
import scrapy


class PageItem(scrapy.Item):
    url = scrapy.Field()
    body = scrapy.Field()
    price = scrapy.Field()
    ce_filter = scrapy.Field()


@dataclasses.dataclass
class PageData:
    url: str
    body: str
    price: str | None = None
    ce_filter: dict | None = None


@attr.s(auto_attribs=True)
class PageAttrs:
    url: str
    body: str
    price: str | None = None
    ce_filter: dict | None = None


@dataclasses.dataclass
class NoField:  # no place for the record
    url: str
    body: str
    price: str | None = None
'''

SPIDER = '''
import scrapy

from shop.items import NoField, PageAttrs, PageData, PageItem

KINDS = {{"dict": dict, "item": PageItem, "dataclass": PageData, "attrs": PageAttrs, "nofield": NoField}}


class ShopSpider(scrapy.Spider):
    name = "shop"

    def __init__(self, base="", kind="dict", **kw):
        super().__init__(**kw)
        self.start_urls = [f"{{base}}/{{p}}" for p in {pages!r}]
        self.kind = KINDS[kind]

    def readme_items(self, response):
        return self.parse_readme(response)

{readme_parse}

    def parse(self, response):
        for d in self.parse_readme(response):
            yield self.kind(**d)
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("scrapy")
    r = subprocess.run([sys.executable, "-m", "scrapy", "startproject", "shop"], cwd=root,
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    proj = root / "shop"
    settings_block, parse_block = readme_blocks()
    (proj / "shop" / "items.py").write_text(ITEMS)
    parse = parse_block.replace("def parse(self, response):", "def parse_readme(self, response):")
    (proj / "shop" / "spiders" / "shop.py").write_text(
        SPIDER.format(pages=PAGES, readme_parse=textwrap.indent(textwrap.dedent(parse), "    ")))
    with open(proj / "shop" / "settings.py", "a") as fh:
        fh.write("\n# ce-filter, as the README says\n" + settings_block)
        fh.write("\nLOG_LEVEL = 'INFO'\n")
    return proj


STRICT_SCRAPY = """
import sys, warnings
from scrapy.exceptions import ScrapyDeprecationWarning
warnings.simplefilter("error", ScrapyDeprecationWarning)
warnings.simplefilter("error", DeprecationWarning)
from scrapy.cmdline import execute
execute(["scrapy", *sys.argv[1:]])
"""


def crawl(project: Path, base: str, kind: str, tmp_path: Path) -> tuple[list[dict], str]:
    out = tmp_path / f"{kind}.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    # `scrapy crawl` with Scrapy's deprecation warnings as errors: a pipeline method Scrapy
    # deprecates fails the crawl's items
    r = subprocess.run([sys.executable, "-c", STRICT_SCRAPY, "crawl", "shop", "-a", f"base={base}",
                        "-a", f"kind={kind}", "-O", f"{out}:jsonlines"],
                       cwd=project, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr[-3000:]
    return [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines()], r.stderr


@pytest.mark.parametrize("kind", ["dict", "item", "dataclass", "attrs"])
def test_items_keep_their_fields_and_gain_the_record(project, site_server, tmp_path, kind):
    items, log = crawl(project, site_server.base, kind, tmp_path)
    assert sorted(i["url"] for i in items) == sorted(f"{site_server.base}/{p}" for p in PAGES), log[-2000:]
    for item in items:
        assert {"url", "body", "price"} <= set(item)  # the spider's own fields
        rec = item["ce_filter"]
        assert rec["schema"] == SCHEMA_ID and rec["url"] == item["url"] and validate(rec) == []
        # what the filter makes of the page Scrapy decoded, with the README's CE_FILTER_THRESHOLD
        assert rec["text"] and rec["text"] == Extractor(threshold=0.6).extract(item["body"]).text
    latin = next(i for i in items if i["url"].endswith("b.html"))  # charset only in the HTTP header
    page = (SITE / "b.html").read_bytes().decode("iso-8859-1")
    assert latin["body"] == page and "é" in latin["ce_filter"]["text"]
    assert "'cefilter/records': 3" in log
    assert "deprecated" not in log.lower(), log[-3000:]


def test_an_item_class_without_the_field_passes_unchanged_and_says_so(project, site_server, tmp_path):
    items, log = crawl(project, site_server.base, "nofield", tmp_path)
    assert len(items) == len(PAGES) and all("ce_filter" not in i and i["body"] for i in items)
    errors = [ln for ln in log.splitlines() if "has no field 'ce_filter'" in ln]
    assert len(errors) == 1 and "NoField" in errors[0] and "CE_FILTER_ITEM_FIELD" in errors[0]
    assert "'cefilter/no_item_field': 3" in log
