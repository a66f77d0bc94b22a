"""Dagster assets of the MGQA code location, one module per pipeline stage (thin: they call mgqa_platform).

``definitions`` loads every asset of this package with ``dagster.load_assets_from_package_module``.
"""
