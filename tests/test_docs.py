"""The documentation tells the truth about the repository (fast: reads files, builds nothing).

- No page narrates its own making: no "issue <digit>" in docs/ or README.md.
- Every backticked repository path in docs/*.md and README.md exists (see `repository_path`).
- docs/architecture.md names every module of mgqa_platform/ and mgqa_dagster/ in its module map, and
  names no module that does not exist (see `module_map`).
- The mkdocs nav lists every page of docs/ once, and every nav entry is a page of docs/.

The site itself is built with `mkdocs build --strict` by .ci/run (broken links and anchors fail
there).
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
TEXTS = [*PAGES, REPO / "README.md"]
PACKAGES = ("mgqa_platform", "mgqa_dagster")
#: The first path segments that make a backticked text a repository path: the repository's top-level
#: folders and files (dot folders such as .venv, .mgqa or .git are not the repository's content).
TOP_LEVEL = frozenset(
    p.name for p in REPO.iterdir() if not p.name.startswith(".") or p.name == ".ci"
) - {"mgqa_platform.egg-info", "site"}
BACKTICKED = re.compile(r"`([^`\n]+)`")
BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
PLACEHOLDER = re.compile(r"<[^<>/]+>")


def repository_path(text: str) -> str | None:
    """The repository path a backticked text names, or None when it names none.

    The text's first whitespace-separated token is taken (so `scripts/x.py --flag` and
    `kg/convert.py convert_kg` name their file), then a trailing `::name` or `:<line>` is stripped.
    The token is a repository path when its first `/`-separated segment is a top-level entry of
    the repository (`TOP_LEVEL`) and it either contains a `/` or is that entry itself. Paths of a
    built home (`$MGQA_HOME/...`, `.mgqa/...`), package-relative paths (`kg/convert.py`) and
    dotted module names are not repository paths.
    """
    token = text.strip().split()[0] if text.strip() else ""
    token = re.sub(r"::\w+$", "", token)
    token = re.sub(r":\d+(-\d+)?$", "", token)
    first = token.split("/", 1)[0]
    if first not in TOP_LEVEL or ("/" not in token and token != first):
        return None
    return token


def expansions(path: str) -> list[str]:
    """The glob patterns a documented path stands for.

    `{a,b}` expands to one pattern per alternative; a placeholder `<name>` becomes `*`.
    """
    match = BRACES.search(path)
    if match:
        head, tail = path[: match.start()], path[match.end() :]
        return [p for alt in match.group(1).split(",") for p in expansions(head + alt + tail)]
    return [PLACEHOLDER.sub("*", path)]


def exists(path: str) -> bool:
    """True when every expansion of the path names an existing file or folder.

    An expansion with a glob character must match at least one.
    """
    for pattern in expansions(path):
        if any(ch in pattern for ch in "*?["):
            if not glob.glob(str(REPO / pattern), recursive=True):
                return False
        elif not (REPO / pattern).exists():
            return False
    return True


def module_map(text: str) -> set[str]:
    """The modules the architecture page's module map names, as paths relative to the repository.

    The rule: a heading whose text is one backticked package folder (`### `mgqa_platform/kg/``)
    opens that folder's table; in each table row below it, every backticked `*.py` name of the first
    cell is a module of that folder. Another heading closes the table.
    """
    named: set[str] = set()
    folder = None
    for line in text.splitlines():
        heading = re.match(r"#+\s+`((?:mgqa_platform|mgqa_dagster)/(?:[\w]+/)*)`\s*$", line)
        if heading:
            folder = heading.group(1)
            continue
        if line.startswith("#"):
            folder = None
        elif folder and line.startswith("|"):
            first_cell = line.split("|")[1]
            named |= {folder + name for name in re.findall(r"`([\w]+\.py)`", first_cell)}
    return named


def nav_pages(nav) -> list[str]:
    """The page files of an mkdocs nav, in order."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in nav_pages(value)]
    return []


def test_no_page_narrates_issues():
    found = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in TEXTS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"issue [0-9]", line, re.IGNORECASE)
    ]
    assert not found, "\n".join(found)


def test_repository_path_rule():
    assert repository_path("mgqa_platform/kg/convert.py") == "mgqa_platform/kg/convert.py"
    assert repository_path("scripts/coverage.py --shared ../shared/data") == "scripts/coverage.py"
    assert repository_path("tests/test_docs.py::test_x") == "tests/test_docs.py"
    assert repository_path("mgqa_platform/warehouse.py:12") == "mgqa_platform/warehouse.py"
    assert (
        repository_path("mgqa_platform/warehouse.py QUESTION_SCHEMA")
        == "mgqa_platform/warehouse.py"
    )
    assert repository_path("pyproject.toml") == "pyproject.toml"
    for not_a_path in (
        "kg/convert.py",
        ".mgqa/warehouse.duckdb",
        "$MGQA_HOME/reports",
        "mgqa_dagster.cli",
    ):
        assert repository_path(not_a_path) is None
    assert expansions("data/<lang>/{large,small}.parquet") == [
        "data/*/large.parquet",
        "data/*/small.parquet",
    ]
    assert not exists("mgqa_platform/warehouse_schema.py") and exists("mgqa_platform/kg/*.py")


def test_backticked_repository_paths_exist():
    missing = []
    for path in TEXTS:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for text in BACKTICKED.findall(line):
                named = repository_path(text)
                if named and not exists(named):
                    missing.append(f"{path.relative_to(REPO)}:{n}: `{text}`")
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(missing)


def test_architecture_names_every_module():
    modules = {str(p.relative_to(REPO)) for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py")}
    named = module_map((DOCS / "architecture.md").read_text(encoding="utf-8"))
    assert not modules - named, f"modules missing from the module map: {sorted(modules - named)}"
    assert not named - modules, (
        f"modules in the module map that do not exist: {sorted(named - modules)}"
    )


def test_mkdocs_nav_lists_every_page():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs"
    listed = nav_pages(config["nav"])
    assert len(listed) == len(set(listed)), "a page is listed twice in the nav"
    pages = {p.name for p in PAGES}
    assert not pages - set(listed), f"pages missing from the nav: {sorted(pages - set(listed))}"
    assert not set(listed) - pages, f"nav entries with no page: {sorted(set(listed) - pages)}"
