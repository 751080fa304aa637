"""Fetches the Lexbor source the walk is built with where it has Lexbor compiled in (setup.py,
CE_FILTER_LEXBOR_SRC; Windows needs it): the lexbor/ directory of selectolax's source archive
from PyPI, the selectolax release the wheels are built against (its Lexbor is the one
selectolax's own module holds, so both parse alike). The archive is checked against its SHA-256
before anything is unpacked. Standard library only: the Windows wheel builds run it before
building (pyproject.toml's [tool.cibuildwheel.windows]).

    python scripts/lexbor_source.py DIR

unpacks into DIR (source/lexbor/... and Lexbor's license files) and prints DIR, the value for
CE_FILTER_LEXBOR_SRC. Where DIR already holds source/lexbor/html/parser.c nothing is fetched.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path, PurePosixPath

SELECTOLAX = "1.0.2"  # ships Lexbor 3.1.0
SDIST = f"selectolax-{SELECTOLAX}.tar.gz"
SHA256 = "f0508ad927aa426425d4aa7a2bb2f8b21c01412534465bd227e241d4d0a6a418"
INDEX = "https://pypi.org/simple/selectolax/"  # PyPI's simple API, as pip reads it (JSON: PEP 691)


def sdist_url(index: str = INDEX) -> str:
    """Where the index keeps ``SDIST``."""
    req = urllib.request.Request(index, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        files = json.load(r)["files"]
    for f in files:
        if f["filename"] == SDIST:
            return str(f["url"])
    raise LookupError(f"{index} lists no {SDIST}")


def unpack(archive: bytes, dest: Path) -> int:
    """The lexbor/ members of selectolax's sdist ``archive`` written under ``dest`` (the leading
    selectolax-X/lexbor/ taken off); how many files. Refuses a member that would land outside."""
    n = 0
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        for m in tar.getmembers():
            parts = PurePosixPath(m.name).parts
            if len(parts) < 3 or parts[1] != "lexbor" or not m.isfile():
                continue
            rel = PurePosixPath(*parts[2:])
            if rel.is_absolute() or ".." in rel.parts:
                raise ValueError(f"unsafe member {m.name}")
            out = dest.joinpath(*rel.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(m)
            assert src is not None  # a regular file
            out.write_bytes(src.read())
            n += 1
    return n


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    dest = Path(argv[0]).resolve()
    if (dest / "source" / "lexbor" / "html" / "parser.c").is_file():
        print(dest)
        return 0
    url = sdist_url()
    with urllib.request.urlopen(url, timeout=300) as r:
        data = r.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        print(f"lexbor_source: {url} has SHA-256 {digest}, not {SHA256}", file=sys.stderr)
        return 1
    n = unpack(data, dest)
    if not (dest / "source" / "lexbor" / "html" / "parser.c").is_file():
        print(f"lexbor_source: no lexbor/source/lexbor/html/parser.c in {url}", file=sys.stderr)
        return 1
    print(f"lexbor_source: {n} files of selectolax {SELECTOLAX}'s Lexbor in {dest}", file=sys.stderr)
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
