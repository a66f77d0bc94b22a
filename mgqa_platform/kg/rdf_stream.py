"""Streaming, fault-tolerant RDF parsing into Arrow batches of ``(s, p, o, o_kind)`` strings.

The file is read in blocks of whole statements; each block is parsed by pyoxigraph (Rust). A block
that fails (a syntax error, bytes that are not UTF-8) is bisected down to single statements so that
only the bad statements are quarantined, each with its line number and the parser's message; the rest
of the file still loads. Memory is bounded by the block size, not the file size.

Statement boundaries: in N-Triples every line is one statement. In Turtle a statement ends on a line
whose last non-blank character is ``.`` outside a long (triple-quoted) literal; ``@prefix``/``@base``
lines are remembered and prepended to every block.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyoxigraph as ox

TRIPLE_SCHEMA = pa.schema([("s", pa.string()), ("p", pa.string()), ("o", pa.string()), ("o_kind", pa.string())])
FORMATS = {"turtle": ox.RdfFormat.TURTLE, "ntriples": ox.RdfFormat.N_TRIPLES}


@dataclass(frozen=True)
class BadStatement:
    """A statement that could not be parsed: ``reason`` is 'non_utf8' or 'malformed_triple'."""

    reason: str
    line: int
    detail: str
    text: str


def format_for(path: str | Path) -> str:
    """'turtle' for .ttl, 'ntriples' for .nt (the two native RDF formats the platform reads)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".ttl":
        return "turtle"
    if suffix == ".nt":
        return "ntriples"
    raise ValueError(f"{path}: unsupported RDF file extension {suffix!r} (expected .ttl or .nt)")


def _statements(path: Path, fmt: str) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(first line number, statement bytes, is_directive)`` in file order."""
    buf: list[bytes] = []
    start = 0
    in_long = False
    with open(path, "rb") as f:
        for lineno, line in enumerate(f, start=1):
            if not buf:
                start = lineno
            buf.append(line)
            if fmt == "ntriples":
                yield start, line, False
                buf = []
                continue
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
            is_directive = low.startswith(b"@prefix") or low.startswith(b"@base") or low.startswith(b"prefix") or low.startswith(b"base")
            if stripped.endswith(b".") or (is_directive and len(buf) == 1 and not stripped.startswith(b"@")):
                yield start, b"".join(buf), is_directive and len(buf) == 1
                buf = []
        if buf and any(x.strip() for x in buf):
            yield start, b"".join(buf), False


def _terms(triples, s_out: list, p_out: list, o_out: list, k_out: list) -> None:
    for t in triples:
        s = t.subject
        s_out.append(s.value if isinstance(s, ox.NamedNode) else f"_:{s.value}")
        p_out.append(t.predicate.value)
        o = t.object
        if isinstance(o, ox.Literal):
            o_out.append(o.value)
            k_out.append("literal")
        elif isinstance(o, ox.NamedNode):
            o_out.append(o.value)
            k_out.append("iri")
        else:
            o_out.append(f"_:{o.value}")
            k_out.append("bnode")


class RdfStreamReader:
    """Iterate Arrow record batches of a Turtle or N-Triples file, collecting bad statements.

    >>> reader = RdfStreamReader("kg.ttl")           # doctest: +SKIP
    >>> for batch in reader.batches(): ...            # doctest: +SKIP
    >>> reader.bad                                    # list[BadStatement]  # doctest: +SKIP
    """

    def __init__(self, path: str | Path, fmt: str | None = None, block_statements: int = 20_000):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such KG file")
        self.fmt = fmt or format_for(self.path)
        self.ox_format = FORMATS[self.fmt]
        self.block_statements = block_statements
        self.bad: list[BadStatement] = []
        self.header = b""
        self.triples = 0

    def _parse(self, data: bytes):
        return list(ox.parse(input=self.header + data, format=self.ox_format))

    def _parse_block(self, block: list[tuple[int, bytes]]) -> list:
        """Parse a block; on failure bisect so that only failing statements are quarantined."""
        data = b"".join(b for _, b in block)
        try:
            data.decode("utf-8")
            return self._parse(data)
        except (SyntaxError, UnicodeDecodeError, ValueError) as e:
            if len(block) == 1:
                lineno, raw = block[0]
                reason = "non_utf8" if isinstance(e, UnicodeDecodeError) else "malformed_triple"
                self.bad.append(BadStatement(reason, lineno, str(e).splitlines()[0][:300], raw.decode("utf-8", "replace")[:500]))
                return []
            mid = len(block) // 2
            return self._parse_block(block[:mid]) + self._parse_block(block[mid:])

    def _to_batch(self, triples) -> pa.RecordBatch:
        s: list[str] = []
        p: list[str] = []
        o: list[str] = []
        k: list[str] = []
        _terms(triples, s, p, o, k)
        self.triples += len(s)
        return pa.RecordBatch.from_arrays([pa.array(s, pa.string()), pa.array(p, pa.string()), pa.array(o, pa.string()), pa.array(k, pa.string())], schema=TRIPLE_SCHEMA)

    def batches(self) -> Iterator[pa.RecordBatch]:
        block: list[tuple[int, bytes]] = []
        for lineno, stmt, is_directive in _statements(self.path, self.fmt):
            if is_directive:
                try:
                    stmt.decode("utf-8")
                    list(ox.parse(input=self.header + stmt, format=self.ox_format))
                    self.header += stmt if stmt.endswith(b"\n") else stmt + b"\n"
                except (SyntaxError, UnicodeDecodeError, ValueError) as e:
                    self.bad.append(BadStatement("malformed_directive", lineno, str(e).splitlines()[0][:300], stmt.decode("utf-8", "replace")[:500]))
                continue
            block.append((lineno, stmt))
            if len(block) >= self.block_statements:
                yield self._to_batch(self._parse_block(block))
                block = []
        if block:
            yield self._to_batch(self._parse_block(block))
