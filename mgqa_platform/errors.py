"""Errors the operator fixes from their message alone.

``mgqa`` prints a :class:`UserError` as one line (what is wrong, and the file, line or element it is
about) instead of a traceback; ``--debug`` or ``MGQA_DEBUG=1`` shows the traceback too. Anything
else is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """An expected error whose message says what to fix (a bad input file, an unknown id)."""


class InputError(UserError, ValueError):
    """An input file the platform refuses: the message names the file and what is wrong with it."""
