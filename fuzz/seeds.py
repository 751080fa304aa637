"""The seed corpus of the fuzz targets: the shapes that broke the stream once (hostile HTML,
charset labels that are codecs, damaged WARCs, poison Kafka messages) and ordinary inputs to
mutate from. Made by code, not stored, so the repository carries no binary blobs:
``python -m fuzz.seeds DIR`` writes them as files (for atheris/libFuzzer's corpus directory).
Run from the checkout's root with the project installed (see fuzz/run.py): no ``sys.path`` edit.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path


def _hostile() -> dict[str, bytes]:
    from tests.reliability.hostile import shapes

    return shapes()


def _warcs() -> dict[str, bytes]:
    from tests.reliability.warcs import bomb_member, damage, pages

    data, offsets = pages(6)
    out = {"warc": data, "warc-plain": b"".join(
        gzip.decompress(data[offsets[i]:offsets[i + 1]]) for i in range(6))}
    for kind in ("crc", "corrupt", "garbage", "absurd-length", "short-length", "bad-length"):
        out[f"warc-{kind}"] = damage(data, offsets, 2, kind)
    out["warc-cut"] = data[: offsets[4] + 37]
    out["warc-bomb"] = data[: offsets[1]] + bomb_member("http://bomb.test/", 8 << 20) + data[offsets[1]:]
    out["warc-ce-bomb"] = bomb_member("http://bomb.test/ce", 8 << 20, "gzip")
    return out


ARTICLE = ("<html><head><meta charset=\"utf-8\"><title>A page</title></head><body><div id=nav>"
           "<a href=/>Home</a> <a href=/x>News</a></div><article class=post><h1>Title</h1><p>One "
           "paragraph of the story with <b>bold</b> and <i>italic</i> words.</p><p>Another one.</p>"
           "</article><footer>(c) 2024</footer></body></html>")


def extract_seeds() -> dict[str, bytes]:
    out = {"article": ARTICLE.encode(), "empty": b"", "nul": b"\0" * 100,
           "bom16": b"\xff\xfe" + ARTICLE.encode("utf-16-le"), "cut": ARTICLE.encode()[:150],
           "latin1": ARTICLE.replace("words", "mots déjà").encode("latin-1"),
           "script": b"<script>if (a<b && c>d) document.write('<div>')</script><p>text</p>",
           "comment": b"<!-- <div> --><p>x</p><!--> <p>y</p> <!--- z -->"}
    for label in ("hex", "base64", "bz2", "quopri", "idna", "punycode", "utf-7", "cp500", "utf-32"):
        out[f"charset-{label}"] = f'<meta charset="{label}"><p>hi there</p>'.encode()
    out.update({f"hostile-{k}": v for k, v in _hostile().items()})
    return out


def message_seeds() -> dict[str, bytes]:
    env = {"url": "http://m.test/", "html": ARTICLE, "fetch_time": "2024-01-01T00:00:00Z", "status": 200}
    return {
        "raw": ARTICLE.encode(), "envelope": json.dumps(env).encode(),
        "b64": json.dumps({"url": "http://m.test/", "html_b64": "PHA+aGk8L3A+",
                           "encoding": "latin1"}).encode(),
        "deep": b'{"url": "http://deep.test/", "html": ' + b"[" * 3000 + b"]" * 3000 + b"}",
        "surrogate": b'{"url": "http://s.test/\\ud800", "html": "<p>a \\udfff b</p>", '
                     b'"fetch_time": "\\ud800"}',
        "not-object": b'["<p>x</p>"]', "bad-b64": b'{"html_b64": "%%%"}', "empty": b"",
        "binary": bytes(range(256)) * 4, "null-html": b'{"url": 5, "html": null}',
    }


def warc_seeds() -> dict[str, bytes]:
    return _warcs()


def resync_seeds() -> dict[str, bytes]:
    """Damage to put between good records (fuzz/targets.py ``resync``)."""
    data = _warcs()["warc"]
    return {"empty": b"", "junk-200k": b"A" * 200_000, "junk-64k": b"A" * 65_537,
            "magic": b"\x1f\x8b\x08" * 1000, "cut-member": data[:300], "crlf": b"\r\n" * 100,
            "record-start": b"WARC/1.0\r\nContent-Length: 99999\r\n\r\n",
            "long-length": b"WARC/1.0\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n"}


def decode_seeds() -> dict[str, bytes]:
    """Bodies to undo (fuzz/targets.py ``decode``)."""
    import zlib

    empty = gzip.compress(b"", mtime=0)
    return {"members-1000": empty * 1000, "members-page": empty * 100 + gzip.compress(ARTICLE.encode()),
            "deflate": zlib.compress(ARTICLE.encode()), "cut": gzip.compress(ARTICLE.encode())[:40],
            "garbage": bytes(range(256))}


SEEDS = {"extract": extract_seeds, "warc": warc_seeds, "message": message_seeds,
         "resync": resync_seeds, "decode": decode_seeds}


def write(root: Path) -> None:
    for target, make in SEEDS.items():
        d = root / target
        d.mkdir(parents=True, exist_ok=True)
        for name, data in make().items():
            (d / name).write_bytes(data)


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "fuzz-corpus"))
