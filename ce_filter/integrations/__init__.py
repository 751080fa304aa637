"""Steps for other data-processing frameworks (each behind its own extra)."""
