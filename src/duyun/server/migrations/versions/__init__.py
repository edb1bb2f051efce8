"""Migration scripts, applied in order by ``alembic upgrade head``."""
