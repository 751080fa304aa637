"""Page kinds (article, documentation, service, forum, collection, listing, product): the kind
model over page signals (``model``), when its answer is stated (``gate``), and the rules applied
after the cut by the page's kind (``after_cut``)."""
