"""ce-filter: main-content extraction for crawlers (Dragnet-style block classifier)."""

from .api import Block, Extraction, Extractor, extract
from .version import __version__

__all__ = ["Block", "Extraction", "Extractor", "extract", "__version__"]
