"""The compiled parts, each beside the module it serves: the segmenter's walk
(ce_filter/read/_segment.c), the pre-parse cost scan (read/_precheck.c), the double-encoding test
(read/_mojibake.c), CETR's k-means (score/features/_kmeans.c), the dense block features and
stage 2's context input (score/features/_dense.c), the tree-leaf walk (score/features/_leaves.c),
the page-kind signals and model (score/_pagekind.c), the block model's scores and cut
(score/_blockmodel.c), the site memory's block fingerprints (score/site/_memory.c) and its stage
(score/site/_stage.c), the arithmetic of the rules after the cut (keep/_articles.c) and the kept
text (keep/_render.c). The four parts of the page after the walk share the headers
ce_filter/_common.h and score/features/_context.h (included, each part has its own copy).

Each is optional: where it does not build (no C compiler; the walk also needs dlopen, so
Linux/macOS), the install still succeeds and the pure-Python versions run, which give the same
results (tests compare them).
"""

from setuptools import Extension, setup

# the headers the parts of the page after the walk include (a change rebuilds them)
_HEADERS = ["ce_filter/_common.h", "ce_filter/score/features/_context.h"]


def _after_walk(name: str) -> Extension:
    """A part of the page after the walk: ``ce_filter.<name>`` from its .c beside its module,
    with the shared headers; no fused multiply-add (the arithmetic must round as numpy's does)."""
    return Extension(f"ce_filter.{name}", [f"ce_filter/{name.replace('.', '/')}.c"],
                     include_dirs=["ce_filter"], depends=_HEADERS,
                     extra_compile_args=["-O2", "-ffp-contract=off"], optional=True)


setup(
    ext_modules=[
        Extension(
            "ce_filter.read._segment",
            ["ce_filter/read/_segment.c"],
            libraries=["dl"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "ce_filter.score.features._kmeans",
            ["ce_filter/score/features/_kmeans.c"],
            # no fused multiply-add: the arithmetic must round as numpy's does
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        ),
        Extension("ce_filter.read._precheck", ["ce_filter/read/_precheck.c"], extra_compile_args=["-O2"],
                  optional=True),
        _after_walk("score.features._dense"),
        _after_walk("score._blockmodel"),
        _after_walk("keep._articles"),
        _after_walk("keep._render"),
        Extension("ce_filter.read._mojibake", ["ce_filter/read/_mojibake.c"], extra_compile_args=["-O2"],
                  optional=True),
        Extension("ce_filter.score.features._leaves", ["ce_filter/score/features/_leaves.c"],
                  extra_compile_args=["-O2"], optional=True),
        Extension("ce_filter.score.site._memory", ["ce_filter/score/site/_memory.c"],
                  extra_compile_args=["-O2"], optional=True),
        Extension("ce_filter.score.site._stage", ["ce_filter/score/site/_stage.c"],
                  extra_compile_args=["-O2"], optional=True),
        Extension("ce_filter.score._pagekind", ["ce_filter/score/_pagekind.c"],
                  extra_compile_args=["-O2", "-ffp-contract=off"], optional=True),
    ]
)
