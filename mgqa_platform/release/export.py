"""Question Parquet files of the release: one file per language and split (``large``, ``small``).

The source is ``questions_postedited`` (one slice per ``lang``: the text) joined with
``questions_en`` (the record) and ``questions_localized`` (how the text was rendered). Every
language has the same flat schema (:data:`RELEASE_COLUMNS`, derived from the declared question
record in :mod:`mgqa_platform.question_schema`), so that Hugging Face ``datasets`` reads each
config without a features override: JSON columns (``gold``, ``bindings``, ``gold_triples``...) are
released as the JSON text DuckDB stores, booleans as ``bool`` and ``snapshot_ids`` as
``list<string>``.

``run_id`` is deliberately not released: it names the Dagster run and differs between runs, while a
release built twice from the same inputs must be byte-identical. The run stays in the warehouse
(``mgqa lineage``). The working columns (``image_role``, ``template_text``,
``text_marked_localized``) are not released either; ``template_status``, ``fallbacks``,
``postedit_decision`` and ``postedit_edits`` are, so a user can tell machine-quality text from
post-edited text.

Files are written by :func:`write_table`: fixed Parquet options, no pandas metadata, a temp file in
the target folder then ``os.replace`` (an interrupted run never leaves a half-written file). A
language is first written under the hidden staging folder :data:`STAGING_DIR`, audited there, and
only then renamed into place (:func:`publish_staged`); ``release_files`` records what each file
holds (rows, sha256, the fingerprint of its warehouse rows), and :func:`verify_against_warehouse`
checks every file against it before the card hashes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mgqa_platform import question_schema as schema
from mgqa_platform.files import atomic_path, sha256_file
from mgqa_platform.languages import language
from mgqa_platform.warehouse import fetch_dicts, transaction

SPLITS = ("large", "small")

#: The released columns, in file order, with their Arrow types (JSON columns as JSON text).
RELEASE_COLUMNS: tuple[tuple[str, pa.DataType], ...] = tuple(
    (f.name, f.type) for f in schema.RELEASE_SCHEMA
)
JSON_COLUMNS: tuple[str, ...] = tuple(f.name for f in schema.RELEASED_FIELDS if schema.is_json(f))
RELEASE_SCHEMA: pa.Schema = schema.RELEASE_SCHEMA

#: Alias of each question table in the release query.
_ALIASES = {"questions_en": "e", "questions_localized": "l", "questions_postedited": "p"}

#: Fixed Parquet writer options: the same table always gives the same bytes (for one pyarrow
#: version).
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
    """Relative (posix) path of a split file inside the release folder:
    ``data/<lang>/<split>.parquet``."""
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
    """``table``'s release columns, in order, cast to :data:`RELEASE_SCHEMA` (field and schema
    metadata dropped)."""
    arrays = [table.column(name).cast(typ).combine_chunks() for name, typ in RELEASE_COLUMNS]
    return pa.Table.from_arrays(arrays, schema=RELEASE_SCHEMA)


def release_tables(con: duckdb.DuckDBPyConnection, lang: str) -> dict[str, pa.Table]:
    """The ``large`` (every question of ``lang``) and ``small`` (ids in ``split_small``) tables, by
    question_id.

    Raises ``ValueError`` for an unknown language and ``RuntimeError`` when ``questions_postedited``
    has no row for it (the partition ``questions_postedited[<lang>]`` must be materialized
    first)."""
    language(lang)
    large = to_release_schema(con.execute(_select_sql(), [lang]).fetch_arrow_table())
    if large.num_rows == 0:
        raise RuntimeError(
            f"no questions_postedited rows for {lang}: materialize "
            f"questions_postedited[{lang}] first"
        )
    small_ids = pa.array(
        [r[0] for r in con.execute("SELECT DISTINCT question_id FROM split_small").fetchall()],
        pa.string(),
    )
    small = large.filter(pc.is_in(large.column("question_id"), value_set=small_ids))
    return {"large": large, "small": small}


def write_table(table: pa.Table, path: str | Path) -> str:
    """Write ``table`` (cast to :data:`RELEASE_SCHEMA`) as Parquet with fixed options; return the
    file's sha256.

    Deterministic (no pandas metadata, fixed row groups and compression) and atomic (temp file +
    replace)."""
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
    """Counts of a large split table: ``false_premise``, ``multimodal``, ``edited`` (decision not
    ``none``)."""
    return {
        "false_premise": _true(table, "false_premise"),
        "multimodal": _true(table, "multimodal"),
        "edited": _edited(table),
    }


def write_language(
    con: duckdb.DuckDBPyConnection, release_dir: str | Path, lang: str
) -> dict[str, Any]:
    """Write ``<release_dir>/data/<lang>/{large,small}.parquet``; return the files, row counts,
    hashes and counts.

    ``false_premise``, ``multimodal`` and ``edited`` (``postedit_decision`` other than ``none``)
    count the large split. The same warehouse content always gives byte-identical files."""
    tables = release_tables(con, lang)
    out: dict[str, Any] = {"lang": lang, "files": {}, "rows": {}, "sha256": {}}
    for split in SPLITS:
        rel = split_path(lang, split)
        out["files"][split] = rel
        out["rows"][split] = tables[split].num_rows
        out["sha256"][split] = write_table(tables[split], Path(release_dir) / rel)
    out.update(table_stats(tables["large"]))
    return out


#: Hidden folder of the release where files wait for their audits (never listed in ``SHA256SUMS``).
STAGING_DIR = ".staging"


def staging_root(release_dir: str | Path) -> Path:
    """The staging folder of ``release_dir``: a release-shaped tree whose files are not published
    yet."""
    return Path(release_dir) / STAGING_DIR


def publish_staged(release_dir: str | Path, lang: str) -> None:
    """Rename the staged split files of ``lang`` into place (each an atomic ``os.replace``), then
    remove the staging folder of the language."""
    staged = staging_root(release_dir)
    for split in SPLITS:
        target = Path(release_dir) / split_path(lang, split)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged / split_path(lang, split), target)
    discard_staged(release_dir, lang)


def discard_staged(release_dir: str | Path, lang: str) -> None:
    """Remove whatever is staged for ``lang`` (after a failed audit, or once published), and the
    staging folders once no other language is staged there."""
    staged = staging_root(release_dir)
    shutil.rmtree(staged / "data" / lang, ignore_errors=True)
    for folder in (staged / "data", staged):
        with contextlib.suppress(OSError):  # another language is still staged
            folder.rmdir()


#: The warehouse tables a language's release files are read from (see :func:`source_fingerprint`):
#: the language's slices, and the tables every language shares.
_LANGUAGE_SOURCES = ("questions_postedited", "questions_localized")
_SHARED_SOURCES = ("questions_en", "split_small")


def _digest(con: duckdb.DuckDBPyConnection, table: str, lang: str | None) -> str:
    """Row count and sum of row hashes of ``table`` (its ``lang`` slice unless ``lang`` is None)."""
    where, params = ("lang = ?", [lang]) if lang else ("TRUE", [])
    n, total = con.execute(
        f"SELECT count(*), coalesce(sum(hash(t)), 0)::VARCHAR FROM {table} t WHERE {where}", params
    ).fetchone()
    return f"{table}:{n}:{total}"


def shared_digests(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Digests of the source tables every language shares (computed once for many languages)."""
    return [_digest(con, table, None) for table in _SHARED_SOURCES]


def source_fingerprint(
    con: duckdb.DuckDBPyConnection, lang: str, shared: list[str] | None = None
) -> str:
    """Fingerprint of what the warehouse holds for ``lang``'s release: row count and sum of row
    hashes of each source table's slice (``shared``: :func:`shared_digests`, computed here when
    None). Any added, removed, repeated or changed source row changes it."""
    own = [_digest(con, table, lang) for table in _LANGUAGE_SOURCES]
    parts = own + (shared_digests(con) if shared is None else shared)
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def record_language(con: duckdb.DuckDBPyConnection, info: dict[str, Any]) -> None:
    """Replace ``release_files`` rows of ``info['lang']`` (a :func:`write_language` result): per
    split file its path, rows, sha256 and the :func:`source_fingerprint` of the warehouse it was
    written from."""
    lang = info["lang"]
    fingerprint = source_fingerprint(con, lang)
    rows = [
        [lang, split, info["files"][split], info["rows"][split], info["sha256"][split], fingerprint]
        for split in SPLITS
    ]
    with transaction(con):
        con.execute("DELETE FROM release_files WHERE lang = ?", [lang])
        con.executemany("INSERT INTO release_files VALUES (?, ?, ?, ?, ?, ?)", rows)


def _file_problems(root: Path, row: dict[str, Any]) -> list[str]:
    """Problems of one released file against its ``release_files`` row (rows, then sha256)."""
    path = root / row["path"]
    if not path.is_file():
        return [f"{row['path']}: missing"]
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (OSError, pa.ArrowException) as err:
        return [f"{row['path']}: unreadable Parquet ({err})"]
    if rows != row["rows"]:
        return [f"{row['path']}: {rows} rows, the warehouse recorded {row['rows']}"]
    if sha256_file(path) != row["sha256"]:
        return [f"{row['path']}: content differs from what the warehouse recorded (sha256)"]
    return []


def verify_against_warehouse(con: duckdb.DuckDBPyConnection, release_dir: str | Path) -> list[str]:
    """Problems of the release's question files against the warehouse, one line naming each file: a
    split file on disk that ``release_files`` does not know, a recorded file that is missing,
    unreadable, has another row count or other bytes, or a language whose warehouse rows changed
    since its files were written (:func:`source_fingerprint`). Empty when every file is what the
    warehouse says it holds."""
    root = Path(release_dir)
    recorded = fetch_dicts(con, "SELECT * FROM release_files ORDER BY lang, split")
    known = {r["path"] for r in recorded}
    problems = [
        f"{rel}: not written by release_questions (no release_files row)"
        for rel in sorted(p.relative_to(root).as_posix() for p in root.glob("data/*/*.parquet"))
        if rel not in known
    ]
    for row in recorded:
        problems += _file_problems(root, row)
    shared = shared_digests(con)
    for lang in sorted({r["lang"] for r in recorded}):
        stamp = {r["source_fingerprint"] for r in recorded if r["lang"] == lang}
        if stamp != {source_fingerprint(con, lang, shared)}:
            problems.append(
                f"data/{lang}: the warehouse changed since its files were written "
                f"(materialize release_questions[{lang}])"
            )
    return problems
