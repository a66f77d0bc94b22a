"""Asset metadata reads the same on another machine: paths relative to MGQA_HOME or the
repository, and the evaluation report's charts inside the Markdown (issue 19, item 7)."""

from __future__ import annotations

import base64

from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform.files import portable_path
from mgqa_platform.markdown import embed_images
from mgqa_platform.settings import REPO_ROOT

PNG = bytes.fromhex("89504e470d0a1a0a") + b"chart bytes"


def test_portable_path_is_relative_to_home_then_repository(tmp_path):
    home = tmp_path / "home"
    assert portable_path(home / "kg" / "worldkg" / "w.ttl", home, REPO_ROOT) == (
        "$MGQA_HOME/kg/worldkg/w.ttl"
    )
    assert portable_path(home, home, REPO_ROOT) == "$MGQA_HOME"
    sample = REPO_ROOT / "data" / "sample" / "osm" / "x.osm.pbf"
    assert portable_path(sample, home, REPO_ROOT) == "data/sample/osm/x.osm.pbf"
    elsewhere = tmp_path / "planet" / "planet.osm.pbf"
    assert portable_path(elsewhere, home, REPO_ROOT) == str(elsewhere.resolve())


def test_paths_resource_metadata_has_no_machine_path(tmp_path):
    paths = PathsResource(home=str(tmp_path / "h"))
    value = paths.portable(paths.reports_dir / "evaluation" / "gold-small" / "report.md").value
    assert value == "$MGQA_HOME/reports/evaluation/gold-small/report.md"
    assert str(tmp_path) not in value


def test_report_images_are_embedded(tmp_path):
    (tmp_path / "sfid.png").write_bytes(PNG)
    text = "# Report\n\n![Spatial function (SFID)](sfid.png)\n\nsee ![x](https://e.org/a.png)\n"
    out = embed_images(text, tmp_path)
    encoded = base64.b64encode(PNG).decode("ascii")
    assert f"![Spatial function (SFID)](data:image/png;base64,{encoded})" in out
    assert "(sfid.png)" not in out
    assert "![x](https://e.org/a.png)" in out  # absolute links stay as they are
    (tmp_path / "sfid.png").unlink()
    try:
        embed_images(text, tmp_path)
    except FileNotFoundError as e:
        assert "sfid.png" in str(e)
    else:
        raise AssertionError("a missing chart must be named, not dropped")
