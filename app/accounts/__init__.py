"""Accounts: usernames, passwords and session tokens (pure helpers; the flows are in
:mod:`app.services.accounts`)."""
