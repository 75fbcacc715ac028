"""Freshness against the calendar: the build date (SOURCE_DATE_EPOCH, else the commit date of
data/) decides which prices are current; a price dated after it is an error with its line.
Every test passes its date explicitly (as an argument or a fixed SOURCE_DATE_EPOCH)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, replace_in

from generator.cli.build_date import BuildDateError, commit_date, epoch_date, resolve_build_date
from generator.cli.main import main
from generator.data.problems import DataError
from generator.pipeline import Project, generate
from generator.results.freshness import by_provider, report_lines, stale_offers

#: 2026-07-31 00:00 UTC, 2026-07-31 12:00 UTC and 2027-07-01 00:00 UTC as Unix seconds
#: (checked by test_epochs_are_the_dates_they_name)
JULY_31 = "1785456000"
JULY_31_NOON = "1785499200"
NEXT_JULY = "1814400000"


def test_epochs_are_the_dates_they_name() -> None:
    assert dt.datetime(2026, 7, 31, tzinfo=dt.UTC).timestamp() == int(JULY_31)
    assert dt.datetime(2027, 7, 1, tzinfo=dt.UTC).timestamp() == int(NEXT_JULY)
    assert epoch_date(JULY_31) == epoch_date(JULY_31_NOON) == dt.date(2026, 7, 31)


def test_window_is_counted_back_from_the_build_date_not_the_newest_price(mini: Path) -> None:
    """The same data, judged a year later: nothing is current any more (a site left alone does not
    keep calling its prices current)."""
    now = generate(Project.at(mini, build_date=MINI_BUILD_DATE)).catalogue
    later = generate(Project.at(mini, build_date=dt.date(2027, 7, 1))).catalogue
    assert now.as_of == later.as_of == dt.date(2026, 7, 1)  # the newest price does not move
    assert len(now.current_offers) == 6  # all but the 2025-06-30 survey
    assert later.current_offers == [] and later.pickable_offers == []
    assert len(stale_offers(later)) == len(later.offers)


def test_window_edge(mini: Path) -> None:
    """fresh_days (180) back from 2026-07-31 is 2026-02-01: that day is current, the day before is not."""
    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2026-02-01")
    cat = generate(Project.at(mini, build_date=MINI_BUILD_DATE)).catalogue
    assert cat.fresh_since == dt.date(2026, 2, 1)
    assert "c-h100-hour" in {o.id for o in cat.current_offers}
    cat = generate(Project.at(mini, build_date=dt.date(2026, 8, 1))).catalogue
    assert "c-h100-hour" not in {o.id for o in cat.current_offers}


def test_offer_after_the_build_date_is_an_error_with_its_line(mini: Path) -> None:
    text = (mini / "data" / "offers.yaml").read_text(encoding="utf-8")
    line = text[: text.index("as_of: 2026-06-01")].count("\n") + 1
    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2099-06-01")
    with pytest.raises(DataError) as got:
        generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    [p] = [p for p in got.value.problems if "after the build date" in p.message]
    assert (p.file, p.line, p.path) == ("data/offers.yaml", line, "offers[5].as_of")
    assert "dated 2099-06-01, after the build date 2026-07-31" in p.message


@pytest.mark.parametrize("command", ["check", "build"])
def test_cli_refuses_a_future_offer(
    mini: Path, command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2026-08-15")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", JULY_31)
    args = [command] + (["--no-site"] if command == "build" else [])
    assert main(["--root", str(mini), *args]) == 1
    err = capsys.readouterr().err
    assert "offers.yaml:" in err and "dated 2026-08-15, after the build date 2026-07-31" in err
    assert "Traceback" not in err


def test_bad_source_date_epoch_is_one_line(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert main(["--root", str(mini), "check"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SOURCE_DATE_EPOCH must be whole seconds" in err
    with pytest.raises(BuildDateError):
        epoch_date("-5")


def _git(root: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def test_build_date_is_the_commit_date_of_data(mini: Path) -> None:
    """In git, the date is the last commit touching data/ (UTC), not a later commit elsewhere and
    not the clock; SOURCE_DATE_EPOCH overrides it; outside git there is none (the newest price)."""
    data = mini / "data"
    assert commit_date(data) is None
    assert resolve_build_date(data, environ={}).date is None
    _git(mini, "init", "-q")
    _git(mini, "add", "data")
    _git(mini, "commit", "-qm", "data", date="2026-07-31T23:30:00-02:00")  # 2026-08-01 01:30 UTC
    (mini / "notes.txt").write_text("not data\n", encoding="utf-8")
    _git(mini, "add", "notes.txt")
    _git(mini, "commit", "-qm", "notes", date="2026-09-30T12:00:00+00:00")
    got = resolve_build_date(data, environ={})
    assert got.date == dt.date(2026, 8, 1) and got.origin == "commit date of data/"
    over = resolve_build_date(data, environ={"SOURCE_DATE_EPOCH": JULY_31})
    assert over.date == dt.date(2026, 7, 31) and over.origin == "SOURCE_DATE_EPOCH"


def test_check_reports_stale_share_per_provider(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """On 2026-07-31 only the 2025 survey is past the window: Fixture Market 1 of its 3 offers."""
    cat = generate(Project.at(mini, build_date=MINI_BUILD_DATE)).catalogue
    shares = {r.provider: (r.stale, r.total) for r in by_provider(cat)}
    assert shares == {"fixture-cloud": (0, 4), "fixture-market": (1, 3)}
    assert report_lines(cat, "test")[1] == "  fixture-market: 1 of 3 stale (33%)"
    from generator.pipeline import build

    build(Project.at(mini, build_date=MINI_BUILD_DATE), site=False)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", JULY_31)
    assert main(["--root", str(mini), "check"]) == 0
    out = capsys.readouterr().out
    assert "Freshness on 2026-07-31 (SOURCE_DATE_EPOCH): 1 of 7 offers are older than 180 days." in out
    assert "  fixture-market: 1 of 3 stale (33%)" in out
