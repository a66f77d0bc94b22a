"""Streaming, fault-tolerant RDF parsing into Arrow batches of ``(s, p, o)`` strings.

Terms become plain strings: IRIs without angle brackets, literals as their lexical value (language
tag and datatype dropped: the platform reads labels and WKT, it does not reason over datatypes),
blank nodes as ``_:<id>``.

* **N-Triples** is read in chunks of whole lines (a few MiB); each chunk is handed to pyoxigraph (Rust) in
  one call. Large files are split into byte ranges parsed by worker processes (:func:`parse_file`).
* **Turtle** is cut into blocks of whole statements: a statement ends on a line whose last non-blank
  character is ``.`` outside a long (triple-quoted) literal; ``@prefix``/``@base`` lines are remembered and
  prepended to every block.

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

import pyarrow as pa
import pyarrow.parquet as pq
import pyoxigraph as ox

TRIPLE_SCHEMA = pa.schema([("s", pa.string()), ("p", pa.string()), ("o", pa.string())])
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


def _split_lines(chunk: bytes, first_line: int, offset: int) -> list[tuple[int, int, bytes]]:
    out = []
    for i, raw in enumerate(chunk.splitlines(keepends=True)):
        if raw.strip() and not raw.lstrip().startswith(b"#"):
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
    """Turtle statements: ``(first line number, byte offset, bytes, is_directive)`` in file order."""
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
    """Iterate Arrow record batches of a Turtle or N-Triples file in one process, collecting bad statements.

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
    """Worker: parse N-Triples bytes [start, end) into a Parquet file; line numbers are fixed by the caller."""
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
    ``min_parallel_bytes`` or more are split into line-aligned byte ranges, each parsed by a worker process (a
    fresh interpreter running this module, so callers need no ``__main__`` guard). On the 2-vCPU reference
    machine two workers parse 1.9x faster than one (docs/benchmarks.md). Returns ``(parts, triples, bad statements)``.
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


if __name__ == "__main__":  # worker entry point of parse_file: <path> <start> <end> <out.parquet>
    _n, _bad = _parse_range_to_parquet(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    print(json.dumps({"triples": _n, "bad": [asdict(b) for b in _bad]}))
