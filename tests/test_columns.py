"""Arrow schemas from SQL column lists equal the schemas pyarrow builds field by field."""

from __future__ import annotations

import pyarrow as pa
import pytest

from mgqa_platform.columns import arrow_schema


def test_every_type_and_lists_match_pyarrow():
    got = arrow_schema("a VARCHAR, b DOUBLE, c BIGINT, d INTEGER, e BOOLEAN, f BLOB, g VARCHAR[]")
    want = pa.schema(
        [
            ("a", pa.string()),
            ("b", pa.float64()),
            ("c", pa.int64()),
            ("d", pa.int32()),
            ("e", pa.bool_()),
            ("f", pa.binary()),
            ("g", pa.list_(pa.string())),
        ]
    )
    assert got == want
    assert all(field.nullable for field in got)


def test_order_and_spacing():
    assert arrow_schema(" x  DOUBLE ,y VARCHAR").names == ["x", "y"]
    assert arrow_schema("x DOUBLE, y VARCHAR") != arrow_schema("y VARCHAR, x DOUBLE")


@pytest.mark.parametrize("bad", ["x TEXTY", "x", "x DOUBLE PRECISION", "x VARCHAR,"])
def test_a_bad_column_list_is_refused(bad):
    with pytest.raises(ValueError):
        arrow_schema(bad)
