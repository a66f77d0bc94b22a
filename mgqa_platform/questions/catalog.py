"""The template catalog: the 65 top-level templates of the paper's Table 5 as data files.

One YAML file per spatial function (``mgqa_platform/data/templates/<SFID>.yaml``)::

    sfid: A
    title: Metric distance and proximity
    templates:
      - tid: A01                      # top-level template id: SFID + two digits
        sub_function: Direct distance
        template: "What is the distance between {entity_A} and {entity_B}?"
        answer_format: distance       # one of formats.FORMATS
        sub_templates:
          - id: A01.1                 # <tid>.<n>
            executor: distance.pair   # registry name (questions.executors); null = not built yet
            roles: {entity_A: poi, entity_B: poi}     # placeholder -> role type (roles.ROLE_TYPES)
            parameters: {value: [1, 2, 5]}            # placeholder -> values, one drawn per tuple
            extras: [time_period]     # placeholders the executor fills from the data
            conventions: {distance: geodesic_wgs84, unit: km}
                                      # conventions.readings: {direction: [quadrant, sector8]}:
                                      # the readings the gold must agree under (readings.py)
            stated: {buffer: {en: "within 100 m", kept: "100 m"}}
                                      # the words that state each deciding convention (stated.py)
            premise: "entity_A lies within entity_B"  # what a false premise breaks (optional)
            premise_kind: presupposed_relation  # with premise: one of PREMISE_KINDS
            perturb_role: entity_B    # the binding a false premise replaces (with premise)
            variants:                 # 1-5 English wordings; ids are positions: A01.1.v1, ...
              - "What is the distance between {entity_A} and {entity_B}?"

Variants are append-only: a variant's id is its position, and question ids hash the variant id.
Loading validates the whole catalog (including the reading names of ``conventions.readings``) and
fails with every problem listed at once."""

from __future__ import annotations

import hashlib
import json
import re
import string
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from mgqa_platform.questions import readings, roles, stated
from mgqa_platform.questions.formats import FORMATS
from mgqa_platform.settings import PACKAGE_DATA

CATALOG_DIR = PACKAGE_DATA / "templates"
SFIDS = tuple("ABCDEFGHIJKLMN")
TID_RE = re.compile(r"^[A-N]\d{2}$")

# What a sub-template's premise presupposes, so what a false-premise perturbation of it breaks. Only
# the refusable kinds make false premises: with the premise false, no answer but a refusal is
# correct.
PREMISE_KINDS = {
    "presupposed_member": "asks which or what member qualifies; with none, nothing can be named",
    "presupposed_rank": "asks for a rank or a pair the members cannot fill "
    "(the 3rd of two, a pair of one)",
    "presupposed_relation": "asks for a value of a relation between the bindings that does not "
    "hold",
    "answerable": "a false premise still has an answer "
    "(a count of 0, a boolean, a defined distance, "
    "a hidden cap); never perturbed",
}
REFUSABLE_KINDS = frozenset(PREMISE_KINDS) - {"answerable"}


class CatalogError(ValueError):
    """The catalog files are inconsistent; the message lists every problem found."""


@dataclass(frozen=True)
class Variant:
    id: str
    text: str


@dataclass(frozen=True)
class SubTemplate:
    id: str
    tid: str
    sfid: str
    answer_format: str
    executor: str | None
    roles: dict[str, str]
    parameters: dict[str, list]
    extras: tuple[str, ...]
    conventions: dict
    premise: str | None
    variants: tuple[Variant, ...]
    perturb_role: str | None = None
    premise_kind: str | None = None
    stated: dict = field(default_factory=dict)

    @property
    def refusable(self) -> bool:
        """Whether a false premise of this sub-template leaves a refusal as the only correct
        answer."""
        return self.premise_kind in REFUSABLE_KINDS

    @property
    def entity_roles(self) -> list[str]:
        """Placeholders bound to entities (not to categories), in catalog order; the first is the
        anchor."""
        return [r for r, t in self.roles.items() if not roles.is_category(t)]


@dataclass(frozen=True)
class Template:
    tid: str
    sfid: str
    sub_function: str
    template: str
    answer_format: str
    sub_templates: tuple[SubTemplate, ...]


@dataclass(frozen=True)
class Catalog:
    templates: tuple[Template, ...]
    version: str  # sha256 prefix over the catalog files' bytes
    titles: dict[str, str] = field(default_factory=dict)

    @property
    def sub_templates(self) -> list[SubTemplate]:
        return [s for t in self.templates for s in t.sub_templates]

    def sub_template(self, sub_id: str) -> SubTemplate:
        for s in self.sub_templates:
            if s.id == sub_id:
                return s
        raise KeyError(f"unknown sub-template {sub_id!r}")

    def variant(self, variant_id: str) -> tuple[SubTemplate, Variant]:
        sub = self.sub_template(variant_id.rsplit(".v", 1)[0])
        for v in sub.variants:
            if v.id == variant_id:
                return sub, v
        raise KeyError(f"unknown variant {variant_id!r}")


def placeholders(text: str) -> list[str]:
    """The ``{name}`` placeholders of a variant, in order of appearance."""
    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


def reading_problems(declared: object) -> list[str]:
    """Problems of a sub-template's ``conventions.readings`` (None when it has none): a mapping from
    a dimension of :data:`readings.READINGS` to a non-empty list of that dimension's readings, no
    repeats."""
    if declared is None:
        return []
    if not isinstance(declared, dict):
        return [f"readings must map a dimension to a list of readings, not {declared!r}"]
    out = []
    for dim, names in declared.items():
        known = readings.READINGS.get(dim)
        if known is None:
            out.append(
                f"unknown reading dimension {dim!r} (known: {', '.join(sorted(readings.READINGS))})"
            )
        elif not isinstance(names, list) or not names or len(set(names)) != len(names):
            out.append(f"readings.{dim} must be a non-empty list without repeats, not {names!r}")
        else:
            out.extend(
                f"readings.{dim}: unknown reading {n!r} (known: {', '.join(known)})"
                for n in names
                if n not in known
            )
    return out


def _stated_problems(raw: dict, role_map: dict, params: dict, texts: list) -> list[str]:
    """What the sub-template leaves unstated (questions/stated.py): deciding conventions without
    their words in every variant, a polygon-category count that may count the country, a variant
    that renders a filter removing nothing."""
    conv, said = raw.get("conventions") or {}, raw.get("stated") or {}
    return (
        stated.problems(conv, params, said, texts)
        + stated.country_problems(raw.get("executor"), role_map, conv, said)
        + stated.vacuous_problems(raw.get("extras") or [], texts)
    )


def _sub_template(raw: dict, tpl: dict, sfid: str, problems: list[str]) -> SubTemplate:
    sid = str(raw.get("id", "?"))
    where = f"{sfid}.yaml {sid}"
    if not sid.startswith(f"{tpl.get('tid')}."):
        problems.append(f"{where}: sub-template id must start with '{tpl.get('tid')}.'")
    role_map = {str(k): str(v) for k, v in (raw.get("roles") or {}).items()}
    for r, t in role_map.items():
        if t not in roles.ROLE_TYPES:
            problems.append(
                f"{where}: role {r} has unknown type {t!r} "
                f"(known: {', '.join(sorted(roles.ROLE_TYPES))})"
            )
    params = {str(k): list(v) for k, v in (raw.get("parameters") or {}).items()}
    for p, values in params.items():
        if not values:
            problems.append(f"{where}: parameter {p} has no values")
    extras = tuple(str(x) for x in (raw.get("extras") or []))
    texts = raw.get("variants") or []
    if not 1 <= len(texts) <= 5:
        problems.append(f"{where}: {len(texts)} variants (expected 1 to 5)")
    known = set(role_map) | set(params) | set(extras)
    for i, text in enumerate(texts, 1):
        unknown = set(placeholders(text)) - known
        if unknown:
            problems.append(f"{where}.v{i}: undeclared placeholders {sorted(unknown)}")
        missing = set(role_map) - set(placeholders(text))
        if missing:
            problems.append(f"{where}.v{i}: roles not mentioned {sorted(missing)}")
    perturb = raw.get("perturb_role")
    if perturb is not None and (perturb not in role_map or not raw.get("premise")):
        problems.append(
            f"{where}: perturb_role {perturb!r} must name a role of a sub-template that "
            "has a premise"
        )
    problems.extend(
        f"{where}: {p}" for p in reading_problems((raw.get("conventions") or {}).get("readings"))
    )
    problems.extend(f"{where}: {p}" for p in _stated_problems(raw, role_map, params, texts))
    kind = raw.get("premise_kind")
    if bool(kind) != bool(raw.get("premise")) or (kind and kind not in PREMISE_KINDS):
        problems.append(
            f"{where}: a premise needs a premise_kind and the reverse; premise_kind {kind!r} "
            f"(known: {', '.join(PREMISE_KINDS)})"
        )
    fmt = str(raw.get("answer_format") or tpl.get("answer_format"))
    if fmt not in FORMATS:
        problems.append(f"{where}: unknown answer format {fmt!r}")
    return SubTemplate(
        id=sid,
        tid=str(tpl.get("tid")),
        sfid=sfid,
        answer_format=fmt,
        executor=raw.get("executor"),
        roles=role_map,
        parameters=params,
        extras=extras,
        conventions=dict(raw.get("conventions") or {}),
        premise=raw.get("premise"),
        variants=tuple(Variant(f"{sid}.v{i}", str(t)) for i, t in enumerate(texts, 1)),
        perturb_role=perturb,
        premise_kind=kind,
        stated=dict(raw.get("stated") or {}),
    )


def load_catalog(directory: Path = CATALOG_DIR) -> Catalog:
    """Read and validate every ``<SFID>.yaml`` file of ``directory``.

    Raises :class:`CatalogError` listing all problems (unknown formats, role types or placeholders,
    duplicate ids, variant counts outside 1..5, a missing SFID file).
    """
    problems: list[str] = []
    templates: list[Template] = []
    titles: dict[str, str] = {}
    digest = hashlib.sha256()
    for sfid in SFIDS:
        path = Path(directory) / f"{sfid}.yaml"
        if not path.exists():
            problems.append(f"missing catalog file {path.name}")
            continue
        data = path.read_bytes()
        digest.update(path.name.encode() + b"\0" + data)
        doc = yaml.safe_load(data) or {}
        if doc.get("sfid") != sfid:
            problems.append(f"{path.name}: sfid field is {doc.get('sfid')!r}, expected {sfid!r}")
        titles[sfid] = str(doc.get("title", ""))
        for tpl in doc.get("templates") or []:
            tid = str(tpl.get("tid"))
            if not TID_RE.match(tid) or tid[0] != sfid:
                problems.append(f"{path.name}: bad tid {tid!r}")
            subs = tuple(
                _sub_template(s, tpl, sfid, problems) for s in tpl.get("sub_templates") or []
            )
            if not subs:
                problems.append(f"{path.name} {tid}: no sub-templates")
            if tpl.get("answer_format") not in FORMATS:
                problems.append(
                    f"{path.name} {tid}: unknown answer format {tpl.get('answer_format')!r}"
                )
            templates.append(
                Template(
                    tid,
                    sfid,
                    str(tpl.get("sub_function", "")),
                    str(tpl.get("template", "")),
                    str(tpl.get("answer_format")),
                    subs,
                )
            )
    ids = [t.tid for t in templates] + [s.id for t in templates for s in t.sub_templates]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        problems.append(f"duplicate ids: {dupes}")
    if problems:
        raise CatalogError("template catalog is invalid:\n  " + "\n  ".join(problems))
    return Catalog(tuple(templates), digest.hexdigest()[:12], titles)


@cache
def default_catalog() -> Catalog:
    return load_catalog(CATALOG_DIR)


def catalog_rows(catalog: Catalog, implemented: set[str]) -> list[dict]:
    """One row per English variant for the ``templates`` table, in catalog order."""
    rows = []
    for t in catalog.templates:
        for s in t.sub_templates:
            for v in s.variants:
                rows.append(
                    {
                        "sfid": t.sfid,
                        "tid": t.tid,
                        "sub_function": t.sub_function,
                        "template": t.template,
                        "sub_template_id": s.id,
                        "variant_id": v.id,
                        "text": v.text,
                        "answer_format": s.answer_format,
                        "executor": s.executor,
                        "implemented": s.executor in implemented,
                        "roles": json.dumps(s.roles),
                        "parameters": json.dumps(s.parameters),
                        "conventions": json.dumps(s.conventions, sort_keys=True),
                        "premise": s.premise,
                        "catalog_version": catalog.version,
                    }
                )
    return rows
