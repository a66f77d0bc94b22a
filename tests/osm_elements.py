"""OSM elements for hand-written test PBFs: version 1, tags as given, for ``osmium.SimpleWriter``.

Locations are (lon, lat) in WGS84 degrees, as pyosmium takes them.
"""

from __future__ import annotations

from osmium.osm import mutable


def node(node_id: int, lon_lat: tuple[float, float], tags: dict | None = None) -> mutable.Node:
    """A node at ``lon_lat`` = (lon, lat)."""
    return mutable.Node(id=node_id, version=1, location=lon_lat, tags=tags or {})


def way(way_id: int, nodes: list[int], tags: dict | None = None) -> mutable.Way:
    """A way through the node ids ``nodes`` (closed when the first id is repeated last)."""
    return mutable.Way(id=way_id, version=1, nodes=nodes, tags=tags or {})


def relation(relation_id: int, members: list[tuple], tags: dict) -> mutable.Relation:
    """A relation of ``members`` = [(type "n"/"w"/"r", id, role), ...]."""
    return mutable.Relation(id=relation_id, version=1, members=members, tags=tags)
