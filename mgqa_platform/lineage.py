"""Provenance chains read from the warehouse (``mgqa lineage``).

For a question: question -> template variant -> executor and query (re-run on the spot) -> bound
entities -> their cited source triples -> native KG file and hash -> OSM snapshot -> the Dagster
runs. For an entity: the same chain from the entity down.
"""

from __future__ import annotations

import json

import duckdb

from mgqa_platform.kg import vocab

#: Source triples listed per bound entity of a question (its gold triples are listed in full).
BOUND_TRIPLES = 10


def summary(obj: object) -> str:
    """The first paragraph of the docstring of ``obj``'s class, on one line ("" without one)."""
    doc = (type(obj).__doc__ or "").strip()
    return " ".join(doc.split("\n\n")[0].split())


def describe(con: duckdb.DuckDBPyConnection, some_id: str, max_triples: int = 40) -> str:
    """Lineage of a question id (``q...``) or an entity id (``worldkg:123``). Raises ``KeyError`` if
    unknown."""
    has_questions = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'questions_en'"
    ).fetchone()[0]
    if (
        has_questions
        and con.execute(
            "SELECT count(*) FROM questions_en WHERE question_id = ?", [some_id]
        ).fetchone()[0]
    ):
        return describe_question(con, some_id, max_triples)
    whole = con.execute(
        """
        SELECT entity_id
        FROM entity_parts
        WHERE part_entity_id = ?
        """,
        [some_id],
    ).fetchone()
    if whole:
        header = f"{some_id} is a part of the whole feature {whole[0]} (merged at KG conversion)"
        return header + "\n" + describe_entity(con, whole[0], max_triples)
    try:
        return describe_entity(con, some_id, max_triples)
    except KeyError:
        raise KeyError(
            f"unknown id {some_id!r} (expected a question id such as 'q0123abcd...' or an "
            "entity id such as 'worldkg:12345')"
        ) from None


def describe_question(
    con: duckdb.DuckDBPyConnection, question_id: str, max_triples: int = 40
) -> str:
    """The chain from one question down to the OSM snapshot; the stored query is re-run and
    compared."""
    from mgqa_platform.questions.catalog import default_catalog
    from mgqa_platform.questions.executors import EXECUTORS
    from mgqa_platform.questions.generate import replay

    cur = con.execute("SELECT * FROM questions_en WHERE question_id = ?", [question_id])
    row = cur.fetchone()
    if row is None:
        raise KeyError(f"unknown question id {question_id!r}")
    q = dict(zip([d[0] for d in cur.description], row, strict=True))
    tpl = con.execute(
        "SELECT text, template, sub_function, catalog_version FROM templates WHERE variant_id = ?",
        [q["variant_id"]],
    ).fetchone()
    executor = EXECUTORS.get(q["executor"].split("@")[0])
    try:
        again = replay(con, default_catalog(), q)
        verdict = (
            "reproduces the stored gold"
            if again == json.loads(q["gold"])
            else f"DIFFERS from the stored gold: {json.dumps(again, sort_keys=True)}"
        )
    except Exception as exc:  # report, do not hide, a replay that fails
        verdict = f"FAILED: {type(exc).__name__}: {exc}"
    lines = [
        f"question    {q['question_id']}  ({q['lang']}, {q['kg']}, stratum {q['stratum']}, "
        f"country {q['country_iso3']})",
        f"  text      {q['text']}",
        f"  gold      {q['gold']}  [{q['answer_format']}]",
        f"template    {q['sfid']} / {q['tid']}" + (f" ({tpl[2]}): {tpl[1]}" if tpl else ""),
        f"  variant   {q['variant_id']}: {tpl[0] if tpl else '?'}   "
        f"(catalog {tpl[3] if tpl else '?'})",
        f"  bindings  {q['bindings']}   parameters {q['parameters']}",
        *(
            [
                f"  false premise: {q['perturbation']} "
                "(the query below is the premise query; it must show the premise failing)"
            ]
            if q["false_premise"]
            else []
        ),
        *([f"  multimodal: the entity is shown by {q['image_url']}"] if q["multimodal"] else []),
        f"executor    {q['executor']}"
        + (
            f"  ({type(executor).__module__}.{type(executor).__qualname__}: {summary(executor)})"
            if executor
            else "  (not registered)"
        ),
        "query       (DuckDB SQL; its result row goes through the executor's finish step)",
        *("  " + line for line in q["query"].splitlines()),
        f"  re-run    {verdict}",
    ]
    triples = json.loads(q["gold_triples"])
    lines.append(f"gold triples ({len(triples)})")
    lines += [f"  <{s}> <{p}> {o!r}" for s, p, o in triples[:max_triples]]
    if len(triples) > max_triples:
        lines.append(f"  ... {len(triples) - max_triples} more")
    for role, eid in json.loads(q["bindings"]).items():
        if ":" not in str(eid):
            lines.append(f"bound {role}: category {eid!r}")
            continue
        lines.append(f"bound {role}")
        shown = describe_entity(con, eid, min(max_triples, BOUND_TRIPLES))
        lines += ["  " + line for line in shown.splitlines()]
    lines.append(
        f"questions built by Dagster run {q['run_id'] or '(outside Dagster)'}; code "
        f"version {q['code_version'] or '-'}"
    )
    return "\n".join(lines)


def _parts_lines(con: duckdb.DuckDBPyConnection, entity_id: str) -> list[str]:
    """The parts a whole feature was merged from (``entity_parts``), none for any other entity."""
    parts = con.execute(
        """
        SELECT part_entity_id, part_subject
        FROM entity_parts
        WHERE entity_id = ?
        ORDER BY part_entity_id
        """,
        [entity_id],
    ).fetchall()
    if not parts:
        return []
    return [f"parts ({len(parts)}), merged at conversion; their triples are cited above"] + [
        f"  {pid}  (subject {subject})" for pid, subject in parts
    ]


def _file_lines(con: duckdb.DuckDBPyConnection, kg: str, snapshot_id: str) -> list[str]:
    """The entity's own native file (the one its row was converted from, not the KG's newest),
    its runs and the OSM snapshot it was built from; a note when the KG has a newer file."""
    from mgqa_platform.kg import native

    own = native.file_of(con, kg, snapshot_id)
    if own is None:
        return [f"native KG file  {snapshot_id} (not recorded in this warehouse)"]
    lines = [
        f"native KG file  {own['path']}",
        f"  sha256    {own['sha256']}  (snapshot id {own['snapshot_id']})",
        f"  built by Dagster run {own['run_id']}; converted by run {own['conversion_run_id']}",
    ]
    if own["source_snapshot_id"]:
        s = con.execute(
            "SELECT path, sha256, osm_timestamp FROM snapshots WHERE snapshot_id = ?",
            [own["source_snapshot_id"]],
        ).fetchone()
        lines.append(f"OSM snapshot  {own['source_snapshot_id']}")
        if s:
            lines += [
                f"  file      {s[0]}",
                f"  sha256    {s[1]}  (header timestamp {s[2] or 'n/a'})",
            ]
    newest = native.current(con, kg)
    if newest and newest["snapshot_id"] != snapshot_id:
        lines.append(
            f"note: {kg}'s newest native file is {newest['snapshot_id']} (from "
            f"{newest['source_snapshot_id'] or 'its crawl'}); this entity row is not converted "
            "from it yet"
        )
    return lines


def describe_entity(con: duckdb.DuckDBPyConnection, entity_id: str, max_triples: int = 40) -> str:
    """Entity -> its source triples -> its own native KG file (path, hash, build and conversion
    runs) -> the OSM snapshot that file was built from.

    Raises ``KeyError`` if the id is unknown.
    """
    cur = con.execute(
        "SELECT entity_id, kg, iri, name, display_name, category, geom_kind, lon, lat, "
        "snapshot_id "
        "FROM entities "
        "WHERE entity_id = ?",
        [entity_id],
    )
    row = cur.fetchone()
    if row is None:
        raise KeyError(f"unknown id {entity_id!r} (expected an entity id such as 'worldkg:12345')")
    e = dict(zip([d[0] for d in cur.description], row, strict=True))
    lines = [
        f"entity      {e['entity_id']}  ({e['category']}, {e['geom_kind']})",
        f"  name      {e['name']}   display: {e['display_name']}",
        f"  iri       {e['iri']}",
        f"  point     lon {e['lon']:.6f}, lat {e['lat']:.6f} (EPSG:4326)",
    ]
    if str(e["iri"]).startswith(vocab.USGS_EVENT):
        lines.append(
            "  source    USGS ComCat earthquake catalog (public domain), "
            "an event source of its own "
            "carried in the kwg partition; not KnowWhereGraph data"
        )
    triples = con.execute(
        "SELECT s, p, o FROM entity_triples WHERE entity_id = ? ORDER BY s, p, o LIMIT ?",
        [entity_id, max_triples],
    ).fetchall()
    total = con.execute(
        "SELECT count(*) FROM entity_triples WHERE entity_id = ?", [entity_id]
    ).fetchone()[0]
    lines.append(f"source triples ({total})")
    lines += [f"  <{s}> <{p}> {o!r}" for s, p, o in triples]
    if total > max_triples:
        lines.append(f"  ... {total - max_triples} more")
    lines += _parts_lines(con, entity_id)
    lines += _file_lines(con, e["kg"], e["snapshot_id"])
    return "\n".join(lines)
