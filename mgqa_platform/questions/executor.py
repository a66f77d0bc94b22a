"""The executor contract: how a sub-template turns entities into a verified gold answer.

An executor is three steps, all deterministic:

1. ``candidates(sub, pool)`` -> SQL over the temp table ``pool`` (entities joined with their strata:
   one KG's, or one stratum's of it for a ``stratum_local`` executor) returning candidate tuples for
   every stratum in it: a ``stratum`` column, one column per role placeholder (entity ids, or
   category names for category roles) and optionally parameter columns. A parameter value the
   candidates supply (e.g. a direction that holds for the pair) is kept; any other parameter is
   drawn from the catalog's values with a seeded RNG per tuple. Sampling is seeded: order by
   :meth:`Pool.order_key`, never by ``random()``.
2. ``gold_sql(sub)`` -> SQL over the relation ``t(row_id, kg, <roles...>, <parameters...>)`` and the
   warehouse tables (``entities``, never ``pool``), returning **one row per row_id** with the raw
   result. The generator runs it once per batch; ``mgqa lineage`` prints it with ``t`` bound by a
   ``VALUES`` list for a single question (:func:`replay_sql`), and re-running that text reproduces
   the gold.
3. ``finish(sub, row)`` -> :class:`Outcome`: pure Python from the result row to the typed gold of
   :mod:`mgqa_platform.questions.formats` (h3 / S2 / geohash / pyproj work happens here), or a
   discard reason for degenerate executions (zero distance, empty set, division by zero ...).

Conventions: coordinates are EPSG:4326; entity columns ``lon``/``lat`` are the representative point;
DuckDB's ``ST_Distance_Spheroid`` takes points as (lat, lon) — use :func:`geodesic_km_sql`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mgqa_platform.questions import roles
from mgqa_platform.questions.catalog import SubTemplate


@dataclass(frozen=True)
class Outcome:
    """What ``finish`` makes of one result row.

    ``gold`` is a format dict (or None with a ``reason``); ``evidence`` lists the entity ids beyond
    the bindings that the answer depends on (members counted or enumerated, the nearest entity
    found ...); ``extras`` fills placeholders that come from the data (a time period, a direction
    word); ``facts`` are (s, p, o) statements the answer depends on that no KG triple states (raster
    pixels, with ``urn:mgqa:`` subjects), cited with the gold triples so that the answer stays
    reproducible from the record.
    """

    gold: dict | None
    reason: str | None = None
    evidence: tuple[str, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)
    facts: tuple[tuple[str, str, str], ...] = ()

    @classmethod
    def discard(cls, reason: str) -> Outcome:
        return cls(None, reason)


class Executor:
    """Base class; subclasses set ``name`` and implement the three steps.

    The registry of every executor is :data:`mgqa_platform.questions.executors.EXECUTORS`."""

    name: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    # predicate classes of the bound entities' source triples cited as gold triples (labels always)
    evidence: ClassVar[tuple[str, ...]] = ("geometry",)
    #: True when ``candidates`` reads only pool rows of the stratum it proposes a tuple for (every
    #: pool read is a :meth:`Pool.sample` or joined on the same stratum, every window is partitioned
    #: by stratum): the generator then runs it on the neighbourhood of each group of strata in turn,
    #: keeping the tuples of the group's strata (:attr:`Pool.strata`), which gives the same tuples
    #: (tests/test_bounded_pool.py); otherwise on the pool of the whole KG.
    stratum_local: ClassVar[bool] = False
    #: True when ``candidates`` reads, besides its stratum's rows, only pool rows that share a
    #: stored H3 cell (``entities.h3``) with a row of that stratum, and every window or count a
    #: tuple of the stratum depends on is partitioned by stratum or taken over the rows of one such
    #: cell: the generator then runs it on the cell neighbourhood of each group of strata in turn
    #: (:func:`execution.create_cell_pool`) and keeps the tuples of the group's strata, which gives
    #: the same tuples (tests/test_bounded_pool.py); otherwise on the pool of the whole KG.
    cell_local: ClassVar[bool] = False

    def cell_samples(self, sub: SubTemplate) -> tuple[tuple[str, str], ...]:
        """``(role type, salt)`` of every :meth:`Pool.sample` (``per_stratum`` rows, no ``where``) a
        ``cell_local`` executor's candidates take in every stratum and meet in a cell of another
        stratum: the cell neighbourhood then also holds each stratum's sampled rows
        (:func:`execution.sample_ids_sql`), so that a sample taken over the neighbourhood is the
        sample over the KG's pool (its top rows are all there)."""
        return ()

    #: True when ``gold_sql`` reads ``entities`` rows only by the entity id of a bound entity role
    #: (every join of ``entities`` is on ``entity_id`` = a role column of ``t``, directly or through
    #: a relation that only renames those columns): the generator then runs it on the rows of the
    #: bound entities alone (:func:`gold_query`), which gives the same rows
    #: (tests/test_bounded_pool.py); otherwise on the whole table.
    gold_bound_only: ClassVar[bool] = False

    def gold_boxes(self, sub: SubTemplate) -> str | None:
        """SQL over ``t`` and ``main.entities`` returning lon/lat boxes ``y0, y1, x0, x1`` (degrees)
        outside of which ``gold_sql`` reads no ``entities`` row other than the bound entities' (the
        boxes its own joins test, built by the same expression): the generator then runs it on the
        bound rows plus the rows in these boxes (:func:`gold_query`). None: no such bound."""
        return None

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        raise NotImplementedError

    def gold_sql(self, sub: SubTemplate) -> str:
        raise NotImplementedError

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        raise NotImplementedError

    # False premises (optional; see questions/false_premise.py). An executor that can test its
    # sub-templates' premise returns SQL over ``t`` (like gold_sql, one row per row_id) and judges
    # the row in premise_holds.
    def premise_sql(self, sub: SubTemplate) -> str | None:
        return None

    def premise_holds(self, sub: SubTemplate, row: Mapping[str, Any]) -> bool:
        return bool(row["holds"])

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"


class LocalExecutor(Executor):
    """An executor whose candidates read one stratum at a time (:attr:`Executor.stratum_local`)
    and whose gold reads only its bound entities (:attr:`Executor.gold_bound_only`)."""

    stratum_local = True
    gold_bound_only = True


@dataclass(frozen=True)
class Pool:
    """The candidate pool of one KG: the temp view ``pool`` plus seeded sampling helpers.

    ``per_stratum`` is how many candidates an executor should propose per stratum (the generator
    keeps at most 30 tuples per (template, KG, stratum) after discards and de-duplication).
    ``strata`` names the strata whose tuples the caller keeps when the ``pool`` table also holds
    rows of other strata (a neighbourhood of a group of strata, :func:`execution.create_cell_pool`);
    empty: every stratum.
    """

    kg: str
    seed: int
    per_stratum: int = 90
    strata: tuple[str, ...] = ()

    def kept(self, alias: str) -> str:
        """SQL: whether the row ``alias`` is of a stratum whose tuples the caller keeps (``TRUE``
        when ``strata`` is empty). Candidates may test it on their anchors to skip work for tuples
        that would be dropped; :func:`generate.candidate_rows` tests it on every tuple."""
        if not self.strata:
            return "TRUE"
        return f"{alias}.stratum IN ({', '.join(sql_literal(s) for s in self.strata)})"

    def order_key(self, salt: str, *columns: str) -> str:
        """A seeded, stable sort key: ``md5('<seed>|<kg>|<salt>|' || col1 || '|' || col2 ...)``."""
        cols = " || '|' || ".join(f"CAST({c} AS VARCHAR)" for c in columns) or "''"
        return f"md5('{self.seed}|{self.kg}|{salt}|' || {cols})"

    def sample(self, role_type: str, salt: str, k: int | None = None, where: str = "TRUE") -> str:
        """SQL: up to ``k`` seeded-random pool rows of ``role_type`` per stratum, with a rank ``rn``
        (1..k)."""
        k = k or self.per_stratum
        return (
            "SELECT p.*, row_number() OVER (PARTITION BY p.stratum ORDER BY "
            f"{self.order_key(salt, 'p.entity_id')}) AS rn "
            "FROM pool p "
            f"WHERE {roles.predicate(role_type, 'p')} AND ({where}) "
            f"QUALIFY rn <= {int(k)}"
        )


def geodesic_km_sql(a: str, b: str) -> str:
    """SQL for the WGS84 geodesic distance in km between the representative points of aliases ``a``
    and ``b``.

    DuckDB's ``ST_Distance_Spheroid`` expects POINT(lat lon); the entity table stores lon/lat
    columns.
    """
    return (
        f"(ST_Distance_Spheroid(ST_Point({a}.lat, {a}.lon), ST_Point({b}.lat, {b}.lon)) / 1000.0)"
    )


def bound_join(**aliases: str) -> str:
    """SQL ``FROM t JOIN entities <alias> ON <alias>.entity_id = t.<role> ...``: the bound entities
    of each row of ``t``, one alias per role (``bound_join(a="entity_A", b="entity_B")``), in the
    order given."""
    joins = " ".join(
        f"JOIN entities {al} ON {al}.entity_id = t.{role}" for al, role in aliases.items()
    )
    return f"FROM t {joins}"


def gold_query(executor: Executor, sub: SubTemplate, rows: str | None = None) -> str:
    """The gold query the generator runs over a batch ``t``: ``gold_sql`` itself, or with
    ``entities`` shadowed by a CTE of the rows it can read: the entities bound in ``t`` for a
    :attr:`Executor.gold_bound_only` executor, those and the rows inside its
    :meth:`Executor.gold_boxes` for one that gives boxes. ``rows`` names a table that holds (at
    least) the entity rows bound in ``t`` (:func:`execution.create_gold_rows`, built once per KG):
    the bound rows are then taken from it instead of the entity table, for an executor without
    boxes. The stored ``query`` of a question stays ``gold_sql`` (:func:`replay_sql`), which reads
    the whole table and returns the same row."""
    sql = executor.gold_sql(sub)
    boxes = executor.gold_boxes(sub)
    if not (executor.gold_bound_only or boxes) or not sub.entity_roles:
        return sql
    bound = " UNION ".join(f"SELECT {role} FROM t" for role in sub.entity_roles)
    cond = f"e.entity_id IN ({bound})"
    if boxes:
        cond += (
            f" OR EXISTS (SELECT 1 FROM ({boxes}) AS x WHERE e.lat >= x.y0 AND e.lat <= x.y1 "
            "AND e.lon >= x.x0 AND e.lon <= x.x1)"
        )
    source = rows if rows and not boxes else "main.entities"
    return (
        f"WITH entities AS (SELECT e.* FROM {source} e WHERE {cond})\n"
        f"SELECT * FROM (\n{sql}\n) AS g"
    )


def sql_literal(value: Any) -> str:
    """A typed SQL literal: VARCHAR for str, BIGINT for int, DOUBLE for float (so replays keep the
    batch types)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return f"CAST({value} AS BIGINT)"
    if isinstance(value, float):
        return f"CAST({value!r} AS DOUBLE)"
    return "'" + str(value).replace("'", "''") + "'"


def t_columns(sub: SubTemplate) -> list[str]:
    """Columns of the relation ``t`` for ``sub``: row_id, kg, the role placeholders, the
    parameters."""
    return ["row_id", "kg", *sub.roles, *sub.parameters]


def replay_sql(
    executor: Executor, sub: SubTemplate, values: Mapping[str, Any], sql: str | None = None
) -> str:
    """The standalone query of one question: ``gold_sql`` (or ``sql``, e.g. the premise query) with
    ``t`` bound to one row of ``values``."""
    cols = t_columns(sub)
    row = ", ".join(sql_literal(values[c]) for c in cols)
    body = (sql or executor.gold_sql(sub)).strip()
    return f"WITH t({', '.join(cols)}) AS (VALUES ({row}))\nSELECT * FROM (\n{body}\n) AS q"


def stable_hash(*parts: Any, n: int = 16) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:n]
