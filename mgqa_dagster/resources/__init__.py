"""Dagster resources of the MGQA code location.

Every resource is configured from environment variables through ``dagster.EnvVar`` where a deployment
would change it; the defaults point at the bundled sample so that the embedded default runs offline.
"""
