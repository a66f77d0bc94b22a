"""Streaming, fault-tolerant RDF parsing into Arrow batches of ``(s, p, o)`` strings.

Terms become plain strings: IRIs without angle brackets, literals as their lexical value (language
tag and datatype dropped: the platform reads labels and WKT, it does not reason over datatypes),
blank nodes as ``_:<id>``.

* **N-Triples** is read in chunks of whole lines (a few MiB); each chunk is handed to pyoxigraph
  (Rust) in one call. Large files are split into byte ranges parsed by worker processes
  (:func:`parse_file`).
* **N-Triples through DuckDB** (:func:`parse_ntriples_duckdb`): DuckDB reads the file as one text
  column per line and takes, with a regular expression, only the lines whose parse is exact without
  an N-Triples parser (:data:`FAST_LINE_RE`); every other line goes to pyoxigraph, so the triples
  and bad statements are the ones :func:`parse_file` gives.
* **Turtle** is cut into blocks of whole statements: a statement ends on a line whose last non-blank
  character is ``.`` outside a long (triple-quoted) literal; ``@prefix``/``@base`` lines are
  remembered and prepended to every block.

A chunk or block that fails (a syntax error, bytes that are not UTF-8) is bisected down to single
statements, so only the bad statements are reported (:class:`BadStatement`, with line number and the
parser's message) and the rest of the file still loads. Memory is bounded by the chunk size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pyoxigraph as ox

from mgqa_platform.columns import arrow_schema

TRIPLE_SCHEMA = arrow_schema("s VARCHAR, p VARCHAR, o VARCHAR")
FORMATS = {"turtle": ox.RdfFormat.TURTLE, "ntriples": ox.RdfFormat.N_TRIPLES}
CHUNK_BYTES = 4 << 20
#: N-Triples files above this size are parsed by several worker processes.
PARALLEL_MIN_BYTES = 32 << 20


@dataclass(frozen=True)
class BadStatement:
    """A statement that could not be parsed: ``reason`` is 'non_utf8', 'malformed_triple' or
    'malformed_directive'. ``line`` is 1-based in the file; ``offset`` is its byte offset."""

    reason: str
    line: int
    detail: str
    text: str
    offset: int = -1


def format_for(path: str | Path) -> str:
    """'turtle' for .ttl, 'ntriples' for .nt (the two native RDF formats the platform reads)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".ttl":
        return "turtle"
    if suffix == ".nt":
        return "ntriples"
    raise ValueError(f"{path}: unsupported RDF file extension {suffix!r} (expected .ttl or .nt)")


def _columns(triples, s_out: list, p_out: list, o_out: list) -> None:
    bnode = ox.BlankNode
    for t in triples:
        s, o = t.subject, t.object
        s_out.append(s.value if type(s) is not bnode else "_:" + s.value)
        p_out.append(t.predicate.value)
        o_out.append(o.value if type(o) is not bnode else "_:" + o.value)


def _batch(s: list, p: list, o: list) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [pa.array(s, pa.string()), pa.array(p, pa.string()), pa.array(o, pa.string())],
        schema=TRIPLE_SCHEMA,
    )


class _Bisector:
    """Parse a list of ``(line, offset, bytes)`` statements, isolating the ones that fail."""

    def __init__(self, ox_format, header: bytes = b""):
        self.ox_format, self.header = ox_format, header
        self.bad: list[BadStatement] = []

    def parse(self, stmts: list[tuple[int, int, bytes]], s: list, p: list, o: list) -> None:
        data = b"".join(b for _, _, b in stmts)
        ls: list[str] = []
        lp: list[str] = []
        lo: list[str] = []
        try:
            data.decode("utf-8")
            _columns(ox.parse(input=self.header + data, format=self.ox_format), ls, lp, lo)
        except (SyntaxError, UnicodeDecodeError, ValueError) as e:
            if len(stmts) == 1:
                line, offset, raw = stmts[0]
                reason = "non_utf8" if isinstance(e, UnicodeDecodeError) else "malformed_triple"
                self.bad.append(
                    BadStatement(
                        reason,
                        line,
                        str(e).splitlines()[0][:300],
                        raw.decode("utf-8", "replace")[:500],
                        offset,
                    )
                )
                return
            mid = len(stmts) // 2
            self.parse(stmts[:mid], s, p, o)
            self.parse(stmts[mid:], s, p, o)
            return
        s.extend(ls)
        p.extend(lp)
        o.extend(lo)


def _is_statement(raw: bytes) -> bool:
    """Whether a line holds a statement: it is not blank or a comment."""
    return bool(raw.strip()) and not raw.lstrip().startswith(b"#")


def _split_lines(chunk: bytes, first_line: int, offset: int) -> list[tuple[int, int, bytes]]:
    out = []
    for i, raw in enumerate(chunk.splitlines(keepends=True)):
        if _is_statement(raw):
            out.append((first_line + i, offset, raw))
        offset += len(raw)
    return out


def iter_ntriples(
    path: str | Path, start: int = 0, end: int | None = None, first_line: int = 1
) -> Iterator[tuple[pa.RecordBatch, list[BadStatement]]]:
    """Arrow batches of the N-Triples lines in bytes ``[start, end)`` (both on line boundaries)."""
    path = Path(path)
    end = path.stat().st_size if end is None else end
    bis = _Bisector(ox.RdfFormat.N_TRIPLES)
    line = first_line
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        while pos < end:
            chunk = f.read(min(CHUNK_BYTES, end - pos))
            if pos + len(chunk) < end and not chunk.endswith(b"\n"):
                chunk += f.readline()
                chunk = chunk[: end - pos]
            s: list[str] = []
            p: list[str] = []
            o: list[str] = []
            try:
                chunk.decode("utf-8")
                _columns(ox.parse(input=chunk, format=ox.RdfFormat.N_TRIPLES), s, p, o)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                s, p, o = [], [], []
                bis.bad = []
                bis.parse(_split_lines(chunk, line, pos), s, p, o)
            yield _batch(s, p, o), bis.bad
            bis.bad = []
            line += chunk.count(b"\n")
            pos += len(chunk)


def _statements(path: Path) -> Iterator[tuple[int, int, bytes, bool]]:
    """Turtle statements: ``(first line number, byte offset, bytes, is_directive)`` in file
    order."""
    buf: list[bytes] = []
    start = offset = start_offset = 0
    in_long = False
    with open(path, "rb") as f:
        for lineno, line in enumerate(f, start=1):
            if not buf:
                start, start_offset = lineno, offset
            offset += len(line)
            buf.append(line)
            if line.count(b'"""') % 2 == 1:
                in_long = not in_long
            stripped = line.strip()
            if in_long:
                continue
            if not stripped or stripped.startswith(b"#"):
                if len(buf) == 1:
                    buf = []
                continue
            low = stripped[:7].lower()
            is_directive = low.startswith((b"@prefix", b"@base", b"prefix", b"base"))
            if stripped.endswith(b".") or (
                is_directive and len(buf) == 1 and not stripped.startswith(b"@")
            ):
                yield start, start_offset, b"".join(buf), is_directive and len(buf) == 1
                buf = []
        if buf and any(x.strip() for x in buf):
            yield start, start_offset, b"".join(buf), False


def iter_turtle(
    path: str | Path, block_statements: int = 20_000
) -> Iterator[tuple[pa.RecordBatch, list[BadStatement]]]:
    """Arrow batches of a Turtle file, parsed in blocks of whole statements."""
    bis = _Bisector(ox.RdfFormat.TURTLE)
    block: list[tuple[int, int, bytes]] = []

    def flush():
        s: list[str] = []
        p: list[str] = []
        o: list[str] = []
        bis.parse(block, s, p, o)
        bad, bis.bad = bis.bad, []
        return _batch(s, p, o), bad

    for lineno, offset, stmt, is_directive in _statements(Path(path)):
        if is_directive:
            try:
                stmt.decode("utf-8")
                list(ox.parse(input=bis.header + stmt, format=ox.RdfFormat.TURTLE))
                bis.header += stmt if stmt.endswith(b"\n") else stmt + b"\n"
            except (SyntaxError, UnicodeDecodeError, ValueError) as e:
                bis.bad.append(
                    BadStatement(
                        "malformed_directive",
                        lineno,
                        str(e).splitlines()[0][:300],
                        stmt.decode("utf-8", "replace")[:500],
                        offset,
                    )
                )
            continue
        block.append((lineno, offset, stmt))
        if len(block) >= block_statements:
            yield flush()
            block = []
    yield flush()


class RdfStreamReader:
    """Iterate Arrow record batches of a Turtle or N-Triples file in one process, collecting bad
    statements.

    >>> reader = RdfStreamReader("kg.ttl")           # doctest: +SKIP
    >>> for batch in reader.batches(): ...            # doctest: +SKIP
    >>> reader.bad                                    # list[BadStatement]  # doctest: +SKIP
    """

    def __init__(self, path: str | Path, fmt: str | None = None, block_statements: int = 20_000):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such KG file")
        self.fmt = fmt or format_for(self.path)
        self.block_statements = block_statements
        self.bad: list[BadStatement] = []
        self.triples = 0

    def batches(self) -> Iterator[pa.RecordBatch]:
        it = (
            iter_ntriples(self.path)
            if self.fmt == "ntriples"
            else iter_turtle(self.path, self.block_statements)
        )
        for batch, bad in it:
            self.bad.extend(bad)
            self.triples += batch.num_rows
            yield batch


def _line_ranges(path: Path, parts: int) -> list[tuple[int, int]]:
    size = path.stat().st_size
    cuts = [0]
    with open(path, "rb") as f:
        for k in range(1, parts):
            f.seek(size * k // parts)
            f.readline()
            cuts.append(max(f.tell(), cuts[-1]))
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _parse_range_to_parquet(
    path: str, start: int, end: int, out: str
) -> tuple[int, list[BadStatement]]:
    """Worker: parse N-Triples bytes [start, end) into a Parquet file; line numbers are fixed by the
    caller."""
    bad: list[BadStatement] = []
    n = 0
    with pq.ParquetWriter(out, TRIPLE_SCHEMA, compression="lz4") as w:
        for batch, b in iter_ntriples(path, start, end, first_line=1):
            w.write_batch(batch)
            n += batch.num_rows
            bad.extend(b)
    return n, bad


def parse_file(
    path: str | Path,
    out_dir: str | Path,
    workers: int = 0,
    min_parallel_bytes: int = PARALLEL_MIN_BYTES,
) -> tuple[list[Path], int, list[BadStatement]]:
    """Parse a KG file into Parquet parts (``s, p, o``) under ``out_dir``, in file order.

    With ``workers`` > 1 (0, the default: the CPU count, at most 4), N-Triples of
    ``min_parallel_bytes`` or more are split into line-aligned byte ranges, each parsed by a worker
    process (a fresh interpreter running this module, so callers need no ``__main__`` guard). On the
    2-vCPU reference machine two workers parse 1.9x faster than one (docs/benchmarks.md). Returns
    ``(parts, triples, bad statements)``.
    """
    path, out_dir = Path(path), Path(out_dir)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such KG file")
    fmt = format_for(path)
    out_dir.mkdir(parents=True, exist_ok=True)
    workers = workers or min(os.cpu_count() or 1, 4)
    if fmt == "ntriples" and workers > 1 and path.stat().st_size >= min_parallel_bytes:
        ranges = _line_ranges(path, workers)
        outs = [out_dir / f"part-{i:03d}.parquet" for i in range(len(ranges))]
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", __name__, str(path), str(a), str(b), str(o)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for (a, b), o in zip(ranges, outs, strict=True)
        ]
        total, bad = 0, []
        for proc in procs:
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(
                    f"{path}: parser worker failed (exit {proc.returncode}): {err.strip()[-500:]}"
                )
            res = json.loads(out)
            total += res["triples"]
            bad += [BadStatement(**b) for b in res["bad"]]
        if bad:  # worker line numbers are relative to their range: recount from the byte offsets
            bad = _renumber(path, bad)
        return outs, total, bad
    out = out_dir / "part-000.parquet"
    reader = RdfStreamReader(path, fmt)
    with pq.ParquetWriter(out, TRIPLE_SCHEMA, compression="lz4") as w:
        for batch in reader.batches():
            w.write_batch(batch)
    return [out], reader.triples, reader.bad


def _renumber(path: Path, bad: list[BadStatement]) -> list[BadStatement]:
    out = []
    with open(path, "rb") as f:
        pos, line = 0, 1
        for b in sorted(bad, key=lambda x: x.offset):
            while pos < b.offset:
                chunk = f.read(min(CHUNK_BYTES, b.offset - pos))
                line += chunk.count(b"\n")
                pos += len(chunk)
            out.append(BadStatement(b.reason, line, b.detail, b.text, b.offset))
    return out


# ------------------------------------------------------------------- N-Triples through DuckDB
def _iri_re() -> str:
    """RE2 of an absolute IRI that pyoxigraph accepts as written: scheme, then an optional ``//``
    host of unreserved characters with a numeric port, path, query and one fragment; no backslash,
    no ``%`` without two hex digits, no brackets (IPv6 hosts), no user info, no private-use
    characters. A strict subset of RFC 3987.
    """
    ucs = (
        r"\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}"
        + "".join(rf"\x{{{k:X}0000}}-\x{{{k:X}FFFD}}" for k in range(1, 14))
        + r"\x{E1000}-\x{EFFFD}"
    )
    pchar = rf"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@{ucs}]|%[0-9A-Fa-f]{{2}})"
    host = r"[A-Za-z0-9\-._~!$&'()*+,;=]"
    return (
        r"[A-Za-z][A-Za-z0-9+.\-]*:"
        rf"(?://{host}*(?::[0-9]*)?(?:/{pchar}*)*|/?(?:{pchar}+(?:/{pchar}*)*)?)"
        rf"(?:\?(?:{pchar}|[/?])*)?(?:#(?:{pchar}|[/?])*)?"
    )


_IRI = _iri_re()
_LANG = r"[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
_BNODE = r"_:[A-Za-z0-9_]+"
#: The lines the DuckDB path takes (a full match): ``<iri>`` or ``_:label`` subject, ``<iri>``
#: predicate, ``<iri>``, ``_:label`` or a literal without backslash (plain, ``@lang`` or ``^^<iri>``
#: outside the rdf: namespace, whose langString datatypes need a tag), then ``.`` and an optional
#: comment.
FAST_LINE_RE = (
    rf"[ \t]*(?:<{_IRI}>|{_BNODE})[ \t]*<{_IRI}>[ \t]*"
    rf"(?:<{_IRI}>|{_BNODE}|\"[^\"\\]*\""
    rf"(?:\^\^<{_IRI}>|@{_LANG})?)[ \t]*\.[ \t]*(?:#.*)?"
)
#: Lines that hold no statement: blank (DuckDB reads an empty line as NULL) or a comment.
SKIP_LINE_RE = r"[ \t]*(?:#.*)?"
#: Terms of a line that :data:`FAST_LINE_RE` took, written ``<s> <p> <o> .`` or ``<s> <p> "o"...``.
_CANONICAL_TERMS = r'^<([^>]*)> <([^>]*)> (?:<([^>]*)>|"([^"]*)")'
#: Terms of any other line that :data:`FAST_LINE_RE` took.
_GENERAL_TERMS = r'^[ \t]*(?:<([^>]*)>|(_:\w+))[ \t]*<([^>]*)>[ \t]*(?:<([^>]*)>|(_:\w+)|"([^"]*)")'
_RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#: A byte DuckDB's CSV reader is told to split columns on; files holding it take the pyoxigraph
#: path.
_DELIM = b"\x01"
FAST_LINES_SCHEMA = arrow_schema("line BIGINT, s VARCHAR, p VARCHAR, o VARCHAR, text VARCHAR")


def _sql_str(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def duckdb_readable(path: str | Path) -> bool:
    """Whether DuckDB's CSV reader sees exactly the file's ``\\n``-separated lines: no ``\\r``
    (which it also splits on), no NUL, no column delimiter byte and no byte-order mark (which it
    would drop)."""
    with open(path, "rb") as f:
        head = f.read(3)
        if head.startswith(b"\xef\xbb\xbf"):
            return False
        f.seek(0)
        while chunk := f.read(CHUNK_BYTES):
            if b"\r" in chunk or b"\x00" in chunk or _DELIM in chunk:
                return False
    return True


def ntriples_duckdb_sql(path: str | Path, out: str | Path) -> str:
    """The ``COPY`` statement that writes ``out`` (Parquet, :data:`FAST_LINES_SCHEMA`) from an
    N-Triples file in one scan: one row per line that is not blank or a comment, in file order, with
    its 1-based ``line``; lines that :data:`FAST_LINE_RE` takes carry ``s, p, o`` (literals as their
    lexical form, blank nodes as ``_:label``) and a NULL ``text``; the others carry only their
    ``text``. Needs ``preserve_insertion_order`` for the line numbers."""
    src = (
        f"read_csv({_sql_str(str(path))}, delim={_sql_str(_DELIM.decode())}, quote='', escape='', "
        "header=false, auto_detect=false, columns={'text': 'VARCHAR'}, strict_mode=false)"
    )
    return f"""
        COPY (
            SELECT
                line,
                t.s,
                t.p,
                CASE WHEN t.o1 <> '' THEN t.o1 ELSE t.o3 END AS o,
                CASE WHEN NOT fast THEN text END AS text
            FROM (
                SELECT
                    line,
                    text,
                    fast,
                    CASE WHEN fast AND c.s = '' THEN regexp_extract(
                        text, {_sql_str(_GENERAL_TERMS)}, ['s1', 's2', 'p', 'o1', 'o2', 'o3']
                    ) END AS g,
                    CASE
                        WHEN NOT fast THEN NULL
                        WHEN c.s <> '' THEN c
                        ELSE {{
                            's': coalesce(nullif(g['s1'], ''), g['s2']),
                            'p': g['p'],
                            'o1': coalesce(nullif(g['o1'], ''), g['o2']),
                            'o3': g['o3']
                        }}
                    END AS t
                FROM (
                    SELECT
                        line,
                        text,
                        fast,
                        CASE WHEN fast THEN regexp_extract(
                            text, {_sql_str(_CANONICAL_TERMS)}, ['s', 'p', 'o1', 'o3']
                        ) END AS c
                    FROM (
                        SELECT
                            line,
                            text,
                            regexp_full_match(text, {_sql_str(FAST_LINE_RE)})
                                AND NOT contains(text, {_sql_str("^^<" + _RDF_NS)}) AS fast
                        FROM (SELECT row_number() OVER () AS line, text FROM {src})
                        WHERE text IS NOT NULL AND NOT regexp_full_match(text,
                            {_sql_str(SKIP_LINE_RE)})
                    )
                )
            )
        ) TO {_sql_str(str(out))} (FORMAT parquet, COMPRESSION lz4)
    """


def _line_offsets(path: Path, lines: set[int]) -> tuple[dict[int, int], int]:
    """Byte offsets of the 1-based ``lines`` of a file, and its number of lines."""
    out: dict[int, int] = {}
    line, pos = 1, 0
    with open(path, "rb") as f:
        for raw in f:
            if line in lines:
                out[line] = pos
            pos += len(raw)
            line += 1
    return out, line - 1


def _parse_fallback(
    rows: list[tuple[int, str]], last: tuple[int, bool], bis: _Bisector
) -> tuple[list[int], list[str], list[str], list[str]]:
    """pyoxigraph's triples of the lines DuckDB did not take, ``(line, text)`` in file order, as
    columns ``(line, s, p, o)``; bad lines are added to ``bis.bad``. ``last`` is the file's last
    line number and whether it ends without a newline (that line's bytes have none)."""
    stmts = []
    for line, text in rows:
        raw = text.encode() if line == last[0] and last[1] else (text + "\n").encode()
        if _is_statement(raw):
            stmts.append((line, -1, raw))
    known = len(bis.bad)
    s: list[str] = []
    p: list[str] = []
    o: list[str] = []
    bis.parse(stmts, s, p, o)
    bad = {b.line for b in bis.bad[known:]}
    good = [line for line, _, _ in stmts if line not in bad]
    if len(good) == len(s):
        return good, s, p, o
    lines: list[int] = []
    s, p, o = [], [], []
    for line, _, raw in stmts:
        if line not in bad:
            n = len(s)
            _columns(ox.parse(input=raw, format=ox.RdfFormat.N_TRIPLES), s, p, o)
            lines += [line] * (len(s) - n)
    return lines, s, p, o


def parse_ntriples_duckdb(
    con: duckdb.DuckDBPyConnection,
    path: str | Path,
    out_dir: str | Path,
    threads: int = 1,
    fallback_rows: int = 20_000,
) -> tuple[list[Path], int, list[BadStatement]] | None:
    """Parse an N-Triples file with DuckDB (``threads`` threads on ``con``, restored afterwards) and
    pyoxigraph for the lines DuckDB does not take; the triples and bad statements are those of
    :func:`parse_file`. One thread is the default: the line numbers come from a window that two
    threads make slower, not faster (docs/benchmarks.md).

    Returns ``(parts, triples, bad statements)``: the parts are Parquet files of
    :data:`FAST_LINES_SCHEMA` under ``out_dir``, whose rows with a non-NULL ``s`` are the triples
    (:func:`lines_triples_sql` reads them in file order). None when DuckDB cannot read the file line
    for line (:func:`duckdb_readable`, bytes that are not UTF-8, a line longer than its reader
    takes): parse it with :func:`parse_file` then."""
    path, out_dir = Path(path), Path(out_dir)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such KG file")
    if format_for(path) != "ntriples" or not duckdb_readable(path):
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    fast, rest = out_dir / "lines-000.parquet", out_dir / "lines-001.parquet"
    saved = con.execute(
        "SELECT current_setting('threads'), current_setting('preserve_insertion_order')"
    ).fetchone()
    con.execute(f"SET threads = {int(threads)}")
    con.execute("SET preserve_insertion_order = true")
    try:
        con.execute(ntriples_duckdb_sql(path, fast))
    except duckdb.InvalidInputException:
        return None
    finally:
        con.execute(f"SET threads = {int(saved[0])}")
        con.execute(f"SET preserve_insertion_order = {bool(saved[1])}")
    triples = int(con.execute("SELECT count(s) FROM read_parquet(?)", [str(fast)]).fetchone()[0])
    reader = con.execute(
        "SELECT line, text FROM read_parquet(?) WHERE text IS NOT NULL ORDER BY line", [str(fast)]
    ).fetch_record_batch(fallback_rows)
    bis = _Bisector(ox.RdfFormat.N_TRIPLES)
    last = (0, False)
    with open(path, "rb") as f:
        if path.stat().st_size and f.seek(-1, 2) and f.read(1) != b"\n":
            last = (-1, True)
    parts = [fast]
    with pq.ParquetWriter(rest, FAST_LINES_SCHEMA, compression="lz4") as w:
        for batch in reader:
            rows = list(zip(batch.column("line").to_pylist(), batch.column("text").to_pylist()))
            if last == (-1, True):  # the file's last line has no newline: which line is it?
                last = (_line_offsets(path, set())[1], True)
            lines, s, p, o = _parse_fallback(rows, last, bis)
            triples += len(s)
            w.write_batch(
                pa.RecordBatch.from_arrays(
                    [
                        pa.array(lines, pa.int64()),
                        pa.array(s),
                        pa.array(p),
                        pa.array(o),
                        pa.nulls(len(s), pa.string()),
                    ],
                    schema=FAST_LINES_SCHEMA,
                )
            )
    parts.append(rest)
    bad = bis.bad
    if bad:
        offsets, _ = _line_offsets(path, {b.line for b in bad})
        bad = [BadStatement(b.reason, b.line, b.detail, b.text, offsets[b.line]) for b in bad]
    return parts, triples, bad


def lines_triples_sql(parts: list[Path]) -> str:
    """``SELECT s, p, o`` of the triples in :func:`parse_ntriples_duckdb`'s parts, in file order."""
    files = ", ".join(_sql_str(str(p)) for p in parts)
    return f"SELECT s, p, o FROM read_parquet([{files}]) WHERE s IS NOT NULL ORDER BY line"


if __name__ == "__main__":  # worker entry point of parse_file: <path> <start> <end> <out.parquet>
    _n, _bad = _parse_range_to_parquet(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    print(json.dumps({"triples": _n, "bad": [asdict(b) for b in _bad]}))
