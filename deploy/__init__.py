"""How Hexmoot runs in production: nginx in front of several app processes on PostgreSQL and Redis.

``nginx.conf`` is the reverse proxy's configuration, the same file for ``compose.yaml`` (containers)
and for ``cluster`` (``make cluster``: the same topology as processes of one machine, which the
tests and the benchmark drive). The app never imports this package.
"""
