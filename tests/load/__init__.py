"""Benchmarks of the server: websocket load and archive queries (``make bench``)."""
