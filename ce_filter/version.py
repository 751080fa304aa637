"""The package's version, where every module reads it (the package imports its public face
after it)."""

__version__ = "0.1.0"
