"""The site memory: what a site's other pages share with a page (block fingerprints counted per
host, ``memory``), and the second-stage model that reads those counts (``stage``)."""
