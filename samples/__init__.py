"""The sample WARC the demo runs on (``sample.warc.gz``, package data; built by
``scripts/make_sample.py``, see README.md beside it)."""
