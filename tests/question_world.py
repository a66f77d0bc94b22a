"""A tiny, hand-made world for executor tests: entities with strata, labels and source triples.

``add(con, "worldkg:1", "Cafe A", "cafe", "POINT(-51.22 -30.03)")`` inserts one entity the way the
conversion stage would (geometry kind, representative point and H3 cells from
mgqa_platform.geometry), its stratum row, an English label and three source triples (type, label,
WKT), and recomputes the KG's ``category_kind`` column as conversion does.
Coordinates are WKT in EPSG:4326, (lon lat) order.
"""

from __future__ import annotations

import json

import duckdb

from mgqa_platform import geometry
from mgqa_platform.kg.convert import assign_category_kinds
from mgqa_platform.questions import roles
from mgqa_platform.questions.execution import create_pool
from mgqa_platform.questions.executor import Pool

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
AS_WKT = "http://www.opengis.net/ont/geosparql#asWKT"
HAS_GEOMETRY = "http://www.opengis.net/ont/geosparql#hasGeometry"


def add(
    con: duckdb.DuckDBPyConnection,
    entity_id: str,
    name: str,
    category: str,
    wkt: str,
    *,
    stratum: str = "UMC/high",
    iso3: str = "BRA",
    valid_from: str | None = None,
    valid_to: str | None = None,
    attributes: dict | None = None,
    display_name: str | None = None,
    name_unique: bool = True,
    image_url: str | None = None,
    name_rule: str | None = None,
) -> None:
    kg, local = entity_id.split(":", 1)
    g = geometry.parse_wkt(wkt)
    lon, lat = geometry.representative_lonlat(g)
    cells = [geometry.point_cell(lon, lat, r) for r in (3, 5, 7, 9)]
    iri = f"http://example.org/{kg}/{local}"
    con.execute(
        "INSERT INTO entities "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ST_GeomFromText(?), ?, ?, ?, ?, ?, NULL, ?, ?, "
        "?, ?, NULL)",
        [
            entity_id,
            kg,
            iri,
            name,
            display_name or name,
            name_unique,
            name_rule,
            category,
            [category],
            g.wkt,
            geometry.geom_kind(g),
            lon,
            lat,
            cells,
            image_url,
            valid_from,
            valid_to,
            json.dumps(attributes) if attributes else None,
            f"{kg}-test",
        ],
    )
    assign_category_kinds(con, kg)
    income, density = stratum.split("/") if stratum else (None, None)
    con.execute(
        "INSERT INTO entity_strata VALUES (?, ?, ?, ?, ?, NULL, ?, NULL)",
        [entity_id, kg, iso3, income, density, stratum],
    )
    con.execute("INSERT INTO entity_labels VALUES (?, ?, 'eng', ?, FALSE)", [entity_id, kg, name])
    for s, p, o in (
        (iri, RDF_TYPE, f"http://example.org/class/{category}"),
        (iri, LABEL, name),
        (iri, HAS_GEOMETRY, iri + "/geom"),
        (iri + "/geom", AS_WKT, wkt),
    ):
        con.execute("INSERT INTO entity_triples VALUES (?, ?, ?, ?, ?)", [entity_id, kg, s, p, o])


def pool(
    con: duckdb.DuckDBPyConnection, kg: str = "worldkg", seed: int = 7, per_stratum: int = 90
) -> Pool:
    """Create the ``pool`` view for ``kg`` and return the matching :class:`Pool`."""
    create_pool(con, kg)
    return Pool(kg, seed, per_stratum)


def bindable(con: duckdb.DuckDBPyConnection, role_type: str) -> dict[str, int]:
    """Category -> members, over the current ``pool`` view, of the categories a ``role_type`` role
    may bind (:func:`roles.candidate_predicate`, at least ``roles.MIN_CATEGORY_MEMBERS``
    members)."""
    rows = con.execute(
        f"""
        SELECT category, count(*) AS members
        FROM pool p
        WHERE {roles.candidate_predicate(role_type, "p")}
        GROUP BY category
        HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}
        ORDER BY category
        """
    ).fetchall()
    return dict(rows)


def run(
    con: duckdb.DuckDBPyConnection, sub_id: str, sql: str = "gold", kg: str = "osmh3kg", **values
):
    """Bind one tuple with VALUES (as ``mgqa lineage`` prints it) and run it: returns the executor's
    Outcome for ``sql="gold"``, or the premise row for ``sql="premise"``."""
    from mgqa_platform.questions.catalog import default_catalog
    from mgqa_platform.questions.executor import replay_sql
    from mgqa_platform.questions.executors import EXECUTORS

    sub = default_catalog().sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    query = replay_sql(
        ex,
        sub,
        {"row_id": 0, "kg": kg, **values},
        ex.premise_sql(sub) if sql == "premise" else None,
    )
    cur = con.execute(query)
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return row if sql == "premise" else ex.finish(sub, row)


def on_row(con: duckdb.DuckDBPyConnection, sql: str, row: dict) -> dict:
    """Run ``sql`` with ``row`` registered as the one-row relation ``t``; its first result row as a
    dict (column -> value)."""
    import pyarrow as pa

    con.register("t", pa.table({k: [v] for k, v in row.items()}))
    try:
        cur = con.execute(sql)
        return dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    finally:
        con.unregister("t")


def copy_catalog(con, source: str) -> None:
    """Insert every row of every table of the attached catalog ``source`` into the table of the
    same name in ``con``'s catalog (which ``warehouse.ensure_schema`` has created), in the
    source's row order."""
    tables = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY table_name",
        [source],
    ).fetchall()
    for (table,) in tables:
        con.execute(f"INSERT INTO {table} SELECT * FROM {source}.main.{table}")


def question_check(name: str):
    """The check ``name`` of the English questions (``mgqa_dagster/data_quality/questions.py``)."""
    from mgqa_dagster.data_quality.questions import QUESTION_CHECKS

    return next(c for c in QUESTION_CHECKS if c.name == name)


def assert_text_check_catches(check, con: duckdb.DuckDBPyConnection, clean: str, bad: str) -> None:
    """The blocking ``check`` fails on ``questions_en`` holding a ``clean`` and a ``bad`` text, and
    passes once the bad one is gone."""
    assert check.blocking
    con.execute(
        """
        CREATE OR REPLACE TABLE questions_en AS
        SELECT *
        FROM (VALUES ('q1', ?), ('q2', ?)) AS t(question_id, text)
        """,
        [clean, bad],
    )
    assert check.run(con, None).passed is False
    con.execute("DELETE FROM questions_en WHERE question_id = 'q2'")
    assert check.run(con, None).passed is True
