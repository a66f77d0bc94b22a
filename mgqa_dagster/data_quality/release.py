"""Checks of the release files: each language's Parquet files hold exactly the warehouse's post-edited questions
(large: all, small: the small split, same text), and the release as a whole verifies (card configs resolve,
checksums match, one schema, small within large) and covers the 17 languages."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, result
from mgqa_platform.multilingual.languages import CODES
from mgqa_platform.release import card
from mgqa_platform.warehouse import registered


def _files_match_warehouse(con, lang, *, root: Path):
    """Row by row: every (question_id, text) of the files equals the warehouse's, in both directions."""
    base = root / "data" / lang
    frames = []
    for split, sql in (
        ("large", "SELECT question_id, text FROM questions_postedited WHERE lang = ?"),
        (
            "small",
            "SELECT question_id, text FROM questions_postedited JOIN split_small USING (question_id) WHERE lang = ?",
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
)
RELEASE_CARD_CHECKS = (
    Check(
        "release_verified",
        True,
        "every dataset-card config resolves to files, SHA256SUMS matches, one schema, small within large, "
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
