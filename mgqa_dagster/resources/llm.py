"""LLM endpoints as Dagster resources: any OpenAI-compatible chat endpoint, or none (offline twins).

The API key is read from the environment variable named by ``api_key_env`` when a client is made. It
is never a config value, so it never reaches run config, logs or metadata.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import dagster as dg
from pydantic import field_validator

from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform.llm import ChatClient
from mgqa_platform.multilingual.ensemble import PROMPT_VERSION, CachedMember, LLMMember, RuleMember


class LLMResource(EnvConfigurableResource):
    """``base_url`` empty (the default) means no endpoint: stages use their rule-based offline
    implementation."""

    base_url: Annotated[str, dg.EnvVar("MGQA_LLM_BASE_URL")] = ""
    model: Annotated[str, dg.EnvVar("MGQA_LLM_MODEL")] = ""
    api_key_env: str = "MGQA_LLM_API_KEY"
    timeout_s: float = 60.0
    max_retries: int = 5

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    def get_client(self) -> ChatClient | None:
        """A client for the endpoint, or None when no endpoint is configured."""
        if not self.configured:
            return None
        key = os.environ.get(self.api_key_env) or None
        return ChatClient(
            self.base_url,
            self.model,
            api_key=key,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
        )

    def describe(self) -> str:
        """For metadata: the endpoint and model, never the key."""
        return f"{self.model} at {self.base_url}" if self.configured else "offline (rule-based)"


class EnsembleEndpoint(dg.Config):
    """One LLM member of the post-edit ensemble: a name (used in the edit log), an OpenAI-compatible
    endpoint and model, and the name of the environment variable holding its API key (empty: no
    key)."""

    name: str
    base_url: str
    model: str
    api_key_env: str = ""


class PostEditEnsembleResource(EnvConfigurableResource):
    """The members of the post-edit ensemble (``questions_postedited``).

    ``endpoints`` empty (the default) is the offline ensemble: the rule-based member alone, whose
    edits are applied as the primary's (decision ``primary_fallback``: no second member can agree).
    With endpoints (the paper uses three), the LLM members vote, and the rule-based member joins
    them only when ``with_rules``. ``primary`` names the member whose edits apply when no edit
    reaches two votes (default: the first endpoint). LLM replies are cached under ``cache_dir``
    (empty, the default: ``paths.postedit_cache_dir``), so an interrupted run resumes without asking
    again. ``endpoints`` also accepts the JSON text of ``MGQA_ENSEMBLE_ENDPOINTS``
    (:func:`parse_endpoints`)."""

    paths: PathsResource
    endpoints: Annotated[list[EnsembleEndpoint], dg.EnvVar("MGQA_ENSEMBLE_ENDPOINTS")] = []
    primary: Annotated[str, dg.EnvVar("MGQA_ENSEMBLE_PRIMARY")] = ""
    with_rules: Annotated[bool, dg.EnvVar("MGQA_ENSEMBLE_WITH_RULES")] = False
    concurrency: Annotated[int, dg.EnvVar("MGQA_ENSEMBLE_CONCURRENCY")] = 4
    timeout_s: float = 60.0
    max_retries: int = 5
    cache_dir: str = ""

    @field_validator("endpoints", mode="before")
    @classmethod
    def _endpoints_from_json(cls, value):
        return parse_endpoints(value) if isinstance(value, str) else value

    def members(self, lang: str) -> tuple[list, str]:
        """(members, primary name) for one language partition."""
        members: list = []
        cache = Path(self.cache_dir) if self.cache_dir else self.paths.postedit_cache_dir
        for ep in self.endpoints:
            key = (os.environ.get(ep.api_key_env) or None) if ep.api_key_env else None
            client = ChatClient(
                ep.base_url,
                ep.model,
                api_key=key,
                timeout_s=self.timeout_s,
                max_retries=self.max_retries,
            )
            identity = f"{ep.model}@{ep.base_url}:{PROMPT_VERSION}"
            path = cache / lang / f"{ep.name}.jsonl"
            members.append(CachedMember(LLMMember(ep.name, client), path, identity=identity))
        if not members or self.with_rules:
            members.append(RuleMember())
        names = [m.name for m in members]
        primary = self.primary or names[0]
        if primary not in names:
            raise ValueError(f"MGQA ensemble primary {primary!r} is not one of the members {names}")
        return members, primary

    @property
    def workers(self) -> int:
        """Threads for one partition: 1 for the offline ensemble (the rules are instantaneous)."""
        return max(1, self.concurrency) if self.endpoints else 1


def parse_endpoints(value: str) -> list[dict]:
    """Parse ``MGQA_ENSEMBLE_ENDPOINTS``: a JSON list of ``{"name", "base_url", "model",
    "api_key_env"}`` objects (empty string: none). Raises ``ValueError`` with the reason on anything
    else."""
    if not value.strip():
        return []
    try:
        items = json.loads(value)
    except ValueError as exc:
        raise ValueError(f"MGQA_ENSEMBLE_ENDPOINTS is not JSON: {exc}") from exc
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ValueError("MGQA_ENSEMBLE_ENDPOINTS must be a JSON list of objects")
    for i in items:
        missing = {"name", "base_url", "model"} - set(i)
        if missing:
            raise ValueError(
                f"MGQA_ENSEMBLE_ENDPOINTS entry {i.get('name', '?')!r} lacks {sorted(missing)}"
            )
        extra = set(i) - {"name", "base_url", "model", "api_key_env"}
        if extra:
            raise ValueError(
                f"MGQA_ENSEMBLE_ENDPOINTS entry {i['name']!r}: unknown keys "
                f"{sorted(extra)} (API keys go in "
                "environment variables named by api_key_env, never in this list)"
            )
    return items
