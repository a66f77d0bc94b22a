"""The Dagster code location of the MGQA platform: assets, resources, data-quality checks, jobs,
sensors.

``definitions`` assembles everything (``workspace.yaml`` and ``[tool.dagster]`` load it as
``mgqa_dagster.definitions``); ``assets/`` holds one module per pipeline stage, ``resources/`` the
Dagster resources, ``data_quality/`` the Great Expectations suites run inside asset checks and
``cli`` the ``mgqa`` command. The domain logic lives in :mod:`mgqa_platform`, which never imports
Dagster.
"""
