"""The compiled parts, each source beside the module it serves: the segmenter's walk
(ce_filter/read/_segment.c), the pre-parse cost scan (read/_precheck.c), the double-encoding test
(read/_mojibake.c), the pass after the walk (ce_filter/_pass.c: one module made of the parts it
includes: the page-kind signals and model, score/_pagekind.c; the dense block features, their
definition, with stage 2's context input, score/features/_dense.c; the block model's scores and
cut, score/_blockmodel.c; the rules after the cut, keep/_articles.c; the kept text,
keep/_render.c; its page_scores chains them in one call), the tree-leaf walk
(score/features/_leaves.c), the site memory's block fingerprints (score/site/_memory.c) and its
stage (score/site/_stage.c). The parts of the page after the walk share the headers
ce_filter/_common.h, _phrases.h and score/features/_context.h, the walk the first (included, each
part has its own copy).

Every platform builds all eight (``ce_filter.native.PARTS``). The walk has two builds of the same
source, which differ only in how it reaches Lexbor's functions (``_walk``):
 - by default (Linux, macOS): through selectolax's own extension module, which exports them
   (dlopen/dlsym at import): nothing of Lexbor is compiled here, the module stays small
   (~200 KB against ~3 MB) and the process holds one Lexbor;
 - with CE_FILTER_LEXBOR_SRC set to a directory holding Lexbor's source (source/lexbor/, as in
   selectolax's source archive): the Lexbor modules the HTML parse needs are compiled into the
   module (-DCE_FILTER_STATIC_LEXBOR -DLEXBOR_STATIC). Windows needs this one (selectolax's
   Windows module exports no Lexbor function) and the build stops without the source, saying
   how to get it; the wheel builds fetch it (pyproject.toml's [tool.cibuildwheel.windows],
   scripts/lexbor_source.py). Elsewhere it is there to choose.

Every part is the one implementation of its step (their Python or numpy twins are test oracles
under tests/oracles), so every part is required: a source install needs a C compiler, and a
wheel holds every part (the wheel builds also set CE_FILTER_REQUIRE_C=1, which would make a part
marked optional required).

Compiler flags per compiler (``BuildExt``): GCC and Clang get -O2, and -ffp-contract=off for the
parts whose floating point must round as numpy's does (no fused multiply-add); MSVC gets its
default /O2 (setuptools passes it), and /fp:precise for those parts, which contracts nothing
from Visual Studio 2022 on (nor where no FMA instruction is enabled: /arch:AVX2 is not set).
The GCC builtins the parts use (__builtin_ctz) sit under ``#if defined(__SSE2__)``, which MSVC
does not define: it compiles the portable loops beside them; the walk's (__builtin_ctzll) under
``#if defined(__GNUC__)``, beside MSVC's _BitScanForward64 and a portable loop.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the headers the parts of the page after the walk include (a change rebuilds them)
_HEADERS = ["ce_filter/_common.h", "ce_filter/_phrases.h", "ce_filter/score/features/_context.h"]
# the parts whose arithmetic must round as numpy's does, or the same on every CPU (the dense
# features, their definition): no fused multiply-add
_EXACT_FP = {"ce_filter._pass"}


def _flags(compiler_type: str, name: str) -> list[str]:
    """The compile flags of part ``name`` under a compiler of ``compiler_type`` (setuptools')."""
    if compiler_type == "msvc":
        return ["/fp:precise"] if name in _EXACT_FP else []
    return ["-O2", "-ffp-contract=off"] if name in _EXACT_FP else ["-O2"]


class BuildExt(build_ext):
    """Flags chosen by the compiler at hand; every part required under CE_FILTER_REQUIRE_C=1."""

    def build_extensions(self) -> None:
        required = os.environ.get("CE_FILTER_REQUIRE_C", "") not in ("", "0")
        for ext in self.extensions:
            ext.extra_compile_args = _flags(self.compiler.compiler_type, ext.name)
            ext.optional = ext.optional and not required
            if ext.name == "ce_filter.read._segment" and sys.platform == "win32" \
                    and not os.environ.get(LEXBOR_SRC_ENV):
                raise RuntimeError(_NO_LEXBOR_SRC)
            if ("CE_FILTER_STATIC_LEXBOR", None) in ext.define_macros \
                    and self.compiler.compiler_type != "msvc":
                ext.extra_compile_args.append("-fvisibility=hidden")  # Lexbor's names stay inside
        super().build_extensions()


def _part(name: str, headers: list[str] | None = None, libraries: list[str] | None = None,
          optional: bool = True) -> Extension:
    """The part ``ce_filter.<name>`` from its .c beside its module; ``headers``: the shared ones it
    includes (a change rebuilds it); ``optional=False`` for a part with no Python reference to
    fall back on (its build failing fails the install)."""
    return Extension(f"ce_filter.{name}", [f"ce_filter/{name.replace('.', '/')}.c"],
                     include_dirs=["ce_filter"] if headers else [], depends=headers or [],
                     libraries=libraries or [], optional=optional)


# the parts the pass after the walk (ce_filter/_pass.c) is made of: included in it, one module
_PASS_PARTS = ["ce_filter/score/_pagekind.c", "ce_filter/score/features/_dense.c",
               "ce_filter/score/_blockmodel.c", "ce_filter/keep/_articles.c",
               "ce_filter/keep/_render.c"]
_PASS = _part("_pass", headers=_HEADERS + _PASS_PARTS, optional=False)


# The walk's two builds of ce_filter/read/_segment.c (see above): with Lexbor's source given
# (CE_FILTER_LEXBOR_SRC: a directory holding source/lexbor/, as in selectolax's sdist or Lexbor's
# repository; relative to this file), the Lexbor modules the HTML parse needs are compiled into
# it; without, it dlopens selectolax's module (Linux and macOS only: Windows needs the source).
LEXBOR_SRC_ENV = "CE_FILTER_LEXBOR_SRC"
# Lexbor's modules the HTML parse reaches (lexbor/html includes core, dom, ns and tag only; css,
# selectors, style, encoding, unicode, url and the rest are left out), and the port of core's
# platform functions (memory, fs, perf) for this platform
_LEXBOR_MODULES = ("core", "dom", "html", "ns", "tag")
_LEXBOR_PORT = "windows_nt" if sys.platform == "win32" else "posix"
_NO_LEXBOR_SRC = (
    f"ce_filter.read._segment needs Lexbor's C source on Windows: set {LEXBOR_SRC_ENV} to a "
    "directory holding source/lexbor/ (the lexbor/ directory of selectolax's source archive, "
    "https://pypi.org/project/selectolax/1.0.2/#files, Lexbor 3.1.0; from a checkout of "
    "ce-filter: `python scripts/lexbor_source.py DIR` fetches and unpacks it into DIR) and "
    "build again")


def lexbor_sources(root: str) -> list[str]:
    """The .c files of Lexbor's modules the parse needs under ``root``/source/lexbor, and of
    their port to this platform; ValueError where ``root`` holds no Lexbor source."""
    base = os.path.join(root, "source", "lexbor")
    if not os.path.isfile(os.path.join(base, "html", "parser.c")):
        raise ValueError(f"{LEXBOR_SRC_ENV}={root} holds no source/lexbor/html/parser.c")
    dirs = [os.path.join(base, m) for m in _LEXBOR_MODULES]
    dirs.append(os.path.join(base, "ports", _LEXBOR_PORT, "lexbor"))
    out = []
    for top in dirs:
        for d, subdirs, files in os.walk(top):
            subdirs.sort()
            out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".c")]
    return out


def _walk() -> Extension:
    """The walk: Lexbor linked in where its source is given, else bound to selectolax's."""
    src = os.environ.get(LEXBOR_SRC_ENV, "")
    if src:  # a relative path is taken from the source tree
        src = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), src))
    walk = _part("read._segment", headers=["ce_filter/_common.h"], optional=False,
                 libraries=[] if src or sys.platform == "win32" else ["dl"])
    if src:
        walk.sources += lexbor_sources(src)
        walk.include_dirs.append(os.path.join(src, "source"))
        walk.define_macros += [("CE_FILTER_STATIC_LEXBOR", None), ("LEXBOR_STATIC", None)]
    return walk


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        _walk(),
        _part("read._precheck", optional=False),
        _PASS,
        _part("keep._metadata", optional=False),
        _part("read._mojibake", optional=False),
        _part("score.features._leaves", optional=False),
        _part("score.site._memory", optional=False),
        _part("score.site._stage", optional=False),
    ],
)
