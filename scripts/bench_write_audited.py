"""Benchmark: write-audit-publish (``WarehouseResource.write_audited``) against a plain DELETE +
INSERT.

Two warehouse files are filled alike: ``questions_postedited`` with ``--langs`` language slices of
``--rows`` rows each (the sample build's partition size by default). Then ``--slices`` of those
languages are rewritten, each by the same writer (delete the language's rows, insert new ones):

- **plain**: the writer on the published table, in one transaction (what a writer did before
  write-audit-publish);
- **audited**: the writer through ``write_audited`` (staged, audited by the volume guard and one
  blocking row-count check on the staged slice, published in one transaction).

It prints the seconds per slice of each and the ratio audited / plain, measured in the same run. Run
it from the checkout whose code it should measure::

    .venv/bin/python scripts/bench_write_audited.py [--rows 11402] [--langs 17] [--slices 10]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import duckdb

from mgqa_dagster.data_quality.checks import Check
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform import warehouse

LANGS = "bul deu ell eng fra ita jpn kat por ron rus spa sqi tur urd vie zho".split() + [
    f"x{i:02d}" for i in range(100)
]
KEY = dg.AssetKey("questions_postedited")

ROWS_SQL = """
SELECT ?, 'q' || lpad(CAST(i AS VARCHAR), 8, '0'),
       'Which of the places near {Name ' || i || '} lies furthest north, seen from version ' || ?,
       'Which of the places near {Name ' || i || '} lies furthest north? ' || repeat('x', 40),
       'Welcher der Orte bei {Name ' || i || '} liegt am weitesten nördlich? ' || repeat('y', 40),
       CASE WHEN i % 7 = 0 THEN 'majority' ELSE 'none' END,
       CASE WHEN i % 7 = 0 THEN '[{"op": "article", "original": "der", "fix": "die"}]' ELSE '[]' END
FROM range(?) t(i)
"""


def writer(lang: str, rows: int, version: int):
    """A writer replacing ``lang``'s rows by ``rows`` new ones (the text names ``version``)."""

    def write(con: duckdb.DuckDBPyConnection) -> int:
        con.execute("DELETE FROM questions_postedited WHERE lang = ?", [lang])
        con.execute(f"INSERT INTO questions_postedited {ROWS_SQL}", [lang, version, rows])
        return rows

    return write


def rows_check(con: duckdb.DuckDBPyConnection, partition: str | None) -> dg.AssetCheckResult:
    """A blocking audit over the staged slice: the language has rows, all with a question id."""
    n, missing = con.execute(
        "SELECT count(*), count(*) - count(question_id) FROM questions_postedited WHERE lang = ?",
        [partition],
    ).fetchone()
    return dg.AssetCheckResult(passed=n > 0 and missing == 0, metadata={"row_count": int(n)})


CHECKS = (Check("bench_rows", True, "the slice has rows with ids", rows_check),)


class Timer:
    """Seconds from :meth:`start` to the end of the ``with`` block of :func:`timed`."""

    def __init__(self):
        self.t0 = self.seconds = 0.0

    def start(self) -> None:
        self.t0 = time.perf_counter()


@contextmanager
def timed() -> Iterator[Timer]:
    """A :class:`Timer` started inside the block, stopped after it: a write and the connection's
    close (DuckDB's checkpoint) are counted, opening it (the spatial extension's load) is not."""
    t = Timer()
    yield t
    t.seconds = time.perf_counter() - t.t0


def filled(home: Path, langs: int, rows: int) -> WarehouseResource:
    """A warehouse under ``home`` with ``langs`` slices of ``rows`` rows, checkpointed."""
    res = WarehouseResource(paths=PathsResource(home=str(home))).resolved()
    with res.get_connection() as con:
        for lang in LANGS[:langs]:
            con.execute(f"INSERT INTO questions_postedited {ROWS_SQL}", [lang, 0, rows])
        con.execute("CHECKPOINT")
    return res


def run_plain(res: WarehouseResource, langs: list[str], rows: int) -> float:
    """Seconds to rewrite each of ``langs`` straight into the published table (see
    :func:`timed`)."""

    def plain(con, lang: str) -> None:
        with warehouse.transaction(con):
            writer(lang, rows, 1)(con)

    return _timed_rewrites(res, langs, plain)


def run_audited(res: WarehouseResource, langs: list[str], rows: int) -> float:
    """Seconds to rewrite each of ``langs`` through ``write_audited`` (see :func:`timed`)."""

    def audited(con, lang: str) -> None:
        out = res.write_audited(
            con,
            warehouse.partition_slices("lang", lang, "questions_postedited"),
            writer(lang, rows, 1),
            asset_key=KEY,
            partition=lang,
            checks=CHECKS,
        )
        if not out.published:
            raise RuntimeError(f"{lang}: the audit refused the write: {out.results}")

    return _timed_rewrites(res, langs, audited)


def _timed_rewrites(res: WarehouseResource, langs: list[str], rewrite) -> float:
    """Total seconds of ``rewrite(con, lang)`` over ``langs``, one connection each, timed from
    after the connection opened (see :func:`timed`)."""
    total = 0.0
    for lang in langs:
        with timed() as t, res.get_connection() as con:
            t.start()
            rewrite(con, lang)
        total += t.seconds
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=11_402, help="rows per language slice")
    ap.add_argument("--langs", type=int, default=17, help="language slices in the table")
    ap.add_argument("--slices", type=int, default=10, help="slices rewritten by each path")
    args = ap.parse_args()
    langs = LANGS[: args.langs][: args.slices]
    with tempfile.TemporaryDirectory(prefix="bench_wap_") as tmp:
        plain_res = filled(Path(tmp) / "plain", args.langs, args.rows)
        audited_res = filled(Path(tmp) / "audited", args.langs, args.rows)
        run_audited(audited_res, langs[:1], args.rows)  # warm-up: imports, the GX context
        plain = run_plain(plain_res, langs, args.rows)
        audited = run_audited(audited_res, langs, args.rows)
        with duckdb.connect(str(audited_res.database), read_only=True) as con:
            total = con.execute("SELECT count(*) FROM questions_postedited").fetchone()[0]
    assert total == args.langs * args.rows, total
    n = len(langs)
    print(f"{n} slices of {args.rows:,} rows in a table of {args.langs} slices ({total:,} rows)")
    print(f"plain DELETE+INSERT : {plain / n:7.3f} s per slice")
    print(f"write_audited       : {audited / n:7.3f} s per slice")
    print(f"ratio audited/plain : {audited / plain:7.2f}x")


if __name__ == "__main__":
    main()
