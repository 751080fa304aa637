"""The compiled parts, each source beside the module it serves: the segmenter's walk
(ce_filter/read/_segment.c), the pre-parse cost scan (read/_precheck.c), the double-encoding test
(read/_mojibake.c), the pass after the walk (ce_filter/_pass.c: one module made of the dense block
features, their definition, with stage 2's context input, score/features/_dense.c, and the block
model's scores and cut, score/_blockmodel.c, which it includes; its page_scores chains them in
one call), the tree-leaf walk (score/features/_leaves.c), the page-kind signals and model
(score/_pagekind.c), the site memory's block fingerprints (score/site/_memory.c) and its stage
(score/site/_stage.c), the rules after the cut (keep/_articles.c) and the kept
text (keep/_render.c). The parts of the page after the walk share the headers
ce_filter/_common.h, _phrases.h and score/features/_context.h, the walk the first (included, each
part has its own copy).

Which parts a platform builds is ``ce_filter.native.PARTS``: all ten on Linux and macOS; on
Windows all but the walk, which reaches Lexbor's functions through selectolax's own module
(dlopen/dlsym) and selectolax's Windows module exports none of them (the Python walk runs there).

Most parts are the one implementation of their step (their Python or numpy twins are test
oracles under tests/oracles), so they are required: a source install needs a C compiler. The
parts that still have a Python version in the package (the walk, which Windows runs in Python)
are optional there: where one does not build, the
Python version runs and gives the same results (tests compare them). With CE_FILTER_REQUIRE_C=1
(the wheel builds set it) every part is required: a wheel holds every part.

Compiler flags per compiler (``BuildExt``): GCC and Clang get -O2, and -ffp-contract=off for the
parts whose floating point must round as numpy's does (no fused multiply-add); MSVC gets its
default /O2 (setuptools passes it), and /fp:precise for those parts, which contracts nothing
from Visual Studio 2022 on (nor where no FMA instruction is enabled: /arch:AVX2 is not set).
The GCC builtins the parts use (__builtin_ctz) sit under ``#if defined(__SSE2__)``, which MSVC
does not define: it compiles the portable loops beside them.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the headers the parts of the page after the walk include (a change rebuilds them)
_HEADERS = ["ce_filter/_common.h", "ce_filter/_phrases.h", "ce_filter/score/features/_context.h"]
# the parts whose arithmetic must round as numpy's does, or the same on every CPU (the dense
# features, their definition): no fused multiply-add
_EXACT_FP = {"ce_filter._pass", "ce_filter.keep._articles", "ce_filter.keep._render"}


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
        super().build_extensions()


def _part(name: str, headers: list[str] | None = None, libraries: list[str] | None = None,
          optional: bool = True) -> Extension:
    """The part ``ce_filter.<name>`` from its .c beside its module; ``headers``: the shared ones it
    includes (a change rebuilds it); ``optional=False`` for a part with no Python reference to
    fall back on (its build failing fails the install)."""
    return Extension(f"ce_filter.{name}", [f"ce_filter/{name.replace('.', '/')}.c"],
                     include_dirs=["ce_filter"] if headers else [], depends=headers or [],
                     libraries=libraries or [], optional=optional)


def _after_walk(name: str, optional: bool = True) -> Extension:
    """A part of the page after the walk, with the shared headers."""
    return _part(name, headers=_HEADERS, optional=optional)


# the parts the pass after the walk (ce_filter/_pass.c) is made of: included in it, one module
_PASS_PARTS = ["ce_filter/score/_pagekind.c", "ce_filter/score/features/_dense.c",
               "ce_filter/score/_blockmodel.c"]
_PASS = _part("_pass", headers=_HEADERS + _PASS_PARTS, optional=False)


# the walk dlopens selectolax's module: Linux and macOS (see above)
_WALK = [] if sys.platform == "win32" else [_part("read._segment", headers=["ce_filter/_common.h"],
                                                  libraries=["dl"])]

setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        *_WALK,
        _part("read._precheck", optional=False),
        _PASS,
        _after_walk("keep._articles", optional=False),
        _after_walk("keep._render", optional=False),
        _part("keep._metadata", optional=False),
        _part("read._mojibake", optional=False),
        _part("score.features._leaves", optional=False),
        _part("score.site._memory", optional=False),
        _part("score.site._stage", optional=False),
    ],
)
