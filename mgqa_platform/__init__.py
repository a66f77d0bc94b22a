"""MGQA domain library: plain Python, no Dagster import.

Each module is one room of the pipeline; the Dagster assets in ``mgqa_dagster/assets/`` are thin
wrappers that call into these functions. See ``docs/architecture.md`` for the map.
"""

__version__ = "0.1.0"
CODE_VERSION = __version__
