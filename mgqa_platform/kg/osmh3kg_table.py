"""A real OSMH3KG table, read as it is published: ``subject, predicate, object, date`` strings.

The OSMH3KG code (MartinBoeckling/stkg_construction) writes a Delta table; its example output is the
CSV part files Spark writes. Accepted here, all with a ``subject, predicate, object`` (and ``date``)
header:

* one Parquet file (``.parquet``; our own build) or one CSV file (``.csv``);
* a folder of part files, all ``*.parquet`` or all ``*.csv`` (hidden files, ``_SUCCESS`` and Spark's
  ``.crc`` files are not parts);
* a Delta table (a folder with ``_delta_log``): the Parquet data files of its latest version, as the
  ``deltalake`` package lists them. Deletion vectors and column mapping are refused with a clear
  error (their rows cannot be read from the data files alone).

CSV follows Spark's defaults: comma separated, ``"`` quotes, ``\\`` escapes, a header line per part.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import deltalake
import duckdb

from mgqa_platform.files import sha256_file

COLUMNS = ("subject", "predicate", "object", "date")
REQUIRED = ("subject", "predicate", "object")
SUFFIXES = (".parquet", ".csv")
UNSUPPORTED_DELTA_FEATURES = ("deletionVectors", "columnMapping")


@dataclass(frozen=True)
class TableFiles:
    """The data files of an OSMH3KG table: ``kind`` is ``parquet`` or ``csv``; ``form`` says how the
    table was given (``file``, ``parts`` or ``delta``)."""

    kind: str
    form: str
    files: tuple[Path, ...]


def is_table(path: Path) -> bool:
    """True when ``path`` is an OSMH3KG table (a Parquet or CSV file, or a folder) rather than
    RDF."""
    return path.is_dir() or path.suffix in SUFFIXES


def _is_part(p: Path) -> bool:
    return p.is_file() and not p.name.startswith((".", "_")) and p.suffix in SUFFIXES


def _delta_files(path: Path) -> TableFiles:
    try:
        table = deltalake.DeltaTable(str(path))
    except Exception as e:  # deltalake raises its own error types for every kind of bad log
        raise ValueError(f"{path}: not a readable Delta table ({e})") from e
    features = set(table.protocol().reader_features or ())
    refused = sorted(features & set(UNSUPPORTED_DELTA_FEATURES))
    if refused:
        raise ValueError(f"{path}: Delta reader feature(s) {refused} are not supported")
    files = tuple(sorted(Path(u.removeprefix("file://")) for u in table.file_uris()))
    if not files:
        raise ValueError(f"{path}: the Delta table's latest version has no data files")
    return TableFiles("parquet", "delta", files)


def table_files(path: str | Path) -> TableFiles:
    """The data files of the OSMH3KG table at ``path``, sorted; ValueError when it is none."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{p}: no such OSMH3KG table")
    if p.is_file():
        if p.suffix not in SUFFIXES:
            raise ValueError(f"{p}: an OSMH3KG table file must be .parquet or .csv")
        return TableFiles(p.suffix[1:], "file", (p,))
    if (p / "_delta_log").is_dir():
        return _delta_files(p)
    parts = sorted(f for f in p.rglob("*") if _is_part(f))
    kinds = {f.suffix for f in parts}
    if len(kinds) != 1:
        found = "no .parquet or .csv part files" if not kinds else f"mixed parts {sorted(kinds)}"
        raise ValueError(f"{p}: an OSMH3KG table folder needs one kind of part file ({found})")
    return TableFiles(kinds.pop()[1:], "parts", tuple(parts))


def fingerprint(path: str | Path) -> tuple[str, int]:
    """``(sha256, bytes)`` of the table's content: a file's own SHA-256; for a folder, the SHA-256
    over each data file's relative path and SHA-256, in path order (metadata files do not count)."""
    p = Path(path)
    tf = table_files(p)
    if tf.form == "file":
        return sha256_file(p), p.stat().st_size
    h = hashlib.sha256()
    for f in tf.files:
        h.update(f"{f.relative_to(p).as_posix()}\0{sha256_file(f)}\n".encode())
    return h.hexdigest(), sum(f.stat().st_size for f in tf.files)


def _reader_sql(tf: TableFiles) -> str:
    if tf.kind == "parquet":
        return "read_parquet(?, union_by_name = true)"
    return (
        "read_csv(?, header = true, all_varchar = true, quote = '\"', escape = '\\', "
        "union_by_name = true)"
    )


def create_view(con: duckdb.DuckDBPyConnection, path: str | Path, view: str) -> TableFiles:
    """Create TEMP VIEW ``view(subject, predicate, object, date)`` (VARCHAR) over the table at
    ``path``; ``date`` is NULL where the table has no such column. ValueError when it cannot be read
    or lacks a required column."""
    tf = table_files(path)
    files = [str(f) for f in tf.files]
    source = _reader_sql(tf)
    try:
        cols = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}", [files]).fetchall()}
    except duckdb.Error as e:
        raise ValueError(
            f"{path}: not a readable OSMH3KG {tf.kind} table ({str(e).splitlines()[0]})"
        ) from e
    missing = sorted(set(REQUIRED) - cols)
    if missing:
        raise ValueError(f"{path}: OSMH3KG table lacks column(s) {missing}")
    date = "CAST(date AS VARCHAR)" if "date" in cols else "CAST(NULL AS VARCHAR)"
    listing = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP VIEW {view} AS
        SELECT CAST(subject AS VARCHAR) AS subject,
               CAST(predicate AS VARCHAR) AS predicate,
               CAST(object AS VARCHAR) AS object,
               {date} AS date
        FROM {source.replace("?", "[" + listing + "]")}
        """
    )
    return tf
