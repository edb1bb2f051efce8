"""Alembic migrations of the game database (run by ``Store.open``; no alembic.ini needed)."""
