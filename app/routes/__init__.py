"""HTTP and websocket routes: they parse input and map errors; the work is in ``app.services``."""
