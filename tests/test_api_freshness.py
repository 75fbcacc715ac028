"""API prices beside the rents: judged against the build date like the rents (``prices.api_fresh_days``),
``replaces`` keeps history, and a dollar price is shown in yuan at the fx.yaml rate of its date.

The fixture's four prices and every expected figure below are worked by hand. Build date 2026-07-31,
window 180 days (so a price from before 2026-02-01 is stale), page mix 3,000 prompt + 1,000 output tokens:

* ``p-new``  CNY 1.00 / 2.00, 2026-07-01: current, 30 days old, blended (1.00*3 + 2.00*1)/4 = 1.25
* ``p-old``  CNY 0.50 / 1.00, 2025-12-01: stale, 242 days old (31+31+28+31+30+31+30+30), blended 0.625
* ``q-usd``  USD 0.10 / 0.20, 2026-07-20: the mini fx rate at or before that day is 2026-07-15's 7.2, so
  ¥0.72 / ¥1.44, blended (0.72*3 + 1.44)/4 = 0.90; current, 11 days old; it replaces ``q-cny``
* ``q-cny``  CNY 0.30 / 0.30, 2026-07-10: replaced (history although within the window), 21 days old
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, replace_in

from generator.cli.main import main
from generator.data.problems import DataError
from generator.pipeline import Project, generate
from generator.results.api_compare import ApiComparisons, ApiStatus, same_size_prices

API_PRICES = """\
prices:
  - id: p-new
    provider: Fixture API P
    model: p-7b
    open_params_b: 7.0
    input_per_mtok: 1.0
    output_per_mtok: 2.0
    as_of: 2026-07-01
    source: https://example.com/p
    quote: "p-7b 1 元 / 2 元"
  - id: p-old
    provider: Fixture API P
    model: p-7b（旧价）
    open_params_b: 7.0
    input_per_mtok: 0.5
    output_per_mtok: 1.0
    as_of: 2025-12-01
    source: https://example.com/p-old
    quote: "p-7b 0.5 元 / 1 元"
  - id: q-cny
    provider: Fixture API Q
    model: q-7b
    open_params_b: 7.0
    input_per_mtok: 0.3
    output_per_mtok: 0.3
    as_of: 2026-07-10
    source: https://example.com/q-cny
    quote: "q-7b 0.3 元"
  - id: q-usd
    provider: Fixture API Q
    model: q-7b
    open_params_b: 7.0
    currency: USD
    input_per_mtok: 0.10
    output_per_mtok: 0.20
    as_of: 2026-07-20
    source: https://example.com/q-usd
    quote: "q-7b $0.10 / $0.20"
    replaces: q-cny
"""


@pytest.fixture
def with_api(mini: Path) -> Path:
    (mini / "data" / "api_prices.yaml").write_text(API_PRICES, encoding="utf-8")
    return mini


def _compare(root: Path, on: dt.date) -> ApiComparisons:
    cat = generate(Project.at(root, build_date=on)).catalogue
    return same_size_prices(cat, cat.models["llama-2-7b"], 3000, 1000, 0.3)


def test_current_and_history_on_the_build_date(with_api: Path) -> None:
    api = _compare(with_api, MINI_BUILD_DATE)
    assert [(c.price.id, c.status, c.age_days) for c in api.current] == [
        ("q-usd", ApiStatus.current, 11),
        ("p-new", ApiStatus.current, 30),
    ]
    assert [(c.price.id, c.status, c.age_days) for c in api.history] == [
        ("q-cny", ApiStatus.replaced, 21),
        ("p-old", ApiStatus.stale, 242),
    ]
    assert api.fresh_days == 180


def test_dollar_price_in_yuan_at_the_rate_of_its_date(with_api: Path) -> None:
    usd = _compare(with_api, MINI_BUILD_DATE).current[0]
    assert usd.rate is not None and usd.rate.as_of == dt.date(2026, 7, 15)
    assert usd.input_cny_per_mtok == pytest.approx(0.72)
    assert usd.output_cny_per_mtok == pytest.approx(1.44)
    assert usd.blended_cny_per_mtok == pytest.approx(0.90)
    cny = _compare(with_api, MINI_BUILD_DATE).current[1]
    assert cny.rate is None and cny.blended_cny_per_mtok == pytest.approx(1.25)


def test_a_year_later_nothing_is_compared(with_api: Path) -> None:
    """The same data judged on 2027-07-01: every price is past the window, none is compared."""
    api = _compare(with_api, dt.date(2027, 7, 1))
    assert api.current == ()
    assert {c.price.id: c.status for c in api.history} == {
        "q-cny": ApiStatus.replaced,
        "p-old": ApiStatus.stale,
        "p-new": ApiStatus.stale,
        "q-usd": ApiStatus.stale,
    }


def _page(root: Path, on: dt.date) -> str:
    return generate(Project.at(root, build_date=on)).files["models/llama-2-7b-inference.md"].decode("utf-8")


def test_model_page_shows_age_and_history_and_compares_only_current(with_api: Path) -> None:
    page = _page(with_api, MINI_BUILD_DATE)
    assert "[2026-07-20](https://example.com/q-usd)（11 天前）" in page
    assert "US$0.10 / US$0.20，按 2026-07-15 汇率 7.2 折算" in page
    assert "[2025-12-01](https://example.com/p-old)（242 天前，超过 180 天时效）" in page
    assert "[2026-07-10](https://example.com/q-cny)（21 天前，已被新价格取代）" in page
    history = page.index("历史 API 价格")
    assert page.index("q-usd") < history < page.index("p-old")
    assert "最便宜的 API 约 ¥0.90/百万 token" in page


def test_model_page_a_year_later_makes_no_api_comparison(with_api: Path) -> None:
    page = _page(with_api, dt.date(2027, 7, 1))
    assert "数据里没有 180 天以内的同等规模 API 价格，所以本页不拿 API 和租卡比较" in page
    assert "最便宜的 API" not in page


def test_replacing_another_providers_price_is_refused_at_its_line(with_api: Path) -> None:
    """q-usd's ``replaces`` is line 39 of the fixture file."""
    replace_in(with_api / "data" / "api_prices.yaml", "replaces: q-cny", "replaces: p-new")
    with pytest.raises(DataError) as exc:
        generate(Project.at(with_api, build_date=MINI_BUILD_DATE))
    assert any(
        p.line == 39
        and p.message == '"p-new" is Fixture API P\'s; a price replaces only an older price of the same provider'
        for p in exc.value.problems
    ), exc.value.problems


def test_replacing_an_unknown_price_is_refused(with_api: Path) -> None:
    replace_in(with_api / "data" / "api_prices.yaml", "replaces: q-cny", "replaces: q-cn")
    with pytest.raises(DataError) as exc:
        generate(Project.at(with_api, build_date=MINI_BUILD_DATE))
    assert any('unknown api_price id "q-cn"; did you mean "q-cny"?' in p.message for p in exc.value.problems)


def test_build_names_and_check_counts_stale_api_prices(
    with_api: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On 2026-07-31 only p-old (2025-12-01) is past the API window; q-cny is replaced, not stale."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1785456000")  # 2026-07-31 00:00 UTC
    assert main(["--root", str(with_api), "build", "--no-site"]) == 0
    err = capsys.readouterr().err
    assert (
        "note: 1 API price(s) older than 180 days on 2026-07-31 (SOURCE_DATE_EPOCH) are history and no page "
        "compares them with renting: p-old" in err
    )
    assert main(["--root", str(with_api), "check"]) == 0
    out = capsys.readouterr().out
    assert "API prices: 1 of 4 are older than 180 days (history: no page compares them with renting)." in out
