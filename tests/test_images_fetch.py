"""``mgqa images fetch`` against a local fake Commons (MediaWiki API + file host) on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyarrow as pa
import pyarrow.parquet as pq

from mgqa_dagster import cli
from mgqa_platform.release import images
from mgqa_platform.release.card import SUMS_FILE
from tests.fake_http import QuietHandler, ScriptedServer

TOWER = b"\x89PNG fake tower bytes"
BRIDGE = b"GIF89a fake bridge bytes"


class FakeCommons(ScriptedServer):
    """``/w/api.php`` answers imageinfo queries for the files in ``files`` (name -> bytes, licence
    metadata); ``/files/<name>`` and ``/direct/<name>`` serve bytes. Every request path is
    recorded."""

    def __init__(self, files: dict[str, tuple[bytes, dict]], direct: dict[str, bytes]):
        super().__init__()
        self.files, self.direct = files, direct

    @property
    def base(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self):
        server = self

        class Handler(QuietHandler):
            def do_GET(self):
                server.requests.append(self.path)
                parts = urlsplit(self.path)
                if parts.path == "/w/api.php":
                    title = parse_qs(parts.query)["titles"][0].removeprefix("File:")
                    body = json.dumps(server.api_reply(title)).encode()
                    return self._send(HTTPStatus.OK, body, "application/json")
                name = parts.path.rsplit("/", 1)[-1]
                store = server.direct if parts.path.startswith("/direct/") else server.files
                if name in store:
                    data = store[name] if isinstance(store[name], bytes) else store[name][0]
                    return self._send(HTTPStatus.OK, data, "image/png")
                return self._send(HTTPStatus.NOT_FOUND, b"", "text/plain")

            def _send(self, status, body, ctype):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return self._serve(Handler)

    def api_reply(self, title: str) -> dict:
        key = title.replace(" ", "_")
        if key not in self.files:
            return {"query": {"pages": [{"title": f"File:{title}", "missing": True}]}}
        data, meta = self.files[key]
        info = {
            "url": f"{self.base}/files/{key}",
            "descriptionurl": f"{self.base}/wiki/File:{key}",
            "sha1": meta.get("sha1", hashlib.sha1(data).hexdigest()),
            "extmetadata": {k: {"value": v} for k, v in meta.items() if k != "sha1"},
        }
        return {"query": {"pages": [{"title": f"File:{title}", "imageinfo": [info]}]}}


def release_with(tmp_path: Path, urls: list[str | None]) -> Path:
    root = tmp_path / "release"
    (root / "data" / "eng").mkdir(parents=True)
    table = pa.table(
        {
            "question_id": [f"q{i}" for i in range(len(urls))],
            "multimodal": [u is not None for u in urls],
            "image_url": pa.array(urls, pa.string()),
        }
    )
    pq.write_table(table, root / "data" / "eng" / "large.parquet")
    (root / SUMS_FILE).write_text("")
    return root


def test_fetch_writes_files_licence_author_and_sha256(tmp_path, capsys):
    files = {
        "Torre_Nova.png": (
            TOWER,
            {
                "LicenseShortName": "CC BY-SA 4.0",
                "LicenseUrl": "https://creativecommons.org/licenses/by-sa/4.0",
                "Artist": '<a href="//commons.wikimedia.org/wiki/User:Ana">Ana &amp; Lima</a>',
                "Credit": "<span>Own work</span>",
            },
        ),
        "Ponte_Velha.png": (b"other bytes", {"sha1": "0" * 40}),  # the record's sha1 is wrong
    }
    tower = images.COMMONS_FILE_PATH + "Torre_Nova.png"
    with FakeCommons(files, {"ponte.gif": BRIDGE}) as srv:
        bridge = f"{srv.base}/direct/ponte.gif"
        broken = images.COMMONS_FILE_PATH + "Ponte_Velha.png"
        missing = images.COMMONS_FILE_PATH + "Nada.jpg"
        root = release_with(tmp_path, [tower, None, tower, bridge, broken, missing])
        assert images.released_image_urls(root) == sorted([tower, bridge, broken, missing])
        code = cli.main(
            ["images", "fetch", "--release-dir", str(root), "--api-url", f"{srv.base}/w/api.php"]
        )
    assert code == 1  # two images failed: reported, not written
    records = {
        r["image_url"]: r
        for r in map(json.loads, (root / images.MANIFEST).read_text().splitlines())
    }
    assert set(records) == {tower, bridge}
    t = records[tower]
    assert (root / t["file"]).read_bytes() == TOWER and t["file"].endswith(".png")
    assert t["sha256"] == hashlib.sha256(TOWER).hexdigest() and t["bytes"] == len(TOWER)
    assert (
        t["licence"] == "CC BY-SA 4.0" and t["author"] == "Ana & Lima" and t["credit"] == "Own work"
    )
    assert t["licence_url"] == "https://creativecommons.org/licenses/by-sa/4.0"
    b = records[bridge]
    assert (root / b["file"]).read_bytes() == BRIDGE and b["licence"] is None
    sums = dict(
        reversed(line.split("  ", 1)) for line in (root / SUMS_FILE).read_text().splitlines()
    )
    assert sums[t["file"]] == t["sha256"] and images.MANIFEST in sums
    err = capsys.readouterr().err
    assert f"{broken}: sha1 differs" in err and "File:Nada.jpg: no image info" in err
