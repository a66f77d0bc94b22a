"""``mgqa images fetch``: download the images of a release's multimodal questions, with their
licence.

A built release holds no image: the multimodal records name an image file by ``image_url`` (a
Wikimedia Commons ``Special:FilePath`` link or a direct image link,
:mod:`mgqa_platform.questions.multimodal`) and the card says how to fetch them.
:func:`fetch_images`, on a machine with a network, downloads every distinct ``image_url`` of the
English large split into ``<release>/images/``:

* a Commons file is looked up first with the MediaWiki API
  (``action=query&prop=imageinfo&iiprop=url|sha1| extmetadata``, at ``api_url``): the file is
  downloaded from the ``url`` the API gives and must match the API's ``sha1``; the licence
  (``LicenseShortName``, ``LicenseUrl``), author (``Artist``, HTML stripped) and credit come from
  ``extmetadata``;
* a direct image link is downloaded as it is; its licence and author are unknown (recorded as null).

Each file is stored as ``images/<first 16 hex of sha256(image_url)><extension>``;
``images/images.jsonl`` records per image: ``image_url``, ``file``, ``sha256``, ``bytes``,
``download_url``, ``description_url``, ``licence``, ``licence_url``, ``author``, ``credit`` (sorted
by ``image_url``). ``SHA256SUMS`` is then rewritten so that it lists the new files. Nothing here
runs at build time."""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mgqa_platform.files import atomic_path
from mgqa_platform.questions.multimodal import COMMONS_FILE_PATH, IMAGE_EXTENSIONS
from mgqa_platform.release.card import SUMS_FILE, sha256sums
from mgqa_platform.release.export import split_path

COMMONS_API = "https://commons.wikimedia.org/w/api.php"
IMAGES_DIR = "images"
MANIFEST = f"{IMAGES_DIR}/images.jsonl"
USER_AGENT = "mgqa-platform-images/1 (benchmark release image fetch)"
_TAG = re.compile(r"<[^>]+>")


class ImageFetchError(RuntimeError):
    """One image could not be fetched (HTTP error, unknown Commons file, checksum mismatch)."""


def released_image_urls(release_dir: str | Path) -> list[str]:
    """Distinct ``image_url`` values of the multimodal records in the English large split,
    sorted."""
    table = pq.read_table(Path(release_dir) / split_path("eng", "large"), columns=["image_url"])
    urls = pc.drop_null(table.column("image_url")).to_pylist()
    return sorted(set(urls))


def commons_file_name(image_url: str) -> str | None:
    """The Commons file name (no ``File:`` prefix, underscores as spaces) of a Special:FilePath
    link."""
    if not image_url.startswith(COMMONS_FILE_PATH):
        return None
    return unquote(image_url[len(COMMONS_FILE_PATH) :]).replace("_", " ")


def plain_text(value: str | None) -> str | None:
    """Text of an ``extmetadata`` value: HTML tags removed, entities unescaped, whitespace
    folded."""
    if value is None:
        return None
    text = " ".join(html.unescape(_TAG.sub(" ", value)).split())
    return text or None


def local_file(image_url: str, download_url: str) -> str:
    """Release-relative path of an image: ``images/<sha256(image_url)[:16]><extension of the
    download>``."""
    ext = PurePosixPath(unquote(urlsplit(download_url).path)).suffix.lower()
    ext = ext if ext in IMAGE_EXTENSIONS else ""
    return f"{IMAGES_DIR}/{hashlib.sha256(image_url.encode()).hexdigest()[:16]}{ext}"


def _meta(ext: dict[str, Any], key: str) -> str | None:
    return plain_text((ext.get(key) or {}).get("value"))


class ImageFetcher:
    """Fetches image files and their Commons metadata over HTTP (``api_url``: the MediaWiki API
    endpoint; ``timeout_s``: seconds per request)."""

    def __init__(self, api_url: str = COMMONS_API, *, timeout_s: float = 60.0):
        self.api_url = api_url
        self.timeout_s = timeout_s

    def _get(self, client: httpx.Client, url: str, params: dict | None = None) -> httpx.Response:
        try:
            response = client.get(url, params=params)
        except httpx.TransportError as exc:
            raise ImageFetchError(f"{url}: {type(exc).__name__}") from None
        if response.status_code != 200:
            raise ImageFetchError(f"{url}: HTTP {response.status_code}")
        return response

    def image_info(self, client: httpx.Client, file_name: str) -> dict[str, Any]:
        """The API's ``imageinfo`` of ``File:<file_name>`` (url, descriptionurl, sha1,
        extmetadata)."""
        params = {
            "action": "query",
            "format": "json",
            "formatversion": "2",
            "prop": "imageinfo",
            "iiprop": "url|sha1|extmetadata",
            "titles": f"File:{file_name}",
        }
        try:
            pages = self._get(client, self.api_url, params).json()["query"]["pages"]
            return pages[0]["imageinfo"][0]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ImageFetchError(f"File:{file_name}: no image info") from None

    def fetch_one(self, client: httpx.Client, image_url: str) -> tuple[dict[str, Any], bytes]:
        """``(manifest record, file bytes)`` of one image (see the module docstring)."""
        name = commons_file_name(image_url)
        record: dict[str, Any] = {
            "image_url": image_url,
            "description_url": None,
            "licence": None,
            "licence_url": None,
            "author": None,
            "credit": None,
        }
        if name is None:
            download, expected_sha1 = image_url, None
        else:
            info = self.image_info(client, name)
            ext = info.get("extmetadata") or {}
            download, expected_sha1 = info["url"], info.get("sha1")
            record.update(
                description_url=info.get("descriptionurl"),
                licence=_meta(ext, "LicenseShortName"),
                licence_url=_meta(ext, "LicenseUrl"),
                author=_meta(ext, "Artist"),
                credit=_meta(ext, "Credit"),
            )
        data = self._get(client, download).content
        if expected_sha1 and hashlib.sha1(data).hexdigest() != expected_sha1:
            raise ImageFetchError(f"{image_url}: sha1 differs from the Commons record")
        record.update(
            file=local_file(image_url, download),
            sha256=hashlib.sha256(data).hexdigest(),
            bytes=len(data),
            download_url=download,
        )
        return record, data

    def fetch(self, release_dir: str | Path, urls: Iterable[str] | None = None) -> dict[str, Any]:
        """Download ``urls`` (default: :func:`released_image_urls`) into ``release_dir``, write the
        manifest and rewrite ``SHA256SUMS``. Returns ``{"fetched": n, "failed": [(image_url,
        reason), ...], "manifest": path}``; images that failed are left out of the manifest."""
        root = Path(release_dir)
        urls = sorted(set(released_image_urls(root) if urls is None else urls))
        records, failed = [], []
        (root / IMAGES_DIR).mkdir(parents=True, exist_ok=True)
        headers = {"User-Agent": USER_AGENT}
        with httpx.Client(timeout=self.timeout_s, headers=headers, follow_redirects=True) as client:
            for url in urls:
                try:
                    record, data = self.fetch_one(client, url)
                except ImageFetchError as exc:
                    failed.append((url, str(exc)))
                    continue
                with atomic_path(root / record["file"]) as tmp:
                    Path(tmp).write_bytes(data)
                records.append(record)
        with atomic_path(root / MANIFEST) as tmp:
            Path(tmp).write_text(
                "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records),
                encoding="utf-8",
            )
        with atomic_path(root / SUMS_FILE) as tmp:
            Path(tmp).write_text(sha256sums(root), encoding="utf-8")
        return {"fetched": len(records), "failed": failed, "manifest": str(root / MANIFEST)}
