"""Hand-made question records for the reference-solver tests (tests/test_solver_*.py).

A :class:`Record` is one question record (the public fields the solver reads): each
:meth:`Record.add` cites one WorldKG-style entity -- ``geo:hasGeometry`` -> ``geo:asWKT``, an
``rdfs:label``, optional ``rdf:type`` triples, a KWG-style temporal scope and extra ``(predicate,
object)`` triples -- and optionally binds it to a role. Entity ``n`` has the id ``worldkg:n`` and
the subject ``R + str(n)``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from mgqa_platform.evaluation.solver import Solution, solve

R = "http://www.worldkg.org/resource/"  #: subject namespace: entity n is R + str(n)
SCHEMA = "http://www.worldkg.org/schema/"
GEO = "http://www.opengis.net/ont/geosparql#"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
KWG = "http://stko-kwg.geog.ucsb.edu/lod/ontology/"
TIME = "http://www.w3.org/2006/time#"


def box(x0: float, y0: float, x1: float, y1: float) -> str:
    """WKT of the lon/lat rectangle [x0, x1] x [y0, y1] (counter-clockwise from (x0, y0))."""
    return f"POLYGON (({x0!r} {y0!r}, {x1!r} {y0!r}, {x1!r} {y1!r}, {x0!r} {y1!r}, {x0!r} {y0!r}))"


def point(lon: float, lat: float) -> str:
    """WKT of the point (lon, lat)."""
    return f"POINT ({lon!r} {lat!r})"


class Record:
    """Builder of one question record; ``record`` is the dict :func:`solve` reads."""

    def __init__(
        self,
        sub: str,
        fmt: str,
        executor: str,
        params: dict | None = None,
        bindings: dict | None = None,
    ):
        self.record: dict[str, Any] = {
            "question_id": f"t-{sub}",
            "sub_template_id": sub,
            "answer_format": fmt,
            "executor": f"{executor}@1",
            "bindings": dict(bindings or {}),
            "parameters": dict(params or {}),
            "gold_triples": [],
            "entity_subjects": {},
        }
        self.n = 0

    @classmethod
    def of(
        cls,
        sub: str,
        fmt: str,
        executor: str,
        geoms: dict[str, str | tuple[float, float]],
        params: dict | None = None,
    ) -> Record:
        """A record whose entities are ``geoms`` (role -> WKT or (lon, lat) point), bound in that
        order (worldkg:1, 2, ...)."""
        rec = cls(sub, fmt, executor, params)
        for role, g in geoms.items():
            rec.add(g if isinstance(g, str) else point(*g), role)
        return rec

    def add(
        self,
        wkt: str,
        role: str | None = None,
        types: tuple[str, ...] = (),
        label: str | None = None,
        extra: tuple[tuple[str, str], ...] = (),
        *,
        num: int | None = None,
        time: str | None = None,
        interval: tuple[str, str] | None = None,
    ) -> str:
        """Cite one entity and return its id: ``types`` are schema local names; ``extra``
        (predicate, object) triples on its subject; ``time`` an instant (``xsd:dateTime`` when it
        has a 'T', else ``xsd:date``), ``interval`` a (begin, end) pair of dates; ``num`` the entity
        number (default: the next one)."""
        self.n = num if num is not None else self.n + 1
        s, g = f"{R}{self.n}", f"{R}geo{self.n}"
        t = [
            [s, GEO + "hasGeometry", g],
            [g, GEO + "asWKT", wkt],
            [s, LABEL, label or f"E{self.n}"],
        ]
        t += [[s, TYPE, SCHEMA + ty] for ty in types]
        t += [[s, p, o] for p, o in extra]
        if time is not None:
            node = f"{s}/t"
            t += [
                [s, KWG + "hasTemporalScope", node],
                [node, TIME + ("inXSDDateTime" if "T" in time else "inXSDDate"), time],
            ]
        if interval is not None:
            node, b, e = f"{s}/t", f"{s}/t/b", f"{s}/t/e"
            t += [
                [s, KWG + "hasTemporalScope", node],
                [node, TIME + "hasBeginning", b],
                [node, TIME + "hasEnd", e],
                [b, TIME + "inXSDDate", interval[0]],
                [e, TIME + "inXSDDate", interval[1]],
            ]
        self.record["gold_triples"] += t
        eid = f"worldkg:{self.n}"
        self.record["entity_subjects"][eid] = s
        if role:
            self.record["bindings"][role] = eid
        return eid

    def solve(self) -> Solution:
        return solve(self.record)

    def answer(self) -> dict:
        """The solver's answer, asserting there is one."""
        s = self.solve()
        assert s.answer is not None, s
        return s.answer

    def value(self) -> Any:
        return self.answer()["value"]

    def ids(self) -> list[str]:
        return self.answer()["entity_ids"]


class Ent(NamedTuple):
    """An entity for :func:`record`: ``Ent[0]`` is its id (``worldkg:num``)."""

    id: str
    num: int
    wkt: str
    types: tuple[str, ...]
    label: str | None
    time: str | None


def ent(num: int, wkt: str, *types: str, name: str | None = None, date: str | None = None) -> Ent:
    """Entity number ``num`` with a WKT, schema types, a label (default ``E<num>``) and an
    instant."""
    return Ent(f"worldkg:{num}", num, wkt, types, name, date)


def record(
    sub: str,
    executor: str,
    fmt: str,
    bindings: dict,
    entities: list[Ent],
    parameters: dict | None = None,
) -> dict:
    """The record citing ``entities``; ``bindings`` maps roles to entity ids or categories."""
    rec = Record(sub, fmt, executor, parameters, bindings)
    for e in entities:
        rec.add(e.wkt, types=e.types, label=e.label, num=e.num, time=e.time)
    return rec.record


def geoms_record(*args, **kwargs) -> dict:
    """The record of :meth:`Record.of` (same arguments): one bound entity per role of ``geoms``."""
    return Record.of(*args, **kwargs).record


def solved(*args, **kwargs):
    """The reference solver's solution of :func:`geoms_record` (same arguments)."""
    return solve(geoms_record(*args, **kwargs))
