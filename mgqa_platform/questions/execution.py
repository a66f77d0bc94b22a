"""Executions of sub-templates and the parts of a question record built from them.

Shared by the generator (:mod:`mgqa_platform.questions.generate`) and the false-premise derivation
(:mod:`mgqa_platform.questions.false_premise`): the ``pool`` of stratified entities, the ``t``
tables of candidate tuples, rendering a variant, the entity facts a record cites and its gold
triples.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from mgqa_platform import lexicon
from mgqa_platform.kg import vocab
from mgqa_platform.kg.whole import is_whole_iri
from mgqa_platform.marks import mark
from mgqa_platform.questions import roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Outcome, Pool
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.warehouse import registered

#: Language of the generated records.
LANG = "eng"

# Predicate classes for gold triples (SQL over entity_triples.p). Labels are always cited.
PREDICATE_CLASSES = {
    "label": (
        "p LIKE '%rdf-schema#label' OR p IN ('name', 'name:en') OR p LIKE '%/nameEn' "
        "OR p LIKE '%/hospitalName' OR p LIKE '%/hasRoadSign'"
    ),
    "geometry": (
        "p LIKE '%asWKT' OR p LIKE '%hasGeometry' OR p LIKE '%hasDefaultGeometry' "
        "OR p LIKE '%spatialObject'"
    ),
    "type": "p LIKE '%rdf-syntax-ns#type' OR p = 'rdf:type'",
    "time": "p LIKE '%hasTemporalScope' OR p LIKE '%/2006/time#%'",
    "observation": "p LIKE '%/ns/sosa/%'",
    "attribute": (
        "p IN ('population', 'ele', 'admin_level', 'capital', "
        "'http://www.worldkg.org/schema/population', 'http://www.worldkg.org/schema/ele', "
        "'http://www.worldkg.org/schema/adminLevel', 'http://www.worldkg.org/schema/capital')"
    ),
    # KnowWhereGraph's links to its S2 grid cells are not cited (docs/kg_fidelity.md
    # (KnowWhereGraph))
    "topology": (
        "(p LIKE '%sfWithin' OR p LIKE '%sfContains' OR p LIKE '%sfOverlaps' "
        "OR p LIKE '%sfTouches' "
        f"OR p LIKE '%administrativePartOf') AND o NOT LIKE '{vocab.KWG_S2_CELL}%'"
    ),
}


@dataclass
class Execution:
    """One verified tuple of one sub-template: the ``t`` row, its stratum and the typed gold."""

    sub: SubTemplate
    kg: str
    stratum: str
    values: dict[str, Any]  # t row without row_id: kg, roles, parameters
    outcome: Outcome
    order: str  # seeded sort key within (sub-template, KG, stratum)


#: SQL: the stratified entity rows of the KG ``$kg`` with their strata columns, the rows of every
#: ``pool`` table; a caller appends its own conditions with ``AND``.
POOL_ROWS_SQL = """
    SELECT e.*, s.stratum, s.income_tier, s.density_tier, s.iso3
    FROM entities e
    JOIN entity_strata s ON s.entity_id = e.entity_id
    WHERE e.kg = $kg AND s.kg = $kg AND s.stratum IS NOT NULL
    """


def create_bindable_categories(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the temp table ``bindable_categories(category)`` of the lexicon's bindable
    categories, which candidate SQL reads (:func:`roles.candidate_predicate`)."""
    bindable = pa.table({"category": pa.array(lexicon.bindable_categories(), pa.string())})
    with registered(con, _bindable=bindable):
        con.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE {roles.BINDABLE_TABLE} AS
            SELECT category
            FROM _bindable
            """
        )


def create_pool(con: duckdb.DuckDBPyConnection, kg: str, stratum: str | None = None) -> None:
    """(Re)create the temp table ``pool``: entities of ``kg`` that have a stratum (only those of
    ``stratum`` when given: the bounded pool of one (KG, stratum), docs/questions.md), with strata
    columns (:data:`POOL_ROWS_SQL`); and the temp table ``bindable_categories``
    (:func:`create_bindable_categories`).

    The strata rows are filtered first (by KG and stratum) and the entity rows joined to them, so
    the table holds one stratum's rows and never the whole KG's when ``stratum`` is given."""
    create_bindable_categories(con)
    in_stratum = "TRUE" if stratum is None else "s.stratum = $stratum"
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE pool AS {POOL_ROWS_SQL} AND {in_stratum}",
        {"kg": kg} | ({} if stratum is None else {"stratum": stratum}),
    )


def sample_ids_sql(pool: Pool, samples: tuple[tuple[str, str], ...]) -> str:
    """SQL: the entity ids that :meth:`Pool.sample` (``per_stratum`` rows per stratum, ordered by
    the same seeded key) takes over the pool of ``pool.kg`` for each ``(role type, salt)`` of
    ``samples``, computed from the entity table with a top-k aggregate per stratum, which holds
    ``per_stratum`` ids per stratum and never the KG's rows."""
    return " UNION ".join(_sampled_ids_sql(pool, rtype, salt) for rtype, salt in samples)


def _sampled_ids_sql(pool: Pool, rtype: str, salt: str) -> str:
    """SQL: the ``per_stratum`` entity ids of role type ``rtype`` per stratum, by ``salt``'s key."""
    order = pool.order_key(salt, "e.entity_id")
    return f"""
        SELECT unnest(min_by(e.entity_id, {order}, {pool.per_stratum}))
        FROM entities e
        JOIN entity_strata s ON s.entity_id = e.entity_id
        WHERE e.kg = $kg AND s.kg = $kg AND s.stratum IS NOT NULL AND {roles.predicate(rtype, "e")}
        GROUP BY s.stratum
        """


#: The temp table of sampled entity ids that :func:`create_pool_samples` fills.
SAMPLES_TABLE = "pool_samples"


def create_pool_samples(
    con: duckdb.DuckDBPyConnection, pool: Pool, samples: tuple[tuple[str, str], ...]
) -> str | None:
    """(Re)create the temp table ``pool_samples(entity_id)`` of the ids that :func:`sample_ids_sql`
    returns for ``samples`` over ``pool.kg``, once per KG, and return the SQL that reads it (the
    ``samples`` argument of :func:`create_cell_pool`); None when ``samples`` is empty."""
    if not samples:
        return None
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {SAMPLES_TABLE} AS "
        f"SELECT DISTINCT * FROM ({sample_ids_sql(pool, samples)}) AS s(entity_id)",
        {"kg": pool.kg},
    )
    return f"SELECT entity_id FROM {SAMPLES_TABLE}"


def create_cell_pool(
    con: duckdb.DuckDBPyConnection, kg: str, strata: tuple[str, ...], samples: str | None = None
) -> int:
    """(Re)create the temp table ``pool`` (columns of :func:`create_pool`) holding the rows of a
    group of ``strata`` of ``kg``, every stratified row of the KG, of any stratum, that shares a
    stored H3 cell (``entities.h3``, any resolution) with one of them, and the rows whose ids the
    SQL ``samples`` returns (:func:`sample_ids_sql`, :func:`create_pool_samples`): the cell
    neighbourhood on which the generator proposes the tuples of those strata
    (``generate.pooled_candidates``). Also the temp table ``bindable_categories``. Returns the rows
    of ``pool``.

    The cells of the strata are collected first (at most four per row), and the KG's rows are joined
    to them, so the table never holds the whole KG unless the strata's cells reach every row."""
    if isinstance(strata, str):
        raise TypeError(f"create_cell_pool takes a tuple of strata, not the string {strata!r}")
    create_bindable_categories(con)
    sampled = f" OR e.entity_id IN ({samples})" if samples else ""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE pool AS
        WITH mine AS (
            SELECT DISTINCT unnest(e.h3) AS cell
            FROM entities e
            JOIN entity_strata s ON s.entity_id = e.entity_id
            WHERE e.kg = $kg AND s.kg = $kg AND list_contains($strata, s.stratum)
        ), near AS (
            SELECT DISTINCT x.entity_id
            FROM (SELECT entity_id, unnest(h3) AS cell FROM entities WHERE kg = $kg) AS x
            SEMI JOIN mine USING (cell)
        )
        {POOL_ROWS_SQL}
            AND (list_contains($strata, s.stratum)
                 OR e.entity_id IN (SELECT entity_id FROM near){sampled})
        """,
        {"kg": kg, "strata": list(strata)},
    )
    return con.execute("SELECT count(*) FROM pool").fetchone()[0]


#: The temp table of entity rows that :func:`create_gold_rows` fills.
GOLD_ROWS_TABLE = "gold_rows"


def create_gold_rows(con: duckdb.DuckDBPyConnection, ids: Iterable[str]) -> str:
    """(Re)create the temp table ``gold_rows`` holding the ``entities`` rows of ``ids`` (the
    entities bound in the candidate tuples of one KG's ``gold_bound_only`` sub-templates), read from
    the entity table in one pass; return its name, the ``rows`` of :func:`executor.gold_query`. It
    holds at most (entity roles x candidate tuples) rows, whatever the size of the KG."""
    table = pa.table({"entity_id": pa.array(sorted(set(ids)), pa.string())})
    with registered(con, _gold_ids=table):
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {GOLD_ROWS_TABLE} AS "
            "SELECT e.* FROM main.entities e SEMI JOIN _gold_ids i ON i.entity_id = e.entity_id"
        )
    return GOLD_ROWS_TABLE


def arrow_column(values: list) -> pa.Array:
    """One column of a ``t`` table: strings, else integers, else floats."""
    if all(isinstance(v, str) or v is None for v in values):
        return pa.array(values, pa.string())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pa.array(values, pa.int64())
    return pa.array([float(v) for v in values], pa.float64())


def _fmt_param(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


#: An inserted name that starts a sentence with the article (events: "the magnitude 4.9 earthquake
#: of ..."), in the plain or the marked ("{the ...}") text.
_SENTENCE_THE = re.compile(r"(^|[.?!]\s+)(\{?)the ")


def _capitalise_sentence_the(text: str) -> str:
    """``text`` with "the" capitalised where an inserted name puts it at a sentence start."""
    return _SENTENCE_THE.sub(lambda m: f"{m[1]}{m[2]}The ", text)


def render(
    text: str,
    sub: SubTemplate,
    values: Mapping,
    names: Mapping[str, str],
    extras: Mapping,
    marked: bool,
) -> str:
    """A variant's ``text`` filled with an execution's values: entity names (wrapped in ``{...}``
    when ``marked``), plural category labels (the lexicon's), parameters and the executor's extras;
    a name that starts a sentence with "the" gets a capital "The"."""
    fill: dict[str, str] = {}
    for role, rtype in sub.roles.items():
        if roles.is_category(rtype):
            fill[role] = lexicon.label(values[role])
        else:
            fill[role] = mark(names[values[role]]) if marked else names[values[role]]
    for p in sub.parameters:
        fill[p] = _fmt_param(values[p])
    for x in sub.extras:
        fill[x] = str(extras[x])
    return _capitalise_sentence_the(text.format(**fill))


def entity_info(con: duckdb.DuckDBPyConnection, ids: list[str]) -> dict[str, dict]:
    """Entity id -> iri, names, snapshot, strata columns and ``labels`` (every label, sorted).

    Raises ``RuntimeError`` when an id is not in ``entities``."""
    with registered(con, _ids=pa.table({"entity_id": pa.array(ids, pa.string())})):
        cur = con.execute(
            """
            SELECT e.entity_id, e.iri, e.name, e.display_name, e.snapshot_id, s.income_tier,
                   s.density_tier, s.iso3
            FROM _ids i
            JOIN entities e USING (entity_id)
            LEFT JOIN entity_strata s ON s.entity_id = e.entity_id
            """
        )
        names = [d[0] for d in cur.description]
        info = {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
        labels = con.execute(
            """
            SELECT l.entity_id, list(DISTINCT l.label ORDER BY l.label)
            FROM _ids i
            JOIN entity_labels l USING (entity_id)
            GROUP BY 1
            """
        ).fetchall()
    for eid, labs in labels:
        if eid in info:
            info[eid]["labels"] = labs
    missing = set(ids) - set(info)
    if missing:
        raise RuntimeError(f"executors returned unknown entity ids, e.g. {sorted(missing)[:3]}")
    return info


def triple_subject(entity_id: str, iri: str) -> str:
    """The subject under which an entity's source triples are stored in ``entity_triples``: its IRI,
    except in OSMH3KG, whose native triples use bare OSM ids (``node/42``, ``way/7``), i.e. the
    entity id's local part. A whole feature (``urn:mgqa:<family>:...``,
    :mod:`mgqa_platform.kg.whole`) states its name and merged geometry under its IRI in every KG."""
    kg, local = entity_id.split(":", 1)
    return local if kg == "osmh3kg" and not is_whole_iri(iri) else iri


def entity_subjects(e: Execution, info: Mapping[str, dict]) -> dict[str, str]:
    """Entity id -> triple subject for the bound and evidence entities of an execution: lets a
    reader (or the reference solver) attach the cited gold triples to bindings without the
    warehouse."""
    ids = [e.values[r] for r in e.sub.entity_roles] + list(e.outcome.evidence)
    return {i: triple_subject(i, info[i]["iri"]) for i in ids}


def gold_triples(con: duckdb.DuckDBPyConnection, chosen: list[Execution]) -> list[list[list[str]]]:
    """Per chosen execution: the cited (s, p, o) triples of its bound entities and evidence,
    sorted."""
    if not chosen:
        return []
    rows = []
    for idx, e in enumerate(chosen):
        executor = EXECUTORS[e.sub.executor]
        classes = ("label", *executor.evidence)
        for eid in [e.values[r] for r in e.sub.entity_roles] + list(e.outcome.evidence):
            for cls in classes:
                rows.append((idx, eid, cls))
    req = pa.table(
        {
            "idx": pa.array([r[0] for r in rows], pa.int64()),
            "entity_id": pa.array([r[1] for r in rows], pa.string()),
            "cls": pa.array([r[2] for r in rows], pa.string()),
        }
    )
    cases = " ".join(f"WHEN r.cls = '{c}' THEN ({sql})" for c, sql in PREDICATE_CLASSES.items())
    with registered(con, _req=req):
        found = con.execute(
            f"""
            SELECT DISTINCT r.idx, x.s, x.p, x.o
            FROM _req r
            JOIN entity_triples x ON x.entity_id = r.entity_id
            WHERE CASE {cases} ELSE FALSE END
            ORDER BY r.idx, x.s, x.p, x.o
            """
        ).fetchall()
    out: list[list[list[str]]] = [[] for _ in chosen]
    for idx, s, p, o in found:
        out[idx].append([s, p, o])
    # non-KG facts (raster pixels): cited too, in the same sorted order
    for idx, e in enumerate(chosen):
        if e.outcome.facts:
            out[idx] = sorted(out[idx] + [list(f) for f in e.outcome.facts])
    return out
