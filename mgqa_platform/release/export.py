"""Question Parquet files of the release: one file per language and split (``large``, ``small``).

The source is ``questions_postedited`` (one slice per ``lang``: the text) joined with
``questions_en`` (the record) and ``questions_localized`` (how the text was rendered). Every
language has the same flat schema (:data:`RELEASE_COLUMNS`, derived from the declared question
record in :mod:`mgqa_platform.questions.schema`), so that Hugging Face ``datasets`` reads each
config without a features override: JSON columns (``gold``, ``bindings``, ``gold_triples``...) are
released as the JSON text DuckDB stores, booleans as ``bool`` and ``snapshot_ids`` as
``list<string>``.

``run_id`` is deliberately not released: it names the Dagster run and differs between runs, while a
release built twice from the same inputs must be byte-identical. The run stays in the warehouse
(``mgqa lineage``). The working columns (``image_role``, ``template_text``,
``text_marked_localized``) are not released either; ``template_status``, ``fallbacks``,
``postedit_decision`` and ``postedit_edits`` are, so a user can tell machine-quality text from
post-edited text.

Files are written by :func:`write_table`: fixed Parquet options, no pandas metadata, a temp file in the
target folder then ``os.replace`` (an interrupted run never leaves a half-written file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mgqa_platform.files import atomic_path, sha256_file
from mgqa_platform.multilingual.languages import language
from mgqa_platform.questions import schema

SPLITS = ("large", "small")

#: The released columns, in file order, with their Arrow types (JSON columns as JSON text).
RELEASE_COLUMNS: tuple[tuple[str, pa.DataType], ...] = tuple(
    (f.name, f.type) for f in schema.RELEASE_SCHEMA
)
JSON_COLUMNS: tuple[str, ...] = tuple(f.name for f in schema.RELEASED_FIELDS if schema.is_json(f))
RELEASE_SCHEMA: pa.Schema = schema.RELEASE_SCHEMA

#: Alias of each question table in the release query.
_ALIASES = {"questions_en": "e", "questions_localized": "l", "questions_postedited": "p"}

#: Fixed Parquet writer options: the same table always gives the same bytes (for one pyarrow version).
ROW_GROUP_SIZE = 65_536
PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 9,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
}


def split_path(lang: str, split: str) -> str:
    """Relative (posix) path of a split file inside the release folder: ``data/<lang>/<split>.parquet``."""
    return f"data/{lang}/{split}.parquet"


def _select_sql() -> str:
    cols = []
    for name, _ in RELEASE_COLUMNS:
        col = f"{_ALIASES[schema.source_table(name)]}.{name}"
        if name in JSON_COLUMNS:
            col = f"CAST({col} AS VARCHAR)"
        cols.append(f"{col} AS {name}")
    select = ",\n       ".join(cols)
    return f"""
SELECT {select}
FROM questions_postedited p
JOIN questions_en e ON e.question_id = p.question_id
JOIN questions_localized l ON l.lang = p.lang AND l.question_id = p.question_id
WHERE p.lang = ?
ORDER BY p.question_id
"""


def to_release_schema(table: pa.Table) -> pa.Table:
    """``table``'s release columns, in order, cast to :data:`RELEASE_SCHEMA` (field and schema metadata dropped)."""
    arrays = [table.column(name).cast(typ).combine_chunks() for name, typ in RELEASE_COLUMNS]
    return pa.Table.from_arrays(arrays, schema=RELEASE_SCHEMA)


def release_tables(con: duckdb.DuckDBPyConnection, lang: str) -> dict[str, pa.Table]:
    """The ``large`` (every question of ``lang``) and ``small`` (ids in ``split_small``) tables, by question_id.

    Raises ``ValueError`` for an unknown language and ``RuntimeError`` when ``questions_postedited`` has no row
    for it (the partition ``questions_postedited[<lang>]`` must be materialized first)."""
    language(lang)
    large = to_release_schema(con.execute(_select_sql(), [lang]).fetch_arrow_table())
    if large.num_rows == 0:
        raise RuntimeError(
            f"no questions_postedited rows for {lang}: materialize questions_postedited[{lang}] first"
        )
    small_ids = pa.array(
        [r[0] for r in con.execute("SELECT DISTINCT question_id FROM split_small").fetchall()],
        pa.string(),
    )
    small = large.filter(pc.is_in(large.column("question_id"), value_set=small_ids))
    return {"large": large, "small": small}


def write_table(table: pa.Table, path: str | Path) -> str:
    """Write ``table`` (cast to :data:`RELEASE_SCHEMA`) as Parquet with fixed options; return the file's sha256.

    Deterministic (no pandas metadata, fixed row groups and compression) and atomic (temp file + replace)."""
    table = to_release_schema(table)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, row_group_size=ROW_GROUP_SIZE, **PARQUET_OPTIONS)
    return sha256_file(path)


def _edited(table: pa.Table) -> int:
    decision = table.column("postedit_decision")
    return int(pc.sum(pc.fill_null(pc.not_equal(decision, "none"), False)).as_py() or 0)


def _true(table: pa.Table, column: str) -> int:
    return int(pc.sum(pc.fill_null(table.column(column), False)).as_py() or 0)


def table_stats(table: pa.Table) -> dict[str, int]:
    """Counts of a large split table: ``false_premise``, ``multimodal``, ``edited`` (decision not ``none``)."""
    return {
        "false_premise": _true(table, "false_premise"),
        "multimodal": _true(table, "multimodal"),
        "edited": _edited(table),
    }


def write_language(
    con: duckdb.DuckDBPyConnection, release_dir: str | Path, lang: str
) -> dict[str, Any]:
    """Write ``<release_dir>/data/<lang>/{large,small}.parquet``; return the files, row counts, hashes and counts.

    ``false_premise``, ``multimodal`` and ``edited`` (``postedit_decision`` other than ``none``) count the large
    split. The same warehouse content always gives byte-identical files."""
    tables = release_tables(con, lang)
    out: dict[str, Any] = {"lang": lang, "files": {}, "rows": {}, "sha256": {}}
    for split in SPLITS:
        rel = split_path(lang, split)
        out["files"][split] = rel
        out["rows"][split] = tables[split].num_rows
        out["sha256"][split] = write_table(tables[split], Path(release_dir) / rel)
    out.update(table_stats(tables["large"]))
    return out
