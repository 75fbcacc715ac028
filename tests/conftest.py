"""Shared fixtures: a tiny fixture project, and the real site built once per session.

Tests see none of the caller's CI variables (:data:`CALLER_VARIABLES`): a run under GitHub
Actions tests what a run anywhere else tests. What CI changes is chosen here, at the pytest level:
``--require-tools`` (the default under ``CI=true``) makes a missing node or Chromium fail instead of
skip; ``--github-actions-env`` runs every test with ``GITHUB_ACTIONS=true`` set
(tests/test_ci_environment.py uses it to prove the output does not depend on it).
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import functools
import http.server
import os
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "fixtures" / "mini"

#: Variables CI services set or an operator may have exported; removed for the whole session.
#: SOURCE_DATE_EPOCH moves `gpu-guide check`'s as-of date; GPU_GUIDE_LOCK_WAIT the writer lock's wait.
CALLER_VARIABLES = ("GITHUB_ACTIONS", "CI", "SOURCE_DATE_EPOCH", "GPU_GUIDE_LOCK_WAIT")

_options = {"require_tools": False}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpu-guide")
    group.addoption("--require-tools", action="store_true",
                    help="fail, not skip, where node or Chromium is missing (the default when CI=true)")  # fmt: skip
    group.addoption("--github-actions-env", action="store_true",
                    help="run every test with GITHUB_ACTIONS=true set, as GitHub's runners do")  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    # Read once, before the session fixture below removes CI from the environment.
    _options["require_tools"] = bool(config.getoption("--require-tools")) or os.environ.get("CI") == "true"
    # A shell that starts a command in the background (`make test &`, nohup) starts it with Ctrl-C
    # ignored, and an ignored signal stays ignored in every process it starts: the tests that press
    # Ctrl-C on a build or on `serve` (test_atomic, test_serve) would see it do nothing. They test
    # what a terminal's Ctrl-C does, so the session gives its children the terminal's default.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def tools_required() -> bool:
    """True where a missing node or Chromium must fail the run (``--require-tools`` or CI=true)."""
    return _options["require_tools"]


def skip_unless_installed(tool: str | None, reason: str) -> None:
    """Call at module level: skip the module where ``tool`` (a path, or None) is missing, unless
    :func:`tools_required`, where the module's own assertion then fails."""
    if tool is None and not tools_required():
        pytest.skip(reason, allow_module_level=True)


@pytest.fixture(scope="session", autouse=True)
def _caller_environment_removed(request: pytest.FixtureRequest) -> Iterator[None]:
    """No test sees the caller's CI variables; ``--github-actions-env`` sets GITHUB_ACTIONS=true."""
    with pytest.MonkeyPatch.context() as mp:
        for name in CALLER_VARIABLES:
            mp.delenv(name, raising=False)
        if request.config.getoption("--github-actions-env"):
            mp.setenv("GITHUB_ACTIONS", "true")
        yield


def _repo_build_date() -> dt.date | None:
    """The build date `gpu-guide check` uses for this repository: SOURCE_DATE_EPOCH where the caller
    sets it (the PR workflow sets the PR head's data commit), else the commit date of data/. The
    committed docs/ were built for it."""
    from generator.cli.build_date import resolve_build_date

    return resolve_build_date(REPO / "data").date


#: the date every build of the real data in the tests is judged against (passed explicitly)
REPO_BUILD_DATE = _repo_build_date()
#: the mini fixture's build date: a month after its newest price (2026-07-01)
MINI_BUILD_DATE = dt.date(2026, 7, 31)


def make_project(tmp: Path, edit: Callable[[Path], None] | None = None) -> Path:
    """Copy the mini fixture (plus the real rules, templates, config and hand-written docs) to ``tmp``."""
    root = tmp / "proj"
    shutil.copytree(MINI / "data", root / "data")
    shutil.copy(REPO / "data" / "rules.yaml", root / "data" / "rules.yaml")
    # The real rules name the real scenarios as comparison references; the fixture has its own.
    replace_in(
        root / "data" / "rules.yaml",
        "compare_reference_scenarios: [lora-7b, full-finetune-13b]",
        "compare_reference_scenarios: [full-13b]",
    )
    # Model pages' serving load: the fixture's own serving scenario.
    replace_in(root / "data" / "rules.yaml", "load_scenario: llm-serving", "load_scenario: serve-7b")
    shutil.copytree(REPO / "templates", root / "templates")
    shutil.copy(MINI / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(MINI / "calibration", root / "docs-dev" / "calibration")  # the pages' calibration notes
    (root / "docs" / "javascripts").mkdir(parents=True)
    (root / "docs" / "stylesheets").mkdir(parents=True)
    shutil.copy(REPO / "docs" / "javascripts" / "sortable.js", root / "docs" / "javascripts")
    shutil.copy(REPO / "docs" / "javascripts" / "calculator.js", root / "docs" / "javascripts")
    shutil.copy(REPO / "docs" / "javascripts" / "messages.js", root / "docs" / "javascripts")
    shutil.copytree(REPO / "docs" / "javascripts" / "engine", root / "docs" / "javascripts" / "engine")
    shutil.copy(REPO / "docs" / "javascripts" / "ownership.js", root / "docs" / "javascripts")
    shutil.copy(REPO / "docs" / "javascripts" / "search.js", root / "docs" / "javascripts")
    shutil.copy(REPO / "docs" / "stylesheets" / "extra.css", root / "docs" / "stylesheets")
    (root / "docs" / "about.md").write_text("# 关于\n\n手写页面。\n", encoding="utf-8")
    if edit is not None:
        edit(root / "data")
    return root


@pytest.fixture(autouse=True)
def _no_build_date_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A SOURCE_DATE_EPOCH in the shell running the tests must not change what the CLI judges
    prices against; a test that wants one sets it."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A fresh copy of the mini fixture project."""
    return make_project(tmp_path)


def replace_in(path: Path, old: str, new: str, count: int = 1) -> None:
    """Edit a fixture file; fails loudly if ``old`` is not there (so tests cannot go stale)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def copy_repo_site(dest: Path) -> Path:
    """The real project's inputs (data, templates, config, hand-written docs) copied to ``dest``."""
    root = dest / "repo"
    root.mkdir(parents=True)
    for name in ("data", "templates", "docs", "docs-dev"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    return root


def bundled_data_copy(tmp: Path) -> Path:
    """A copy of the bundled data/ (without its schemas) under ``tmp``: the price imports validate
    against all of it and write into its offers.yaml."""
    shutil.copytree(REPO / "data", tmp / "data", ignore=shutil.ignore_patterns("schemas"))
    return tmp


def imported_offers(root: Path, prefix: str) -> dict[str, dict[str, object]]:
    """The offers of ``root``'s offers.yaml whose id starts with an import's ``prefix``, by id."""
    offers = yaml.safe_load((root / "data" / "offers.yaml").read_text(encoding="utf-8"))["offers"]
    return {o["id"]: o for o in offers if o["id"].startswith(prefix)}


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test session from a copy of the repository."""
    from generator.pipeline import Project, build

    root = copy_repo_site(tmp_path_factory.mktemp("full"))
    build(Project.at(root, build_date=REPO_BUILD_DATE))
    return root


@pytest.fixture(scope="session")
def built_mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini fixture site, built once per session (read-only users only)."""
    from generator.pipeline import Project, build

    root = make_project(tmp_path_factory.mktemp("mini"))
    build(Project.at(root))
    return root


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini project after one ``build --no-site`` (docs/ and its manifest exist). Read-only:
    tests that change files take :func:`project`, a copy."""
    from generator.cli.main import main

    root = make_project(tmp_path_factory.mktemp("built"))
    assert main(["--root", str(root), "build", "--no-site"]) == 0
    return root


@pytest.fixture
def project(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of :func:`built` for one test to change."""
    root = tmp_path / "proj"
    shutil.copytree(built, root, symlinks=True)
    return root


# --------------------------------------------------------------------------- browser tests
# Shared by tests/test_browser.py, test_calculator_browser.py and test_layout.py.

#: GPU_GUIDE_CHROMIUM=bundled uses Playwright's own Chromium (where `playwright install` works,
#: e.g. GitHub's runners); a path names a browser; otherwise Debian's chromium package.
_CHOICE = os.environ.get("GPU_GUIDE_CHROMIUM", "")
CHROMIUM = None if _CHOICE == "bundled" else (_CHOICE or shutil.which("chromium") or shutil.which("chromium-browser"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def skip_without_chromium() -> None:
    """Call at module level: skips a browser test module where no Chromium is installed, except where
    :func:`tools_required` (CI), where a missing browser fails instead."""
    if CHROMIUM is None and _CHOICE != "bundled" and not tools_required():
        pytest.skip("Debian's chromium is not installed (CI installs it)", allow_module_level=True)


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on a free local port (directory URLs need a server); yields its URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="module")
def server(built_site: Path) -> Iterator[str]:
    """The real site, served for the module's browser tests."""
    with serve_folder(built_site / "site") as url:
        yield url


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """One headless Chromium per module."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None or _CHOICE == "bundled", "install Debian's chromium package"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS) if CHROMIUM else p.chromium.launch(args=ARGS)
        yield b
        b.close()


def docstring_ids(tree: ast.AST) -> set[int]:
    """``id()`` of every docstring constant in ``tree`` (module, class and function docstrings): the
    source scans of test_messages and test_data_files count string literals, and docstrings are prose."""
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, kinds)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
