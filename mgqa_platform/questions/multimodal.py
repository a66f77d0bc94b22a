"""The multimodal slice (paper §3.4): questions whose entity name is replaced by a link to its image
file.

For WorldKG and OSMH3KG only (KnowWhereGraph's hazard and event entities have no canonical images).
An entity qualifies when it is **visually salient** (its category is in :data:`SALIENT`) and its KG
links an image **file** (:func:`image_file_url`): a Wikimedia Commons file from its
``wikimedia_commons`` or ``image`` tag, as
``https://commons.wikimedia.org/wiki/Special:FilePath/<file>``, or a direct image URL. Never a page
that names the entity: an entity with only a Wikidata id is not multimodal (its image statement P18
cannot be resolved without a network), nor one whose link is a Commons category or a web page. One
image stands for one entity: an image file linked by two entities of a KG is used by neither. Twins
lost to these rules are counted in ``question_discards`` as ``multimodal:wikidata_only``,
``multimodal:not_an_image_file`` and ``multimodal:shared_image``. Nothing is downloaded at build
time: ``mgqa images fetch`` (:mod:`mgqa_platform.release.images`) fetches the released files with
their licence metadata.

Each true question with such an entity among its bindings gets one multimodal twin: the same
bindings, query and gold, the first qualifying entity's name replaced by :data:`IMAGE_PHRASE`
(capitalised where it starts a sentence, :func:`sentence_case`), ``multimodal`` true, ``image_url``
set and ``image_role`` naming the role of that entity, so that other languages render the same role
as the image (every mention of the name is replaced). Its question id hashes the original id and the
image link.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from urllib.parse import quote, unquote, urlsplit

import duckdb

from mgqa_platform.marks import mark, unmark
from mgqa_platform.questions.executor import stable_hash

KGS = ("worldkg", "osmh3kg")
IMAGE_PHRASE = "the place shown in the image"
SALIENT = frozenset(
    {
        "attraction",
        "artwork",
        "memorial",
        "monument",
        "statue",
        "museum",
        "gallery",
        "castle",
        "palace",
        "ruins",
        "archaeological_site",
        "historic",
        "place_of_worship",
        "church",
        "cathedral",
        "mosque",
        "temple",
        "library",
        "theatre",
        "tower",
        "lighthouse",
        "viewpoint",
        "fountain",
        "stadium",
        "bridge",
        "townhall",
        "university",
        "zoo",
    }
)


COMMONS_FILE_PATH = "https://commons.wikimedia.org/wiki/Special:FilePath/"
#: File name endings of the image files the slice accepts (Commons files and direct links alike).
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".tif", ".tiff")
_COMMONS_FILE = re.compile(
    r"(?:https?://commons\.(?:m\.)?wikimedia\.org/wiki/)?(?:file|image|special:filepath/):?(.+)",
    re.IGNORECASE,
)
_SENTENCE_END = r"(?:^|[.!?\u061f]\s+|[\u3002\uff01\uff1f]\s*)"


def _is_image_name(name: str) -> bool:
    return name.strip().lower().endswith(IMAGE_EXTENSIONS)


def commons_file_url(file_name: str) -> str:
    """The Special:FilePath URL of a Commons file name (without the ``File:`` prefix): spaces become
    underscores and the name is percent-encoded."""
    return COMMONS_FILE_PATH + quote(file_name.strip().replace(" ", "_"), safe="")


def image_file_url(image_url: str | None) -> str | None:
    """The URL of the image file an entity's ``image_url`` names, or None when it names no image
    file.

    A Commons file (``File:X.jpg``, ``https://commons.wikimedia.org/wiki/File:X.jpg``,
    percent-encoded or not, or a Special:FilePath link) becomes its Special:FilePath URL; a direct
    http(s) link whose path ends in an image extension (:data:`IMAGE_EXTENSIONS`) is kept as it is.
    A Commons category, a non-image file and any other page give None."""
    if not image_url or not image_url.strip():
        return None
    text = unquote(image_url.strip())
    m = _COMMONS_FILE.fullmatch(text)
    if m and (text.lower().startswith(("file:", "image:")) or "commons." in text.lower()):
        name = m.group(1)
        return commons_file_url(name) if _is_image_name(name) else None
    parts = urlsplit(image_url.strip())
    if parts.scheme in ("http", "https") and parts.netloc and _is_image_name(unquote(parts.path)):
        return image_url.strip()
    return None


def sentence_case(text: str, phrase: str) -> str:
    """``text`` with every occurrence of ``phrase`` that starts a sentence (the text's start, or
    after ``.``, ``!``, ``?`` and their Arabic-script and CJK forms, opening marks such as ``¿`` or
    ``«`` and a ``{`` marker allowed in between) given a capital first letter (title case, so
    scripts without case are unchanged)."""
    if not phrase:
        return text
    capital = phrase[:1].title() + phrase[1:]
    pattern = re.compile(_SENTENCE_END + r"[¿¡«„“\"'(]*\{?" + f"(?={re.escape(phrase)})")
    out, last = [], 0
    for m in pattern.finditer(text):
        out.append(text[last : m.end()] + capital)
        last = m.end() + len(phrase)
    return "".join(out) + text[last:]


def salient_images(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, str], dict[str, str]]:
    """``(images, refused)`` over the visually salient entities of WorldKG and OSMH3KG: entity id ->
    image file URL, and entity id -> why it has none (``wikidata_only``, ``not_an_image_file``,
    ``shared_image``). An image file is shared when two entities of one KG (salient or not) link
    it."""
    rows = con.execute(
        f"""
        SELECT entity_id, kg, image_url, wikidata, category IN ({", ".join("?" * len(SALIENT))})
        FROM entities
        WHERE kg IN {KGS}
          AND (image_url IS NOT NULL OR wikidata IS NOT NULL)
        ORDER BY entity_id
        """,
        sorted(SALIENT),
    ).fetchall()
    files = {eid: (kg, image_file_url(img)) for eid, kg, img, _, _ in rows}
    users = Counter(kf for kf in files.values() if kf[1])
    images, refused = {}, {}
    for eid, _, img, _, salient in rows:
        if not salient:
            continue
        kg, url = files[eid]
        if url is None:
            refused[eid] = "not_an_image_file" if img else "wikidata_only"
        elif users[(kg, url)] > 1:
            refused[eid] = "shared_image"
        else:
            images[eid] = url
    return images, refused


def twins(
    con: duckdb.DuckDBPyConnection, questions: list[dict], seen: set[tuple[str, str]]
) -> tuple[list[dict], Counter]:
    """Multimodal twins of the true questions (rows of ``questions_en``) that bind a salient entity
    with an image file, and the questions that bind a salient entity without one, counted
    ``(kg, sub_template_id, stratum, "multimodal:<why>")``."""
    images, refused = salient_images(con)
    names = (
        dict(
            con.execute(
                """
                SELECT entity_id, display_name
                FROM entities
                WHERE entity_id IN (SELECT unnest(?))
                """,
                [sorted(images)],
            ).fetchall()
        )
        if images
        else {}
    )
    out, lost = [], Counter()
    for q in questions:
        if q["kg"] not in KGS or q["false_premise"]:
            continue
        bindings = json.loads(q["bindings"]).items()
        bound = [(role, v) for role, v in bindings if v in images]
        if not bound:
            why = next((refused[v] for _, v in bindings if v in refused), None)
            if why:
                lost[(q["kg"], q["sub_template_id"], q["stratum"], f"multimodal:{why}")] += 1
            continue
        role, eid = bound[0]
        marked = mark(names[eid])
        if marked not in q["text_marked"]:
            continue
        text_marked = sentence_case(
            q["text_marked"].replace(marked, "{" + IMAGE_PHRASE + "}"), IMAGE_PHRASE
        )  # every mention: the name must not leak
        text = unmark(text_marked)
        if (text, q["gold"]) in seen:
            continue
        seen.add((text, q["gold"]))
        out.append(
            {
                **q,
                "question_id": "q" + stable_hash(q["question_id"], images[eid], "multimodal"),
                "text": text,
                "text_marked": text_marked,
                "multimodal": True,
                "image_url": images[eid],
                "image_role": role,
            }
        )
    return out, lost
