"""Dagster assets of the MGQA code location, one module per pipeline stage (thin: they call mgqa_platform).

This folder is imported with the repository root on ``sys.path`` (workspace.yaml ``working_directory``,
pytest ``pythonpath``, the ``mgqa`` CLI); it is never installed into site-packages.
"""
