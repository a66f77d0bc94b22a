"""Multilingual stages, one static partition per language (ISO 639-3; the paper's 17, English
included): template machine translation -> human post-edit resolution -> re-instantiation of every
English question -> post-edit ensemble over the instantiated questions."""

import dagster as dg

from mgqa_dagster.assets.questions import (
    QUESTIONS_EN,
    TEMPLATES,
    column_schema,
    side_table_spec,
    side_tables,
)
from mgqa_dagster.data_quality import multilingual as checks
from mgqa_dagster.resources.llm import LLMResource, PostEditEnsembleResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.translator import TranslatorResource
from mgqa_dagster.resources.warehouse import (
    WarehouseResource,
    audited_asset,
    audited_multi_asset,
)
from mgqa_platform.languages import CODES, language
from mgqa_platform.multilingual import annotations, stage
from mgqa_platform.multilingual.ensemble import describe as describe_member
from mgqa_platform.multilingual.judge import LLMJudge, OfflineJudge
from mgqa_platform.question_schema import LOCALIZED_SCHEMA, POSTEDITED_SCHEMA
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.warehouse import Slice, partition_slices

language_partitions = dg.StaticPartitionsDefinition(list(CODES))

#: The rebuild policy of the language tail, shown in the descriptions of the assets it governs
#: (docs/configuration.md, "Rebuilds").
TAIL_POLICY = (
    " Rebuilt by automation only while the sensor language_tail_automation is on (off by default: "
    "a new English question set means 17 runs and a new release); otherwise run the jobs "
    "build_language and publish_release, or `mgqa build`."
)

TEMPLATE_TRANSLATIONS = dg.AssetKey("template_translations")
TEMPLATE_TRANSLATIONS_RESOLVED = dg.AssetKey("template_translations_resolved")
QUESTIONS_LOCALIZED = dg.AssetKey("questions_localized")
QUESTIONS_POSTEDITED = dg.AssetKey("questions_postedited")
ANNOTATION_AGREEMENT = dg.AssetKey("annotation_agreement")
ENSEMBLE_EDIT_LOG = dg.AssetKey("ensemble_edit_log")
ENSEMBLE_STATS = dg.AssetKey("ensemble_stats")


class PostEditConfig(dg.Config):
    annotations_dir: str = ""  # default: PathsResource.annotations_path (<lang>.csv, <lang>.jsonl)
    judge_seed: int = 0


#: What every multilingual asset shares: its group, and eager automation.
_multilingual = dict(group_name="multilingual", automation_condition=dg.AutomationCondition.eager())


@audited_asset(
    TEMPLATE_TRANSLATIONS,
    checks.TRANSLATION_CHECKS,
    deps=[TEMPLATES],
    partitions_def=language_partitions,
    **_multilingual,
    kinds={"duckdb", "translation"},
    description="Machine translation of every template variant into the partition's language "
    "(Google Cloud Translation "
    "v3 with protected placeholders, or the bundled translation memory offline). Broken "
    "slots are flagged for post-edit." + TAIL_POLICY,
)
def template_translations(
    context: dg.AssetExecutionContext, warehouse: WarehouseResource, translator: TranslatorResource
):
    lang = context.partition_key
    engine = translator.get_translator()
    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            partition_slices("lang", lang, "template_translations"),
            lambda c: stage.translate_language(c, default_catalog(), lang, engine),
            asset_key=TEMPLATE_TRANSLATIONS,
            partition=lang,
            checks=checks.TRANSLATION_CHECKS,
            metadata=lambda done: _translation_metadata(lang, done),
        )


def _translation_metadata(lang: str, done: list) -> dict:
    """The materialization metadata of ``template_translations[lang]`` from its translations."""
    statuses: dict[str, int] = {}
    for t in done:
        statuses[t.status] = statuses.get(t.status, 0) + 1
    return {
        "dagster/row_count": len(done),
        "language": language(lang).name,
        "engine": done[0].engine if done else "",
        "statuses": dg.MetadataValue.json(statuses),
        "needs_post_edit": sum(t.needs_post_edit for t in done),
    }


@audited_multi_asset(
    TEMPLATE_TRANSLATIONS_RESOLVED,
    checks.RESOLVED_CHECKS,
    [
        side_table_spec(
            ANNOTATION_AGREEMENT,
            TEMPLATE_TRANSLATIONS_RESOLVED,
            "multilingual",
            "Agreement of the human post-edit annotators of the language (the paper's Table 9 "
            "row) and the annotation rows rejected on load.",
        ),
    ],
    partitions_def=language_partitions,
    deps=[TEMPLATE_TRANSLATIONS],
    **_multilingual,
    kinds={"duckdb", "markdown"},
    description="Human post-edits resolved into one template per variant: rules (both "
    "correct, identical corrections, one-sided, stricter wins) then an LLM judge choosing "
    "between the annotators' texts (offline: a rule-based twin). Without an annotation "
    "export the MT passes through, flagged unreviewed.",
)
def template_translations_resolved(
    context: dg.AssetExecutionContext,
    config: PostEditConfig,
    paths: PathsResource,
    warehouse: WarehouseResource,
    llm: LLMResource,
):
    lang = context.partition_key
    directory = config.annotations_dir or str(paths.annotations_path)
    client = llm.get_client()
    judge = LLMJudge(client, seed=config.judge_seed) if client else OfflineJudge()
    report_path = paths.reports_dir / "post_edit" / f"{lang}.md"

    def write_report(out) -> None:
        """The post-edit report of the language, when the resolution wrote one."""
        if out.published and out.value["report"]:
            report_path.parent.mkdir(parents=True, exist_ok=True)
            report_path.write_text(out.value["report"] + "\n", encoding="utf-8")

    def metadata(r: dict) -> dict:
        report = {}
        if r["report"]:
            report = {
                "report": dg.MetadataValue.md(r["report"]),
                "report_path": paths.portable(report_path),
            }
        return {
            "dagster/row_count": r["n"],
            "language": language(lang).name,
            "annotations": r["annotations"] or "none (MT unreviewed)",
            "methods": dg.MetadataValue.json(r["methods"]),
            "statuses": dg.MetadataValue.json(r["statuses"]),
            "agreement": dg.MetadataValue.json(r["stats"]),
            "rejected_annotation_rows": r["rejected"],
            "judge": llm.describe() if client else "offline (rule-based)",
            **report,
        }

    with warehouse.get_connection() as con:
        r = yield from warehouse.publish_audited(
            con,
            partition_slices(
                "lang", lang, "template_translations_resolved", "annotation_agreement"
            ),
            lambda c: stage.resolve_language(
                c, lang, annotations.annotation_file(directory, lang), judge
            ),
            asset_key=TEMPLATE_TRANSLATIONS_RESOLVED,
            partition=lang,
            checks=checks.RESOLVED_CHECKS,
            metadata=metadata,
            selected=TEMPLATE_TRANSLATIONS_RESOLVED in context.selected_asset_keys,
            on_audit=write_report,
        )
        agreement = {
            "dagster/row_count": 1,
            "agreement": dg.MetadataValue.json(r["stats"]),
            "rejected_annotation_rows": r["rejected"],
        }
        yield from side_tables(context, {ANNOTATION_AGREEMENT: agreement})


@audited_asset(
    QUESTIONS_LOCALIZED,
    checks.LOCALIZED_CHECKS,
    deps=[TEMPLATE_TRANSLATIONS_RESOLVED, QUESTIONS_EN],
    partitions_def=language_partitions,
    **_multilingual,
    kinds={"duckdb"},
    description="Every English question re-rendered in the partition's language: resolved "
    "template, entity labels in that language (else English, else the KG label), translated "
    "categories and terms, locale-formatted numbers and dates, entity names marked {...}. Same "
    "question ids in every language; English copies questions_en's text. Only the text and how it "
    "was rendered: the rest of the record is in questions_en.",
    metadata={"dagster/column_schema": column_schema(LOCALIZED_SCHEMA)},
)
def questions_localized(context: dg.AssetExecutionContext, warehouse: WarehouseResource):
    lang = context.partition_key
    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            partition_slices("lang", lang, "questions_localized"),
            lambda c: stage.localize_language(c, default_catalog(), lang),
            asset_key=QUESTIONS_LOCALIZED,
            partition=lang,
            checks=checks.LOCALIZED_CHECKS,
            metadata=lambda r: {
                "dagster/row_count": r["n"],
                "language": language(lang).name,
                "localized_entity_labels": r["localized_labels"],
                "label_sources": dg.MetadataValue.json(r["label_sources"]),
                "names_localized": dg.MetadataValue.json(r["names_localized"]),
                "fallbacks": dg.MetadataValue.json(r["fallbacks"]),
                "template_statuses": dg.MetadataValue.json(r["template_statuses"]),
            },
        )


def _rounded(shares: dict[str, float]) -> dict[str, float]:
    """Shares of questions, rounded to 4 decimals for the metadata."""
    return {k: round(v, 4) for k, v in shares.items()}


def _edit_log_markdown(examples: list[dict]) -> str:
    """The first applied edits of the partition as a Markdown table (question, decision, before ->
    after)."""
    if not examples:
        return "No question was edited."
    lines = ["| question_id | decision | edits | after |", "|---|---|---|---|"]
    for ex in examples:
        edits = "; ".join(f"{e['op']}: `{e['original']}` → `{e['fix']}`" for e in ex["edits"])
        after = ex["after"].replace("|", "\\|")
        lines.append(
            f"| {ex['question_id'][:12]} | {ex['decision']} | {edits.replace('|', '/')} | {after} |"
        )
    return "\n".join(lines)


@audited_multi_asset(
    QUESTIONS_POSTEDITED,
    checks.POSTEDIT_CHECKS,
    [
        side_table_spec(
            ENSEMBLE_EDIT_LOG,
            QUESTIONS_POSTEDITED,
            "multilingual",
            "Every edit proposed by each ensemble member, whether applied, plus one row per "
            "rejected or failed reply.",
        ),
        side_table_spec(
            ENSEMBLE_STATS,
            QUESTIONS_POSTEDITED,
            "multilingual",
            "The ensemble's members (endpoint, model, sampling, prompt) and its statistics for the "
            "language: shares edited and by majority, decisions, operations.",
        ),
    ],
    partitions_def=language_partitions,
    deps=[QUESTIONS_LOCALIZED],
    **_multilingual,
    kinds={"duckdb", "llm"},
    description="Grammar around the inserted entity names fixed by an ensemble: members "
    "propose typed edits (13 operations: articles, adpositions, declension, agreement, "
    "contraction, elision, punctuation...) that may never touch a {name}; an edit "
    "proposed by two members is applied, else the primary member's. Offline: the "
    "rule-based member.",
    metadata={"dagster/column_schema": column_schema(POSTEDITED_SCHEMA)},
)
def questions_postedited(
    context: dg.AssetExecutionContext,
    warehouse: WarehouseResource,
    ensemble: PostEditEnsembleResource,
):
    lang = context.partition_key
    members, primary = ensemble.members(lang)
    with warehouse.get_connection() as con:
        r = yield from warehouse.publish_audited(
            con,
            (
                *partition_slices("lang", lang, "questions_postedited", "ensemble_stats"),
                Slice("ensemble_edit_log", "lang = ?", (lang,), guarded=False),
            ),
            lambda c: stage.postedit_language(
                c, lang, members, primary, concurrency=ensemble.workers
            ),
            asset_key=QUESTIONS_POSTEDITED,
            partition=lang,
            checks=checks.POSTEDIT_CHECKS,
            metadata=lambda r: _postedit_metadata(lang, members, primary, r),
            selected=QUESTIONS_POSTEDITED in context.selected_asset_keys,
        )
        side = {
            ENSEMBLE_EDIT_LOG: {"dagster/row_count": r["log_rows"]},
            ENSEMBLE_STATS: {"dagster/row_count": 1, "primary": primary},
        }
        yield from side_tables(context, side)


def _postedit_metadata(lang: str, members: list, primary: str, r: dict) -> dict:
    """The materialization metadata of ``questions_postedited[lang]`` from what the ensemble did."""
    s = r["stats"]
    return {
        "dagster/row_count": r["n"],
        "language": language(lang).name,
        "members": dg.MetadataValue.json({m.name: describe_member(m) for m in members}),
        "primary": primary,
        "share_edited": dg.MetadataValue.float(round(s["share_edited"], 4)),
        "share_majority": dg.MetadataValue.float(round(s["share_majority"], 4)),
        "decisions": dg.MetadataValue.json(s["decisions"]),
        "operations": dg.MetadataValue.json(s["operations"]),
        "operation_shares": dg.MetadataValue.json(_rounded(s["operation_shares"])),
        "rule_shares": dg.MetadataValue.json(_rounded(s["rule_shares"])),
        "proposed_operations": dg.MetadataValue.json(s["proposed_operations"]),
        "rejected_replies": dg.MetadataValue.json(s["rejected"]),
        "failed_replies": dg.MetadataValue.json(s["errors"]),
        "edit_log_rows": r["log_rows"],
        "edit_log": dg.MetadataValue.md(_edit_log_markdown(r["examples"])),
    }
