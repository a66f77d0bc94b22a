"""KG conversion: one native KG file -> ``entities``, ``entity_labels``, ``entity_triples``, ``quarantine``.

The route is the same for the three KGs (DESIGN §4-5):

1. **stage** the triples into a DuckDB table, streaming (RDF via :mod:`rdf_stream`, OSMH3KG Parquet by
   DuckDB's own reader); unparseable statements -> quarantine (stage ``parse``);
2. **group** the triples of each entity subject in SQL (DuckDB spills to disk, so memory stays bounded),
   joining the geometry node (and for KnowWhereGraph the temporal scope and SOSA observations);
3. **profile** each entity in Python with the KG's profile (:mod:`profiles`): canonical name, labels by
   language, category from ``rdf:type``, geometry parsed, repaired and validated, representative point,
   H3 cells; entities that cannot be built -> quarantine (stage ``entity``) with their reason;
4. **finish** in SQL: disambiguate display names within the KG, attach source triples, and replace the
   KG's partition of every output table in one transaction.

Re-running on the same file gives the same rows in the same order.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from mgqa_platform import geometry
from mgqa_platform.kg import profiles
from mgqa_platform.kg.rdf_stream import RdfStreamReader

H3_RESOLUTIONS = (3, 5, 7, 9)
GROUP_BATCH = 20_000

ENTITY_ARROW = pa.schema(
    [
        ("entity_id", pa.string()), ("kg", pa.string()), ("iri", pa.string()), ("subject", pa.string()),
        ("name", pa.string()), ("context", pa.string()), ("category", pa.string()), ("types", pa.list_(pa.string())),
        ("wkt", pa.string()), ("geom_kind", pa.string()), ("lon", pa.float64()), ("lat", pa.float64()),
        ("h3", pa.list_(pa.string())), ("image_url", pa.string()), ("wikidata", pa.string()),
        ("valid_from", pa.string()), ("valid_to", pa.string()), ("attributes", pa.string()),
    ]
)  # fmt: skip
LABEL_ARROW = pa.schema([("entity_id", pa.string()), ("lang", pa.string()), ("label", pa.string()), ("is_alias", pa.bool_())])
QUARANTINE_ARROW = pa.schema(
    [("stage", pa.string()), ("reason", pa.string()), ("detail", pa.string()), ("source", pa.string()), ("payload", pa.string())]
)


@dataclass
class ConversionResult:
    kg: str
    triples_staged: int = 0
    entities: int = 0
    labels: int = 0
    entity_triples: int = 0
    quarantined: Counter = field(default_factory=Counter)
    categories: Counter = field(default_factory=Counter)
    geom_kinds: Counter = field(default_factory=Counter)
    ambiguous_names: int = 0

    def metadata(self) -> dict:
        return {
            "triples_staged": self.triples_staged,
            "entities": self.entities,
            "labels": self.labels,
            "entity_triples": self.entity_triples,
            "quarantined_total": sum(self.quarantined.values()),
            "quarantined_by_reason": dict(sorted(self.quarantined.items())),
            "entities_by_category_top20": dict(self.categories.most_common(20)),
            "entities_by_geom_kind": dict(sorted(self.geom_kinds.items())),
            "ambiguous_names_disambiguated": self.ambiguous_names,
        }


class _Quarantine:
    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, stage: str, reason: str, detail: str, source: str, payload: str = "") -> None:
        self.rows.append({"stage": stage, "reason": reason, "detail": detail[:500], "source": source, "payload": (payload or "")[:500]})


def _stage(con: duckdb.DuckDBPyConnection, kg: str, path: Path, q: _Quarantine) -> int:
    """Load the native file into TEMP table ``stage(s, p, o, o_kind)``; return the number of triples."""
    con.execute("CREATE OR REPLACE TEMP TABLE stage (s VARCHAR, p VARCHAR, o VARCHAR, o_kind VARCHAR)")
    if path.suffix == ".parquet":
        try:
            cols = {r[0] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)]).fetchall()}
        except duckdb.Error as e:
            raise ValueError(f"{path}: not a readable OSMH3KG Parquet file ({str(e).splitlines()[0]})") from e
        missing = {"subject", "predicate", "object"} - cols
        if missing:
            raise ValueError(f"{path}: OSMH3KG Parquet lacks column(s) {sorted(missing)}")
        for row in con.execute(
            "SELECT subject, predicate, object FROM read_parquet(?) "
            "WHERE subject IS NULL OR predicate IS NULL OR object IS NULL OR trim(subject) = '' OR trim(predicate) = ''",
            [str(path)],
        ).fetchall():
            q.add("parse", "malformed_triple", "null or empty subject/predicate/object", f"{path.name}", json.dumps(row, ensure_ascii=False))
        con.execute(
            "INSERT INTO stage SELECT subject, predicate, object, 'literal' FROM read_parquet(?) "
            "WHERE subject IS NOT NULL AND predicate IS NOT NULL AND object IS NOT NULL AND trim(subject) <> '' AND trim(predicate) <> ''",
            [str(path)],
        )
    else:
        reader = RdfStreamReader(path)
        for batch in reader.batches():
            if batch.num_rows:
                con.register("_batch", batch)
                con.execute("INSERT INTO stage SELECT * FROM _batch")
                con.unregister("_batch")
        for bad in reader.bad:
            q.add("parse", bad.reason, bad.detail, f"{path.name}:{bad.line}", bad.text)
    return int(con.execute("SELECT count(*) FROM stage").fetchone()[0])


def _grouped(con: duckdb.DuckDBPyConnection, prof: profiles.Profile):
    """Per entity subject: its (p, o) pairs, geometry WKT(s) and extra facts, in pages of Arrow tables."""
    sql = f"""
    WITH ents AS (
        SELECT DISTINCT s FROM stage WHERE p = '{prof.type_predicate}' AND {prof.entity_filter_sql}
    ),
    own AS (
        SELECT t.s, list(struct_pack(p := t.p, o := t.o) ORDER BY t.p, t.o) AS po
        FROM stage t SEMI JOIN ents USING (s) GROUP BY t.s
    ),
    geo AS (
        SELECT gl.s, list(DISTINCT w.o ORDER BY w.o) AS wkts, min(gl.o) AS geom_node
        FROM stage gl JOIN stage w ON w.s = gl.o AND w.p = '{prof.wkt_predicate}'
        WHERE gl.p = '{prof.geometry_link}' GROUP BY gl.s
    ),
    extra AS ({prof.extra_facts_sql})
    SELECT row_number() OVER (ORDER BY own.s) AS rn, own.s, own.po, geo.wkts, geo.geom_node, extra.facts
    FROM own LEFT JOIN geo USING (s) LEFT JOIN extra USING (s)
    """
    con.execute(f"CREATE OR REPLACE TEMP TABLE grouped AS {sql}")
    total = con.execute("SELECT count(*) FROM grouped").fetchone()[0]
    # page through by row number: the connection is free between pages for the inserts of the caller
    for lo in range(1, total + 1, GROUP_BATCH):
        yield con.execute(
            "SELECT s, po, wkts, geom_node, facts FROM grouped WHERE rn >= ? AND rn < ? ORDER BY rn", [lo, lo + GROUP_BATCH]
        ).fetch_arrow_table()
    con.execute("DROP TABLE IF EXISTS grouped")


def convert_kg(con: duckdb.DuckDBPyConnection, kg: str, path: str | Path, snapshot_id: str) -> ConversionResult:
    """Convert the native file of ``kg`` into the warehouse tables (replacing the KG's partition).

    ``con`` must be a warehouse connection (spatial loaded, schema ensured).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: native file of KG {kg!r} not found; materialize kg_native[{kg}] first")
    prof = profiles.PROFILES[kg]
    res = ConversionResult(kg=kg)
    q = _Quarantine()
    res.triples_staged = _stage(con, kg, path, q)

    con.register("_ents", pa.Table.from_pylist([], schema=ENTITY_ARROW))
    con.execute("CREATE OR REPLACE TEMP TABLE new_entities AS SELECT * FROM _ents")
    con.unregister("_ents")
    con.register("_labels", pa.Table.from_pylist([], schema=LABEL_ARROW))
    con.execute("CREATE OR REPLACE TEMP TABLE new_labels AS SELECT * FROM _labels")
    con.unregister("_labels")
    for batch in _grouped(con, prof):
        rows: list[dict] = []
        labels: list[dict] = []
        for rec in batch.to_pylist():
            outcome = prof.build(rec)
            if isinstance(outcome, profiles.Rejected):
                q.add("entity", outcome.reason, outcome.detail, rec["s"], outcome.payload)
                continue
            draft = outcome
            try:
                g = geometry.parse_wkt(draft.wkt)
            except geometry.GeometryError as e:
                q.add("entity", e.reason, e.detail, rec["s"], draft.wkt)
                continue
            lon, lat = geometry.representative_lonlat(g)
            entity_id = f"{kg}:{draft.local_id}"
            rows.append(
                {
                    "entity_id": entity_id, "kg": kg, "iri": draft.iri, "subject": rec["s"], "name": draft.name,
                    "context": draft.context, "category": draft.category, "types": draft.types,
                    "wkt": g.wkt, "geom_kind": geometry.geom_kind(g), "lon": lon, "lat": lat,
                    "h3": [geometry.point_cell(lon, lat, r) for r in H3_RESOLUTIONS],
                    "image_url": draft.image_url, "wikidata": draft.wikidata,
                    "valid_from": draft.valid_from, "valid_to": draft.valid_to,
                    "attributes": json.dumps(draft.attributes, sort_keys=True, ensure_ascii=False) if draft.attributes else None,
                }
            )  # fmt: skip
            labels.extend({"entity_id": entity_id, **lab} for lab in draft.labels)
        con.register("_ents", pa.Table.from_pylist(rows, schema=ENTITY_ARROW))
        con.execute("INSERT INTO new_entities SELECT * FROM _ents")
        con.unregister("_ents")
        con.register("_labels", pa.Table.from_pylist(labels, schema=LABEL_ARROW))
        con.execute("INSERT INTO new_labels SELECT * FROM _labels")
        con.unregister("_labels")

    # duplicate ids (two subjects mapping to one entity id) -> quarantine all but the first
    for eid, subj in con.execute(
        "SELECT entity_id, subject FROM (SELECT entity_id, subject, row_number() OVER (PARTITION BY entity_id ORDER BY subject) rn "
        "FROM new_entities) WHERE rn > 1 ORDER BY entity_id, subject"
    ).fetchall():
        q.add("entity", "duplicate_id", f"entity id {eid} already produced by another subject", subj)
    con.execute(
        "DELETE FROM new_entities WHERE (entity_id, subject) IN (SELECT entity_id, subject FROM "
        "(SELECT entity_id, subject, row_number() OVER (PARTITION BY entity_id ORDER BY subject) rn FROM new_entities) WHERE rn > 1)"
    )

    qtbl = pa.Table.from_pylist(q.rows, schema=QUARANTINE_ARROW)
    con.register("_quarantine", qtbl)
    _finish(con, kg, prof, snapshot_id)
    con.unregister("_quarantine")

    res.entities = con.execute("SELECT count(*) FROM entities WHERE kg = ?", [kg]).fetchone()[0]
    res.labels = con.execute("SELECT count(*) FROM entity_labels WHERE kg = ?", [kg]).fetchone()[0]
    res.entity_triples = con.execute("SELECT count(*) FROM entity_triples WHERE kg = ?", [kg]).fetchone()[0]
    res.quarantined = Counter(dict(con.execute("SELECT reason, count(*) FROM quarantine WHERE kg = ? AND stage <> 'kg_build' GROUP BY 1", [kg]).fetchall()))
    res.categories = Counter(dict(con.execute("SELECT category, count(*) FROM entities WHERE kg = ? GROUP BY 1", [kg]).fetchall()))
    res.geom_kinds = Counter(dict(con.execute("SELECT geom_kind, count(*) FROM entities WHERE kg = ? GROUP BY 1", [kg]).fetchall()))
    res.ambiguous_names = con.execute("SELECT count(*) FROM entities WHERE kg = ? AND display_name <> name", [kg]).fetchone()[0]
    con.execute("DROP TABLE IF EXISTS stage")
    for t in ("new_entities", "new_labels"):
        con.execute(f"DROP TABLE IF EXISTS {t}")
    return res


DISAMBIGUATE_SQL = """
CREATE OR REPLACE TEMP TABLE named AS
WITH lvl1 AS (
    SELECT *, count(*) OVER (PARTITION BY name) AS n_name FROM new_entities
),
lvl2 AS (
    SELECT *, CASE WHEN n_name > 1 AND context IS NOT NULL THEN name || ' (' || context || ')' ELSE name END AS dn2
    FROM lvl1
),
lvl3 AS (
    SELECT *, count(*) OVER (PARTITION BY dn2) AS n_dn2 FROM lvl2
),
lvl4 AS (
    SELECT *,
        CASE WHEN n_name > 1 AND (context IS NULL OR n_dn2 > 1)
             THEN name || ' (' || coalesce(context || ', ', '') || printf('%.4f, %.4f', lat, lon) || ')'
             ELSE dn2 END AS dn3
    FROM lvl3
)
SELECT *, CASE WHEN count(*) OVER (PARTITION BY dn3) > 1
               THEN dn3 || ' #' || split_part(entity_id, ':', 2) ELSE dn3 END AS display_name
FROM lvl4
"""


def _finish(con: duckdb.DuckDBPyConnection, kg: str, prof: profiles.Profile, snapshot_id: str) -> None:
    con.execute(DISAMBIGUATE_SQL)
    links = ", ".join("'" + p + "'" for p in prof.cited_links)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE new_triples AS
        WITH hop1 AS (
            SELECT n.entity_id, t.o AS node FROM named n JOIN stage t ON t.s = n.subject WHERE t.p IN ({links})
        ),
        hop2 AS (
            SELECT h.entity_id, t.o AS node FROM hop1 h JOIN stage t ON t.s = h.node WHERE t.p IN ({links})
        ),
        src AS (SELECT entity_id, subject AS node FROM named UNION SELECT * FROM hop1 UNION SELECT * FROM hop2)
        SELECT src.entity_id, t.s, t.p, t.o FROM src JOIN stage t ON t.s = src.node
        ORDER BY src.entity_id, t.s, t.p, t.o"""
    )
    con.execute("BEGIN TRANSACTION")
    try:
        for table in ("entities", "entity_labels", "entity_triples"):
            con.execute(f"DELETE FROM {table} WHERE kg = ?", [kg])
        con.execute("DELETE FROM quarantine WHERE kg = ? AND stage <> 'kg_build'", [kg])
        con.execute(
            """INSERT INTO entities
            SELECT entity_id, kg, iri, name, display_name, category, types, ST_GeomFromText(wkt), geom_kind,
                   lon, lat, h3, image_url, wikidata, valid_from, valid_to, attributes::JSON, ?
            FROM named ORDER BY entity_id""",
            [snapshot_id],
        )
        con.execute(
            """INSERT INTO entity_labels
            SELECT DISTINCT l.entity_id, ?, l.lang, l.label, l.is_alias FROM new_labels l SEMI JOIN named USING (entity_id)
            ORDER BY ALL""",
            [kg],
        )
        con.execute("INSERT INTO entity_triples SELECT entity_id, ?, s, p, o FROM new_triples", [kg])
        con.execute("INSERT INTO quarantine SELECT ?, stage, reason, detail, source, payload FROM _quarantine", [kg])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("DROP TABLE IF EXISTS named")
    con.execute("DROP TABLE IF EXISTS new_triples")
