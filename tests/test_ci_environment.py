"""The tests pass where CI runs them: with the variables GitHub's runners set.

GitHub sets ``GITHUB_ACTIONS=true`` for every step, ``make test`` included. Nothing below the
command line may read it (the output style is ``gpu-guide check --format``), so the message tests,
which compare printed problems line for line, run here once more with it set
(conftest's ``--github-actions-env``; a plain run removes it).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

#: The tests that compare printed problem lines exactly.
MESSAGE_TESTS = ("tests/test_lint.py", "tests/test_validate.py")
CONTROL = "tests/test_ci_environment.py::test_the_environment_is_the_one_the_options_choose"


def test_message_tests_pass_with_github_actions_set() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--github-actions-env", *MESSAGE_TESTS, CONTROL],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout.splitlines()[-1]


def test_the_environment_is_the_one_the_options_choose(request: pytest.FixtureRequest) -> None:
    """Run plainly, no CI variable is visible; run by the test above, GITHUB_ACTIONS=true is (its
    control: that run would pass for the wrong reason if the option set nothing)."""
    wanted = "true" if request.config.getoption("--github-actions-env") else None
    assert os.environ.get("GITHUB_ACTIONS") == wanted
    assert "CI" not in os.environ and "SOURCE_DATE_EPOCH" not in os.environ
