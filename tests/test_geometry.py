"""Geometry helpers against independent references: h3's documented vectors, shapely, pyproj."""

from __future__ import annotations

import h3
import pytest
import shapely

from mgqa_platform import geometry


def test_h3_documented_vector_and_axis_order():
    # h3-py README / H3 docs: latlng_to_cell(37.7752702151959, -122.418307270836, 9) ==
    # '8928308280fffff'
    assert geometry.point_cell(-122.418307270836, 37.7752702151959, 9) == "8928308280fffff"
    assert h3.latlng_to_cell(37.7752702151959, -122.418307270836, 9) == "8928308280fffff"


@pytest.mark.parametrize(
    "wkt, expected",
    [
        ("POINT(24.94 60.17)", (24.94, 60.17)),
        ("<http://www.opengis.net/def/crs/OGC/1.3/CRS84> POINT(24.94 60.17)", (24.94, 60.17)),
        ("<http://www.opengis.net/def/crs/OGC/1.3/CRS84>POINT(24.94 60.17)", (24.94, 60.17)),
        # EPSG:4326 is latitude first by definition: the axes are swapped into lon/lat
        ("<http://www.opengis.net/def/crs/EPSG/0/4326> POINT(60.17 24.94)", (24.94, 60.17)),
    ],
)
def test_crs_prefixes(wkt, expected):
    g = geometry.parse_wkt(wkt)
    assert (g.x, g.y) == expected


@pytest.mark.parametrize(
    "wkt, reason",
    [
        ("<http://www.opengis.net/def/crs/EPSG/0/3857> POINT(1 2)", "unsupported_crs"),
        ("POINT(1 2", "invalid_wkt"),
        ("POINT EMPTY", "empty_geometry"),
        ("LINESTRING(0 0, 181 0)", "out_of_range"),
        ("GEOMETRYCOLLECTION(POINT(1 1))", "unsupported_geometry"),
    ],
)
def test_rejections(wkt, reason):
    with pytest.raises(geometry.GeometryError) as e:
        geometry.parse_wkt(wkt)
    assert e.value.reason == reason


def test_bowtie_is_repaired_and_keeps_its_area():
    g = geometry.parse_wkt("POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))")
    assert g.is_valid and g.geom_type in ("Polygon", "MultiPolygon")
    assert g.area == pytest.approx(2.0)  # two triangles of area 1


def test_representative_points_lie_on_the_geometry():
    concave = geometry.parse_wkt("POLYGON((0 0, 10 0, 10 10, 9 10, 9 1, 1 1, 1 10, 0 10, 0 0))")
    lon, lat = geometry.representative_lonlat(concave)
    assert concave.contains(shapely.Point(lon, lat))  # the centroid (5, ~3) would not be inside
    line = geometry.parse_wkt("LINESTRING(0 0, 2 0)")
    assert geometry.representative_lonlat(line) == (1.0, 0.0)


def test_h3_cover_of_a_polygon_matches_h3_polyfill():
    poly = shapely.box(24.90, 60.15, 24.98, 60.19)  # central Helsinki, lon/lat
    cover = geometry.h3_cover(poly, 8)
    # every cell whose centre is inside (h3's own polyfill, lat/lng order) is part of the cover
    centre_cells = set(
        h3.polygon_to_cells(
            h3.LatLngPoly([(60.15, 24.90), (60.15, 24.98), (60.19, 24.98), (60.19, 24.90)]), 8
        )
    )
    assert centre_cells and centre_cells <= cover
    # and every cell of the cover really touches the polygon. H3 edges are great-circle arcs while
    # shapely's are planar, so cells that merely graze the box edge get a 1e-4 degree (~10 m)
    # allowance.
    for c in cover:
        boundary = [(lng, lat) for lat, lng in h3.cell_to_boundary(c)]
        assert shapely.Polygon(boundary).intersects(poly.buffer(1e-4))


def test_adaptive_cover_coarsens_large_features():
    country = shapely.box(20.0, 59.0, 31.0, 70.0)
    res, cells = geometry.adaptive_h3_cover(country, 9, 500)
    assert res < 9 and 0 < len(cells) <= 500
