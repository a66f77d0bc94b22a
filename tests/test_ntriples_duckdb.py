"""The DuckDB N-Triples path (rdf_stream.parse_ntriples_duckdb) gives exactly parse_file's triples
and bad statements: same rows in the same order, same line numbers, reasons, messages and
offsets."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.rdf_stream import (
    lines_triples_sql,
    parse_file,
    parse_ntriples_duckdb,
)

REPO = Path(__file__).resolve().parent.parent
EX = "http://ex.org/"
TRICKY = "\n".join(
    [
        "# a comment line",
        f'<{EX}s1> <{EX}p> "plain" .',
        f'<{EX}s1> <{EX}p> "esc \\"q\\" \\\\ back\\nnl \\u00e9 \\U0001F600" .',
        f'<{EX}s1> <{EX}p> "hello"@en-GB .',
        f'<{EX}s1> <{EX}p> "hej"@sv .',
        f'<{EX}s1> <{EX}p> "oed"@en-gb-oed .',
        f'<{EX}s1> <{EX}p> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        f'<{EX}s1> <{EX}p> "x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .',
        f"<{EX}a#frag> <{EX}p%20q> <{EX}o?x=1/2?#f/?> .",
        "",
        "   ",
        f'<{EX}s2>\t<{EX}p>\t"tabbed"\t.\t',
        f"<{EX}s2> <{EX}p> <{EX}o> .   ",
        f"_:b1 <{EX}p> _:b2 .",
        f"_:b1 <{EX}p> _:x-y.z .",
        f'<{EX}s3><{EX}p>"nospace".',
        f"<{EX}s3> <{EX}p> <{EX}o> . # trailing comment",
        f'<{EX}s3> <{EX}p> "unterminated .',
        '<relative> <http://ex.org/p> "x" .',
        f'<{EX}s#a#b> <{EX}p> "two fragments" .',
        f'<{EX}\u00fc> <{EX}p> "\u00fcn\u00efcode \u6771\u4eac" .',
        f'<{EX}s4> <{EX}p> "" .',
        f'<http://a:b/s> <{EX}p> "bad port" .',
        f'<{EX}s4> <{EX}p> "text ^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#x" .',
        f"<{EX}s4> <{EX}p> <{EX}o> . <{EX}s4> <{EX}p> <{EX}o2> .",
        "\x0c",
        f'<{EX}s5> <{EX}p> "last line, no newline" .',
    ]
)


def _reference(path: Path, out: Path, workers: int) -> tuple[list[tuple], list]:
    parts, n, bad = parse_file(path, out, workers=workers, min_parallel_bytes=0)
    tables = [pq.read_table(p) for p in parts]  # no part for an empty file split among workers
    rows = [tuple(r.values()) for t in tables for r in t.to_pylist()]
    assert len(rows) == n
    return rows, bad


def _duckdb(path: Path, out: Path, threads: int = 2) -> tuple[list[tuple], list, list[Path]]:
    con = duckdb.connect()
    res = parse_ntriples_duckdb(con, path, out, threads=threads, fallback_rows=7)
    assert res is not None
    parts, n, bad = res
    rows = con.execute(lines_triples_sql(parts)).fetchall()
    assert len(rows) == n
    return rows, bad, parts


def _fast_and_fallback(parts: list[Path]) -> tuple[int, int]:
    """Triples the regular expression took and lines it left to pyoxigraph."""
    t = pq.read_table(parts[0])
    return len(t) - t.column("s").null_count, len(t) - t.column("text").null_count


def _assert_same(path: Path, tmp: Path) -> tuple[int, int]:
    """DuckDB with 1 and 2 threads against parse_file with 1 and 2 workers."""
    ref = [_reference(path, tmp / f"ox{workers}", workers) for workers in (1, 2)]
    for threads in (1, 2):
        got, got_bad, parts = _duckdb(path, tmp / f"duck{threads}", threads)
        for rows, bad in ref:
            assert got == rows
            assert got_bad == bad
    return _fast_and_fallback(parts)


def test_tricky_lines_same_as_pyoxigraph(tmp_path):
    path = tmp_path / "tricky.nt"
    path.write_text(TRICKY, encoding="utf-8")
    got, bad, parts = _duckdb(path, tmp_path / "duck", threads=1)
    assert [b.line for b in bad] == [8, 18, 19, 20, 23, 25]
    assert (f"{EX}s1", f"{EX}p", 'esc "q" \\ back\nnl \u00e9 \U0001f600') in got
    assert (f"{EX}s5", f"{EX}p", "last line, no newline") == got[-1]
    fast, fallback = _fast_and_fallback(parts)
    assert fast >= 12 and fallback >= 10
    _assert_same(path, tmp_path)


def _random_line(rng: random.Random) -> str:
    iris = [
        f"<{EX}r{rng.randrange(9)}>",
        "<urn:isbn:0451450523>",
        "<file:///tmp/x>",
        f"<{EX}%4A%zz>",
        f"<{EX}a b>",
        "<http://[::1]/v6>",
        "<http://u@host/x>",
        f"<{EX}\ue000>",
        f"<{EX}q?\ue000>",
        "<mailto:a@b.c>",
        "<x:>",
        "<http://h:80/>",
        "<http://h:8a/>",
        f"<{EX}\\u00e9>",
    ]
    literals = [
        '"v"',
        '"t\\tab"',
        '"\u0430\u0431"@ru',
        '"a"@de-CH-1996',
        '"b"@zh-Hant-TW',
        '"c"@i-klingon',
        '"d"@x',
        '"e"^^<http://www.w3.org/2001/XMLSchema#date>',
        '"f"^^<rel>',
        '"g',
        '"h"@',
    ]
    blanks = ["_:a", "_:0z", "_:a.b", "_:-x", "_:"]
    spaces = [" ", "  ", "\t", ""]
    s = rng.choice(iris + blanks + literals[:1])
    p = rng.choice(iris + blanks[:1])
    o = rng.choice(iris + blanks + literals)
    end = rng.choice([" .", ".", " . # c", " .\t", "", " ;"])
    sp = rng.choice(spaces)
    return f"{rng.choice(['', ' '])}{s}{sp}{p}{sp or ' '}{o}{end}"


def test_random_lines_same_as_pyoxigraph(tmp_path):
    rng = random.Random(7)
    path = tmp_path / "random.nt"
    path.write_text("\n".join(_random_line(rng) for _ in range(3000)) + "\n", encoding="utf-8")
    fast, fallback = _assert_same(path, tmp_path)
    assert fast > 100 and fallback > 1000


def _generate(path: Path, triples: int) -> None:
    """A WorldKG-style N-Triples file from the conversion benchmark's generator."""
    spec = importlib.util.spec_from_file_location("bench", REPO / "scripts" / "bench_conversion.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.generate(path, triples, seed=3)


def test_generated_worldkg_file_takes_the_fast_path(tmp_path):
    path = tmp_path / "worldkg.nt"
    _generate(path, 30_000)
    fast, fallback = _assert_same(path, tmp_path)
    assert (fast, fallback) == (30_000, 0)


@pytest.mark.parametrize(
    "data",
    [
        b'<http://ex.org/s> <http://ex.org/p> "crlf" .\r\n',
        b'\xef\xbb\xbf<http://ex.org/s> <http://ex.org/p> "bom" .\n',
        b'<http://ex.org/s> <http://ex.org/p> "delim \x01" .\n',
    ],
)
def test_files_duckdb_cannot_read_line_for_line_are_left_to_parse_file(tmp_path, data):
    path = tmp_path / "odd.nt"
    path.write_bytes(data)
    assert parse_ntriples_duckdb(duckdb.connect(), path, tmp_path / "out") is None


def test_bytes_that_are_not_utf8_are_left_to_parse_file(tmp_path):
    path = tmp_path / "latin1.nt"
    path.write_bytes(b'<http://ex.org/s> <http://ex.org/p> "caf\xe9" .\n')
    assert parse_ntriples_duckdb(duckdb.connect(), path, tmp_path / "out") is None


def _kg_tables(con) -> dict[str, list[tuple]]:
    return {
        t: con.execute(
            f"SELECT * EXCLUDE (kg) FROM {t} WHERE kg = 'worldkg' ORDER BY ALL"
        ).fetchall()
        for t in ("entities", "entity_labels", "entity_triples", "quarantine")
    }


def test_conversion_is_the_same_through_duckdb_and_pyoxigraph(con, tmp_path):
    """The same triples converted twice: through DuckDB, and through parse_file (one CRLF line
    ending makes the file one DuckDB cannot read line for line); every output table is the same."""
    gen = tmp_path / "gen.nt"
    _generate(gen, 4_000)
    lines = gen.read_text(encoding="utf-8").splitlines()
    lines[5:5] = [
        "<http://www.worldkg.org/resource/1> <http://x/p> broken literal .",
        "<http://www.worldkg.org/resource/1> <http://www.w3.org/2000/01/rdf-schema#label> "
        '"Caf\\u00e9 \\"A\\"" .',
        "# a comment",
    ]
    duck, ox = tmp_path / "duck.nt", tmp_path / "ox.nt"
    duck.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ox.write_text("\n".join(lines[:-1]) + "\n" + lines[-1] + "\r\n", encoding="utf-8")
    assert parse_ntriples_duckdb(duckdb.connect(), ox, tmp_path / "probe") is None
    convert_kg(con, "worldkg", duck, "s")
    through_duckdb = _kg_tables(con)
    convert_kg(con, "worldkg", ox, "s")
    through_pyoxigraph = _kg_tables(con)
    assert through_duckdb["entities"] and through_duckdb["quarantine"]
    assert any("duck.nt:6" in r for r in through_duckdb["quarantine"])
    for table, rows in through_duckdb.items():
        other = through_pyoxigraph[table]
        if table == "quarantine":  # the source names the file
            rows = [tuple(str(v).replace("duck.nt", "ox.nt") for v in r) for r in rows]
            other = [tuple(str(v) for v in r) for r in other]
        assert rows == other, table


@pytest.mark.parametrize(
    "data", [b"", b"# only\n\n# comments", b'NULL\n<http://e.org/s> <http://e.org/p> "NULL" .\n']
)
def test_empty_comment_only_and_null_like_files(tmp_path, data):
    path = tmp_path / "small.nt"
    path.write_bytes(data)
    _assert_same(path, tmp_path)


def test_a_line_longer_than_duckdb_reads_is_left_to_parse_file(tmp_path):
    path = tmp_path / "long.nt"
    path.write_bytes(b'<http://e.org/s> <http://e.org/p> "' + b"a" * 3_000_000 + b'" .\n')
    assert parse_ntriples_duckdb(duckdb.connect(), path, tmp_path / "out") is None
