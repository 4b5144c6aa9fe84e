"""The quotas and rate limits, off: tests and load runs create many games from one visitor and one
address. ``tests/app/test_quotas.py`` turns each limit on, small, where it is the subject.

Give ``QUOTAS_OFF`` as environment to a server process (``live_server(url, QUOTAS_OFF)``), or set it
in ``os.environ`` (a LiveServer copies it, and an in-process ``Settings`` reads it).
"""

from __future__ import annotations

QUOTAS_OFF: dict[str, str] = {
    "OPEN_GAMES_PER_VISITOR": "0",
    "BOT_GAMES_PER_VISITOR": "0",
    "RATE_CREATE_PER_VISITOR": "",
    "RATE_CREATE_PER_IP": "",
    "RATE_REPLAY_PER_VISITOR": "",
    "RATE_REPLAY_PER_IP": "",
    "RATE_IMPORT_PER_VISITOR": "",
    "RATE_IMPORT_PER_IP": "",
    "RATE_EXPORT_PER_VISITOR": "",
    "RATE_EXPORT_PER_IP": "",
    "RATE_EXPLORER_PER_VISITOR": "",
    "RATE_EXPLORER_PER_IP": "",
    "RATE_CHALLENGE_PER_VISITOR": "",
    "RATE_LOGIN_PER_IP": "",
    "RATE_LOGIN_PER_ACCOUNT": "",
    "RATE_SIGNUP_PER_IP": "",
    "RATE_CHAT_PER_VISITOR": "",
    "RATE_VERIFY_PER_ACCOUNT": "",
    "WS_MAX_SOCKETS_PER_IP": "1000000",
}
