"""Reading OSM PBF snapshots with pyosmium, turning libosmium's errors into one clear exception."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import osmium

from mgqa_platform.errors import InputError


class OsmSnapshotError(InputError):
    """The PBF cannot be read completely (truncated, corrupt or not a PBF)."""


def _check(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_file():
        raise OsmSnapshotError(f"{p}: no such OSM snapshot file")
    return p


def open_pbf(
    path: str | Path, entities=osmium.osm.ALL, with_tags_only: bool = False, areas: bool = False
) -> Iterator:
    """Iterate the OSM objects of ``path`` in file order.

    ``areas=True`` adds assembled areas (closed ways and multipolygon/boundary relations) after the
    plain objects. libosmium errors (a truncated PBF: "unexpected EOF") become
    :class:`OsmSnapshotError` naming the file and the number of objects read before the failure.
    """
    p = _check(path)
    fp = osmium.FileProcessor(str(p), entities)
    if with_tags_only:
        fp = fp.with_filter(osmium.filter.EmptyTagFilter())
    if areas:
        fp = fp.with_areas()
    n = 0
    try:
        for obj in fp:
            n += 1
            yield obj
    except RuntimeError as e:
        raise OsmSnapshotError(f"{p}: truncated or corrupt PBF after {n} objects ({e})") from e
    except UnicodeDecodeError as e:
        raise not_utf8(p, e) from e


def not_utf8(path: str | Path, error: UnicodeDecodeError) -> OsmSnapshotError:
    """The error for a PBF holding a string (tag, role, user name) that is not UTF-8: pyosmium
    raises ``UnicodeDecodeError`` when such a string is read, which would name neither file nor
    cause."""
    return OsmSnapshotError(f"{path}: corrupt PBF, an OSM string is not valid UTF-8 ({error})")


def first_tagged_object(path: str | Path) -> tuple[str, int] | None:
    """``(type, id)`` of the first node, way or relation of ``path`` that has a tag (its tags read,
    so a corrupt first block fails here), or None for an extract without any: an empty snapshot."""
    for obj in open_pbf(path, with_tags_only=True):
        try:
            dict(obj.tags)
        except UnicodeDecodeError as e:
            raise not_utf8(path, e) from e
        return obj.type_str(), obj.id
    return None


def header_timestamp(path: str | Path) -> str | None:
    """The ``osmosis_replication_timestamp`` of the PBF header, if the producer wrote one."""
    p = _check(path)
    try:
        reader = osmium.io.Reader(str(p), osmium.osm.NOTHING)
        try:
            ts = reader.header().get("osmosis_replication_timestamp")
        finally:
            reader.close()
    except (RuntimeError, UnicodeDecodeError) as e:
        raise OsmSnapshotError(f"{p}: unreadable PBF header ({e})") from e
    return ts or None


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(buf):
            raise ValueError("varint runs past the end of the BlobHeader")
        b = buf[i]
        value |= (b & 0x7F) << shift
        i += 1
        if not b & 0x80:
            return value, i
        shift += 7


def check_pbf_framing(path: str | Path) -> int:
    """Walk the blob framing of a PBF without decompressing anything; return the number of blobs.

    A PBF is a sequence of ``<4-byte big-endian length><BlobHeader><Blob of BlobHeader.datasize
    bytes>``. Seeking from header to header costs a few reads per blob, so even a planet file is
    checked in seconds. A file that ends inside a blob (a half-copied download) raises
    :class:`OsmSnapshotError`.
    """
    p = _check(path)
    size = p.stat().st_size
    blobs = 0
    with open(p, "rb") as f:
        pos = 0
        while pos < size:
            raw = f.read(4)
            if len(raw) < 4:
                raise OsmSnapshotError(f"{p}: truncated PBF (partial blob length at byte {pos})")
            (hlen,) = struct.unpack(">I", raw)
            header = f.read(hlen)
            if hlen > 64 * 1024 or len(header) < hlen:
                raise OsmSnapshotError(
                    f"{p}: truncated or corrupt PBF (bad BlobHeader at byte {pos})"
                )
            datasize, i = None, 0
            try:
                while i < len(header):
                    key, i = _varint(header, i)
                    field_no, wire = key >> 3, key & 7
                    if wire == 2:
                        n, i = _varint(header, i)
                        i += n
                    elif wire == 0:
                        v, i = _varint(header, i)
                        if field_no == 3:
                            datasize = v
                    else:
                        raise ValueError(f"unexpected wire type {wire}")
            except ValueError as e:
                raise OsmSnapshotError(f"{p}: corrupt BlobHeader at byte {pos} ({e})") from e
            if datasize is None:
                raise OsmSnapshotError(f"{p}: BlobHeader at byte {pos} has no datasize")
            pos += 4 + hlen + datasize
            if pos > size:
                raise OsmSnapshotError(
                    f"{p}: truncated PBF (blob {blobs} needs {pos - size} more bytes)"
                )
            f.seek(pos)
            blobs += 1
    if blobs == 0:
        raise OsmSnapshotError(f"{p}: empty file")
    return blobs
