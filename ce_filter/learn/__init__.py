"""The learning tool chain: labelled corpora (``corpus``), block labels by aligning the gold
text (``labels``), fitting the logistic regression (``fit``), the named training
configurations and the ``train`` command (``configs``), the metric (``evaluate``) and the
ablation (``ablation``). Training needs scikit-learn (extra ``train``); serving never imports
this package."""
