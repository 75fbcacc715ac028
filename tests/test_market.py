"""The market (issue 12): freshness, billing tiers, currency conversion, runner-ups, spreads,
provider pages, open data and the grouped change report, on the mini fixture.

The fixture's offers (tests/fixtures/mini/data/offers.yaml), worked by hand with data/rules.yaml
(730 hours a month; disk 500 GB x ¥0.35 = ¥175, egress 100 GB x ¥0.8 = ¥80, public IP ¥20 an instance):

- c-4090-hour    Fixture Cloud, RTX 4090 container, on demand, ¥2/hour           -> ¥1,460 a card-month
- m-4090-usd     Fixture Market, RTX 4090 container, on demand, $0.50/hour, 2026-07-01: the USD rate
                 at or before that date is June 1st's 7.0 (July 15th's 7.2 is later): ¥3.50/hour -> ¥2,555
- m-4090-spot    Fixture Market, RTX 4090, spot, $0.10/hour = ¥0.70/hour                -> ¥511 (never ranked)
- bm-a100-8      A100 8-card bare metal, ¥48,000/month                             -> ¥6,000
- bm-h100-8      H100 8-card bare metal, ¥80,000–90,000/month (mid ¥85,000)        -> ¥10,625
- c-h100-hour    H100 container, ¥15/hour, 2026-06-01                              -> ¥10,950
- old-a100-survey A100, ¥18,000–30,000 a month, 2025-06-30: 366 days before the newest price
                 (2026-07-01), past the 180-day window -> history
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, make_project, replace_in

from generator.data.problems import render
from generator.data.validate import load_catalogue
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.pages.messages import explain
from generator.pipeline import Generated, Project, generate
from generator.results.market import gpu_spreads, price_series


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(Project.at(make_project(tmp_path_factory.mktemp("market"))))


def page(gen: Generated, path: str) -> str:
    return gen.files[path].decode("utf-8")


# --------------------------------------------------------------------------- freshness and billing tiers


def test_offers_past_the_window_are_history(gen: Generated) -> None:
    cat = gen.catalogue
    assert str(cat.as_of) == "2026-07-01" and str(cat.fresh_since) == "2026-01-02"  # 180 days before
    assert [o.id for o in cat.history_offers] == ["old-a100-survey"]
    assert [o.id for o in cat.pickable_offers] == ["c-4090-hour", "m-4090-usd", "bm-a100-8", "bm-h100-8", "c-h100-hour"]


def test_exactly_fresh_days_old_is_still_current(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "as_of: 2025-06-30", "as_of: 2026-01-02")  # 180 days before 07-01
    cat, _ = load_catalogue(root / "data", root)
    assert cat is not None and cat.history_offers == []
    replace_in(root / "data" / "offers.yaml", "as_of: 2026-01-02", "as_of: 2026-01-01")  # 181 days
    cat, _ = load_catalogue(root / "data", root)
    assert cat is not None and [o.id for o in cat.history_offers] == ["old-a100-survey"]


def test_history_never_prices_a_recommendation(gen: Generated) -> None:
    # serve-7b on the A100 is priced with the 8-card node (¥48,000 + 175 + 80 + 20), never with the old
    # survey's ¥18,000–30,000 a card, although the survey's form (unspecified) would come first for a container.
    opt = gen.results.scenarios["serve-7b"].rec.option_for("a100-sxm-80g")
    assert opt is not None and opt.offer is not None and opt.offer.id == "bm-a100-8"
    assert opt.monthly is not None and opt.monthly.total == pytest.approx(48275)


def test_a_replaced_offer_is_history(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(
            data / "offers.yaml",
            "    quote: H100 容器 ¥15/时\n",
            "    quote: H100 容器 ¥15/时\n    replaces: c-4090-hour\n",
        )

    root = make_project(tmp_path, edit)
    _, problems = load_catalogue(root / "data", root)
    assert render(problems) == (
        'data/offers.yaml:81:15: offers[5].replaces: "c-4090-hour" is fixture-cloud\'s rtx-4090-24g; an offer '
        "replaces only an older price of the same provider and GPU"
    )
    replace_in(root / "data" / "offers.yaml", "replaces: c-4090-hour", "replaces: bm-h100-8")
    _, problems = load_catalogue(root / "data", root)
    assert render(problems) == (
        'data/offers.yaml:81:15: offers[5].replaces: "bm-h100-8" is dated 2026-07-01, not before this offer '
        "(2026-06-01); only an older price is replaced"
    )
    # A newer H100 container price replaces the June one: the June price becomes history.
    replace_in(root / "data" / "offers.yaml", "    replaces: bm-h100-8\n", "")
    text = (root / "data" / "offers.yaml").read_text(encoding="utf-8")
    newer = text[text.index("  - id: c-h100-hour") : text.index("  - id: old-a100-survey")]
    newer = newer.replace("c-h100-hour", "c-h100-hour-july").replace("2026-06-01", "2026-07-01")
    newer = newer.replace("price: 15", "price: 14").replace("¥15/时", "¥14/时") + "    replaces: c-h100-hour\n"
    (root / "data" / "offers.yaml").write_text(text + newer, encoding="utf-8")
    gen = generate(Project.at(root))
    cat = gen.catalogue
    assert {o.id for o in cat.history_offers} == {"old-a100-survey", "c-h100-hour"}
    opt = gen.results.scenarios["serve-7b"].rec.option_for("h100-sxm-80g")
    assert opt is not None and opt.offer is not None and opt.offer.id == "c-h100-hour-july"
    # The GPU page's price history: ¥15 x 730 = ¥10,950 -> ¥14 x 730 = ¥10,220, -6.7%.
    [series] = price_series(cat, "h100-sxm-80g", __import__("generator.engine.cost").engine.cost.pricing_of(cat))
    assert [(str(p.date), round(p.card_month)) for p in series.points] == [("2026-06-01", 10950), ("2026-07-01", 10220)]
    assert "| 2026-06-01 ¥10,950 → 2026-07-01 ¥10,220 | -7% |" in page(gen, "gpus/h100-sxm-80g.md")


def test_spot_prices_are_shown_but_never_ranked(gen: Generated) -> None:
    # The $0.10 spot offer would make serve-7b ¥0.70 x 300 + 275 = ¥485; the pick stays ¥2 x 300 + 275 = ¥875.
    opt = gen.results.scenarios["serve-7b"].rec.option_for("rtx-4090-24g")
    assert opt is not None and opt.offer is not None and opt.monthly is not None
    assert opt.offer.id == "c-4090-hour" and opt.monthly.total == pytest.approx(875)
    assert "m-4090-spot" not in {r.offer.id for r in opt.runner_ups}
    gpu_page = page(gen, "gpus/rtx-4090-24g.md")
    assert "| 抢占式 |" in gpu_page and "$0.10/时" in gpu_page  # listed among the current offers


# --------------------------------------------------------------------------- conversion, runner-ups, spreads


def test_foreign_offers_are_converted_with_the_dated_rate_the_page_names(gen: Generated) -> None:
    gpu_page = page(gen, "gpus/rtx-4090-24g.md")
    row = next(line for line in gpu_page.splitlines() if "$0.50/时" in line)
    assert "| ¥3.50 | ¥2,555 | $0.50/时 ×7.0 |" in row  # $0.50 x 7.0
    assert "原价列的“×”是折算成人民币所用的汇率中间价：1 USD = 7.0 元（2026-06-01）。" in gpu_page  # the rate's date


def test_the_shape_column_is_shown_where_an_offer_publishes_a_shape(tmp_path: Path) -> None:
    # a column of dashes took a desktop's room on every GPU and provider page that has no shapes
    def shaped(d: Path) -> None:
        replace_in(
            d / "offers.yaml",
            "    quote: RTX 4090 容器 ¥2/时\n",
            "    quote: RTX 4090 容器 ¥2/时\n    vcpu: 16\n    ram_gb: 64\n",
        )

    plain = generate(Project.at(make_project(tmp_path / "plain")))
    with_shape = generate(Project.at(make_project(tmp_path / "shaped", shaped)))
    assert "| 卡数 | 配置 |" not in page(plain, "gpus/rtx-4090-24g.md")
    gpu = page(with_shape, "gpus/rtx-4090-24g.md")
    assert "| 卡数 | 配置 | 每卡每时 |" in gpu and "| 1 | 16 vCPU · 内存 64 GB | ¥2.00 |" in gpu
    assert "| 1 | — | ¥3.50 |" in gpu  # the other offers say they published none
    assert "| 卡数 | 配置 |" in page(with_shape, "providers/fixture-cloud.md")
    assert "| 卡数 | 配置 |" not in page(with_shape, "providers/fixture-market.md")  # none of its own


def test_runner_ups_show_other_providers_for_the_same_gpu(gen: Generated) -> None:
    opt = gen.results.scenarios["serve-7b"].rec.option_for("rtx-4090-24g")
    assert opt is not None
    # Fixture Market's $0.50 = ¥3.50 an hour, and its own free egress (providers.yaml: 0 USD/GB):
    # 3.5 x 300 + 175 disk + 0 egress + 20 IP = ¥1,245.
    assert [r.offer.id for r in opt.runner_ups] == ["m-4090-usd"]
    assert [r.monthly.total for r in opt.runner_ups] == pytest.approx([1245])
    scenario = page(gen, "scenarios/serve-7b.md")
    # Ranked like the pick, by the cost per million tokens at the scenario's 4 users: ¥3.50 an hour
    # against the pick's ¥2.00 makes 1.75 x the pick's ¥0.92 = ¥1.61; one card; then the month.
    assert (
        "| [Fixture Market](../providers/fixture-market.md)：容器实例，按量 | 1 | ¥1.61 | ¥1,245 | 2026-07-01 |"
        in scenario
    )
    # One provider, one row: the pick's own provider is never a runner-up.
    assert "（本页采用）" in scenario and scenario.count("fixture-cloud.md") >= 1


def test_runner_ups_are_capped_by_the_rule(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    replace_in(root / "data" / "rules.yaml", "  runner_ups: 3 ", "  runner_ups: 0 ")
    gen = generate(Project.at(root))
    opt = gen.results.scenarios["serve-7b"].rec.option_for("rtx-4090-24g")
    assert opt is not None and opt.runner_ups == []


def test_spread_per_delivery_form_over_current_pickable_offers(gen: Generated) -> None:
    from generator.engine.cost import pricing_of

    cat = gen.catalogue
    [spread] = gpu_spreads(cat, "rtx-4090-24g", pricing_of(cat))
    # ¥1,460 and ¥2,555 a card-month (the spot offer is left out): median (1460 + 2555) / 2 = 2007.5.
    assert (spread.delivery.value, spread.count) == ("container", 2)
    assert (spread.low, spread.median, spread.high) == pytest.approx((1460, 2007.5, 2555))
    # The A100's 2025 survey is history: only the node counts.
    [a100] = gen.results.spreads["a100-sxm-80g"]
    assert (a100.delivery.value, a100.count) == ("bare_metal", 1)
    assert (a100.low, a100.high) == pytest.approx((6000, 6000))
    assert "| 容器实例 | ¥1,460 | ¥2,008 | ¥2,555 | 2 |" in page(gen, "gpus/rtx-4090-24g.md")


def test_ladder_prices_come_from_current_offers_only(gen: Generated) -> None:
    row = gen.results.ladder.set_index("id").loc["a100-sxm-80g"]
    assert (row["month_low"], row["month_high"]) == pytest.approx((6000, 6000))  # not the survey's 18,000–30,000


def test_gpu_without_current_price_says_why_without_empty_tables(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2025-06-01")  # the H100 container
    replace_in(root / "data" / "offers.yaml", "    price_low: 80000\n    price_high: 90000\n", "    price: 85000\n")
    replace_in(root / "data" / "offers.yaml", "H100 8 卡裸金属 8-9万元/月", "H100 8 卡裸金属 85,000 元/月")
    text = (root / "data" / "offers.yaml").read_text(encoding="utf-8")
    start = text.index("  - id: bm-h100-8")
    (root / "data" / "offers.yaml").write_text(text[:start] + text[text.index("  - id: c-h100-hour") :], "utf-8")
    gen = generate(Project.at(root, build_date=MINI_BUILD_DATE))
    h100 = page(gen, "gpus/h100-sxm-80g.md")
    assert "这张卡只有 180 天以前的历史报价，已过时效，不用于排名和成本计算，见下方历史报价。" in h100
    assert "### 当前报价" not in h100 and "### 市场价差" not in h100
    # 2025-06-01 to the build date 2026-07-31: 365 + 30 + 30 = 425 days
    assert "### 历史报价" in h100 and "2025-06-01（425 天前，超过 180 天时效）" in h100
    opt = gen.results.scenarios["serve-7b"].rec.option_for("h100-sxm-80g")
    assert opt is not None and opt.excluded == Exclusion(ExclusionKind.history_only, {"fresh_days": 180})
    assert explain(opt.excluded) == "这张卡只有 180 天前的历史报价，不用于排名"


# --------------------------------------------------------------------------- provider pages and open data


def test_provider_pages_list_offers_extras_and_sources(gen: Generated) -> None:
    market = page(gen, "providers/fixture-market.md")
    assert "# Fixture Market GPU 租赁价格" in market
    assert (
        "| [GeForce RTX 4090 24GB](../gpus/rtx-4090-24g.md) | ¥3.50 | ¥2,555 | 容器实例 | 按量 | $0.50/时 |" in market
    )
    assert "计费方式：按量、抢占式。交付形式：容器实例。" in market
    assert "| 出站流量 | 免费 | 2026-07-01 |" in market
    assert "## 历史报价" in market and "¥18,000–30,000/月" in market
    ld = json.loads(re.search(r"^jsonld: (.*)$", market, re.M).group(1).strip('"').encode().decode("unicode_escape"))  # type: ignore[union-attr]
    org = next(g for g in ld["@graph"] if g["@type"] == "Organization")
    assert [o["price"] for o in org["makesOffer"]] == ["2555.00", "511.00"]  # current offers, per card-month
    index = page(gen, "providers/index.md")
    assert "| [Fixture Cloud](fixture-cloud.md) | 国内 | 云厂商 | 4 | 3 | ¥2.00（GeForce RTX 4090 24GB） |" in index


def test_open_data_carries_every_field_and_the_yuan_figures(gen: Generated) -> None:
    rows = {r["id"]: r for r in json.loads(gen.files["data/offers.json"])}
    usd = rows["m-4090-usd"]
    assert (usd["currency"], usd["price"], usd["card_hour_cny"], usd["card_month_cny"]) == ("USD", 0.5, 3.5, 2555.0)
    assert (usd["fx_cny_per_unit"], usd["fx_as_of"], usd["status"]) == (7.0, "2026-06-01", "current")
    assert (usd["provider"], usd["provider_name"], usd["billing"], usd["quote"]) == (
        "fixture-market", "Fixture Market", "on_demand", "RTX 4090 $0.50/hr",
    )  # fmt: skip
    assert rows["old-a100-survey"]["status"] == "history" and rows["c-4090-hour"]["fx_as_of"] is None
    table = list(csv.DictReader(io.StringIO(gen.files["data/offers.csv"].decode("utf-8"))))
    assert set(table[0]) == set(rows["c-4090-hour"])
    assert next(r for r in table if r["id"] == "bm-h100-8")["card_month_cny"] == "10625"  # 85,000 / 8
    providers = {p["id"]: p for p in json.loads(gen.files["data/providers.json"])}
    assert providers["fixture-market"]["offers"] == ["m-4090-usd", "m-4090-spot"]
    assert providers["fixture-market"]["history_offers"] == ["old-a100-survey"]


def test_searched_pairs_get_their_page_and_phrase(gen: Generated) -> None:
    [pair] = [p for p in gen.results.pairs if p.queries]
    assert (pair.slug, pair.queries) == ("h100-sxm-80g-vs-rtx-4090-24g", ("4090 和 H100 哪个好",))
    compare = page(gen, "compare/h100-sxm-80g-vs-rtx-4090-24g.md")
    assert "常被一起搜索" in compare and "（常见搜索：“4090 和 H100 哪个好”）" in compare
    assert 'description: "4090 和 H100 哪个好？' in compare


# --------------------------------------------------------------------------- validation


def test_a_foreign_price_needs_a_rate_and_a_provider(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        (data / "fx.yaml").unlink()
        replace_in(data / "offers.yaml", "provider: fixture-cloud", "provider: fixture-clod")

    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    unknown = (
        'data/offers.yaml:3:15: offers[0].provider: unknown provider id "fixture-clod"; did you mean "fixture-cloud"?'
    )
    assert render(problems).startswith(unknown + "\n")
    replace_in(root / "data" / "offers.yaml", "provider: fixture-clod", "provider: fixture-cloud")
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    assert render(problems) == "\n".join(
        [
            "data/offers.yaml:23:15: offers[1].currency: no exchange rate for USD in fx.yaml; add a dated rate with "
            "its source so the price can be shown in yuan",
            "data/offers.yaml:36:15: offers[2].currency: no exchange rate for USD in fx.yaml; add a dated rate with "
            "its source so the price can be shown in yuan",
            "data/providers.yaml:28:19: providers[1].extras[0].currency: no exchange rate for USD in fx.yaml; add a "
            "dated rate with its source",
        ]
    )


def test_searched_pairs_are_checked(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        (data / "comparisons.yaml").write_text(
            "comparisons:\n"
            "  - a: rtx-4090-24g\n    b: h100-sxm-8g\n    query: q\n"
            "  - a: a100-sxm-80g\n    b: a100-sxm-80g\n    query: q\n"
            "  - a: h100-sxm-80g\n    b: rtx-4090-24g\n    query: q\n"
            "  - a: rtx-4090-24g\n    b: h100-sxm-80g\n    query: q2\n",
            encoding="utf-8",
        )

    root = make_project(tmp_path, edit)
    _, problems = load_catalogue(root / "data", root)
    assert render(problems) == "\n".join(
        [
            'data/comparisons.yaml:3:8: comparisons[0].b: unknown gpu id "h100-sxm-8g"; did you mean "h100-sxm-80g"?',
            'data/comparisons.yaml:6:8: comparisons[1].b: a pair needs two different GPUs; both are "a100-sxm-80g"',
            "data/comparisons.yaml:11:5: comparisons[3]: this pair is already listed at line 8; remove one",
        ]
    )
    replace_in(root / "data" / "comparisons.yaml", "h100-sxm-8g", "h100-sxm-80g")
    _, problems = load_catalogue(root / "data", root)
    assert render(problems) == "\n".join(
        [
            'data/comparisons.yaml:6:8: comparisons[1].b: a pair needs two different GPUs; both are "a100-sxm-80g"',
            "data/comparisons.yaml:8:5: comparisons[2]: this pair is already listed at line 2; remove one",
            "data/comparisons.yaml:11:5: comparisons[3]: this pair is already listed at line 2; remove one",
        ]
    )


# --------------------------------------------------------------------------- the change report


def test_change_report_groups_by_provider_and_gpu_and_counts_expired(tmp_path: Path) -> None:
    from generator.review.compare import compare

    old = generate(Project.at(make_project(tmp_path / "old")))

    def edit(data: Path) -> None:
        # Fixture Market: the USD 4090 price changes, the spot offer goes; Fixture Cloud: a newer A100 node
        # price (2026-08-01) moves the edition date, so the June-1st H100 container price
        # is still current (61 days) and nothing but a replaced offer expires: the new node replaces the old.
        replace_in(data / "offers.yaml", "    price: 0.5\n", "    price: 0.6\n")
        replace_in(data / "offers.yaml", "RTX 4090 $0.50/hr", "RTX 4090 $0.60/hr")
        text = (data / "offers.yaml").read_text(encoding="utf-8")
        spot = text[text.index("  - id: m-4090-spot") : text.index("  - id: bm-a100-8")]
        node = text[text.index("  - id: bm-a100-8") : text.index("  - id: bm-h100-8")]
        newer = node.replace("bm-a100-8", "bm-a100-8-aug").replace("2026-07-01", "2026-08-01")
        newer = newer.replace("48000", "44000").replace("48,000", "44,000") + "    replaces: bm-a100-8\n"
        (data / "offers.yaml").write_text(text.replace(spot, "") + newer, encoding="utf-8")

    new = generate(Project.at(make_project(tmp_path / "new", edit)))
    report = compare(old, new, base="HEAD", commit="0" * 40)
    prices = report.prices
    assert [(g.provider, g.gpu) for g in prices.groups] == [
        ("fixture-cloud", "a100-sxm-80g"),
        ("fixture-market", "rtx-4090-24g"),
    ]
    cloud, market = prices.groups
    # $0.50 -> $0.60 at 7.0: ¥2,555 -> 0.6 x 7 x 730 = ¥3,066 a card-month, +20.0%.
    [change] = market.changed
    assert (change.offer, change.old.card_month_cny, change.new.card_month_cny, change.change_pct) == (
        "m-4090-usd", 2555.0, 3066.0, 20.0,
    )  # fmt: skip
    assert [r.offer for r in market.removed] == ["m-4090-spot"]
    assert [r.offer for r in cloud.added] == ["bm-a100-8-aug"] and [r.offer for r in cloud.expired] == ["bm-a100-8"]
    assert (report.counts.offers_added, report.counts.offers_expired, report.counts.offers_removed) == (1, 1, 1)
    assert report.summary.startswith("1 price changed, 1 offer added, 1 offer expired, 1 offer removed, ")
