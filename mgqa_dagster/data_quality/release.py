"""Checks of the release files: each language's Parquet files hold exactly the warehouse's
post-edited questions (large: all, small: the small split, same text), and the release as a whole
verifies (card configs resolve, checksums match, one schema, small within large) and covers the 17
languages."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, result
from mgqa_platform.languages import CODES
from mgqa_platform.release import card, export
from mgqa_platform.warehouse import registered


def _files_match_warehouse(con, lang, *, root: Path):
    """Row by row: every (question_id, text) of the files equals the warehouse's, in both
    directions."""
    base = root / "data" / lang
    frames = []
    for split, sql in (
        ("large", "SELECT question_id, text FROM questions_postedited WHERE lang = ?"),
        (
            "small",
            "SELECT question_id, text "
            "FROM questions_postedited "
            "JOIN split_small USING (question_id) "
            "WHERE lang = ?",
        ),
    ):
        path = base / f"{split}.parquet"
        if not path.exists():
            frames.append(
                pd.DataFrame(
                    {
                        "question_id": [f"<missing {split} file>"],
                        "split": [split],
                        "in_file": [False],
                        "in_warehouse": [True],
                    }
                )
            )
            continue
        released = pq.read_table(path, columns=["question_id", "text"])
        with registered(con, _released=released):
            df = con.execute(
                f"""
                SELECT coalesce(f.question_id, w.question_id) AS question_id,
                       ? AS split,
                       f.question_id IS NOT NULL AS in_file,
                       w.question_id IS NOT NULL AS in_warehouse
                FROM _released f
                FULL OUTER JOIN ({sql}) w
                  ON f.question_id = w.question_id AND f.text = w.text
                """,
                [split, lang],
            ).df()
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    exps = gx.in_set("in_file", [True]) + gx.in_set("in_warehouse", [True])
    bad = df[~(df["in_file"] & df["in_warehouse"])]
    return result(
        gx.run_suite(df, f"release_matches_warehouse_{lang}", exps),
        extra={
            "rows": json.dumps(df.groupby("split").size().to_dict()),
            "mismatched": json.dumps(bad["question_id"].head(10).tolist()),
        },
    )


def _same_questions_as_english(con, lang, *, root: Path):
    """The language's large file holds every English question id exactly once, no other id, and each
    with the gold of ``questions_en`` (a repeated, missing or re-golded row fails)."""
    path = root / "data" / lang / "large.parquet"
    if path.exists():
        released = pq.read_table(path, columns=["question_id", "gold"])
    else:
        released = pa.table(
            {"question_id": pa.array([], pa.string()), "gold": pa.array([], pa.string())}
        )
    with registered(con, _released=released):
        df = con.execute(
            """
            WITH f AS (
                SELECT question_id, any_value(gold) AS gold, count(*) AS copies,
                       count(DISTINCT gold) AS golds
                FROM _released GROUP BY question_id
            )
            SELECT coalesce(f.question_id, e.question_id) AS question_id,
                   coalesce(f.copies, 0) AS copies,
                   e.question_id IS NOT NULL AS english,
                   coalesce(f.golds = 1 AND f.gold = CAST(e.gold AS VARCHAR), FALSE) AS same_gold
            FROM f FULL OUTER JOIN questions_en e USING (question_id)
            ORDER BY question_id
            """
        ).df()
    exps = gx.in_set("copies", [1]) + gx.in_set("english", [True]) + gx.in_set("same_gold", [True])
    bad = df[(df["copies"] != 1) | ~df["english"] | ~df["same_gold"]]
    return result(
        gx.run_suite(df, f"release_same_questions_as_english_{lang}", exps),
        extra={
            "missing": int((df["copies"] == 0).sum()),
            "repeated": int((df["copies"] > 1).sum()),
            "not_english": int((~df["english"]).sum()),
            "other_gold": int((df["english"] & (df["copies"] > 0) & ~df["same_gold"]).sum()),
            "examples": json.dumps(bad["question_id"].head(10).tolist()),
        },
    )


def _files_verified(con, _partition, *, root: Path):
    """Every question file is what the warehouse recorded for it
    (``export.verify_against_warehouse``)."""
    problems = export.verify_against_warehouse(con, root)
    df = pd.DataFrame({"problem": problems or ["none"]})
    return result(
        gx.run_suite(df, "release_files_match_warehouse", gx.in_set("problem", ["none"])),
        extra={"problems": json.dumps(problems[:20], ensure_ascii=False)},
    )


def _verified(con, _partition, *, root: Path):
    problems = card.verify_release(root)
    df = pd.DataFrame({"problem": problems or ["none"]})
    return result(
        gx.run_suite(df, "release_verified", gx.in_set("problem", ["none"])),
        extra={"problems": json.dumps(problems[:20], ensure_ascii=False)},
    )


def _all_languages(con, _partition, *, root: Path):
    df = pd.DataFrame({"lang": list(CODES)})
    data = root / "data"
    df["complete"] = [
        all((data / lang / f"{s}.parquet").exists() for s in ("large", "small")) for lang in CODES
    ]
    return result(
        gx.run_suite(df, "release_all_languages", gx.in_set("complete", [True])),
        warn=True,
        extra={"missing": json.dumps(df.loc[~df["complete"], "lang"].tolist())},
    )


def _sites_cover_bindings(con, _partition, *, root: Path):
    path = root / "entity_sites.parquet"
    bound = con.execute(
        """
        SELECT DISTINCT unnest(json_extract_string(e.bindings, '$.*')) AS entity_id
        FROM questions_en e
        WHERE e.question_id IN (SELECT question_id FROM questions_postedited)
        """
    ).df()
    bound = bound[bound["entity_id"].str.contains(":", na=False)]
    if path.exists():
        have = set(pq.read_table(path, columns=["entity_id"]).column("entity_id").to_pylist())
    else:
        have = set()
    bound["in_sites"] = [e in have for e in bound["entity_id"]]
    return result(
        gx.run_suite(bound, "entity_sites_cover_bindings", gx.in_set("in_sites", [True])),
        extra={"bound_entities": len(bound), "sites": len(have)},
    )


#: Each check function takes the release folder as ``root`` (bind it with ``checks.bound``).
RELEASE_QUESTION_CHECKS = (
    Check(
        "release_matches_warehouse",
        True,
        "the language's large and small Parquet files hold exactly the warehouse's "
        "post-edited questions (ids and text)",
        _files_match_warehouse,
    ),
    Check(
        "release_same_questions_as_english",
        True,
        "the language's large file holds every English question id exactly once, no other, each "
        "with the gold of questions_en",
        _same_questions_as_english,
    ),
)
#: Audited before the card hashes anything (``publish_release``); bind ``root`` like the others.
RELEASE_FILE_CHECKS = (
    Check(
        "release_files_match_warehouse",
        True,
        "every question file has the rows and sha256 release_files recorded for it, none is "
        "unknown, and the warehouse rows it came from are unchanged",
        _files_verified,
    ),
)
RELEASE_CARD_CHECKS = (
    Check(
        "release_verified",
        True,
        "every dataset-card config resolves to files, SHA256SUMS matches, one schema, "
        "small within large, "
        "unique question ids",
        _verified,
    ),
    Check("release_all_languages", False, "all 17 languages have both splits", _all_languages),
    Check(
        "entity_sites_cover_bindings",
        True,
        "the GeoParquet of entity sites has every entity bound in a released question",
        _sites_cover_bindings,
    ),
)
