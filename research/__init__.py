"""Studies, ablations and variants not adopted: run from a checkout (``python -m research.NAME``),
never installed. They use the product's engine and training tool chain (``ce_filter``,
``ce_filter.learn``); nothing of the product imports them."""
