"""The warehouse resource: ``DuckDBResource`` with the spatial extension loaded on every connection."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from dagster_duckdb import DuckDBResource
from pydantic import Field

from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform import warehouse

#: The Dagster concurrency pool of every asset that writes the warehouse. DuckDB lets one process
#: write a file at a time, so the instance config (``mgqa_dagster/dagster.yaml``) gives the pool one
#: slot: steps of overlapping runs wait for it instead of failing on the file lock.
WAREHOUSE_POOL = "mgqa_warehouse"


class WarehouseResource(EnvConfigurableResource, DuckDBResource):
    """One DuckDB file for the whole platform (docs/data_model.md), at ``paths.warehouse_path``.

    ``get_connection`` yields a connection with ``LOAD spatial`` done (from the local
    ``duckdb-ext-spatial`` package) and the foundation schema ensured. The connection config is the
    single shared :data:`mgqa_platform.warehouse.CONNECTION_CONFIG`.
    """

    paths: PathsResource
    database: str = Field(
        default="", description="Filled from paths.warehouse_path when the resource is initialized."
    )
    connection_config: dict[str, Any] = Field(
        default_factory=lambda: dict(warehouse.CONNECTION_CONFIG)
    )

    def resolved(self) -> Self:
        out = super().resolved()
        return out.replace(database=str(out.paths.warehouse_path))

    @contextmanager
    def get_connection(self):
        if not self.database:
            raise ValueError(
                "WarehouseResource is not initialized: use it in a run, or call resolved()"
            )
        Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        with super().get_connection() as con:
            warehouse.load_spatial(con)
            warehouse.ensure_schema(con)
            yield con
