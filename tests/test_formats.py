"""Answer formats: canonical gold forms, validation reasons, and Table-12 scoring."""

from __future__ import annotations

import json

import h3
import pygeohash
import pytest
import s2sphere
from pyproj import Geod, Transformer
from shapely.geometry import box

from mgqa_platform.questions import formats as F

GEOD = Geod(ellps="WGS84")
H3_DOC = "85283473fffffff"  # h3 docs: latlng_to_cell(37.3615593, -122.0553238, 5)


def _s2_token(lat: float, lon: float, level: int) -> str:
    return (
        s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon))
        .parent(level)
        .to_token()
    )


S2_TOKEN = _s2_token(40.7, -74.0, 12)

# One messy-but-valid input per format, and its expected canonical form.
CASES = {
    "boolean": ({"value": "Plausibly"}, {"value": "plausibly"}),
    "entity_name": (
        {"entity_ids": ["Q90", "Q456"], "names": ["Paris", "Lyon"]},
        {"entity_ids": ["Q456", "Q90"], "names": ["Lyon", "Paris"]},
    ),
    "predefined": (
        {"value": "NE", "options": list(F.OPTION_SETS["cardinal8"])},
        {"value": "NE", "options": list(F.OPTION_SETS["cardinal8"])},
    ),
    "set": (
        {"entity_ids": ["b", "a", "b"], "names": ["B", "A", "B"]},
        {"entity_ids": ["a", "b"], "names": ["A", "B"]},
    ),
    "grid_cell": (
        {"system": "h3", "cell": H3_DOC.upper()},
        {"system": "h3", "cell": H3_DOC, "resolution": 5},
    ),
    "geohash": ({"geohash": "EZS42"}, {"geohash": "ezs42", "precision": 5}),
    "composite_cell": (
        {"h3": {"system": "h3", "cell": H3_DOC}, "s2": {"system": "s2", "cell": S2_TOKEN + "00"}},
        {
            "h3": {"system": "h3", "cell": H3_DOC, "resolution": 5},
            "s2": {"system": "s2", "cell": S2_TOKEN, "resolution": 12},
        },
    ),
    "distance": ({"value": 12.34567}, {"value": 12.346, "unit": "km"}),
    "area": ({"value": 3, "unit": "km2"}, {"value": 3.0, "unit": "km2"}),
    "count": ({"value": 4.0}, {"value": 4}),
    "ratio": ({"value": -0.00000001}, {"value": 0.0}),
    "point": ({"lon": 2.35220012, "lat": 48.8566}, {"lon": 2.3522, "lat": 48.8566}),
    "polar": (
        {"angle_deg": -90.004, "distance_km": 1.23456},
        {"angle_deg": 270.0, "distance_km": 1.235},
    ),
    "bbox": (
        {"min_lon": 1, "min_lat": 2, "max_lon": 3.0000001, "max_lat": 4},
        {"min_lon": 1.0, "min_lat": 2.0, "max_lon": 3.0, "max_lat": 4.0},
    ),
    "date": ({"value": "2021-02"}, {"value": "2021-02", "precision": "month"}),
}


def test_formats_and_info_cover_the_same_15_names():
    assert len(F.FORMATS) == 15 and set(CASES) == set(F.FORMATS) == set(F.FORMAT_INFO)
    assert {i["family"] for i in F.FORMAT_INFO.values()} == {
        "discrete",
        "numeric",
        "geometric",
        "temporal",
    }
    assert F.FORMAT_INFO["distance"]["unit"] == "km" and F.FORMAT_INFO["area"]["unit"] == "km2"


@pytest.mark.parametrize("fmt", F.FORMATS)
def test_canonical_round_trip(fmt):
    raw, expected = CASES[fmt]
    c = F.canonical(fmt, raw)
    assert c == expected
    assert F.canonical(fmt, c) == c
    assert json.dumps(F.canonical(fmt, json.loads(json.dumps(c))), sort_keys=True) == json.dumps(
        c, sort_keys=True
    )
    F.validate(fmt, c)
    assert isinstance(F.render(fmt, c), str) and F.render(fmt, c)
    assert F.score(fmt, c, c) == (1, 0.0)


def test_constructors_equal_canonical():
    assert F.boolean(True) == {"value": True}
    assert F.entity_set([], [], allow_empty=True) == {"entity_ids": [], "names": []}
    assert F.h3_cell(h3.str_to_int(H3_DOC)) == F.canonical(
        "grid_cell", {"system": "h3", "cell": H3_DOC}
    )
    assert F.composite_cell(H3_DOC, S2_TOKEN) == CASES["composite_cell"][1]
    assert F.distance_km(-0.0000001) == {"value": 0.0, "unit": "km"}
    assert json.dumps(F.distance_km(-0.0000001)) == '{"value": 0.0, "unit": "km"}'
    assert F.date("2021") == {"value": "2021", "precision": "year"}
    assert F.date("2021-02-28")["precision"] == "day"


@pytest.mark.parametrize(
    "fmt,gold,reason",
    [
        ("distance", {"value": 25000, "unit": "km"}, "distance_out_of_range"),
        ("distance", {"value": -1.0}, "distance_out_of_range"),
        ("distance", {"value": 1.0, "unit": "m"}, "wrong_unit"),
        ("area", {"value": 6e8}, "area_out_of_range"),
        ("count", {"value": -1}, "negative_count"),
        ("count", {"value": 2.5}, "count_not_integer"),
        ("count", {"value": True}, "not_a_number"),
        ("ratio", {"value": float("nan")}, "not_finite"),
        ("grid_cell", {"system": "h3", "cell": "85283473fffffzz"}, "invalid_h3_cell"),
        ("grid_cell", {"system": "h3", "cell": H3_DOC, "resolution": 6}, "resolution_mismatch"),
        ("grid_cell", {"system": "s2", "cell": "e3"}, "invalid_s2_token"),  # face 7 does not exist
        (
            "grid_cell",
            {"system": "s2", "cell": "0000000000000002"},
            "invalid_s2_token",
        ),  # no level marker bit
        ("grid_cell", {"system": "s2", "cell": "0x89c25"}, "invalid_s2_token"),
        ("grid_cell", {"system": "s2", "cell": "89c25" * 4}, "invalid_s2_token"),
        ("grid_cell", {"system": "geohash", "cell": "ezs42"}, "unknown_grid_system"),
        (
            "composite_cell",
            {"h3": {"system": "s2", "cell": S2_TOKEN}, "s2": {"system": "s2", "cell": S2_TOKEN}},
            "wrong_grid_system",
        ),
        ("geohash", {"geohash": "ezs4a"}, "invalid_geohash"),
        ("geohash", {"geohash": "ezs42ezs42ezs"}, "invalid_geohash"),
        ("bbox", {"min_lon": 3, "min_lat": 2, "max_lon": 1, "max_lat": 4}, "bbox_inverted"),
        ("bbox", {"min_lon": 1, "min_lat": 2, "max_lon": 3, "max_lat": 91}, "lat_out_of_range"),
        ("point", {"lon": 181, "lat": 0}, "lon_out_of_range"),
        ("date", {"value": "2021-13-01"}, "invalid_date"),
        ("date", {"value": "2021-02-29"}, "invalid_date"),
        ("date", {"value": "21-02-01"}, "invalid_date"),
        ("date", {"value": "2021", "precision": "day"}, "date_precision_mismatch"),
        ("set", {"entity_ids": [], "names": []}, "empty_set"),
        ("set", {"entity_ids": ["a"], "names": []}, "length_mismatch"),
        ("entity_name", {"entity_ids": [], "names": []}, "empty_entity_name"),
        ("predefined", {"value": "NNE", "options": ["N", "NE"]}, "value_not_in_options"),
        ("boolean", {"value": "yes"}, "invalid_boolean"),
        ("boolean", {"value": True, "extra": 1}, "unexpected_key"),
        ("count", {}, "missing_key"),
        ("nope", {"value": 1}, "unknown_format"),
    ],
)
def test_invalid_gold_rejected_with_reason(fmt, gold, reason):
    with pytest.raises(F.GoldError) as info:
        F.canonical(fmt, gold)
    assert info.value.reason == reason
    assert isinstance(info.value, ValueError)


def test_h3_documented_vector_and_lat_lng_order():
    cell = h3.latlng_to_cell(37.3615593, -122.0553238, 5)  # h3 takes (lat, lng)
    assert cell == H3_DOC
    assert F.h3_cell(cell) == {"system": "h3", "cell": H3_DOC, "resolution": 5}
    swapped = h3.latlng_to_cell(-122.0553238 % 90, 37.3615593, 5)
    assert F.h3_cell(swapped)["cell"] != H3_DOC
    assert (
        F.render("grid_cell", F.h3_cell("8928308280fffff")) == "8928308280fffff (H3 resolution 9)"
    )


def test_s2_token_round_trip_above_2_63():
    cid = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(-12.05, -77.04)).parent(
        15
    )  # Lima, face 4
    assert cid.id() > 2**63
    c = F.s2_cell(cid.to_token())
    assert c == F.s2_cell(cid.id()) == F.s2_cell(cid)
    assert isinstance(c["cell"], str) and c["resolution"] == 15
    assert s2sphere.CellId.from_token(c["cell"]).id() == cid.id()
    assert json.loads(json.dumps(c)) == c


def test_geohash_documented_vector_and_round_trip():
    code = pygeohash.encode(42.6, -5.6, precision=5)
    assert code == "ezs42"
    assert F.geohash(code) == {"geohash": "ezs42", "precision": 5}
    lat, lon = pygeohash.decode(code)
    assert pygeohash.encode(lat, lon, precision=5) == code
    assert abs(lat - 42.6) < 0.05 and abs(lon - (-5.6)) < 0.05


# ---------------------------------------------------------------- numeric tolerances
def _dist(v):
    return {"value": v, "unit": "km"}


def test_distance_bands_at_edges():
    assert F.tolerance("distance", _dist(10)) == 0.5
    assert F.tolerance("distance", _dist(49.9)) == pytest.approx(2.495)
    assert F.tolerance("distance", _dist(50)) == 5.0
    assert F.tolerance("distance", _dist(60)) == 5.0
    assert F.tolerance("distance", _dist(499)) == pytest.approx(24.95)
    assert F.tolerance("distance", _dist(500)) == 25.0
    assert F.score("distance", _dist(49.9 + 2.4), _dist(49.9))[0] == 1
    assert F.score("distance", _dist(49.9 + 2.6), _dist(49.9))[0] == 0
    assert F.score("distance", _dist(54.9), _dist(50))[0] == 1
    assert F.score("distance", _dist(55.0), _dist(50)) == (0, 1.0)  # strict d < tau
    assert F.score("distance", _dist(10.25), _dist(10))[1] == pytest.approx(0.5)


def test_alpha_dominates_large_values():
    assert F.tolerance("distance", _dist(4000)) == pytest.approx(200.0)
    assert F.score("distance", _dist(4190), _dist(4000))[0] == 1
    assert F.score("distance", _dist(4210), _dist(4000))[0] == 0
    assert F.tolerance("area", {"value": 4}) == 0.25
    assert F.tolerance("area", {"value": 2500}) == 125.0  # max(25, 0.05*2500)
    assert F.tolerance("area", {"value": 1000}) == 50.0  # alpha beats 0.25 already
    assert F.tolerance("area", {"value": 1e6}) == pytest.approx(5e4)


def test_count_delta_one_and_ratio_relative():
    assert F.score("count", {"value": 11}, {"value": 10}) == (0, 1.0)  # off by one is not < 1
    assert F.score("count", {"value": 10}, {"value": 10}) == (1, 0.0)
    assert F.score("count", {"value": 41}, {"value": 40}) == (1, 0.5)  # tau = 0.05*40 = 2
    assert F.tolerance("ratio", {"value": 2.0}) == pytest.approx(0.1)
    assert F.score("ratio", {"value": 2.09}, {"value": 2.0})[0] == 1
    assert F.score("ratio", {"value": 2.11}, {"value": 2.0})[0] == 0
    assert F.score("ratio", {"value": 0.0}, {"value": 0.0}) == (1, 0.0)
    assert F.score("ratio", {"value": 1e-6}, {"value": 0.0}) == (0, 1.0)


def test_point_tolerance_10km_with_geodesic_offsets():
    gold = F.point(2.3522, 48.8566)
    assert F.tolerance("point", gold) == 10.0
    for az, km, ok in [(37.0, 9.9, 1), (200.0, 10.1, 0)]:
        lon, lat, _ = GEOD.fwd(gold["lon"], gold["lat"], az, km * 1000.0)
        pred = {"lon": lon, "lat": lat}
        assert F.distance("point", pred, gold) == pytest.approx(km, abs=1e-3)
        assert F.score("point", pred, gold)[0] == ok


def test_polar_wraps_around_north():
    gold = F.polar(359.0, 100.0)
    assert F.score("polar", {"angle_deg": 2.0, "distance_km": 100.0}, gold) == (
        1,
        pytest.approx(3 / 5),
    )
    assert F.score("polar", {"angle_deg": -1.0, "distance_km": 100.0}, gold)[0] == 1
    assert F.score("polar", {"angle_deg": 5.0, "distance_km": 100.0}, gold) == (
        0,
        1.0,
    )  # 6 degrees off
    assert F.score("polar", {"angle_deg": 359.0, "distance_km": 104.9}, gold)[0] == 1  # tau_r = 5
    assert F.score("polar", {"angle_deg": 359.0, "distance_km": 105.0}, gold)[0] == 0


def test_bbox_iou_in_epsg6933():
    g = F.bbox(0.0, 0.0, 10.0, 60.0)
    p = F.bbox(0.0, 30.0, 10.0, 85.0)
    tr = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)

    def proj(b):
        (x0, x1), (y0, y1) = tr.transform(
            [b["min_lon"], b["max_lon"]], [b["min_lat"], b["max_lat"]]
        )
        return box(x0, y0, x1, y1)

    iou = proj(p).intersection(proj(g)).area / proj(p).union(proj(g)).area
    naive = 30.0 / 85.0  # IoU in degree space; equal-area y grows like sin(lat), so it differs
    assert abs(iou - naive) > 0.01
    assert F.distance("bbox", p, g) == pytest.approx(1 - iou)
    assert F.score("bbox", p, g) == (int(iou >= 0.5), pytest.approx(1 - iou))
    assert F.score("bbox", F.bbox(1.0, 0.0, 10.0, 60.0), g)[0] == 1
    assert F.score("bbox", F.bbox(5.0, 0.0, 15.0, 60.0), g) == (
        0,
        pytest.approx(1 - 1 / 3),
    )  # same lats: lon share
    assert F.score("bbox", F.bbox(20.0, 0.0, 30.0, 60.0), g) == (0, 1.0)
    assert F.score("bbox", F.bbox(3.0, 4.0, 3.0, 4.0), F.bbox(3.0, 4.0, 3.0, 4.0)) == (
        1,
        0.0,
    )  # degenerate


def test_h3_ancestor_credit_but_not_neighbour():
    gold = F.h3_cell(H3_DOC)
    child = h3.cell_to_children(H3_DOC, 8)[3]
    assert F.score("grid_cell", F.h3_cell(child), gold) == (1, 0.0)
    neighbour = next(c for c in h3.grid_disk(H3_DOC, 1) if c != H3_DOC)
    assert F.score("grid_cell", F.h3_cell(neighbour), gold) == (0, 1.0)
    coarser = F.h3_cell(h3.cell_to_parent(H3_DOC, 4))
    assert F.score("grid_cell", coarser, gold) == (0, 1.0)  # only finer predictions are credited
    s2 = F.s2_cell(S2_TOKEN)
    s2_child = s2sphere.CellId.from_token(S2_TOKEN).child_begin().to_token()
    assert F.score("grid_cell", F.s2_cell(s2_child), s2) == (0, 1.0)  # S2 is exact only


def test_composite_component_wise():
    gold = F.composite_cell(H3_DOC, S2_TOKEN)
    other_s2 = _s2_token(-12.05, -77.04, 12)
    half = {"h3": F.h3_cell(h3.cell_to_children(H3_DOC, 7)[0]), "s2": F.s2_cell(other_s2)}
    assert F.score("composite_cell", half, gold) == (0, 0.5)
    both = {"h3": F.h3_cell(H3_DOC), "s2": F.s2_cell(S2_TOKEN)}
    assert F.score("composite_cell", both, gold) == (1, 0.0)


def test_set_jaccard_requires_exact_equality():
    gold = F.entity_set(["a", "b", "c"], ["Alpha", "Beta", "Gamma"])
    assert F.score("set", {"entity_ids": ["c", "a", "b"]}, gold) == (1, 0.0)
    assert F.score("set", {"entity_ids": ["a", "b"]}, gold) == (0, pytest.approx(1 / 3))
    assert F.score("set", {"entity_ids": ["a", "b", "c", "d"]}, gold) == (0, pytest.approx(1 / 4))
    assert F.score("set", {"names": [" alpha ", "BETA", "gamma"]}, gold) == (1, 0.0)
    assert F.score("set", {"entity_ids": []}, gold) == (0, 1.0)


def test_entity_name_ties_and_name_normalisation():
    gold = F.entity_name(["Q1", "Q2"], ["Mount  Kosciuszko", "Mount Townsend"])
    assert F.score("entity_name", {"entity_ids": ["Q2"]}, gold) == (1, 0.0)
    assert F.score("entity_name", {"names": ["mount kosciuszko"]}, gold) == (1, 0.0)
    assert F.score("entity_name", {"entity_ids": ["Q3"], "names": ["Uluru"]}, gold) == (0, 1.0)
    assert F.render("entity_name", gold) == "Mount  Kosciuszko, Mount Townsend"


def test_date_precision():
    assert F.tolerance("date", {"value": "2021-03-15"}) == 1.0
    assert F.score("date", {"value": "2021-03-15"}, {"value": "2021-03-15"}) == (1, 0.0)
    assert F.score("date", {"value": "2021-03-16"}, {"value": "2021-03-15"}) == (0, 1.0)
    assert F.score("date", {"value": "2021-03-28"}, {"value": "2021-03"}) == (1, 0.0)  # same month
    assert F.score("date", {"value": "2021-04-01"}, {"value": "2021-03"}) == (0, 1.0)
    assert F.distance("date", {"value": "2021-12-31"}, {"value": "2021"}) == 0.0
    assert F.distance("date", {"value": "2022"}, {"value": "2021"}) == 365.0
    assert F.score("date", {"value": "2020"}, {"value": "2021"}) == (0, 1.0)


def test_boolean_and_predefined():
    assert F.score("boolean", {"value": "plausibly"}, {"value": "plausibly"}) == (1, 0.0)
    assert F.score("boolean", {"value": False}, {"value": True}) == (0, 1.0)
    gold = F.predefined("NE", F.OPTION_SETS["cardinal8"])
    assert F.score("predefined", {"value": "ne"}, gold) == (1, 0.0)
    assert F.score("predefined", {"value": "N"}, gold) == (0, 1.0)
    assert [F.render("boolean", F.boolean(v)) for v in (True, False, "plausibly")] == [
        "yes",
        "no",
        "plausibly",
    ]
    assert F.render("distance", F.distance_km(12.345)) == "12.345 km"


@pytest.mark.parametrize(
    "fmt,pred",
    [
        ("distance", {}),
        ("distance", {"value": "12"}),
        ("distance", "12 km"),
        ("distance", {"value": 1, "unit": "mi"}),
        ("count", {"value": None}),
        ("boolean", {"value": "maybe"}),
        ("point", {"lon": 1.0}),
        ("point", {"lon": 1.0, "lat": 95.0}),
        ("polar", {"angle_deg": "N", "distance_km": 1}),
        ("bbox", {"min_lon": 1, "min_lat": 1, "max_lon": 0, "max_lat": 2}),
        ("date", {"value": "2021-13-01"}),
        ("grid_cell", {"system": "h3", "cell": "zz"}),
        ("set", {"entity_ids": "a"}),
        ("entity_name", {}),
        ("composite_cell", {"h3": {"system": "h3", "cell": H3_DOC}}),
        ("geohash", {"geohash": 5}),
        ("predefined", {"value": 3}),
        ("ratio", None),
    ],
)
def test_malformed_predictions_score_zero(fmt, pred):
    assert F.score(fmt, pred, CASES[fmt][1]) == (0, 1.0)


def test_empty_gold_set_is_scorable_and_extra_pred_keys_ignored():
    gold = F.entity_set([], [], allow_empty=True)
    assert F.render("set", gold) == "none"
    assert F.score("set", {"entity_ids": []}, gold) == (1, 0.0)
    assert F.score("set", {"entity_ids": ["x"]}, gold) == (0, 1.0)
    assert F.score(
        "point", {"lon": 2.3522, "lat": 48.8566, "why": "guess"}, F.point(2.3522, 48.8566)
    ) == (1, 0.0)


def test_date_digits_must_be_ascii():
    with pytest.raises(F.GoldError) as info:
        F.date("\u0662\u0660\u0662\u0661")  # Arabic-Indic digits: a Unicode \d would take them
    assert info.value.reason == "invalid_date"


def test_invalid_gold_raises_in_score():
    with pytest.raises(F.GoldError):
        F.score("count", {"value": 1}, {"value": -1})


def test_rejection_is_the_false_premise_gold_of_every_format():
    from mgqa_platform.questions.formats import FORMATS, REJECTION, canonical, render, score

    for fmt in FORMATS:
        assert canonical(fmt, {"rejected": True}) == REJECTION
        assert score(fmt, REJECTION, REJECTION) == (1, 0.0)
    assert score("distance", {"value": 3.0, "unit": "km"}, REJECTION) == (
        0,
        1.0,
    )  # answering a false premise
    assert score("distance", REJECTION, {"value": 3.0, "unit": "km"}) == (
        0,
        1.0,
    )  # refusing a true one
    assert "premise" in render("set", REJECTION)
