"""Reference solvers for SFID L on hand-made records.

Points are placed with ``Geod.fwd`` at chosen geodesic distances from an anchor, so each threshold
edge (near_km, not_near_km, far_km, margins, tie tolerances, boundary buffer) is tested a few metres
either side.
"""

from __future__ import annotations

from pyproj import Geod

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import Record

GEOD = Geod(ellps="WGS84")
B = (24.94, 60.17)


def record(
    sub: str,
    fmt: str,
    executor: str,
    geoms: dict[str, str],
    params: dict | None = None,
    extra: list[tuple[int, str, str]] = (),
    bindings: dict | None = None,
) -> dict:
    """``geoms``: role -> WKT (bound, type ``thing``); ``extra``: (index, WKT, type) evidence
    entities."""
    rec = Record(sub, fmt, executor, params, bindings)
    for role, wkt in geoms.items():
        rec.add(wkt, role, types=("thing",))
    for _, wkt, typ in extra:
        rec.add(wkt, types=(typ,))
    return rec.record


def at(km: float, az: float = 37.0, origin: tuple[float, float] = B) -> str:
    lon, lat, _ = GEOD.fwd(origin[0], origin[1], az, km * 1000.0)
    return f"POINT ({lon!r} {lat!r})"


PB = f"POINT ({B[0]} {B[1]})"


def _pair(sub: str, ex: str, km: float):
    return solve(record(sub, "boolean", ex, {"entity_A": at(km), "entity_B": PB}))


def test_near_band_edges():  # L01.1: near_km 2, not_near_km 5
    assert _pair("L01.1", "fuzzy.near", 1.999).answer == {"value": True}
    assert _pair("L01.1", "fuzzy.near", 2.001).reason == "vague_band"
    assert _pair("L01.1", "fuzzy.near", 4.999).reason == "vague_band"
    assert _pair("L01.1", "fuzzy.near", 5.001).answer == {"value": False}


def test_near_coincident_is_unsolvable():
    assert _pair("L01.1", "fuzzy.near", 0.0002).reason == "coincident_points"


def test_far_band_edges():  # L02.2: far_km 100, not_far_km 50
    assert _pair("L02.2", "fuzzy.far", 100.01).answer == {"value": True}
    assert _pair("L02.2", "fuzzy.far", 99.99).reason == "vague_band"
    assert _pair("L02.2", "fuzzy.far", 49.99).answer == {"value": False}


def _likelier(kb: float, kc: float):
    return solve(
        record(
            "L03.1",
            "boolean",
            "fuzzy.likelier_near",
            {"entity_A": PB, "entity_B": at(kb, 10.0), "entity_C": at(kc, 200.0)},
        )
    )


def test_likelier_near_membership_and_margin():  # L03.1: mu 1 at <= 2 km, 0 at >= 20 km, margin 0.1
    assert _likelier(5.0, 10.0).answer == {"value": True}  # 0.833 vs 0.556
    assert _likelier(10.0, 5.0).answer == {"value": False}
    assert (
        _likelier(11.0, 12.7).reason == "too_close_to_call"
    )  # mu 0.5 vs 7.3/18 = 0.4056: diff 0.0944 < margin
    assert _likelier(11.0, 12.9).answer == {
        "value": True
    }  # mu 0.5 vs 7.1/18 = 0.3944: diff 0.1056 >= margin


def test_likelier_near_both_saturated_is_unsolvable():
    assert _likelier(0.5, 1.5).reason == "too_close_to_call"  # both fully near
    assert _likelier(25.0, 40.0).reason == "too_close_to_call"  # both not near


def roughly_closest(sub: str, extra: list):
    """A "roughly closest outdoor place to B" record over the ``extra`` entities."""
    return record(
        sub,
        "set",
        "fuzzy.roughly_closest",
        {"entity_B": PB},
        extra=extra,
        bindings={"category_A": "outdoor"},
    )


def test_roughly_closest_relative_tolerance():  # L04.1: rel 0.1, abs 0.05 km, radius 50 km
    extra = [
        (1, at(1.0, 0.0), "outdoor"),
        (2, at(1.09, 90.0), "outdoor"),
        (3, at(1.11, 180.0), "outdoor"),
        (4, at(0.3, 270.0), "cafe"),
        (5, at(60.0, 45.0), "outdoor"),
    ]
    r = roughly_closest("L04.1", extra)
    s = solve(r)  # worldkg:1 is B; the cafe (worldkg:5) at 0.3 km is not of the category
    assert s.answer["entity_ids"] == ["worldkg:2", "worldkg:3"], s


def test_roughly_closest_absolute_tolerance():  # d_min 0.2 km: cut = max(0.22, 0.25) = 0.25 km
    extra = [
        (1, at(0.2, 0.0), "outdoor"),
        (2, at(0.245, 90.0), "outdoor"),
        (3, at(0.255, 180.0), "outdoor"),
    ]
    s = solve(roughly_closest("L04.1", extra))
    assert s.answer["entity_ids"] == ["worldkg:2", "worldkg:3"]


def test_roughly_closest_nothing_in_radius_is_unsolvable():
    extra = [(1, at(120.0, 0.0), "outdoor")]
    s = solve(roughly_closest("L04.2", extra))
    assert s.answer is None and s.reason == "no_member_in_radius"


REGION = "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))"


def _within(a_wkt: str, sub: str = "L05.1"):
    return solve(
        record(sub, "boolean", "fuzzy.plausibly_within", {"entity_A": a_wkt, "entity_B": REGION})
    ).answer


def test_plausibly_within_point():  # L05.1: boundary_buffer_km 1
    assert _within("POINT (0.5 0.5)") == {"value": True}
    assert _within("POINT (1 0.5)") == {"value": True}  # on the boundary: covered
    east = lambda km: at(km, 90.0, origin=(1.0, 0.5))  # noqa: E731  due east of the east edge
    assert _within(east(0.99)) == {"value": "plausibly"}
    assert _within(east(1.01)) == {"value": False}
    assert _within(at(0.99, 180.0, origin=(0.5, 0.0))) == {
        "value": "plausibly"
    }  # south of the south edge


def test_plausibly_within_polygon_share():  # L05.3: yes >= 0.99, no <= 0.01
    assert _within("POLYGON ((0.2 0.2, 0.4 0.2, 0.4 0.4, 0.2 0.4, 0.2 0.2))", "L05.3") == {
        "value": True
    }
    assert _within("POLYGON ((0.5 0.2, 1.5 0.2, 1.5 0.4, 0.5 0.4, 0.5 0.2))", "L05.3") == {
        "value": "plausibly"
    }
    assert _within("POLYGON ((2 2, 3 2, 3 3, 2 3, 2 2))", "L05.3") == {"value": False}
    # 0.5 % of the area inside: below inside_share_no
    assert _within(
        "POLYGON ((0.995 0.2, 1.995 0.2, 1.995 0.4, 0.995 0.4, 0.995 0.2))", "L05.3"
    ) == {"value": False}
