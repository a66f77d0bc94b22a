"""Plain-text summaries of the warehouse, printed by ``mgqa build`` and ``mgqa summary``."""

from __future__ import annotations

from pathlib import Path

import duckdb

from mgqa_platform.multilingual import detectors


def _table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(
        con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]
        ).fetchone()[0]
    )


def _rows(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def summary(con: duckdb.DuckDBPyConnection, release_dir: Path, top: int = 8) -> str:
    """Entities per KG (with how many a name rule excluded or left ambiguous: never bound as an
    entity role),
    top categories per KG, entities per country (when strata exist), quarantine by reason; the
    languages section also names the release written in ``release_dir``."""
    out: list[str] = []
    if not _table_exists(con, "entities"):
        return "(empty warehouse)"
    out.append(
        "Entities per KG (unusable names: excluded by a name rule or ambiguous, never bound where "
        "the name must identify them)"
    )
    for kg, n, ambiguous, snap in _rows(
        con,
        """
        SELECT kg, count(*), count(*) FILTER (WHERE NOT name_unique), any_value(snapshot_id)
        FROM entities
        GROUP BY 1
        ORDER BY 1
        """,
    ):
        out.append(f"  {kg:<10} {n:>8,}   unusable names {ambiguous:>6,}   from {snap}")
    out.append("")
    out.extend(_names_by_rule(con))
    out.append(f"Top {top} categories per KG")
    for kg, cats in _rows(
        con,
        f"""SELECT kg, string_agg(category || ' ' || n, ', ' ORDER BY n DESC, category) FROM (
              SELECT kg, category, count(*) n, row_number() OVER (PARTITION BY kg ORDER BY count(*)
                  DESC, category) rn
              FROM entities GROUP BY 1, 2) WHERE rn <= {int(top)} GROUP BY 1 ORDER BY 1""",
    ):
        out.append(f"  {kg:<10} {cats}")
    out.append("")
    out += _wholes_section(con)
    out += _countries_section(con)
    if (
        _table_exists(con, "entity_strata")
        and _rows(con, "SELECT count(*) FROM entity_strata")[0][0]
    ):
        from mgqa_platform.strata import strata

        proxy = _rows(con, "SELECT is_proxy FROM density_breaks")
        out.append(
            "Strata grid: entities (countries) per income tier x density tier"
            + (" [density from the PROXY surface, not WorldPop]" if proxy and proxy[0][0] else "")
        )
        out += ["  " + line for line in strata.grid_markdown(strata.coverage(con)).splitlines()]
        out.append("")
    if _table_exists(con, "questions_en") and _rows(con, "SELECT count(*) FROM questions_en")[0][0]:
        out += _questions_section(con)
    if _table_exists(con, "scores") and _rows(con, "SELECT count(*) FROM scores")[0][0]:
        out += _evaluation_section(con)
    if (
        _table_exists(con, "questions_localized")
        and _rows(con, "SELECT count(*) FROM questions_localized")[0][0]
    ):
        out += _languages_section(con, release_dir)
    out.append("Quarantined rows by KG, stage and reason")
    rows = _rows(
        con,
        "SELECT kg, stage, reason, count(*) FROM quarantine GROUP BY ALL ORDER BY 1, 2, 4 DESC, 3",
    )
    if not rows:
        out.append("  (none)")
    for kg, stage, reason, n in rows:
        out.append(f"  {kg:<10} {stage:<9} {reason:<28} {n:>8,}")
    return "\n".join(out)


def _countries_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Entities per country (top 15) with the country's income tier, once strata exist."""
    out: list[str] = []
    if _table_exists(con, "entity_country"):
        out.append("Entities per country (top 15) and income tier")
        for iso3, name, tier, n in _rows(
            con,
            """SELECT coalesce(c.iso3, 'unassigned'), coalesce(any_value(c.name), ''),
                coalesce(any_value(c.income_tier), '-'), count(*)
               FROM entity_country ec LEFT JOIN countries c USING (iso3) GROUP BY 1 ORDER BY 4 DESC,
                   1 LIMIT 15""",
        ):
            out.append(f"  {iso3:<10} {name[:28]:<28} {tier:<4} {n:>8,}")
        out.append("")
    else:
        out.append("Entities per country: not computed yet (materialize the strata assets)")
        out.append("")
    return out


def _wholes_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Whole features per KG and family (``entity_parts``, :mod:`mgqa_platform.kg.whole`): how
    many wholes conversion made and of how many parts."""
    if not _table_exists(con, "entity_parts"):
        return []
    rows = _rows(
        con,
        """
        SELECT
            kg,
            regexp_extract(entity_id, '^[^:]*:([^/]*)/', 1) AS family,
            count(DISTINCT entity_id),
            count(*)
        FROM entity_parts
        GROUP BY ALL
        ORDER BY ALL
        """,
    )
    out = ["Whole features per KG and family (merged at conversion: wholes <- parts)"]
    out += [f"  {kg:<10} {fam:<10} {n:>8,} <- {parts:>8,}" for kg, fam, n, parts in rows]
    return out + ["  (none)"] * (not rows) + [""]


def _names_by_rule(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Per KG, the entities of each name rule (``entities.name_rule``; kg/names.py ``RULES``) and
    how many of them are unusable (``name_unique`` false)."""
    out = ["Names by rule per KG: rule entities (unusable)"]
    for kg, rules in _rows(
        con,
        """
        SELECT kg, string_agg(name_rule || ' ' || n || ' (' || bad || ')', ', ' ORDER BY name_rule)
        FROM (
            SELECT kg, name_rule, count(*) AS n, count(*) FILTER (WHERE NOT name_unique) AS bad
            FROM entities
            WHERE name_rule IS NOT NULL
            GROUP BY 1, 2
        )
        GROUP BY 1
        ORDER BY 1
        """,
    ):
        out.append(f"  {kg:<10} {rules}")
    out.append("")
    return out


def _questions_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """English questions per SFID and KG (the paper's Table 7 layout), templates covered, every
    discard reason (``trivial`` and ``no_population_raster`` included)."""
    kgs = [k for (k,) in _rows(con, "SELECT DISTINCT kg FROM questions_en ORDER BY 1")]
    counts = {
        (s, k): n
        for s, k, n in _rows(con, "SELECT sfid, kg, count(*) FROM questions_en GROUP BY 1, 2")
    }
    tids = dict(_rows(con, "SELECT sfid, count(DISTINCT tid) FROM questions_en GROUP BY 1"))
    out = ["English questions per spatial function (SFID) and KG"]
    out.append("  | SFID | templates with questions | " + " | ".join(kgs) + " | total |")
    out.append("  |---|---|" + "---|" * (len(kgs) + 1))
    for sfid in sorted(tids):
        row = [counts.get((sfid, k), 0) for k in kgs]
        out.append(
            f"  | {sfid} | {tids[sfid]} | "
            + " | ".join(f"{n:,}" for n in row)
            + f" | {sum(row):,} |"
        )
    total = [sum(n for (s, k), n in counts.items() if k == kg) for kg in kgs]
    out.append(
        "  | total | "
        + f"{sum(tids.values())} | "
        + " | ".join(f"{n:,}" for n in total)
        + f" | {sum(total):,} |"
    )
    fp, mm = _rows(
        con,
        "SELECT count(*) FILTER (WHERE false_premise), count(*) FILTER (WHERE multimodal) "
        "FROM questions_en",
    )[0]
    out.append(f"  false-premise questions {fp:,}; multimodal slice {mm:,}")
    if _table_exists(con, "split_small"):
        out.append(
            f"  small split {_rows(con, 'SELECT count(*) FROM split_small')[0][0]:,} "
            "questions (at most 200 per KG and SFID)"
        )
    fmts = _rows(
        con, "SELECT answer_format, count(*) FROM questions_en GROUP BY 1 ORDER BY 2 DESC, 1"
    )
    out.append("  answer formats: " + ", ".join(f"{f} {n:,}" for f, n in fmts))
    dis = _rows(
        con,
        """
        SELECT reason, sum(n)::BIGINT
        FROM question_discards
        GROUP BY 1
        ORDER BY 2 DESC, 1
        """,
    )
    if dis:
        out.append("  discarded executions by reason: " + ", ".join(f"{r} {n:,}" for r, n in dis))
    out += _stated_line(con)
    out.append("")
    return out


def _stated_line(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Questions per stated convention and per text rule (questions/stated.py ``rule_counts``)."""
    from mgqa_platform.questions import stated
    from mgqa_platform.questions.catalog import default_catalog

    per_sub = dict(_rows(con, "SELECT sub_template_id, count(*) FROM questions_en GROUP BY 1"))
    counts = stated.rule_counts(default_catalog().sub_templates, per_sub)
    if not counts:
        return []
    return [
        "  conventions in the text, questions by rule: "
        + ", ".join(f"{r} {n:,}" for r, n in counts.items())
    ]


def _evaluation_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Headline metrics of every scored (system, split) and the reference solver's misses by
    reason."""
    from mgqa_platform.evaluation import evaluate

    out = [
        "Evaluation (true-premise questions; percent)",
        "  system               split   N       EM     NE   Cov.   FRR    NRR",
    ]
    for system, split in _rows(con, "SELECT DISTINCT system, split FROM scores ORDER BY 1, 2"):
        m = evaluate.summary(evaluate.read_scores(con, system, split))
        nrr = "-" if m["nrr"] is None else f"{m['nrr']:.1f}"
        out.append(
            f"  {system[:20]:<20} {split:<7} {m['n']:>6,} {m['em']:>6.1f} {m['ne']:>6.1f} "
            f"{m['coverage']:>6.1f} {m['frr']:>5.1f} {nrr:>6}"
        )
    misses = _rows(
        con,
        "SELECT split_part(coalesce(detail, 'wrong_answer'), ':', 1), count(*) FROM scores "
        "WHERE system = 'reference_solver' AND NOT false_premise AND em < 1 "
        "GROUP BY 1 "
        "ORDER BY 2 DESC",
    )
    if misses:
        out.append(
            "  reference solver misses: "
            + ", ".join(f"{r} {n:,}" for r, n in misses)
            + " (docs/evaluation.md)"
        )
    out.append("")
    return out


def detector_rates(
    con: duckdb.DuckDBPyConnection, table: str = "questions_localized", n_examples: int = 3
) -> dict[str, list[detectors.Rate]]:
    """Per language of ``table`` (``questions_localized`` or ``questions_postedited``) that has
    detectors, the rate of each detector over its ``text_marked``."""
    out: dict[str, list[detectors.Rate]] = {}
    for (lang,) in _rows(con, f"SELECT DISTINCT lang FROM {table} ORDER BY 1"):
        if detectors.detectors(lang):
            texts = (
                r[0]
                for r in _rows(
                    con,
                    f"SELECT text_marked FROM {table} WHERE lang = ? ORDER BY question_id",
                    [lang],
                )
            )
            out[lang] = detectors.rates(texts, lang, n_examples)
    return out


def _worst(found: list[detectors.Rate], n: int = 3) -> str:
    """The ``n`` detectors with the highest non-zero rates (``category_frame 26.1%, latin_km
    14.7%``), or ``none`` when no detector flags anything."""
    worst = sorted((r for r in found if r.flagged), key=lambda r: -r.rate)[:n]
    return ", ".join(f"{r.detector.name} {r.rate:.1%}" for r in worst) or "none"


def _languages_section(con: duckdb.DuckDBPyConnection, release_dir: Path) -> list[str]:
    """Per language: questions, how its templates were resolved, the share of inserted entity names
    in the language (``{...}`` spans of ``text_marked``, less the multimodal image phrase, that are
    not a ``label:`` fallback), the worst detector rates over the shipped text
    (``questions_postedited`` when it exists), and the questions post-edited."""
    out = [
        "Languages (questions_localized; templates by resolution status; entity names in "
        "the language; "
        "worst error detectors in the text the release ships (post-edited when the ensemble ran); "
        "questions the post-edit ensemble changed)"
    ]
    rows = _rows(
        con,
        """
        WITH t AS (SELECT lang, string_agg(status || ' ' || n, ', ' ORDER BY status) AS statuses
                   FROM (SELECT lang, status, count(*) n FROM template_translations_resolved GROUP
                       BY 1, 2) GROUP BY 1),
             q AS (SELECT l.lang, count(*) AS n,
                          sum(len(list_filter(CAST(fallbacks AS VARCHAR[]), x -> x LIKE 'label:%')))
                              AS label_fallbacks,
                          sum(len(list_distinct(regexp_extract_all(l.text_marked, '[{][^{}]*[}]')))
                              - (coalesce(e.image_role, '') <> '')::INT) AS names
                   FROM questions_localized l LEFT JOIN questions_en e USING (question_id) GROUP BY
                       1)
        SELECT q.lang, q.n, t.statuses, q.label_fallbacks, q.names FROM q LEFT JOIN t USING (lang)
            ORDER BY q.lang""",
    )
    edited = (
        dict(
            _rows(
                con,
                "SELECT lang, count(*) FILTER (WHERE postedit_decision <> 'none') "
                "FROM questions_postedited "
                "GROUP BY 1",
            )
        )
        if _table_exists(con, "questions_postedited")
        else {}
    )
    shipped = "questions_postedited" if edited else "questions_localized"
    found = detector_rates(con, shipped)
    for lang, n, statuses, fallbacks, names in rows:
        localized = f"{1 - (fallbacks or 0) / names:.1%}" if names else "-"
        worst = f"   detectors: {_worst(found[lang])}" if lang in found else ""
        post = f"   post-edited: {edited[lang]:,}" if lang in edited else ""
        out.append(
            f"  {lang}  {n:>7,} questions   templates: {statuses or '-'}   names "
            f"localized: {localized} "
            f"({fallbacks or 0:,} of {names or 0:,} fall back to English){worst}{post}"
        )
    released = sorted(p.parent.name for p in release_dir.glob("data/*/large.parquet"))
    if released:
        out.append(
            f"  release: {release_dir} ({len(released)} languages x splits large, "
            "small; README.md is the dataset card)"
        )
    out.append("")
    return out
