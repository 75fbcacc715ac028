"""The README's market table: generated from the data (offers per source tier and provider), and
``gpu-guide check`` fails when the README's copy disagrees with the data.

Expected counts for the mini fixture are worked by hand from tests/fixtures/mini/data/offers.yaml
on its build date 2026-07-31 (window: 180 days, so from 2026-02-02): Fixture Cloud has four
provider_page offers (2026-06-01, three on 2026-07-01); Fixture Market has two aggregator offers
(2026-07-01) and one article from 2025-06-30, which is history.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, REPO, REPO_BUILD_DATE

from generator.cli.main import main
from generator.data.validate import load_catalogue
from generator.pages.readme_market import BEGIN, END, block_of, market_table_markdown, splice
from generator.pipeline import Project, generate
from generator.results.market_counts import market_counts

MINI_TABLE = (
    "On the build date 2026-07-31: 6 current offers (dated 2026-06-01 to 2026-07-01): "
    "**4 provider_page, 0 provider_api, 0 provider_doc, 2 aggregator, 0 article**; all 7 offers, history "
    "included: 4 provider_page, 0 provider_api, 0 provider_doc, 2 aggregator, 1 article. First-hand "
    '(`provider_page` or `provider_api`): 4 of 6 current (67%). "none found" in the last column: no offer '
    "of that provider comes from its own price page or pricing API. The goal of at least half the current "
    "offers first-hand (3 of 6) is met (first-hand by market: cn 4 of 4, intl 0 of 2).\n"
    "\n"
    "| provider | market | current offers | by tier | dates | first-hand copy |\n"
    "| --- | --- | ---: | --- | --- | --- |\n"
    "| Fixture Cloud | cn | 4 | provider_page 4 | 2026-06-01 to 2026-07-01 | yes (4) |\n"
    "| Fixture Market | intl | 2 | aggregator 2 | 2026-07-01 to 2026-07-01 | none found |\n"
)


def test_mini_table_is_the_hand_count(mini: Path) -> None:
    cat = generate(Project.at(mini, build_date=MINI_BUILD_DATE)).catalogue
    assert market_table_markdown(market_counts(cat)) == MINI_TABLE


def test_a_later_build_date_moves_offers_out_of_the_current_count(mini: Path) -> None:
    """A year on, nothing is current: the counts follow the build date, not the newest price."""
    cat = generate(Project.at(mini, build_date=dt.date(2027, 7, 1))).catalogue
    counts = market_counts(cat)
    assert counts.current.total == 0 and counts.all.total == 7
    assert [p.current.total for p in counts.providers] == [0, 0]


def test_readme_table_matches_the_bundled_data() -> None:
    """Fails when README.md's table disagrees with data/ (run `gpu-guide prices table --write`)."""
    cat, problems = load_catalogue(REPO / "data", build_date=REPO_BUILD_DATE)
    assert cat is not None, problems
    held = block_of((REPO / "README.md").read_text(encoding="utf-8"))
    assert held is not None, "README.md has lost its market-table markers"
    assert held == market_table_markdown(market_counts(cat))


def test_splice_replaces_only_the_block() -> None:
    text = f"before\n{BEGIN}\nold table\n{END}\nafter\n"
    assert splice(text, "new\n") == f"before\n{BEGIN}\nnew\n{END}\nafter\n"
    assert block_of(splice(text, "new\n")) == "new\n"
    with pytest.raises(ValueError):
        splice("no markers\n", "new\n")


def _readme(root: Path, body: str) -> Path:
    path = root / "README.md"
    path.write_text(f"# Fixture\n\n{BEGIN}\n{body}{END}\n\nMore text.\n", encoding="utf-8")
    return path


def test_check_fails_on_a_stale_readme_table_and_write_fixes_it(
    mini: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1785456000")  # 2026-07-31 00:00 UTC
    assert main(["--root", str(mini), "build", "--no-site"]) == 0
    readme = _readme(mini, "| a hand-typed table that is out of date |\n")
    capsys.readouterr()
    assert main(["--root", str(mini), "check"]) == 1
    assert "Stale market table in README.md (run `gpu-guide prices table --write` and commit)." in (
        capsys.readouterr().err
    )
    assert main(["--root", str(mini), "prices", "table", "--write"]) == 0
    assert readme.read_text(encoding="utf-8") == f"# Fixture\n\n{BEGIN}\n{MINI_TABLE}{END}\n\nMore text.\n"
    capsys.readouterr()
    assert main(["--root", str(mini), "check"]) == 0
    assert "Stale market table" not in capsys.readouterr().err


def test_a_readme_without_markers_is_not_checked(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1785456000")
    assert main(["--root", str(mini), "build", "--no-site"]) == 0
    (mini / "README.md").write_text("# Fixture\n\nNo table here.\n", encoding="utf-8")
    assert main(["--root", str(mini), "check"]) == 0
