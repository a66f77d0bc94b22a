"""Question instantiation: the template catalog and the English questions with execution-based
gold."""

import time
from collections.abc import Iterator

import dagster as dg
import pyarrow as pa

from mgqa_dagster.assets.strata import ENTITY_STRATA
from mgqa_dagster.data_quality import questions as checks
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.warehouse import (
    WAREHOUSE_POOL,
    WarehouseResource,
    audited_asset,
    audited_multi_asset,
)
from mgqa_platform import question_schema as schema
from mgqa_platform import settings
from mgqa_platform.questions import distribution, splits
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.executor import stable_hash
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.generate import (
    CAP,
    DEFAULT_SEED,
    MEMORY_LIMIT,
    generate,
    write_questions,
    write_templates,
)
from mgqa_platform.warehouse import Slice, whole_tables

TEMPLATES = dg.AssetKey("templates")
QUESTIONS_EN = dg.AssetKey("questions_en")
QUESTION_DISCARDS = dg.AssetKey("question_discards")


def column_schema(table: pa.Schema) -> dg.TableSchema:
    """The UI's ``dagster/column_schema`` of a declared question table
    (mgqa_platform/question_schema.py)."""
    return dg.TableSchema(
        columns=[
            dg.TableColumn(
                f.name,
                schema.sql_type(f),
                description=schema.description(f),
                constraints=dg.TableColumnConstraints(nullable=f.nullable),
            )
            for f in table
        ]
    )


def side_table_spec(
    key: dg.AssetKey, writer: dg.AssetKey, group: str, description: str
) -> dg.AssetSpec:
    """The spec of a side table that the stage of ``writer`` writes in the same transaction: same
    group, lineage to the writer, and the description says who writes it."""
    return dg.AssetSpec(
        key,
        deps=[writer],
        group_name=group,
        kinds={"duckdb"},
        description=f"{description} Written with {writer.to_user_string()}.",
    )


def side_tables(
    context: dg.AssetExecutionContext, tables: dict[dg.AssetKey, dict]
) -> Iterator[dg.MaterializeResult]:
    """A materialization for each side table (key -> metadata) that the run selected. The stage
    writes its side tables whenever it runs; a run that selects only the main asset reports only
    that one."""
    for key, metadata in tables.items():
        if key in context.selected_asset_keys:
            yield dg.MaterializeResult(asset_key=key, metadata=metadata)


def _code_version() -> str:
    """Catalog bytes + executor names and versions: changes whenever generated questions could
    change."""
    refs = ",".join(sorted(e.ref for e in EXECUTORS.values()))
    return f"{default_catalog().version}-{stable_hash(refs, n=8)}"


#: What every questions asset shares: its group, and eager automation.
_questions = dict(group_name="questions", automation_condition=dg.AutomationCondition.eager())


@audited_asset(
    TEMPLATES,
    checks.TEMPLATE_CHECKS,
    **_questions,
    kinds={"duckdb", "yaml"},
    code_version=default_catalog().version,
    description="The template catalog (mgqa_platform/data/templates/*.yaml): 65 templates, "
    "their sub-templates, English variants, answer formats and executors.",
)
def templates(warehouse: WarehouseResource):
    catalog = default_catalog()
    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            whole_tables("templates"),
            lambda c: write_templates(c, catalog),
            asset_key=TEMPLATES,
            checks=checks.TEMPLATE_CHECKS,
            metadata=lambda n: _templates_metadata(con, catalog, n),
        )


def _templates_metadata(con, catalog, n: int) -> dict:
    """The materialization metadata of ``templates``: counts per SFID as a Markdown table."""
    per = con.execute(
        "SELECT sfid, count(DISTINCT tid), count(DISTINCT sub_template_id), count(*), "
        "count(DISTINCT sub_template_id) FILTER (WHERE implemented) "
        "FROM templates GROUP BY sfid ORDER BY sfid"
    ).fetchall()
    table = (
        "| SFID | templates | sub-templates | variants | sub-templates with executor "
        "|\n|---|---|---|---|---|\n"
    )
    table += "\n".join(f"| {s} | {a} | {b} | {c} | {d} |" for s, a, b, c, d in per)
    return {
        "dagster/row_count": n,
        "catalog_version": catalog.version,
        "templates": sum(r[1] for r in per),
        "sub_templates": sum(r[2] for r in per),
        "variants": n,
        "executors": dg.MetadataValue.json(sorted(EXECUTORS)),
        "per_sfid": dg.MetadataValue.md(table),
    }


class QuestionsConfig(dg.Config):
    seed: int = DEFAULT_SEED
    cap: int = CAP  # at most this many tuples per (template, KG, stratum) cell
    memory_limit: str = MEMORY_LIMIT  # DuckDB memory budget while generating


def _markdown(rows: list[tuple], header: tuple[str, ...]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


@audited_multi_asset(
    QUESTIONS_EN,
    checks.QUESTION_CHECKS,
    [
        side_table_spec(
            QUESTION_DISCARDS,
            QUESTIONS_EN,
            "questions",
            "Executions that produced no question, counted per (KG, sub-template, stratum, "
            "reason): degenerate or invalid gold, duplicates, false premises that stayed true.",
        ),
    ],
    deps=[
        TEMPLATES,
        dg.AssetDep(ENTITY_STRATA, partition_mapping=dg.AllPartitionMapping()),
    ],
    **_questions,
    kinds={"duckdb"},
    code_version=_code_version(),
    description="English questions with execution-based gold, the executed query and the "
    "gold triples (docs/questions.md); at most `cap` tuples per (template, KG, stratum), seeded.",
    metadata={"dagster/column_schema": column_schema(schema.QUESTION_SCHEMA)},
)
def questions_en(
    context: dg.AssetExecutionContext, config: QuestionsConfig, warehouse: WarehouseResource
):
    t0 = time.perf_counter()
    with warehouse.get_connection() as con:
        gen = generate(
            con,
            default_catalog(),
            settings.KGS,
            seed=config.seed,
            run_id=context.run_id,
            code_version=_code_version(),
            cap=config.cap,
            memory_limit=config.memory_limit,
        )
        yield from warehouse.publish_audited(
            con,
            (Slice("questions_en"), Slice("question_discards", guarded=False)),
            lambda c: write_questions(c, gen),
            asset_key=QUESTIONS_EN,
            checks=checks.QUESTION_CHECKS,
            metadata=lambda n: _questions_en_metadata(con, config, n, time.perf_counter() - t0),
            selected=QUESTIONS_EN in context.selected_asset_keys,
        )
        (rows,) = con.execute("SELECT count(*) FROM question_discards").fetchone()
        discards = {
            "dagster/row_count": rows,
            "discarded_executions": int(sum(gen.discards.values())),
        }
        yield from side_tables(context, {QUESTION_DISCARDS: discards})


def _questions_en_metadata(con, config: QuestionsConfig, n: int, seconds: float) -> dict:
    """The materialization metadata of ``questions_en``: its distribution and its speed."""

    def q(sql: str) -> list[tuple]:
        return con.execute(sql).fetchall()

    per_kg_sfid = q(
        """
        PIVOT (SELECT sfid, kg FROM questions_en)
        ON kg
        USING count(*)
        GROUP BY sfid
        ORDER BY sfid
        """
    )
    discards = q(
        """
        SELECT reason, sum(n)::BIGINT
        FROM question_discards
        GROUP BY 1
        ORDER BY 2 DESC
        """
    )
    metadata = {
        "dagster/row_count": n,
        "seconds": round(seconds, 2),
        "questions_per_second": round(n / seconds, 1) if seconds else 0.0,
        "seed": config.seed,
        "per_kg_sfid": dg.MetadataValue.md(_markdown(per_kg_sfid, ("SFID", *sorted(settings.KGS)))),
        "per_answer_format": dg.MetadataValue.json(
            dict(q("SELECT answer_format, count(*) FROM questions_en GROUP BY 1 ORDER BY 1"))
        ),
        "per_stratum": dg.MetadataValue.json(
            dict(q("SELECT stratum, count(*) FROM questions_en GROUP BY 1 ORDER BY 1"))
        ),
        "per_template": dg.MetadataValue.json(
            dict(q("SELECT tid, count(*) FROM questions_en GROUP BY 1 ORDER BY 1"))
        ),
        "discards_by_reason": dg.MetadataValue.json(dict(discards)),
        "false_premise": q("SELECT count(*) FROM questions_en WHERE false_premise")[0][0],
        "multimodal": q("SELECT count(*) FROM questions_en WHERE multimodal")[0][0],
        "catalog_version": default_catalog().version,
    }
    return metadata


SPLIT_SMALL = dg.AssetKey("split_small")
QUESTION_DISTRIBUTION = dg.AssetKey("question_distribution")


@audited_asset(
    SPLIT_SMALL,
    checks.SPLIT_CHECKS,
    deps=[QUESTIONS_EN],
    **_questions,
    kinds={"duckdb"},
    description=f"The small split: at most {splits.SMALL_PER_CELL} questions per (KG, SFID) cell "
    "of the large split, by a seeded hash.",
)
def split_small(config: QuestionsConfig, warehouse: WarehouseResource):
    per_kg_sfid = "SELECT kg || '/' || sfid, count(*) FROM split_small GROUP BY 1 ORDER BY 1"
    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            whole_tables("split_small"),
            lambda c: splits.write_small_split(c, config.seed),
            asset_key=SPLIT_SMALL,
            checks=checks.SPLIT_CHECKS,
            metadata=lambda n: {
                "dagster/row_count": n,
                "per_kg_sfid": dg.MetadataValue.json(dict(con.execute(per_kg_sfid).fetchall())),
            },
        )


@dg.asset(
    pool=WAREHOUSE_POOL,
    key=QUESTION_DISTRIBUTION,
    deps=[QUESTIONS_EN, SPLIT_SMALL],
    **_questions,
    kinds={"duckdb", "markdown"},
    description="Distribution of the English questions: per strata cell and country (Table 2), per "
    "(KG, SFID) with the small split (Table 7), per answer format (Fig. 6), false-premise and "
    "multimodal counts. Also written to $MGQA_HOME/reports/.",
)
def question_distribution(
    paths: PathsResource, warehouse: WarehouseResource
) -> dg.MaterializeResult:
    with warehouse.get_connection() as con:
        r = distribution.report(con)
    text = distribution.markdown(r)
    out = paths.reports_dir / "question_distribution.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")
    return dg.MaterializeResult(
        metadata={
            "report": dg.MetadataValue.md(text),
            "path": paths.portable(out),
            "questions": r["total"],
            "false_premise": r["false_premise"],
            "multimodal": r["multimodal"],
            "small_split": r["small_total"],
            "countries": r["countries"],
        }
    )
