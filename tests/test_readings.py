"""Readings of unstated conventions (questions/readings.py) and their validation in the catalog."""

from __future__ import annotations

import shutil

import pytest
import yaml
from pyproj import Geod

from mgqa_platform.questions import catalog, readings
from mgqa_platform.questions.readings import cardinal, edge_distance_deg, holds

GEOD = Geod(ellps="WGS84")

# "Is A northeast of B?" by bearing from B to A (degrees clockwise from true north), written out by
# hand: (bearing, quadrant, sector8, half_plane)
NORTHEAST = [
    (0.0, True, False, True),  # due north: the quadrant and the two half-planes are half-open at 0
    (10.0, True, False, True),
    (22.4, True, False, True),
    (22.5, True, True, True),
    (45.0, True, True, True),
    (67.4, True, True, True),
    (67.5, True, False, True),
    (78.9, True, False, True),  # the example: a quadrant says yes, 8 sectors say east
    (89.9, True, False, True),
    (90.0, False, False, False),  # due east: no north component
    (135.0, False, False, False),
    (359.9, False, False, False),
]


@pytest.mark.parametrize("bearing,quadrant,sector8,half_plane", NORTHEAST)
def test_three_readings_of_northeast(bearing, quadrant, sector8, half_plane):
    assert holds(bearing, "northeast", "quadrant") is quadrant
    assert holds(bearing, "northeast", "sector8") is sector8
    assert holds(bearing, "northeast", "half_plane") is half_plane


# "Is A north of B?": the cone, the octant and the half-plane differ
NORTH = [
    (0.0, True, True, True),
    (30.0, True, False, True),
    (50.0, False, False, True),
    (89.0, False, False, True),
    (90.0, False, False, False),
    (271.0, False, False, True),
    (320.0, True, False, True),
    (340.0, True, True, True),
    (180.0, False, False, False),
]


@pytest.mark.parametrize("bearing,quadrant,sector8,half_plane", NORTH)
def test_three_readings_of_north(bearing, quadrant, sector8, half_plane):
    assert [holds(bearing, "north", r) for r in readings.DIRECTION_READINGS] == [
        quadrant,
        sector8,
        half_plane,
    ]


def test_cardinal_word_sets():
    assert cardinal(78.9, "sector8") == {"east"}
    assert cardinal(78.9, "quadrant") == {"east", "northeast"}
    assert cardinal(78.9, "half_plane") == {"north", "east", "northeast"}
    assert cardinal(200.0, "half_plane") == {"south", "west", "southwest"}
    # half-open arcs: 180 opens west's half-plane [180, 360) and closes east's [0, 180)
    assert cardinal(180.0, "half_plane") == {"south", "west", "southwest"}
    for b in (0.0, 12.5, 99.0, 181.0, 359.99):
        assert len(cardinal(b, "sector8")) == 1
        assert len(cardinal(b, "quadrant")) == 2


def test_edge_distance():
    assert edge_distance_deg(78.9, "northeast", "quadrant") == pytest.approx(11.1)
    assert edge_distance_deg(78.9, "northeast", "sector8") == pytest.approx(11.4)
    assert edge_distance_deg(45.0, "north", "quadrant") == pytest.approx(0.0)
    assert edge_distance_deg(0.0, "north", "half_plane") == pytest.approx(90.0)
    assert edge_distance_deg(350.0, "north", "sector8") == pytest.approx(12.5)


def test_bearings_from_pyproj_geodesics():
    """Bearings as the executors get them (pyproj Geod.inv forward azimuth) fall where the tables
    say."""
    b = (-51.0, -30.0)  # lon, lat
    for az in (10.0, 45.0, 78.9, 135.0, 300.0):
        lon, lat, _ = GEOD.fwd(b[0], b[1], az, 5000.0)
        fwd = GEOD.inv(b[0], b[1], lon, lat)[0] % 360.0
        assert fwd == pytest.approx(az, abs=1e-6)
        assert cardinal(fwd, "sector8") == cardinal(az, "sector8")
    far = GEOD.inv(-51.0, -30.0, -50.0, -29.0)[0] % 360.0  # 1 deg east and north is not 45 deg
    assert 40.0 < far < 45.0 and holds(far, "northeast", "sector8")


def test_grid_origins():
    assert readings.grid_origin_m("projection_origin", 5000.0) == (0.0, 0.0)
    assert readings.grid_origin_m("half_cell", 5000.0) == (2500.0, 2500.0)
    with pytest.raises(ValueError):
        readings.grid_origin_m("somewhere", 5000.0)
    with pytest.raises(ValueError):
        holds(10.0, "north", "compass16")


def test_catalog_declares_known_readings():
    cat = catalog.load_catalog()
    for sub in cat.sub_templates:
        assert catalog.reading_problems(sub.conventions.get("readings")) == []
    for sid in ("J01.1", "J01.2", "J01.3"):
        assert cat.sub_template(sid).conventions["readings"] == {
            "direction": ["quadrant", "sector8", "half_plane"]
        }
    for sid in ("G03.1", "G03.2", "G03.3"):
        assert cat.sub_template(sid).conventions["readings"]["grid_origin"] == [
            "projection_origin",
            "half_cell",
        ]


@pytest.mark.parametrize(
    "declared,problem",
    [
        ({"direction": ["quadrant", "compass16"]}, "unknown reading 'compass16'"),
        ({"heading": ["quadrant"]}, "unknown reading dimension 'heading'"),
        ({"direction": []}, "non-empty list"),
        ({"direction": ["sector8", "sector8"]}, "without repeats"),
        (["quadrant"], "must map a dimension"),
    ],
)
def test_catalog_rejects_bad_readings(tmp_path, declared, problem):
    for sfid in catalog.SFIDS:
        shutil.copy(catalog.CATALOG_DIR / f"{sfid}.yaml", tmp_path / f"{sfid}.yaml")
    doc = yaml.safe_load((tmp_path / "J.yaml").read_text(encoding="utf-8"))
    doc["templates"][0]["sub_templates"][0]["conventions"]["readings"] = declared
    (tmp_path / "J.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    with pytest.raises(catalog.CatalogError, match="J01.1") as err:
        catalog.load_catalog(tmp_path)
    assert problem in str(err.value)
