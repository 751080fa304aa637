"""The compiled parts: the segmenter's walk (ce_filter/read/_segment.c), CETR's k-means
(ce_filter/score/features/_kmeans.c), the dense block features, the block model's scores and cut,
the rules after the cut and the kept text (ce_filter/score/features/_dense.c), the tree-leaf walk
(ce_filter/score/features/_leaves.c), the pre-parse cost scan (ce_filter/read/_precheck.c), the
double-encoding test (ce_filter/read/_mojibake.c), the page-kind signals and model
(ce_filter/score/_pagekind.c) and the site memory's block fingerprints and stage
(ce_filter/score/site/_hash.c).

Each is optional: where it does not build (no C compiler; the walk also needs dlopen, so
Linux/macOS), the install still succeeds and the pure-Python versions run, which give the same
results (tests compare them).
"""

from setuptools import Extension, setup

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
        Extension("ce_filter.score.features._dense", ["ce_filter/score/features/_dense.c"],
                  extra_compile_args=["-O2", "-ffp-contract=off"], optional=True),
        Extension("ce_filter.read._mojibake", ["ce_filter/read/_mojibake.c"], extra_compile_args=["-O2"],
                  optional=True),
        Extension("ce_filter.score.features._leaves", ["ce_filter/score/features/_leaves.c"],
                  extra_compile_args=["-O2"], optional=True),
        Extension("ce_filter.score.site._hash", ["ce_filter/score/site/_hash.c"], extra_compile_args=["-O2"],
                  optional=True),
        Extension("ce_filter.score._pagekind", ["ce_filter/score/_pagekind.c"],
                  extra_compile_args=["-O2", "-ffp-contract=off"], optional=True),
    ]
)
