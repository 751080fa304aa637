"""ce-filter: main-content extraction for crawlers (Dragnet-style block classifier)."""

__version__ = "0.1.0"

from .api import Block, Extraction, Extractor, extract  # noqa: E402

__all__ = ["Block", "Extraction", "Extractor", "extract", "__version__"]
