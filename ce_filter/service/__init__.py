"""``ce-filter serve``: the filter as an HTTP service (``serve``: the app and its gunicorn
workers), the front process that reads requests whole (``front``) and the guard on what a
``url`` may fetch (``netguard``)."""
