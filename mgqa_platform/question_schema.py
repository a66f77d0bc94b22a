"""The question record, declared once: Arrow schemas with one description per field.

Three warehouse tables hold question records:

* ``questions_en`` (:data:`QUESTION_SCHEMA`): the full English record (gold, query, bindings,
  triples...);
* ``questions_localized`` (:data:`LOCALIZED_SCHEMA`): per language, only the re-rendered text and
  how it was rendered; everything else is read from ``questions_en`` by ``question_id``;
* ``questions_postedited`` (:data:`POSTEDITED_SCHEMA`): per language, the text after the post-edit
  ensemble and what the ensemble did.

Everything else is derived from these schemas: the DuckDB DDL (:func:`create_table_sql`), the Arrow
types used when inserting (:func:`arrow_table`), the release schema and column order
(:data:`RELEASE_SCHEMA`: the released fields of ``questions_en`` in declaration order, then the
released language fields) and the column descriptions of the dataset card and of the Dagster UI.

Field metadata: ``description`` (one line of prose; for released fields it is the dataset card's
text), ``sql_type`` where the DuckDB type is not the plain mapping of the Arrow type (``JSON``: JSON
text in Arrow), and ``released: false`` for working columns that stay in the warehouse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

#: DuckDB type of each Arrow type used by the question tables.
_SQL_TYPES: dict[pa.DataType, str] = {
    pa.string(): "VARCHAR",
    pa.bool_(): "BOOLEAN",
    pa.list_(pa.string()): "VARCHAR[]",
}


#: Arrow type of most question fields (text, ids, JSON text).
_STRING = pa.string()


def _field(
    name: str,
    description: str,
    typ: pa.DataType = _STRING,
    *,
    nullable: bool = True,
    json: bool = False,
    released: bool = True,
) -> pa.Field:
    meta = {"description": description}
    if json:
        meta["sql_type"] = "JSON"
    if not released:
        meta["released"] = "false"
    return pa.field(name, typ, nullable=nullable, metadata=meta)


_QUESTION_FIELDS = (
    _field(
        "question_id",
        "Stable id of the question; the same id in every language (key: question_id + lang).",
        nullable=False,
    ),
    _field("lang", "ISO 639-3 code of the question text.", nullable=False),
    _field(
        "kg",
        "Knowledge graph the question is asked over: worldkg, kwg (KnowWhereGraph) or osmh3kg.",
        nullable=False,
    ),
    _field("sfid", "Spatial function family (A..N).", nullable=False),
    _field("tid", "Top-level template id.", nullable=False),
    _field("sub_template_id", "Parameter-bound sub-template that was executed.", nullable=False),
    _field("variant_id", "Wording variant of the sub-template.", nullable=False),
    _field("text", "The question as shown to a model.", nullable=False),
    _field("text_marked", "The question with entity names wrapped in {braces}.", nullable=False),
    _field(
        "answer_format",
        "One of the 15 answer formats (boolean, distance, point, bbox, ...); "
        "fixes the scoring rule.",
        nullable=False,
    ),
    _field("gold", "Gold answer, typed JSON for the answer format.", nullable=False, json=True),
    _field(
        "gold_aliases",
        "JSON list of accepted alternative names for entity answers (or null).",
        json=True,
    ),
    _field("unit", "Unit of a numeric gold answer (km, km2, deg ...), or null."),
    _field(
        "bindings",
        "JSON object: template role -> entity id (`<kg>:<local id>`) or literal value.",
        nullable=False,
        json=True,
    ),
    _field(
        "parameters",
        "JSON object of template parameters (distance thresholds, resolutions, directions ...).",
        json=True,
    ),
    _field(
        "false_premise",
        "True when the question presupposes something false; the expected answer is a refusal.",
        pa.bool_(),
        nullable=False,
    ),
    _field(
        "perturbation",
        "JSON description of how a false-premise question was perturbed (or null): role, "
        "original and "
        "replacement binding, premise (catalog text), "
        "premise_kind (what the question presupposes), why "
        "(the broken premise in words), anchor_role and replacement_km (WGS84 geodesic km from the "
        "anchor's representative point to the replacement's, "
        "or to the replacement category's nearest "
        "member), derived_from (the true question's id).",
        json=True,
    ),
    _field(
        "multimodal",
        "True when the question comes with an image of an entity.",
        pa.bool_(),
        nullable=False,
    ),
    _field("image_url", "Image of the multimodal slice (or null)."),
    _field(
        "image_role",
        "Template role whose entity the multimodal twin shows as an image instead of naming it "
        "(null when not multimodal).",
        released=False,
    ),
    _field("stratum", "Income/density stratum of the bound entities, e.g. HIC/high."),
    _field(
        "income_tier",
        "World Bank income tier of the entity's country (LIC, LMC, UMC, HIC).",
    ),
    _field(
        "density_tier",
        "Population-density tier of the entity's H3 cell (low, medium, high).",
    ),
    _field("country_iso3", "ISO 3166-1 alpha-3 code of the entity's country."),
    _field(
        "executor",
        "Name and version of the code that computed the gold answer.",
        nullable=False,
    ),
    _field(
        "query",
        "The exact SQL or computation that produced the gold answer (re-runnable).",
        nullable=False,
    ),
    _field(
        "gold_triples",
        "JSON list of the source triples (subject, predicate, object) the answer rests on.",
        nullable=False,
        json=True,
    ),
    _field(
        "entity_subjects",
        "JSON object: entity id -> subject IRI in its knowledge graph.",
        nullable=False,
        json=True,
    ),
    _field(
        "snapshot_ids",
        "Ids (`<file>-<sha256 prefix>`) of the knowledge-graph files the entities were read from.",
        pa.list_(pa.string()),
    ),
    _field("code_version", "Version of the question generator."),
    _field(
        "run_id",
        "Dagster run that generated the question (not released: it differs between runs).",
        released=False,
    ),
)

#: ``questions_en``: the English question record.
QUESTION_SCHEMA: pa.Schema = pa.schema(_QUESTION_FIELDS)

_KEY_AND_TEXT = tuple(
    QUESTION_SCHEMA.field(n) for n in ("lang", "question_id", "text", "text_marked")
)

#: ``questions_localized``: one row per (lang, question_id), the question re-rendered in ``lang``.
LOCALIZED_SCHEMA: pa.Schema = pa.schema(
    [
        *_KEY_AND_TEXT,
        _field(
            "template_text",
            "Resolved template of the variant in the language, as rendered.",
            nullable=False,
            released=False,
        ),
        _field(
            "template_status",
            "Review status of the localized template: source (English), unreviewed, resolved, "
            "needs_review, untranslated.",
            nullable=False,
        ),
        _field(
            "fallbacks",
            "JSON list of slots that fell back to English text "
            "(`label:<role>`, `category:<role>` ...).",
            nullable=False,
            json=True,
        ),
    ]
)

#: ``questions_postedited``: one row per (lang, question_id), the text after the post-edit ensemble.
POSTEDITED_SCHEMA: pa.Schema = pa.schema(
    [
        *_KEY_AND_TEXT,
        _field(
            "text_marked_localized",
            "The marked question before the post-edit ensemble (questions_localized.text_marked).",
            nullable=False,
            released=False,
        ),
        _field(
            "postedit_decision",
            "Outcome of the automatic post-edit ensemble (none = text unchanged).",
            nullable=False,
        ),
        _field(
            "postedit_edits",
            "JSON list of the edits applied by the post-edit ensemble.",
            nullable=False,
            json=True,
        ),
    ]
)

#: Schema of each question table, by table name.
TABLES: dict[str, pa.Schema] = {
    "questions_en": QUESTION_SCHEMA,
    "questions_localized": LOCALIZED_SCHEMA,
    "questions_postedited": POSTEDITED_SCHEMA,
}


def description(field: pa.Field) -> str:
    return (field.metadata or {}).get(b"description", b"").decode("utf-8")


def is_json(field: pa.Field) -> bool:
    return (field.metadata or {}).get(b"sql_type") == b"JSON"


def is_released(field: pa.Field) -> bool:
    return (field.metadata or {}).get(b"released") != b"false"


def sql_type(field: pa.Field) -> str:
    """The DuckDB type of ``field``: its ``sql_type`` metadata, else the mapping of its Arrow
    type."""
    declared = (field.metadata or {}).get(b"sql_type")
    return declared.decode("utf-8") if declared else _SQL_TYPES[field.type]


def create_table_sql(table: str) -> str:
    """``CREATE TABLE IF NOT EXISTS`` of one question table, columns in declaration order."""
    columns = ",\n".join(
        f"    {f.name} {sql_type(f)}{'' if f.nullable else ' NOT NULL'}" for f in TABLES[table]
    )
    return f"CREATE TABLE IF NOT EXISTS {table} (\n{columns}\n);\n"


def arrow_table(schema: pa.Schema, rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """``rows`` (dicts with at least the schema's fields) as an Arrow table of ``schema``'s types.

    Field metadata and nullability are dropped: the table is an insert buffer (DuckDB enforces NOT
    NULL)."""
    return pa.table(
        {f.name: pa.array([r[f.name] for r in rows], f.type) for f in schema},
    )


#: The released columns, in file order: the released fields of ``questions_en``, then those of
#: ``questions_localized`` and ``questions_postedited`` that are not key or text.
RELEASED_FIELDS: tuple[pa.Field, ...] = (
    *(f for f in QUESTION_SCHEMA if is_released(f)),
    *(
        f
        for s in (LOCALIZED_SCHEMA, POSTEDITED_SCHEMA)
        for f in s
        if is_released(f) and f not in _KEY_AND_TEXT
    ),
)

#: The Parquet schema of every release file: nullable fields, no field or schema metadata, JSON as
#: text.
RELEASE_SCHEMA: pa.Schema = pa.schema([pa.field(f.name, f.type) for f in RELEASED_FIELDS])


def source_table(name: str) -> str:
    """The question table a released column is read from: the language tables for their own fields
    (``text`` and ``text_marked`` from ``questions_postedited``), else ``questions_en``."""
    for table in ("questions_postedited", "questions_localized"):
        if name in TABLES[table].names:
            return table
    return "questions_en"


def descriptions(fields: Iterable[pa.Field]) -> dict[str, str]:
    """Field name -> description."""
    return {f.name: description(f) for f in fields}
