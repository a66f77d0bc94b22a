"""LLM endpoints as a Dagster resource: any OpenAI-compatible chat endpoint, or none (the offline twins).

The API key is read from the environment variable named by ``api_key_env`` when a client is made. It is never
a config value, so it never reaches run config, logs or metadata.
"""

from __future__ import annotations

import os

import dagster as dg

from mgqa_platform.llm import ChatClient


class LLMResource(dg.ConfigurableResource):
    """``base_url`` empty (the default) means no endpoint: stages use their rule-based offline implementation."""

    base_url: str = ""
    model: str = ""
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
        return ChatClient(self.base_url, self.model, api_key=os.environ.get(self.api_key_env) or None,
                          timeout_s=self.timeout_s, max_retries=self.max_retries)  # fmt: skip

    def describe(self) -> str:
        """For metadata: the endpoint and model, never the key."""
        return f"{self.model} at {self.base_url}" if self.configured else "offline (rule-based)"
