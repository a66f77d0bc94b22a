"""The multimodal slice (paper §3.4): questions whose entity name is replaced by a link to its image.

For WorldKG and OSMH3KG only (KnowWhereGraph's hazard and event entities have no canonical images). An
entity qualifies when it is **visually salient** (its category is in :data:`SALIENT`) and its KG links an
image: ``image_url`` (OSM ``image`` / ``wikimedia_commons``) or, failing that, its Wikidata item, whose
image statement (P18) the link points at. Nothing is downloaded at build time; a multimodal evaluation
harness resolves the link.

Each true question with such an entity among its bindings gets one multimodal twin: the same
bindings, query and gold, the first qualifying entity's name replaced by :data:`IMAGE_PHRASE`,
``multimodal`` true, ``image_url`` set and ``image_role`` naming the role of that entity, so that
other languages render the same role as the image (every mention of the name is replaced). Its
question id hashes the original id and the image link.
"""

from __future__ import annotations

import json
import re

import duckdb

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


def image_link(image_url: str | None, wikidata: str | None) -> str | None:
    """The image link of an entity: its own image URL, else its Wikidata item's image statement (P18)."""
    if image_url:
        return image_url
    if wikidata and re.fullmatch(r"Q[1-9][0-9]*", wikidata):
        return f"https://www.wikidata.org/wiki/{wikidata}#P18"
    return None


def salient_images(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """entity_id -> image link for the visually salient entities of WorldKG and OSMH3KG with an image link."""
    rows = con.execute(
        f"SELECT entity_id, image_url, wikidata FROM entities WHERE kg IN {KGS} AND category IN ({', '.join('?' * len(SALIENT))}) "
        "AND (image_url IS NOT NULL OR wikidata IS NOT NULL) ORDER BY entity_id",
        sorted(SALIENT),
    ).fetchall()
    return {eid: link for eid, img, wd in rows if (link := image_link(img, wd))}


def twins(
    con: duckdb.DuckDBPyConnection, questions: list[dict], seen: set[tuple[str, str]]
) -> list[dict]:
    """Multimodal twins of the true questions (rows of ``questions_en``) that bind a salient imaged entity."""
    images = salient_images(con)
    names = (
        dict(
            con.execute(
                "SELECT entity_id, display_name FROM entities WHERE entity_id IN (SELECT unnest(?))",
                [sorted(images)],
            ).fetchall()
        )
        if images
        else {}
    )
    out = []
    for q in questions:
        if q["kg"] not in KGS or q["false_premise"]:
            continue
        bound = [(role, v) for role, v in json.loads(q["bindings"]).items() if v in images]
        if not bound:
            continue
        role, eid = bound[0]
        name = names[eid]
        marked = "{" + name + "}"
        if marked not in q["text_marked"]:
            continue
        text_marked = q["text_marked"].replace(
            marked, "{" + IMAGE_PHRASE + "}"
        )  # every mention: the name must not leak
        text = text_marked.replace("{", "").replace("}", "")
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
    return out
