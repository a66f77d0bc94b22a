"""Executors, one module per spatial function (SFID). Importing this package registers them all.

A distance (``distance``), B containment (``containment``), C topology (``topology``),
H grid indexing (``grid``), M reference change (``transform``), N coordinates (``coords``).
"""

from mgqa_platform.questions.executors import containment, coords, distance, grid, topology, transform  # noqa: F401
