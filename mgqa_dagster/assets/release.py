"""Release: the benchmark as files anyone can load without the platform. Per language partition the
post-edited questions are written as Parquet (splits ``large`` and ``small``); once every language
is in, the dataset card (Hugging Face ``configs``: one per language), the attribution, the entity
sites as GeoParquet and the checksums."""

import dagster as dg

from mgqa_dagster.assets.multilingual import QUESTIONS_POSTEDITED, TAIL_POLICY, language_partitions
from mgqa_dagster.assets.questions import SPLIT_SMALL
from mgqa_dagster.data_quality import release as checks
from mgqa_dagster.data_quality.checks import bound, check_specs, non_blocking, run_checks
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.warehouse import (
    WAREHOUSE_POOL,
    Audited,
    WarehouseResource,
    audited_asset,
    blocks,
)
from mgqa_platform.languages import language
from mgqa_platform.release import card, export, sites
from mgqa_platform.warehouse import partition_slices

RELEASE_QUESTIONS = dg.AssetKey("release_questions")
RELEASE_CARD = dg.AssetKey("release_card")


@audited_asset(
    RELEASE_QUESTIONS,
    checks.RELEASE_QUESTION_CHECKS,
    deps=[QUESTIONS_POSTEDITED, SPLIT_SMALL],
    partitions_def=language_partitions,
    group_name="release",
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"parquet"},
    description="The language's released questions as Parquet: data/<lang>/large.parquet "
    "(every question) and small.parquet "
    "(the small split), with gold, gold triples and the query of every answer; "
    "byte-identical on rebuild." + TAIL_POLICY,
)
def release_questions(
    context: dg.AssetExecutionContext, paths: PathsResource, warehouse: WarehouseResource
):
    lang = context.partition_key
    root = paths.release_path
    staged = export.staging_root(root)

    def write(con):
        info = export.write_language(con, staged, lang)
        export.record_language(con, info)
        return info

    def publish_or_discard(out) -> None:
        """The staged files replace the published ones only when the audit passed."""
        if out.published:
            export.publish_staged(root, lang)
        else:
            export.discard_staged(root, lang)

    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            partition_slices("lang", lang, "release_files"),
            write,
            asset_key=RELEASE_QUESTIONS,
            partition=lang,
            checks=bound(checks.RELEASE_QUESTION_CHECKS, root=staged),
            metadata=lambda info: {
                "dagster/row_count": info["rows"]["large"],
                "language": language(lang).name,
                "rows": dg.MetadataValue.json(info["rows"]),
                "sha256": dg.MetadataValue.json(info["sha256"]),
                "false_premise": info["false_premise"],
                "multimodal": info["multimodal"],
                "post_edited": info["edited"],
                "path": paths.portable(root / "data" / lang),
            },
            late_checks=bound(checks.RELEASE_QUESTION_CHECKS, root=root),
            on_audit=publish_or_discard,
        )


@dg.asset(
    pool=WAREHOUSE_POOL,
    key=RELEASE_CARD,
    deps=[RELEASE_QUESTIONS],
    group_name="release",
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"parquet", "markdown"},
    check_specs=check_specs(RELEASE_CARD, checks.RELEASE_FILE_CHECKS + checks.RELEASE_CARD_CHECKS),
    description="The release folder's shared files: README.md "
    "(dataset card with one Hugging Face config per language, "
    "splits large/small, schema, per-language figures, attribution of every source), "
    "ATTRIBUTION.md, "
    "entity_sites.parquet (GeoParquet of every bound entity) and SHA256SUMS." + TAIL_POLICY,
)
def release_card(
    context: dg.AssetExecutionContext, paths: PathsResource, warehouse: WarehouseResource
):
    root = paths.release_path
    with warehouse.get_connection() as con:
        audits = tuple(
            run_checks(con, None, RELEASE_CARD, bound(checks.RELEASE_FILE_CHECKS, root=root))
        )
        verified = not any(blocks(r) for r in audits)
        yield from Audited(None, audits, verified, RELEASE_CARD.to_user_string()).refused()
        tree = card.stage_card_tree(root)
        site_info = sites.write_entity_sites(con, tree / sites.SITES_FILE)
        info = card.write_release_card(con, tree)
        card_checks = bound(checks.RELEASE_CARD_CHECKS, root=tree)
        staged = tuple(run_checks(con, None, RELEASE_CARD, [c for c in card_checks if c.blocking]))
        published = not any(blocks(r) for r in staged)
        if published:
            card.publish_card_tree(root, tree)
        else:
            card.discard_card_tree(root, tree)
        audits += staged
        yield from Audited(None, audits, published, RELEASE_CARD.to_user_string()).refused()
        text = (root / card.CARD_FILE).read_text(encoding="utf-8")
        yield dg.MaterializeResult(
            metadata={
                "languages": dg.MetadataValue.json(info["languages"]),
                "files": info["files"],
                "entity_sites": site_info["rows"],
                "geom_kinds": dg.MetadataValue.json(site_info["geom_kinds"]),
                "path": paths.portable(root),
                "card": dg.MetadataValue.md(text.split("---", 2)[-1].strip()[:20000]),
            }
        )
        yield from audits
        card_warnings = non_blocking(bound(checks.RELEASE_CARD_CHECKS, root=root))
        yield from run_checks(con, None, RELEASE_CARD, card_warnings)
