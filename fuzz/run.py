"""The long fuzz run: random mutations of the seed corpus (fuzz/seeds.py) through the targets
(fuzz/targets.py), for a given time, with a report of what ran and what broke.

    python -m fuzz.run --minutes 60                 # all targets, time split between them
    python -m fuzz.run --minutes 10 --target warc   # one target
    python -m fuzz.run --atheris extract -- -max_total_time=600   # coverage-guided (atheris)

Run from the checkout's root (``-m`` makes fuzz/ and the tests' helpers importable) with the
project installed (``pip install -e '.[test]'``): ce_filter.* is the installed package; no
``sys.path`` is touched. Inputs that break a property are written to fuzz/crashes/ (replay:
``python -m fuzz.run --replay FILE``). The report gives, per target, executions, failures by kind, the slowest
input (its size and seconds) and the peak memory of the process.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import resource
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

from fuzz.seeds import SEEDS
from fuzz.targets import TARGETS

CRASHES = Path(__file__).with_name("crashes")
MAX_INPUT = 2 << 20
TOKENS = [b"<", b">", b"</", b"/>", b"<!--", b"-->", b'="', b"'", b"<div>", b"</div>", b"<b>", b"</b>",
          b"<p>", b"<a href=x>", b"<table><tr><td>", b"<script>", b"</script>", b"<svg>", b"<font c=1>",
          b"\x1f\x8b\x08", b"WARC/1.0\r\n", b"Content-Length: ", b"\r\n\r\n", b"99999999", b"\x00",
          b'{"html": "', b'"}', b"\\ud800", b'"html_b64": "', b"charset=", b"[", b"]", b"\xff\xfe"]


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:  # flip bits
            b[min(i, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:  # insert a token
            b[i:i] = rng.choice(TOKENS)
        elif op == 2 and b:  # delete a range
            del b[i: i + rng.randint(1, 64)]
        elif op == 3 and b:  # repeat a range
            j = min(len(b), i + rng.randint(1, 32))
            b[i:i] = bytes(b[i:j]) * rng.randint(2, 200)
        elif op == 4:  # splice another seed
            other = rng.choice(pool)
            k = rng.randrange(len(other) + 1)
            b[i:] = other[k: k + rng.randint(0, 4096)]
        elif op == 5:  # cut
            del b[i:]
        else:  # random bytes
            b[i:i] = rng.randbytes(rng.randint(1, 16))
    return bytes(b[:MAX_INPUT])


def fuzz(target: str, seconds: float, seed: int) -> dict:
    fn, seeds = TARGETS[target], list(SEEDS[target]().values())
    rng = random.Random(seed)
    runs, failures = 0, Counter()
    slowest = (0.0, 0)
    end = time.monotonic() + seconds
    for data in seeds:  # every seed once as it is
        slowest = max(slowest, _run(fn, target, data, failures))
        runs += 1
    while time.monotonic() < end:
        data = mutate(rng, rng.choice(seeds), seeds)
        slowest = max(slowest, _run(fn, target, data, failures))
        runs += 1
    return {"target": target, "runs": runs, "failures": dict(failures), "slowest_s": round(slowest[0], 3),
            "slowest_bytes": slowest[1]}


def _run(fn, target: str, data: bytes, failures: Counter) -> tuple[float, int]:
    """(seconds the product call took, input size); a broken property is counted and kept."""
    t0 = time.perf_counter()
    try:
        return fn(data), len(data)
    except Exception as e:  # noqa: BLE001 - a property broke: keep the input
        frame = traceback.extract_tb(e.__traceback__)[-1]
        kind = f"{type(e).__name__} at {Path(frame.filename).name}:{frame.lineno}"
        if not failures[kind]:
            CRASHES.mkdir(exist_ok=True)
            name = f"{target}-{hashlib.sha1(data).hexdigest()[:12]}"
            (CRASHES / name).write_bytes(data)
            print(f"[{target}] {kind}: {str(e)[:200]} -> fuzz/crashes/{name}", file=sys.stderr)
        failures[kind] += 1
    return time.perf_counter() - t0, len(data)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--target", action="append", choices=sorted(TARGETS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replay", help="run the targets on one saved input")
    ap.add_argument("--atheris", choices=sorted(TARGETS), help="coverage-guided fuzzing of one target")
    a, rest = ap.parse_known_args(argv)
    if a.replay:
        name = Path(a.replay).name.split("-")[0]
        TARGETS[name](Path(a.replay).read_bytes())
        print("no property broken")
        return 0
    if a.atheris:
        return _atheris(a.atheris, rest)
    targets = a.target or sorted(TARGETS)
    t0 = time.monotonic()
    reports = [fuzz(t, a.minutes * 60 / len(targets), a.seed) for t in targets]
    print(f"fuzz run: {a.minutes:g} min, seed {a.seed}, {time.monotonic() - t0:.0f} s\n")
    print("| target | executions | failures | slowest input |")
    print("|---|---:|---|---|")
    for r in reports:
        fails = ", ".join(f"{n}× {k}" for k, n in r["failures"].items()) or "0"
        slow = f"{r['slowest_s']} s ({r['slowest_bytes']:,} bytes)"
        print(f"| {r['target']} | {r['runs']:,} | {fails} | {slow} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"\npeak memory of the process (max RSS): {peak} MiB")
    return 1 if any(r["failures"] for r in reports) else 0


def _atheris(target: str, rest: list[str]) -> int:
    try:
        import atheris
    except ImportError:
        print("fuzz.run: error: --atheris needs atheris: pip install -e '.[fuzz]' (Linux x86-64)",
              file=sys.stderr)
        return 2

    with atheris.instrument_imports():  # (both import the rest of ce_filter)
        import ce_filter.crawler.warc  # noqa: F401
        import ce_filter.pipelines.worker  # noqa: F401
    corpus = Path("fuzz-corpus") / target
    if not corpus.exists():
        from fuzz.seeds import write

        write(Path("fuzz-corpus"))
    fn = TARGETS[target]
    atheris.Setup([sys.argv[0], *rest, str(corpus)], lambda data: fn(data) and None)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
