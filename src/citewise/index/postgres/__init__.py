"""The PostgreSQL + pgvector (>= 0.8) backend: :class:`PostgresStore` and its version catalog
:class:`PostgresCatalog`. Needs psycopg 3 and psycopg_pool (``pip install 'citewise[postgres]'``);
they are imported when a store first connects, not here."""

from citewise.index.postgres.catalog import PostgresCatalog
from citewise.index.postgres.store import PostgresStore

__all__ = ["PostgresCatalog", "PostgresStore"]
