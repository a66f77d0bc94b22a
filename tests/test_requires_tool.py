"""The ``requires_tool`` marker of tests/conftest.py: a test that needs a missing system tool is
skipped, before any of its fixtures is set up, with the tool and its install command as the
reason; it fails instead when ``MGQA_REQUIRE_SYSTEM_TOOLS=1`` (as in ``.ci/run``), and runs where
the tool is on the PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")
MARKED = """
import pytest

@pytest.fixture
def costly():
    raise RuntimeError("set up although its tool is missing")

@pytest.mark.requires_tool("bwrap")
def test_needs_bwrap(costly):
    pass

@pytest.mark.requires_tool("java")
def test_needs_java():
    pass

def test_needs_nothing():
    pass
"""


@pytest.fixture
def marked(pytester: pytest.Pytester, monkeypatch, tmp_path) -> pytest.Pytester:
    """A pytester folder with the project's conftest, its marked tests, and an empty PATH."""
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_marked=MARKED)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("MGQA_REQUIRE_SYSTEM_TOOLS", raising=False)
    return pytester


def test_a_missing_tool_skips_with_the_tool_and_its_install_command(marked):
    result = marked.runpytest_inprocess("-ra", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*needs `bwrap`, not on the PATH; install it with `apt-get install bubblewrap`",
            "SKIPPED*needs `java`, not on the PATH; install it with `apt-get install openjdk-17-*`",
        ],
        consecutive=False,
    )


def test_require_system_tools_turns_the_skip_into_a_failure(marked, monkeypatch):
    monkeypatch.setenv("MGQA_REQUIRE_SYSTEM_TOOLS", "1")
    result = marked.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*MGQA_REQUIRE_SYSTEM_TOOLS=1 and this test needs `bwrap`*"])
    assert result.ret != 0


def test_a_tool_on_the_path_runs_its_tests(marked, tmp_path, monkeypatch):
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("bwrap", "java"):
        (tools / name).write_text("#!/bin/sh\nexit 0\n")
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.setenv("MGQA_REQUIRE_SYSTEM_TOOLS", "1")
    result = marked.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)  # the bwrap test runs: its fixture is set up
    result.stdout.fnmatch_lines(["*RuntimeError: set up although its tool is missing*"])
