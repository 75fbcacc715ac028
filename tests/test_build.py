"""End to end on the tiny fixture site: strict build, determinism, refusal of bad input."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.cli.main import main
from generator.pipeline import Project, build


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run_cli(root: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_fixture_site_builds_in_strict_mode(built_mini: Path) -> None:
    site = built_mini / "site"
    for page in ("index.html", "ladder/index.html", "scenarios/serve-7b/index.html", "gpus/h100-sxm-80g/index.html",
                 "pitfalls/index.html", "delivery/index.html", "sources/index.html", "about/index.html"):  # fmt: skip
        assert (site / page).is_file(), page
    for data in ("data/gpus.json", "data/gpus.csv", "data/offers.csv", "assets/charts/ladder.svg"):
        assert (site / data).is_file(), data
    assert (built_mini / "docs" / "about.md").read_text(encoding="utf-8") == "# 关于\n\n手写页面。\n"


def test_two_builds_give_identical_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock must not matter: a build with SOURCE_DATE_EPOCH unset and one with it set far
    away give the same bytes, and the build leaves the caller's environment as it was."""
    a = make_project(tmp_path / "a")
    b = make_project(tmp_path / "b")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    build(Project.at(a))
    assert "SOURCE_DATE_EPOCH" not in os.environ
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")  # 1970-01-02
    build(Project.at(b))
    assert os.environ["SOURCE_DATE_EPOCH"] == "86400"
    assert tree_digest(a / "docs") == tree_digest(b / "docs")
    assert tree_digest(a / "site") == tree_digest(b / "site")


def test_mkdocs_alone_would_follow_the_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the test above: without the build's own date, MkDocs writes the
    SOURCE_DATE_EPOCH it finds into sitemap.xml.gz, so two clocks give two sites."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    root = make_project(tmp_path / "p")
    build(Project.at(root), site=False)
    digests = []
    for epoch in ("86400", "172800"):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        out = tmp_path / f"site-{epoch}"
        mkdocs_build(load_config(str(root / "mkdocs.yml"), site_dir=str(out), docs_dir=str(root / "docs")))
        digests.append(tree_digest(out))
    assert digests[0] != digests[1]


def test_rebuild_is_a_no_op(built_mini: Path, tmp_path: Path) -> None:
    before = tree_digest(built_mini / "docs")
    build(Project.at(built_mini), site=False)
    assert tree_digest(built_mini / "docs") == before


def test_bad_data_aborts_and_changes_nothing(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(Project.at(mini))
    docs, site = tree_digest(mini / "docs"), tree_digest(mini / "site")
    replace_in(mini / "data" / "offers.yaml", "price: 2\n", "price: -2\n")
    replace_in(mini / "data" / "gpus.yaml", "tdp_w: 700", "tdp_w: 700W")
    code, out, err = run_cli(mini, "build", capsys=capsys)
    assert code == 1
    assert out == ""
    assert err == (
        'data/gpus.yaml:64:12: gpus[2].tdp_w: expected a whole number, got text "700W"; write 700 and give the unit '
        "in its own field\n"
        "data/offers.yaml:9:12: offers[0].price: must be above 0, got -2\n"
        "Aborted: 2 problem(s) in the data; nothing was written.\n"
    )
    assert tree_digest(mini / "docs") == docs
    assert tree_digest(mini / "site") == site
    # the lock file of the first build stays (git-ignored); no staging folder, journal or sidecar
    assert sorted(p.name for p in mini.iterdir()) == [
        ".gpu-guide.lock",
        "data",
        "docs",
        "docs-dev",
        "mkdocs.yml",
        "site",
        "templates",
    ]


def test_check_lists_stale_pages_then_passes(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(Project.at(mini), site=False)
    code, out, _ = run_cli(mini, "check", capsys=capsys)
    assert code == 0 and out.startswith("OK: data valid")
    replace_in(mini / "data" / "offers.yaml", "price: 2\n", "price: 2.5\n")
    code, _, err = run_cli(mini, "check", capsys=capsys)
    assert code == 1
    stale = err.split("Stale generated files (run `make site` or `gpu-guide build` and commit):\n")[1]
    assert "  docs/ladder.md\n" in stale and "  docs/gpus/rtx-4090-24g.md\n" in stale
    assert "  docs/data/offers.csv\n" in stale


def test_hand_written_page_in_the_way_is_refused(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (mini / "docs" / "ladder.md").write_text("# 手写的天梯图\n", encoding="utf-8")
    code, _out, err = run_cli(mini, "build", "--no-site", capsys=capsys)
    assert code == 1
    assert err.startswith(
        "docs/ladder.md:1:1: is hand-written (no generated marker) but the generator wants to write it"
    )
    assert (mini / "docs" / "ladder.md").read_text(encoding="utf-8") == "# 手写的天梯图\n"


def test_strict_mkdocs_failure_leaves_site_alone(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(Project.at(mini))
    site = tree_digest(mini / "site")
    docs = tree_digest(mini / "docs")
    replace_in(mini / "templates" / "pages" / "home.md.j2", "(ladder.md)", "(no-such-page.md)")
    code, _, err = run_cli(mini, "build", capsys=capsys)
    assert code == 1
    assert "no-such-page.md" in err
    assert err.endswith("Aborted: mkdocs build --strict failed; docs/ and site/ are unchanged.\n")
    assert tree_digest(mini / "site") == site
    assert tree_digest(mini / "docs") == docs


def test_missing_data_folder_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(tmp_path, "check", capsys=capsys)
    assert code == 1
    assert "Traceback" not in err
    # one line for each file every build needs (the optional ones, editions, fx, comparisons …, are not named),
    # saying where it was looked for
    folder = tmp_path.resolve() / "data"
    required = ("gpus", "models", "offers", "pitfalls", "providers", "rules", "scenarios")
    assert [line for line in err.splitlines() if "file is missing" in line] == [
        f"data/{name}.yaml:1:1: file is missing; every build needs {name}.yaml in {folder}" for name in required
    ]


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_old_offers_are_marked_against_the_build_date(mini: Path) -> None:
    from generator.pages.rows import date_label
    from generator.pipeline import generate

    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2025-12-01")
    gen = generate(Project.at(mini, build_date=dt.date(2026, 7, 31)))
    old = next(o for o in gen.catalogue.offers if o.id == "c-h100-hour")
    new = next(o for o in gen.catalogue.offers if o.id == "c-4090-hour")
    # 2025-12-01 to the build date 2026-07-31 is 31+31+28+31+30+31+30+30 = 242 days: over the 180-day line.
    assert date_label(gen.catalogue, old) == "2025-12-01（242 天前，超过 180 天时效）"
    assert date_label(gen.catalogue, new) == "2026-07-01（30 天前）"
    assert "2025-12-01（242 天前，超过 180 天时效）" in gen.files["gpus/h100-sxm-80g.md"].decode("utf-8")
