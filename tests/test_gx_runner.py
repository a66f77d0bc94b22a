"""Real Great Expectations runs (no mocks) through data_quality.gx_runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mgqa_dagster.data_quality import gx_runner
from mgqa_dagster.data_quality.gx_runner import (
    SuiteOutcome,
    in_set,
    non_empty_strings,
    not_null,
    row_count_between,
    run_suite,
    unique_ids,
    values_between,
)

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def places() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "place_id": ["p1", "p2", "p3", "p4"],
            "name": ["Lagos", "Quito", "Hanoi", "Oslo"],
            "kind": ["city", "city", "city", "town"],
            "population": [15_000_000, 2_800_000, 8_000_000, 700_000],
        }
    )


def _failure(outcome: SuiteOutcome, expectation: str, column: str | None = None) -> dict:
    matches = [
        f
        for f in outcome.failed
        if f["expectation"] == expectation and (column is None or f["column"] == column)
    ]
    assert matches, f"no failed {expectation}({column}) in {outcome.failed}"
    return matches[0]


def test_passing_suite(places: pd.DataFrame) -> None:
    outcome = run_suite(
        places,
        "places_ok",
        [
            *unique_ids("place_id"),
            *non_empty_strings(["name", "kind"]),
            *in_set("kind", {"city", "town", "village"}),
            *row_count_between(1, 10),
            *values_between("population", 0, 50_000_000),
        ],
    )
    assert outcome.success is True
    assert outcome.evaluated == 2 + 4 + 1 + 1 + 1
    assert outcome.failed == []
    assert outcome.row_count == 4
    assert "9/9" in outcome.description()
    assert "\n" not in outcome.description()


def test_nested_lists_are_flattened_and_inputs_reusable(places: pd.DataFrame) -> None:
    rules = [unique_ids("place_id"), not_null("name")]  # lists of lists, reused twice
    first = run_suite(places, "reuse", rules)
    second = run_suite(places, "reuse", rules)  # same suite name, same objects: no collision
    assert first.success and second.success
    assert first.evaluated == second.evaluated == 3
    assert all(e.id is None for group in rules for e in group)


def test_duplicate_ids_fail_and_name_the_value(places: pd.DataFrame) -> None:
    df = places.copy()
    df.loc[3, "place_id"] = "p2"
    outcome = run_suite(df, "places_dupes", unique_ids("place_id"))
    assert outcome.success is False
    assert outcome.evaluated == 2
    failure = _failure(outcome, "expect_column_values_to_be_unique", "place_id")
    assert failure["unexpected_count"] == 2
    assert "p2" in failure["unexpected_examples"]
    assert failure["error"] is None
    assert "p2" in outcome.metadata()["failed_0"]


def test_in_set_reports_unexpected_category(places: pd.DataFrame) -> None:
    df = places.copy()
    df.loc[1, "kind"] = "megacity"
    outcome = run_suite(df, "places_kinds", in_set("kind", ["city", "town"]))
    assert not outcome.success
    failure = _failure(outcome, "expect_column_values_to_be_in_set", "kind")
    assert failure["unexpected_count"] == 1
    assert failure["unexpected_examples"] == ["megacity"]
    assert "city" in failure["kwargs"] and "town" in failure["kwargs"]
    assert "expect_column_values_to_be_in_set(kind)" in outcome.description()
    assert "megacity" in outcome.metadata()["failed_0"]


def test_id_columns_name_the_failing_rows() -> None:
    """A suite given id columns names the rows that failed, in the metadata and the one-line
    description (e.g. the template a check found without questions), not only the value."""
    df = pd.DataFrame({"tid": ["A01", "E05", "J04"], "questions": [3, 0, 7]})
    outcome = run_suite(df, "yield", values_between("questions", 1, None), id_columns=("tid",))
    assert not outcome.success
    failure = _failure(outcome, "expect_column_values_to_be_between", "questions")
    assert failure["unexpected_rows"] == ["tid=E05 questions=0"]
    assert "tid=E05" in outcome.metadata()["failed_0"]
    assert "tid=E05" in outcome.description()
    plain = run_suite(df, "yield", values_between("questions", 1, None))
    assert (
        _failure(plain, "expect_column_values_to_be_between", "questions")["unexpected_rows"] == []
    )


def test_row_count_between_fails(places: pd.DataFrame) -> None:
    outcome = run_suite(places, "too_few", row_count_between(10, None))
    assert outcome.success is False
    failure = _failure(outcome, "expect_table_row_count_to_be_between")
    assert failure["column"] is None
    assert failure["unexpected_count"] is None
    assert failure["observed_value"] == "4"
    assert "min_value=10" in failure["kwargs"]

    assert run_suite(places, "fits", row_count_between(4, 4)).success
    assert not run_suite(places, "too_many", row_count_between(None, 3)).success


def test_not_null_catches_nan_none_and_na() -> None:
    df = pd.DataFrame(
        {
            "f": [1.0, np.nan, 3.0],
            "obj": pd.Series(["a", None, "c"], dtype=object),
            "s": pd.array(["a", "b", None], dtype=pd.StringDtype()),
            "i": pd.array([1, None, 3], dtype="Int64"),
            "t": pd.to_datetime(["2024-01-01", None, "2024-01-03"]),
            "ok": ["x", "y", "z"],
        }
    )
    outcome = run_suite(df, "nulls", not_null(["f", "obj", "s", "i", "t", "ok"]))
    assert not outcome.success
    assert outcome.evaluated == 6
    assert {f["column"] for f in outcome.failed} == {"f", "obj", "s", "i", "t"}
    assert all(f["unexpected_count"] == 1 for f in outcome.failed)


def test_non_empty_strings_rejects_blank_and_whitespace() -> None:
    df = pd.DataFrame({"label": ["Paris", "", "   ", None, "Rome"]})
    outcome = run_suite(df, "labels", non_empty_strings("label"))
    assert not outcome.success
    null_failure = _failure(outcome, "expect_column_values_to_not_be_null", "label")
    assert null_failure["unexpected_count"] == 1
    blank_failure = _failure(outcome, "expect_column_values_to_match_regex", "label")
    assert blank_failure["unexpected_count"] == 2
    assert set(blank_failure["unexpected_examples"]) == {"", "   "}


def test_values_between_ignores_nulls_and_reports_out_of_range() -> None:
    df = pd.DataFrame({"lat": [10.0, np.nan, 95.5, -91.0]})
    outcome = run_suite(df, "lat", values_between("lat", -90, 90))
    failure = _failure(outcome, "expect_column_values_to_be_between", "lat")
    assert failure["unexpected_count"] == 2
    assert set(failure["unexpected_examples"]) == {"95.5", "-91.0"}


def test_examples_are_distinct_and_capped() -> None:
    df = pd.DataFrame({"code": [f"bad{i % 9}" for i in range(60)]})
    outcome = run_suite(df, "codes", in_set("code", ["good"]))
    failure = outcome.failed[0]
    assert failure["unexpected_count"] == 60
    examples = failure["unexpected_examples"]
    assert 1 <= len(examples) <= gx_runner.MAX_EXAMPLES
    assert len(examples) == len(set(examples))
    assert all(isinstance(v, str) for v in examples)


def test_missing_column_is_a_failure_with_error(places: pd.DataFrame) -> None:
    outcome = run_suite(places, "missing", not_null("no_such_column"))
    assert not outcome.success
    failure = outcome.failed[0]
    assert failure["column"] == "no_such_column"
    assert failure["error"] and "no_such_column" in failure["error"]


def test_metadata_is_flat_and_dagster_friendly(places: pd.DataFrame) -> None:
    df = places.copy()
    df.loc[0, "place_id"] = "p2"
    df.loc[1, "kind"] = None
    outcome = run_suite(
        df,
        "meta",
        [unique_ids("place_id"), not_null("kind"), row_count_between(10, 20)],
    )
    md = outcome.metadata()
    assert md["gx_suite"] == "meta"
    assert md["gx_evaluated"] == 4
    assert md["gx_failed"] == len(outcome.failed) == 3
    assert md["row_count"] == 4
    assert md["gx_success"] is False
    for i in range(len(outcome.failed)):
        assert isinstance(md[f"failed_{i}"], str) and md[f"failed_{i}"]
    for key, value in md.items():
        assert isinstance(key, str)
        assert type(value) in (str, int, float, bool), (key, type(value))
    json.dumps(md)


def test_empty_frame_and_empty_suite() -> None:
    empty = pd.DataFrame({"id": pd.Series([], dtype="int64")})
    outcome = run_suite(empty, "empty", [unique_ids("id"), row_count_between(1, None)])
    assert outcome.row_count == 0
    assert [f["expectation"] for f in outcome.failed] == ["expect_table_row_count_to_be_between"]

    nothing = run_suite(empty, "nothing", [])
    assert nothing.success and nothing.evaluated == 0 and nothing.failed == []


def test_input_frame_untouched_and_context_not_growing(places: pd.DataFrame) -> None:
    before = places.copy()
    run_suite(places, "untouched", [unique_ids("place_id"), in_set("kind", ["city"])])
    pd.testing.assert_frame_equal(places, before)
    assert len(gx_runner.get_context().data_sources.all()) == 0


def test_rejects_bad_arguments(places: pd.DataFrame) -> None:
    with pytest.raises(TypeError):
        run_suite(places.to_dict(), "x", not_null("name"))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        run_suite(places, "", not_null("name"))
    with pytest.raises(TypeError):
        run_suite(places, "x", ["not an expectation"])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        row_count_between()
    with pytest.raises(ValueError):
        values_between("population")


def test_fifty_thousand_rows_validate() -> None:
    n = 50_000
    rng = np.random.default_rng(7)
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "name": [f"name {i}" for i in range(n)],
            "kind": rng.choice(["city", "town", "village"], n),
            "score": rng.random(n),
        }
    )
    rules = [
        *unique_ids("id"),
        *non_empty_strings("name"),
        *in_set("kind", ["city", "town", "village"]),
        *values_between("score", 0, 1),
    ]
    assert len(rules) == 6
    outcome = run_suite(df, "big", rules)
    assert outcome.success and outcome.evaluated == 6 and outcome.row_count == n


def test_no_network_no_files_no_progress_bars(tmp_path: Path) -> None:
    """A fresh interpreter with sockets disabled runs a suite without writing anything."""
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    script = textwrap.dedent(
        """
        import socket

        def _blocked(*args, **kwargs):
            raise AssertionError("network access attempted")

        socket.socket.connect = _blocked
        socket.socket.connect_ex = _blocked
        socket.create_connection = _blocked
        socket.getaddrinfo = _blocked

        import pandas as pd
        from mgqa_dagster.data_quality.gx_runner import run_suite, unique_ids

        outcome = run_suite(pd.DataFrame({"id": [1, 2, 2]}), "offline", unique_ids("id"))
        assert outcome.success is False, outcome
        print("OK", outcome.failed[0]["unexpected_examples"])
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GX_", "GE_", "PYTHON"))}
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        HOME=str(tmp_path),
        TMPDIR=str(tmp_path),
        PYTHONDONTWRITEBYTECODE="1",
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "OK ['2']" in proc.stdout
    assert "Calculating Metrics" not in proc.stderr
    assert list(workdir.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cwd"]
