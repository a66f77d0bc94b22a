"""The dataset card (``README.md`` with Hugging Face YAML ``configs``), ``ATTRIBUTION.md`` and
``SHA256SUMS``.

:func:`write_release_card` describes exactly the files present in a release folder: the languages
whose ``large`` and ``small`` files both exist (in :data:`~mgqa_platform.languages.CODES` order),
their counts read back from the Parquet files, and the entity sites file. The card is deterministic:
no dates, no absolute paths, no timestamps; the same files always give the same card and the same
``SHA256SUMS``.

:func:`verify_release` re-checks a release folder without the warehouse (pure pyarrow + yaml):
configs point at existing files, ``SHA256SUMS`` matches, every split file has the release schema,
``small`` is a subset of ``large`` and no split repeats a question id.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

from mgqa_platform import question_schema as schema
from mgqa_platform.files import atomic_path, sha256_file
from mgqa_platform.languages import CODES, LANGUAGES, SOURCE
from mgqa_platform.questions.splits import SMALL_PER_CELL
from mgqa_platform.release.export import (
    RELEASE_SCHEMA,
    SPLITS,
    split_path,
    staging_root,
    table_stats,
)
from mgqa_platform.release.sites import SITES_FILE
from mgqa_platform.settings import SAMPLE_DIR

CARD_FILE = "README.md"
ATTRIBUTION_FILE = "ATTRIBUTION.md"
SUMS_FILE = "SHA256SUMS"

#: ISO 639-1 code of each benchmark language (the OSM ``name:<xx>`` subtag in languages.py is
#: exactly that).
ISO_639_1: dict[str, str] = {code: lang.osm for code, lang in LANGUAGES.items()}

#: One line per released column, for the card's schema table: the descriptions of the declared
#: question record.
COLUMN_DOCS: dict[str, str] = schema.descriptions(schema.RELEASED_FIELDS)

#: Sources added to the lines of ATTRIBUTION.md: the graph formats the questions are asked over.
KG_ATTRIBUTION = (
    "WorldKG format (OSM nodes as an RDF knowledge graph under the WorldKG ontology), "
    "built from OpenStreetMap data: ODbL 1.0.",
    "KnowWhereGraph ontology and RDF layout of the crawled entities: CC BY 4.0.",
    "OSMH3KG format (OpenStreetMap triples linked to H3 cells), "
    "built from OpenStreetMap data: ODbL 1.0.",
)


# ------------------------------------------------------------------------------------ small helpers
def _write_text(path: Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(text.encode("utf-8"))


def size_category(n: int) -> str:
    """Hugging Face ``size_categories`` bucket of ``n`` rows."""
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ):
        if n < limit:
            return label
    return "10M<n<100M"


def attribution_lines(attribution: str) -> list[str]:
    """The bullet lines of ATTRIBUTION.md's "Attribution lines to reproduce" list (every bullet if
    there is none)."""
    lines = attribution.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if line.lower().startswith("attribution lines")), None
    )
    body = lines[start + 1 :] if start is not None else lines
    return [line[2:].strip() for line in body if line.startswith("- ")]


def _engine_line(engine: str, langs: Sequence[str]) -> str | None:
    where = ", ".join(langs)
    if engine == "source":
        return None
    if engine == "memory":
        return (
            f"Template translations ({where}): the project's bundled draft translation memory "
            "(machine-quality drafts)."
        )
    if engine.startswith("google:"):
        return (
            f"Template translations ({where}): Google Cloud Translation v3, "
            f"model {engine.split(':', 1)[1]}."
        )
    return f"Template translations ({where}): {engine}."


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def _md_cell(value: Any) -> str:
    return str(value).replace("|", "\\|")


# ----------------------------------------------------------------------------------------- the card
def front_matter(langs_info: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The YAML metadata of the card: licence, languages, task, size and one config per language."""
    configs = []
    for info in langs_info:
        config: dict[str, Any] = {
            "config_name": info["lang"],
            "data_files": [{"split": split, "path": info["files"][split]} for split in SPLITS],
        }
        if info["lang"] == SOURCE:
            config["default"] = True
        configs.append(config)
    total = sum(int(info["rows"]["large"]) for info in langs_info)
    return {
        "pretty_name": "MGQA: multilingual geospatial questions over knowledge graphs",
        "license": "odbl",
        "language": [ISO_639_1[info["lang"]] for info in langs_info],
        "multilinguality": "multilingual" if len(langs_info) > 1 else "monolingual",
        "task_categories": ["question-answering"],
        "tags": [
            "geospatial",
            "knowledge-graph",
            "spatial-reasoning",
            "multilingual",
            "openstreetmap",
            "benchmark",
        ],
        "size_categories": [size_category(total)],
        "configs": configs,
    }


def _schema_section() -> list[str]:
    out = [
        "## Row schema",
        "",
        "Every config has the same flat columns. JSON values are stored as JSON text "
        "(parse them with `json.loads`).",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    for field in RELEASE_SCHEMA:
        typ = "list<string>" if field.name == "snapshot_ids" else str(field.type)
        out.append(f"| `{field.name}` | {typ} | {_md_cell(COLUMN_DOCS.get(field.name, ''))} |")
    return out + [""]


def _languages_section(langs_info: Sequence[Mapping[str, Any]]) -> list[str]:
    out = [
        "## Languages",
        "",
        "| config | language | large | small | false premise | multimodal | post-edited |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for info in langs_info:
        lang, large = info["lang"], int(info["rows"]["large"])
        out.append(
            f"| `{lang}` | {LANGUAGES[lang].name} | {large} | {int(info['rows']['small'])} "
            f"| {int(info['false_premise'])} "
            f"| {int(info['multimodal'])} | {_pct(int(info['edited']), large)} |"
        )
    out += [
        "",
        "Counts are of the large split. *Post-edited* is the share of questions whose text "
        "the automatic "
        "post-edit ensemble changed (`postedit_decision` other than `none`).",
        "",
    ]
    return out


def _files_section(langs_info: Sequence[Mapping[str, Any]]) -> list[str]:
    out = ["## Files", "", "| file | rows | sha256 |", "|---|---:|---|"]
    for info in langs_info:
        for split in SPLITS:
            out.append(
                f"| `{info['files'][split]}` | {int(info['rows'][split])} | "
                f"`{info['sha256'][split]}` |"
            )
    return out + [
        "",
        f"`{SUMS_FILE}` lists the sha256 of every file of the release "
        f"(`sha256sum -c {SUMS_FILE}`).",
        "",
    ]


def _images_section(langs_info: Sequence[Mapping[str, Any]]) -> list[str]:
    n = max((int(info["multimodal"]) for info in langs_info), default=0)
    count = (
        f"The multimodal questions ({n} per language)"
        if n
        else "This release has no multimodal question "
        "(no salient entity of its inputs links an image file). "
        "Multimodal questions"
    )
    return [
        "## Images",
        "",
        f"{count} name an entity through an image: their `image_url` is the "
        "address of an image file (a Wikimedia Commons `Special:FilePath` link or a direct "
        "image link), never a "
        "page that names the entity. The image files are not part of this release and must "
        "be fetched before a "
        "multimodal evaluation: on a machine with a network, "
        "`mgqa images fetch --release-dir <this folder>` (MGQA "
        "platform) downloads each file into `images/`, records its licence, author, "
        "credit and sha256 in "
        "`images/images.jsonl`, and rewrites `SHA256SUMS` to list them. Each image keeps "
        "its own licence "
        "(mostly Creative Commons on Wikimedia Commons): check it before redistributing the files.",
        "",
    ]


def _sites_section(sites: Mapping[str, Any] | None) -> list[str]:
    out = ["## Entity sites", ""]
    if not sites:
        return out + ["This release has no entity sites file.", ""]
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(sites.get("geom_kinds", {}).items()))
    return out + [
        f"`{SITES_FILE}` is a GeoParquet file (EPSG:4326) with one row per entity bound in "
        "a released question: "
        f"{int(sites['rows'])} entities ({kinds or 'none'}). Columns: `entity_id` "
        "(the ids of `bindings`), `kg`, `name`, "
        "`display_name`, `category`, `geom_kind`, `lon`/`lat` (representative point), "
        "`snapshot_id`, `geometry`. "
        "Read it with `geopandas.read_parquet`, "
        "or join it to the questions on the ids of `bindings` to map them.",
        "",
    ]


def _snapshots_section(snapshots: Sequence[Mapping[str, Any]]) -> list[str]:
    out = ["## Input snapshots", ""]
    if not snapshots:
        return out + ["No input snapshot was registered in the warehouse.", ""]
    out += [
        "Every input is identified by content hash; `snapshot_ids` of a question point here.",
        "",
        "| snapshot id | kind | file | bytes | sha256 | built from |",
        "|---|---|---|---:|---|---|",
    ]
    for s in snapshots:
        out.append(
            f"| `{s['snapshot_id']}` | {s.get('kind') or ''} | "
            f"{_md_cell(s.get('file') or '')} | {s.get('bytes') or ''} "
            f"| `{s.get('sha256') or ''}` | {s.get('source_snapshot_id') or ''} |"
        )
    return out + [""]


def _attribution_section(langs_info: Sequence[Mapping[str, Any]], attribution: str) -> list[str]:
    engines: dict[str, list[str]] = {}
    for info in langs_info:
        for engine in info.get("engines") or ():
            engines.setdefault(engine, []).append(info["lang"])
    lines = attribution_lines(attribution) + list(KG_ATTRIBUTION)
    lines += [
        line for engine, langs in sorted(engines.items()) if (line := _engine_line(engine, langs))
    ]
    return [
        "## Licence and attribution",
        "",
        "The questions, gold answers and entity sites are derived from OpenStreetMap and "
        "are released under the "
        "Open Database License (ODbL) 1.0. Other inputs keep their own terms: "
        "KnowWhereGraph, WorldPop and the World "
        "Bank income classification are CC BY 4.0; Natural Earth and the USGS earthquake "
        "catalog are in the public "
        "domain. Reproduce these lines wherever you publish data derived from this release:",
        "",
        *[f"- {line}" for line in lines],
        "",
        f"`{ATTRIBUTION_FILE}` lists every input file with its source and licence.",
        "",
    ]


def dataset_card(
    langs_info: list[dict], sites: dict | None, attribution: str, snapshots: list[dict]
) -> str:
    """The release ``README.md``: YAML front matter (one config per language) and the card body.

    ``langs_info`` holds one :func:`~mgqa_platform.release.export.write_language`-shaped dict per
    language (plus an optional ``engines`` list of translation engines); ``sites`` the entity sites
    summary (``rows``, ``geom_kinds``) or None; ``attribution`` the text of ATTRIBUTION.md;
    ``snapshots`` dicts with ``snapshot_id``, ``kind``, ``file``, ``bytes``, ``sha256`` and optional
    ``source_snapshot_id``. Deterministic text."""
    meta = yaml.safe_dump(front_matter(langs_info), sort_keys=False, allow_unicode=True)
    langs = ", ".join(f"`{info['lang']}`" for info in langs_info) or "none"
    example = (
        "fra"
        if any(info["lang"] == "fra" for info in langs_info)
        else (langs_info[0]["lang"] if langs_info else SOURCE)
    )
    body = [
        *_intro_section(),
        f"Languages in this release: {langs}.",
        "",
        *_schema_section(),
        "## Splits",
        "",
        "- `large`: every question of the language.",
        "- `small`: a fixed subset of `large` "
        f"(at most {SMALL_PER_CELL} questions per knowledge graph and spatial function "
        "family, "
        "chosen by a seeded hash of the question id), "
        "the same question ids in every language. Use it for quick or "
        "costly evaluations.",
        "",
        *_languages_section(langs_info),
        "## Loading",
        "",
        "```python",
        "import datasets",
        f'ds = datasets.load_dataset("path/to/this/folder", "{example}")  # one config per '
        "language",
        'small = ds["small"]; large = ds["large"]',
        "```",
        "",
        "Each config reads plain Parquet files (`data/<lang>/<split>.parquet`), "
        "so pyarrow, DuckDB or pandas read "
        "them directly too.",
        "",
        *_files_section(langs_info),
        *_auditability_section(),
        *_images_section(langs_info),
        *_sites_section(sites),
        *_snapshots_section(snapshots),
        *_attribution_section(langs_info, attribution),
        *_citation_section(),
    ]
    return f"---\n{meta}---\n\n" + "\n".join(body)


def _intro_section() -> list[str]:
    """The card's title and what the benchmark is (Markdown lines)."""
    return [
        "# MGQA: multilingual geospatial questions over knowledge graphs",
        "",
        "A benchmark of geospatial reasoning questions "
        "(distances, containment, directions, grid cells, shapes, "
        "events ...) asked over three knowledge graphs: WorldKG, "
        "KnowWhereGraph and OSMH3KG. Every gold answer was "
        "computed by running a query over the graph's entities, not written by hand, "
        "and every question keeps the "
        "query and the source triples that produced its answer. Entities are sampled "
        "across World Bank income tiers "
        "and population-density tiers, so that places in low-income and sparsely populated "
        "regions are asked about "
        "as often as places in rich cities. The English questions are rendered in the "
        "other languages from "
        "translated templates and localized entity labels; the same `question_id` denotes "
        "the same question in every "
        "language.",
        "",
    ]


def _auditability_section() -> list[str]:
    """How a gold answer is traced back (Markdown lines)."""
    return [
        "## Auditability",
        "",
        "`query` is the computation that produced `gold`, "
        "and `gold_triples` the knowledge-graph triples it rests on, "
        "so anyone holding the same input snapshots can re-run a gold answer and check it. "
        "In the platform's "
        "warehouse, `mgqa lineage <question_id>` prints the whole chain: question, "
        "template variant, executor and "
        "query, bound entities, their source triples, "
        "the knowledge-graph file and its hash, and the pipeline run "
        "that built it.",
        "",
    ]


def _citation_section() -> list[str]:
    """How to cite the method and identify the release (Markdown lines)."""
    return [
        "## How to cite",
        "",
        "This release was built with the MGQA platform, "
        "which follows the MultiGlobeQA construction (execution-based "
        "gold answers over three knowledge graphs, "
        "income- and density-stratified sampling, parallel questions in 17 "
        "languages). It is not the original MultiGlobeQA data. Cite the method as: "
        "Böckling, Nosova, Paulheim and "
        "Iana, *MultiGlobeQA: A Multilingual and Globally Diverse Benchmark for Geospatial "
        "Reasoning*, "
        "arXiv:2608.03882. Identify this release by the sha256 of its `SHA256SUMS` file.",
        "",
    ]


# -------------------------------------------------------------------------------- reading a release
def describe_language(release_dir: str | Path, lang: str) -> dict[str, Any]:
    """The :func:`~mgqa_platform.release.export.write_language`-shaped summary of ``lang``, read
    from its files."""
    root = Path(release_dir)
    info: dict[str, Any] = {"lang": lang, "files": {}, "rows": {}, "sha256": {}}
    for split in SPLITS:
        rel = split_path(lang, split)
        info["files"][split] = rel
        info["rows"][split] = pq.ParquetFile(root / rel).metadata.num_rows
        info["sha256"][split] = sha256_file(root / rel)
    large = pq.read_table(
        root / info["files"]["large"], columns=["false_premise", "multimodal", "postedit_decision"]
    )
    info.update(table_stats(large))
    return info


def released_languages(release_dir: str | Path) -> list[str]:
    """Languages whose large and small files both exist under ``<release_dir>/data``, in ``CODES``
    order."""
    root = Path(release_dir)
    return [c for c in CODES if all((root / split_path(c, s)).is_file() for s in SPLITS)]


def describe_sites(release_dir: str | Path) -> dict[str, Any] | None:
    """Summary (path, rows, sha256, geom_kinds) of ``<release_dir>/entity_sites.parquet``, or None
    when absent."""
    path = Path(release_dir) / SITES_FILE
    if not path.is_file():
        return None
    kinds = Counter(pq.read_table(path, columns=["geom_kind"]).column("geom_kind").to_pylist())
    return {
        "path": SITES_FILE,
        "rows": sum(kinds.values()),
        "sha256": sha256_file(path),
        "geom_kinds": dict(sorted(kinds.items())),
    }


def release_files(release_dir: str | Path) -> list[str]:
    """Relative posix paths of the release's files, sorted: everything but ``SHA256SUMS`` and hidden
    entries."""
    root = Path(release_dir)
    out = []
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if (
            p.is_file()
            and rel.as_posix() != SUMS_FILE
            and not any(part.startswith(".") for part in rel.parts)
        ):
            out.append(rel.as_posix())
    return sorted(out)


def sha256sums(release_dir: str | Path) -> str:
    """``SHA256SUMS`` text: ``<sha256>  <relative path>`` per file of :func:`release_files`."""
    return "".join(
        f"{sha256_file(Path(release_dir) / rel)}  {rel}\n" for rel in release_files(release_dir)
    )


def _rows(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def warehouse_snapshots(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The inputs of the release: every KG file (``kg_files``), then the snapshots they were built
    from and every non-OSM snapshot; file names only (no absolute paths)."""
    kg = _rows(
        con.execute(
            "SELECT kg, snapshot_id, source_snapshot_id, path, sha256, bytes "
            "FROM kg_files "
            "ORDER BY kg"
        )
    )
    sources = {k["source_snapshot_id"] for k in kg if k["source_snapshot_id"]}
    snaps = [
        s
        for s in _rows(
            con.execute(
                "SELECT snapshot_id, kind, path, sha256, bytes FROM snapshots ORDER BY snapshot_id"
            )
        )
        if s["snapshot_id"] in sources or s["kind"] != "osm_pbf"
    ]
    out = [
        {
            "snapshot_id": k["snapshot_id"],
            "kind": f"kg:{k['kg']}",
            "file": Path(k["path"]).name,
            "bytes": k["bytes"],
            "sha256": k["sha256"],
            "source_snapshot_id": k["source_snapshot_id"],
        }
        for k in kg
    ]
    out += [
        {
            "snapshot_id": s["snapshot_id"],
            "kind": s["kind"],
            "file": Path(s["path"]).name,
            "bytes": s["bytes"],
            "sha256": s["sha256"],
            "source_snapshot_id": None,
        }
        for s in snaps
    ]
    return out


def translation_engines(con: duckdb.DuckDBPyConnection, lang: str) -> list[str]:
    """Distinct engines of ``template_translations`` for ``lang`` (sorted)."""
    return [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT engine FROM template_translations WHERE lang = ? ORDER BY 1", [lang]
        ).fetchall()
    ]


def write_release_card(
    con: duckdb.DuckDBPyConnection,
    release_dir: str | Path,
    attribution_path: str | Path | None = None,
) -> dict[str, Any]:
    """Write ``ATTRIBUTION.md``, ``README.md`` and ``SHA256SUMS`` for the files present in
    ``release_dir``.

    Counts come from the Parquet files (the card describes exactly the files); snapshots and
    translation engines from the warehouse. ``attribution_path`` defaults to the bundled sample's
    ATTRIBUTION.md. Returns the languages, the number of files listed in SHA256SUMS and the paths of
    the card and of SHA256SUMS."""
    root = Path(release_dir)
    attribution = Path(attribution_path or SAMPLE_DIR / ATTRIBUTION_FILE).read_text(
        encoding="utf-8"
    )
    langs = released_languages(root)
    infos = [
        describe_language(root, lang) | {"engines": translation_engines(con, lang)}
        for lang in langs
    ]
    _write_text(root / ATTRIBUTION_FILE, attribution)
    _write_text(
        root / CARD_FILE,
        dataset_card(infos, describe_sites(root), attribution, warehouse_snapshots(con)),
    )
    sums = sha256sums(root)
    _write_text(root / SUMS_FILE, sums)
    return {
        "languages": langs,
        "files": len(sums.splitlines()),
        "card": str(root / CARD_FILE),
        "sha256sums": str(root / SUMS_FILE),
    }


# --------------------------------------------------------------------------------- staging the card
#: The files the card step writes (the last one renamed into place is SHA256SUMS).
CARD_STEP_FILES = (SITES_FILE, ATTRIBUTION_FILE, CARD_FILE, SUMS_FILE)


def stage_card_tree(release_dir: str | Path) -> Path:
    """A staging copy of the release for the card step: ``.staging/card/`` under ``release_dir``
    holding a hard link to every released file except those the card step writes. Writing the card
    there and auditing it there leaves the published card untouched until
    :func:`publish_card_tree`."""
    root = Path(release_dir)
    tree = staging_root(root) / "card"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    for rel in release_files(root):
        if rel in CARD_STEP_FILES:
            continue
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        os.link(root / rel, tree / rel)
    return tree


def publish_card_tree(release_dir: str | Path, tree: Path) -> None:
    """Rename the card files written in ``tree`` into ``release_dir`` (``SHA256SUMS`` last), then
    drop the tree (:func:`discard_card_tree`)."""
    for name in CARD_STEP_FILES:
        if (tree / name).is_file():
            os.replace(tree / name, Path(release_dir) / name)
    discard_card_tree(release_dir, tree)


def discard_card_tree(release_dir: str | Path, tree: Path) -> None:
    """Remove the card's staging tree, and the staging folder once nothing else is staged."""
    shutil.rmtree(tree, ignore_errors=True)
    with contextlib.suppress(OSError):  # a language is still staged
        staging_root(release_dir).rmdir()


# ------------------------------------------------------------------------------------- verification
def card_metadata(text: str) -> dict[str, Any]:
    """The YAML front matter of a card (between the first two ``---`` lines)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValueError("the card does not start with a '---' line")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise ValueError("the card's front matter has no closing '---' line")
    return yaml.safe_load("\n".join(lines[1:end])) or {}


def _config_paths(config: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    files = config.get("data_files") or []
    if isinstance(files, (str, dict)):
        files = [files]
    for entry in files:
        split, paths = (
            (entry.get("split", "train"), entry.get("path"))
            if isinstance(entry, dict)
            else ("train", entry)
        )
        for p in [paths] if isinstance(paths, str) else (paths or []):
            yield split, p


def _split_problems(root: Path, rel: str) -> tuple[list[str], list[str] | None]:
    path = root / rel
    try:
        schema = pq.read_schema(path)
    except Exception as exc:
        return [f"{rel}: not a readable Parquet file ({exc})"], None
    problems = []
    if not schema.remove_metadata().equals(RELEASE_SCHEMA):
        problems.append(f"{rel}: schema differs from the release schema")
        if "question_id" not in schema.names:
            return problems, None
    ids = pq.read_table(path, columns=["question_id"]).column("question_id")
    if len(pc.unique(ids)) != len(ids):
        problems.append(f"{rel}: duplicate question_id")
    return problems, ids.to_pylist()


def verify_release(release_dir: str | Path) -> list[str]:
    """Problems of a release folder (empty list: fine).

    Checks that the card's configs point at existing files, that every file listed in ``SHA256SUMS``
    exists and matches (and that no file is unlisted), that every split file has the release schema
    and no duplicate question_id, and that each language's small question ids are a subset of its
    large ones."""
    root = Path(release_dir)
    problems: list[str] = []
    card = root / CARD_FILE
    configs: list[dict] = []
    if not card.is_file():
        problems.append(f"{CARD_FILE} is missing")
    else:
        try:
            configs = list(card_metadata(card.read_text(encoding="utf-8")).get("configs") or [])
        except (ValueError, yaml.YAMLError) as exc:
            problems.append(f"{CARD_FILE}: unreadable front matter ({exc})")
        if not configs:
            problems.append(f"{CARD_FILE}: no configs")
    split_files: dict[tuple[str, str], str] = {}
    for config in configs:
        name = config.get("config_name", "?")
        for split, rel in _config_paths(config):
            if not (root / rel).is_file():
                problems.append(f"config {name}: {split} file {rel} is missing")
            else:
                split_files[(name, split)] = rel
    for p in sorted((root / "data").glob("*/*.parquet")):
        rel = p.relative_to(root).as_posix()
        if rel not in split_files.values():
            split_files[(p.parent.name, p.stem)] = rel
    sums = root / SUMS_FILE
    if not sums.is_file():
        problems.append(f"{SUMS_FILE} is missing")
    else:
        listed = set()
        for n, line in enumerate(sums.read_text(encoding="utf-8").splitlines(), 1):
            digest, sep, rel = line.partition("  ")
            if not sep or len(digest) != 64:
                problems.append(f"{SUMS_FILE} line {n} is malformed")
                continue
            listed.add(rel)
            if not (root / rel).is_file():
                problems.append(f"{SUMS_FILE}: {rel} is missing")
            elif sha256_file(root / rel) != digest:
                problems.append(f"{SUMS_FILE}: {rel} does not match its sha256")
        problems += [
            f"{SUMS_FILE}: {rel} is not listed" for rel in release_files(root) if rel not in listed
        ]
    ids: dict[tuple[str, str], list[str] | None] = {}
    for key, rel in sorted(split_files.items()):
        found, ids[key] = _split_problems(root, rel)
        problems += found
    for (name, split), small in sorted(ids.items()):
        large = ids.get((name, "large"))
        if split == "small" and small is not None and large is not None:
            extra = sorted(set(small) - set(large))
            if extra:
                problems.append(
                    f"config {name}: {len(extra)} small question ids not in large (e.g. {extra[0]})"
                )
    return problems
