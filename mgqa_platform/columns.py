"""Arrow schemas written as SQL column lists, in DuckDB's type names.

Rows reach the warehouse through Arrow batches; a schema written like the warehouse's DDL
(``"entity_id VARCHAR, lon DOUBLE, h3 VARCHAR[]"``) keeps one vocabulary for both and stays short.
Every field is nullable, as in a ``CREATE TABLE`` without ``NOT NULL``.
"""

from __future__ import annotations

import pyarrow as pa

#: DuckDB type name -> Arrow type.
ARROW_TYPES: dict[str, pa.DataType] = {
    "VARCHAR": pa.string(),
    "DOUBLE": pa.float64(),
    "BIGINT": pa.int64(),
    "INTEGER": pa.int32(),
    "BOOLEAN": pa.bool_(),
    "BLOB": pa.binary(),
}


def arrow_type(sql_type: str) -> pa.DataType:
    """The Arrow type of a DuckDB type name (``VARCHAR[]``: a list of strings). Raises
    ``ValueError`` on a name outside :data:`ARROW_TYPES`."""
    if sql_type.endswith("[]"):
        return pa.list_(arrow_type(sql_type[:-2]))
    try:
        return ARROW_TYPES[sql_type.upper()]
    except KeyError:
        known = ", ".join(ARROW_TYPES)
        raise ValueError(f"unknown column type {sql_type!r} (known: {known}, or NAME[])") from None


def arrow_schema(columns: str) -> pa.Schema:
    """The Arrow schema of ``"name TYPE, name TYPE, ..."`` (DuckDB type names), in that order."""
    fields = []
    for column in columns.split(","):
        parts = column.split()
        if len(parts) != 2:
            raise ValueError(f"a column is 'name TYPE', got {column.strip()!r}")
        fields.append(pa.field(parts[0], arrow_type(parts[1])))
    return pa.schema(fields)
