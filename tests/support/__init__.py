"""Shared test helpers: fresh migrated databases and real uvicorn processes on loopback."""
