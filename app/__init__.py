"""Hexmoot's web server: HTTP API, websocket play, archive. Rules live in ``games``, never here."""
