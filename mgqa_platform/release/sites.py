"""Entity sites of the release: one GeoParquet row per entity bound in any released question.

The bound entities are the values of ``bindings`` (a JSON object role -> entity id, stored in
``questions_en``) of the questions in ``questions_postedited``, all languages together; a value
without ``:`` is not an entity id (``<kg>:<local id>``) and is skipped. Their geometries come from
``entities.geometry`` (EPSG:4326) as WKB. The file is written by geopandas (``to_parquet``, no
index), so it carries the GeoParquet ``geo`` metadata; rows are ordered by ``entity_id`` and the
bytes are the same on every rewrite of the same inputs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb
import geopandas as gpd
import pandas as pd
import pyarrow as pa
import shapely

from mgqa_platform.files import atomic_path, sha256_file

SITES_FILE = "entity_sites.parquet"  #: file name inside the release folder
SITE_COLUMNS = (
    "entity_id",
    "kg",
    "name",
    "display_name",
    "category",
    "geom_kind",
    "lon",
    "lat",
    "snapshot_id",
)
CRS = "EPSG:4326"


def _entity_ids(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        if ":" in value:
            yield value
    elif isinstance(value, list):
        for v in value:
            yield from _entity_ids(v)


def bound_entity_ids(bindings_json: Iterable[str | None]) -> list[str]:
    """Sorted distinct entity ids bound in the given ``bindings`` JSON texts (values without ``:``
    skipped)."""
    ids: set[str] = set()
    for text in bindings_json:
        if text:
            for value in json.loads(text).values():
                ids.update(_entity_ids(value))
    return sorted(ids)


def released_entity_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Sorted distinct entity ids bound in the questions of ``questions_postedited`` (every
    language; the bindings are those of the English records)."""
    rows = con.execute(
        """
        SELECT DISTINCT CAST(e.bindings AS VARCHAR)
        FROM questions_en e
        WHERE e.question_id IN (SELECT question_id FROM questions_postedited)
        """
    ).fetchall()
    return bound_entity_ids(r[0] for r in rows)


def site_frame(con: duckdb.DuckDBPyConnection, ids: list[str]) -> gpd.GeoDataFrame:
    """GeoDataFrame of the entities ``ids`` found in ``entities`` (ordered by entity_id,
    EPSG:4326)."""
    con.register("_release_ids", pa.table({"entity_id": pa.array(ids, pa.string())}))
    try:
        cur = con.execute(
            f"SELECT {', '.join('e.' + c for c in SITE_COLUMNS)}, ST_AsWKB(e.geometry) AS wkb "
            "FROM _release_ids i JOIN entities e USING (entity_id) ORDER BY e.entity_id, e.kg"
        )
        rows = cur.fetchall()
    finally:
        con.unregister("_release_ids")
    frame = pd.DataFrame(
        {
            c: pd.Series([r[i] for r in rows], dtype="float64" if c in ("lon", "lat") else object)
            for i, c in enumerate(SITE_COLUMNS)
        }
    )
    geometry = (
        gpd.GeoSeries(shapely.from_wkb([bytes(r[-1]) for r in rows]), crs=CRS)
        if rows
        else gpd.GeoSeries([], crs=CRS)
    )
    return gpd.GeoDataFrame(frame, geometry=geometry, crs=CRS)


def write_entity_sites(con: duckdb.DuckDBPyConnection, path: str | Path) -> dict[str, Any]:
    """Write the entity sites GeoParquet to ``path`` (temp file + replace); return its path, rows,
    sha256, kinds.

    ``missing`` counts bound ids with no row in ``entities`` (they are not in the file)."""
    ids = released_entity_ids(con)
    gdf = site_frame(con, ids)
    with atomic_path(path) as tmp:
        gdf.to_parquet(tmp, index=False, compression="zstd", row_group_size=65_536)
    kinds = Counter(gdf["geom_kind"].tolist())
    return {
        "path": str(path),
        "rows": len(gdf),
        "sha256": sha256_file(path),
        "geom_kinds": dict(sorted(kinds.items())),
        "missing": len(ids) - gdf["entity_id"].nunique(),
    }
