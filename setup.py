"""The one compiled part: the segmenter's walk (ce_filter/_walk.c).

It is optional: where it does not build (no C compiler, not Linux/macOS), the install still
succeeds and ce_filter.segment uses the pure-Python walk, which gives the same blocks.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ce_filter._walk",
            ["ce_filter/_walk.c"],
            libraries=["dl"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
