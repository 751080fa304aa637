"""Keeping the content: the rules after the cut, the result, its text and formats, metadata and language."""
