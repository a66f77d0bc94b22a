"""The warehouse resource: ``DuckDBResource`` with the spatial extension loaded on every connection."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dagster_duckdb import DuckDBResource
from pydantic import Field

from mgqa_platform import warehouse


class WarehouseResource(DuckDBResource):
    """One DuckDB file for the whole platform (DESIGN §10).

    ``get_connection`` yields a connection with ``LOAD spatial`` done (from the local
    ``duckdb-ext-spatial`` package) and the foundation schema ensured. The connection config is the
    single shared :data:`mgqa_platform.warehouse.CONNECTION_CONFIG`.
    """

    connection_config: dict[str, Any] = Field(default_factory=lambda: dict(warehouse.CONNECTION_CONFIG))

    @contextmanager
    def get_connection(self):
        if self.database != ":memory:":
            Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        with super().get_connection() as con:
            warehouse.load_spatial(con)
            warehouse.ensure_schema(con)
            yield con
