"""Scoring a page's blocks: the features, the page's kind, the site's other pages and the block model."""
