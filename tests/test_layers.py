"""The import graph of the product runs one way: a module imports only its own layer's package or a
lower layer, never a higher one.

The layers, lowest first (a *part* is a top-level module or subpackage of ``mgqa_platform``):

0. base: ``settings``, ``errors``, ``files``, ``geometry``, ``markdown``, ``marks``, ``redact``,
   ``input_guards``, ``llm``, ``languages`` (the 17 languages), ``lexicon`` (English category
   words), ``category_words`` (the target languages' category words), ``question_schema`` (the
   question record), ``columns`` (Arrow schemas as SQL column lists) and the package itself; base
   modules may import one another;
1. ``warehouse``: the DuckDB file, its tables and transactions;
2. ``kg`` (KG builds and conversion), ``strata`` (strata and their inputs);
3. ``questions`` (templates, executors, generation), ``snapshots``, ``spark``;
4. ``multilingual`` (translation, post-edit, re-instantiation), ``evaluation`` (runs and scores);
5. ``release``, ``lineage``, ``report``;
6. ``mgqa_dagster``: assets, checks, resources and the command line, above all of the platform.

Above base, a part imports only itself and lower layers: two parts of one layer do not import each
other. Every import counts, those inside functions included. A new module must be placed in a layer
here before it can be imported anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mgqa_platform", "mgqa_dagster")

LAYERS: dict[str, int] = {
    **dict.fromkeys(
        (
            "mgqa_platform",
            "settings",
            "errors",
            "files",
            "geometry",
            "markdown",
            "marks",
            "redact",
            "input_guards",
            "llm",
            "languages",
            "lexicon",
            "category_words",
            "question_schema",
            "columns",
        ),
        0,
    ),
    "warehouse": 1,
    "kg": 2,
    "strata": 2,
    "questions": 3,
    "snapshots": 3,
    "spark": 3,
    "multilingual": 4,
    "evaluation": 4,
    "release": 5,
    "lineage": 5,
    "report": 5,
    "mgqa_dagster": 6,
}


def module_name(path: Path) -> str:
    """The dotted module name of a source file under :data:`ROOT`."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    """The part a module belongs to: ``mgqa_dagster`` for all of that package, else the top-level
    module or subpackage of ``mgqa_platform`` (``mgqa_platform`` itself for the package root)."""
    pieces = module.split(".")
    return pieces[0] if pieces[0] == "mgqa_dagster" or len(pieces) == 1 else pieces[1]


def imported(path: Path) -> set[str]:
    """Every ``mgqa_*`` module or package that the file at ``path`` imports, at any depth of its
    code, with relative imports resolved."""
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out |= {f"{target}.{a.name}" if node.module is None else target for a in node.names}
    return {m for m in out if m.split(".")[0] in PACKAGES}


def breaks_layering(source: str, target: str) -> bool:
    """True when module ``source`` may not import module ``target``: the target's part is another
    part of a higher layer, or of the same layer above base."""
    low, high = LAYERS[part_of(source)], LAYERS[part_of(target)]
    if part_of(source) == part_of(target):
        return False
    return high > low or (high == low and low > 0)


def upward_arrows() -> list[str]:
    """Each import that breaks the layering, as ``importer -> imported (layer a -> layer b)``."""
    bad = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = module_name(path)
            low = LAYERS[part_of(source)]
            for target in sorted(imported(path)):
                if breaks_layering(source, target):
                    bad.append(f"{source} -> {target} (layer {low} -> {LAYERS[part_of(target)]})")
    return bad


def test_every_part_has_a_layer():
    parts = {part_of(module_name(p)) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    assert parts <= set(LAYERS), f"place these in a layer: {sorted(parts - set(LAYERS))}"


def test_no_import_runs_up_a_layer():
    assert upward_arrows() == []


@pytest.mark.parametrize(
    ("importer", "target", "breaks"),
    [
        ("mgqa_platform.kg.convert", "mgqa_platform.multilingual.memory", True),
        ("mgqa_platform.warehouse", "mgqa_platform.questions.catalog", True),
        ("mgqa_platform.kg.convert", "mgqa_platform.strata.countries", True),
        ("mgqa_platform.kg.convert", "mgqa_platform.category_words", False),
        ("mgqa_platform.llm", "mgqa_platform.redact", False),
        ("mgqa_dagster.cli", "mgqa_platform.release.card", False),
        ("mgqa_platform.questions.generate", "mgqa_platform.questions.schema_of_x", False),
    ],
)
def test_the_rule_on_known_arrows(importer, target, breaks):
    """The rule itself: a climb or a sideways step between two parts of one layer breaks it."""
    assert breaks_layering(importer, target) is breaks
