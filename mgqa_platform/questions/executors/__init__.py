"""Executors, one module per spatial function (SFID). Importing this package registers them all.

A distance (``distance``), B containment (``containment``), C topology (``topology``), D network and path
(``path``), E administrative hierarchy (``admin``), F comparison and ordering (``ordering``), G centrality
(``centrality``), H grid indexing (``grid``), I spatio-temporal events (``events``), J direction
(``direction``), K shape (``shape``), L uncertainty (``fuzzy``), M reference change (``transform``),
N coordinates (``coords``).
"""

from mgqa_platform.questions.executors import (  # noqa: F401
    admin,
    centrality,
    containment,
    coords,
    direction,
    distance,
    events,
    fuzzy,
    grid,
    ordering,
    path,
    shape,
    topology,
    transform,
)
