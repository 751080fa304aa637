"""Running many pages: child processes under a per-page budget of CPU time and memory."""
