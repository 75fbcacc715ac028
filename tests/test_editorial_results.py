"""The editorial results (claims, rent or buy, buyers, trends, the explainer) on the mini
fixture, against numbers derived by hand from tests/fixtures/mini/data.

Fixture figures used below: RTX 4090 165.2 dense TFLOPS, 450 W, offer ¥2/hour (2026-07-01);
A100 SXM 312 TFLOPS, 2,039 GB/s, offer ¥48,000/month for 8 cards (2026-07-01); H100 SXM
989.4 TFLOPS, 3,350 GB/s, 700 W, offers ¥80,000-90,000/month for 8 cards (2026-07-01) and
¥15/hour (2026-06-01). rules.yaml: 730 hours a month, prices current for 180 days, PCIe
scaling 60% at 8 cards, NVLink 90%.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.data.editorial import Tolerance
from generator.data.records import LinkTopology
from generator.pages.names import reader_ids, reader_text, variant
from generator.pipeline import Generated, Project, generate
from generator.results.claims import Verdict, closeness
from generator.results.ownership import default_inputs, ownership_rows, unrented_purchases


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(Project.at(make_project(tmp_path_factory.mktemp("editorial"))))


def claim(gen: Generated, claim_id: str):  # type: ignore[no-untyped-def]
    return next(c for c in gen.results.claims if c.claim.id == claim_id)


# --------------------------------------------------------------------------- claims


def test_closeness_bands() -> None:
    tol = Tolerance(holds=0.15, partly=0.35)
    assert closeness(115, 100, tol) is Verdict.holds  # 15% off: the edge still holds
    assert closeness(80, 100, tol) is Verdict.partly  # 20%
    assert closeness(64, 100, tol) is Verdict.fails  # 36%


def test_sparse_figure_against_a_dense_one(gen: Generated) -> None:
    r = claim(gen, "h100-six-times")
    # 989.4 / 312 = 3.171 against 6: 47% off -> fails; 1979 / 989.4 = 2.0 -> the sparse figure.
    assert r.verdict is Verdict.fails
    assert r.computed == pytest.approx(989.4 / 312)
    assert "稀疏算力" in r.explanation and "6.3 倍" in r.explanation  # 1979 / 312 = 6.34
    assert ("同口径（稠密对稠密）之比", "3.2 倍") in [(f.label, f.value) for f in r.figures]


def test_price_ratio_uses_the_cheapest_current_card_month(gen: Generated) -> None:
    r = claim(gen, "a100-sixty-percent")
    # A100: 48,000 / 8 = 6,000; H100: min(80,000 / 8, 15 x 730) = min(10,000, 10,950) = 10,000.
    assert r.computed == pytest.approx(0.6)
    assert r.verdict is Verdict.holds


def test_price_ratio_without_a_current_price_cannot_be_checked(tmp_path: Path) -> None:
    def edit(data: Path) -> None:  # the A100's only offer, 2 years before the newest price
        replace_in(data / "offers.yaml", "price: 48000\n    currency: CNY\n    as_of: 2026-07-01",
                   "price: 48000\n    currency: CNY\n    as_of: 2024-07-01")  # fmt: skip

    gen = generate(Project.at(make_project(tmp_path, edit)))
    r = claim(gen, "a100-sixty-percent")
    assert r.verdict is Verdict.unknown and r.computed is None
    # The rent-or-buy page lists a purchase of a GPU without a current price apart (none here:
    # both fixture purchases are H100 and RTX 4090, whose prices are current).
    assert unrented_purchases(gen.catalogue) == []


def test_price_ratio_compares_like_with_like(tmp_path: Path) -> None:
    """An 8-card monthly lease is never divided by an hourly container price: with the H100's monthly
    node gone, the A100 (monthly bare metal only) and the H100 (hourly container only) share no basis."""

    def edit(data: Path) -> None:
        replace_in(data / "offers.yaml", "    billing: monthly\n    unit: month\n    price_low: 80000",
                   "    billing: spot\n    unit: month\n    price_low: 80000")  # fmt: skip

    gen = generate(Project.at(make_project(tmp_path, edit)))
    r = claim(gen, "a100-sixty-percent")
    assert r.verdict is Verdict.unknown and r.computed is None
    assert "同口径" in r.explanation and "包月裸金属整机" in r.explanation and "按量容器或云服务器" in r.explanation
    # with both monthly nodes the basis is named beside each price
    base = claim(generate(Project.at(make_project(tmp_path / "base"))), "a100-sixty-percent")
    assert any("包月裸金属整机" in f.label for f in base.figures)


def test_price_ratio_that_differs_by_basis_only_partly_holds(tmp_path: Path) -> None:
    """Every like-for-like basis counts, not whichever the catalogue lists first. Add an A100 container at
    ¥3 an hour: on demand (first in the bases' order) it is 3 / 15 = 0.2 of the H100 container (67% off
    0.6: fails), while the monthly bare-metal nodes still give 6,000 / 10,000 = 0.6 (holds). The claim
    then partly holds, and the explanation names the other basis's ratio (60%)."""

    def edit(data: Path) -> None:
        replace_in(
            data / "offers.yaml",
            "  - id: old-a100-survey\n",
            "  - id: c-a100-hour\n    provider: fixture-cloud\n    gpu: a100-sxm-80g\n    cards: 1\n"
            "    delivery: container\n    billing: on_demand\n    unit: hour\n    price: 3\n    currency: CNY\n"
            "    as_of: 2026-06-01\n    source: https://example.com/prices\n    source_tier: provider_page\n"
            "    quote: A100 容器 ¥3/时\n  - id: old-a100-survey\n",
        )

    r = claim(generate(Project.at(make_project(tmp_path, edit))), "a100-sixty-percent")
    assert r.computed == pytest.approx(3 / 15)
    assert r.verdict is Verdict.partly
    assert "包月裸金属整机约为 60%" in r.explanation and "部分成立" in r.explanation


def test_price_rank_by_yuan_per_dense_tflop_hour(gen: Generated) -> None:
    r = claim(gen, "rtx-4090-best-value")
    # 4090: 2 / 165.2 = 0.0121; H100: 10,000 / 730 / 989.4 = 0.0138; A100: 6,000 / 730 / 312 = 0.0263.
    assert r.verdict is Verdict.holds and r.computed == 1
    assert "共 3 款有报价" in r.figures[0].value


def test_spec_value_and_its_tolerance(gen: Generated) -> None:
    r = claim(gen, "h100-650w")
    assert r.computed == 700 and r.verdict is Verdict.holds  # 700 / 650 = 1.077: within 15%


def test_spec_value_of_an_unconfirmed_figure_is_unknown(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "gpus.yaml", "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306",
                   "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306\n"
                   "    unconfirmed: [tdp_w]")  # fmt: skip

    r = claim(generate(Project.at(make_project(tmp_path, edit))), "h100-650w")
    assert r.verdict is Verdict.unknown
    assert "没有厂商数据表确认" in r.explanation


def test_scaling_the_site_only_assumes_is_unknown(gen: Generated) -> None:
    r = claim(gen, "pcie-sixty")
    assert r.verdict is Verdict.unknown
    assert r.computed == pytest.approx(0.6)  # rules.yaml speed.scaling.pcie at 8 cards
    assert [f.value for f in r.figures] == ["60%", "100%"]  # speed.scaling.nvlink: 1.0 from 2 cards up
    assert "假设" in r.explanation


def test_memory_claim_that_counts_only_weights(gen: Generated) -> None:
    r = claim(gen, "full-13b-26gb")
    # 13.02B parameters x 2 bytes = 26.04 GB: the 16-bit weights alone. Full fine-tuning with
    # AdamW keeps 16 bytes a parameter (ZeRO paper) = 208 GB before activations: far above.
    assert r.verdict is Verdict.fails
    assert r.computed is not None and r.computed > 208
    assert ("只算 16 位权重（13.02B × 2 字节）", "26.0 GB") in [(f.label, f.value) for f in r.figures]
    assert "梯度" in r.explanation and "优化器状态" in r.explanation


def test_card_fits_partly(gen: Generated) -> None:
    r = claim(gen, "rtx-4090-7b-13b")
    # Llama-2-13B weights alone: 13.02e9 x 2 bytes = 24.25 GiB > a 24 GB card; 7B: 12.6 GiB fits.
    assert r.verdict is Verdict.partly and r.computed == 0.5
    assert [f.value for f in r.figures] == ["1 张", "2 张"]


def test_fit_share_over_scenarios_and_model_pages(gen: Generated) -> None:
    r = claim(gen, "a100-covers-all")
    # 2 scenarios + 2 LLMs x 4 model pages = 10 workloads; the largest, 13B full fine-tuning at
    # ~16 bytes a parameter (208 GB), spreads over 8 x 80 GB with ZeRO-3: every one fits.
    assert [f.value for f in r.figures] == ["2 / 2 个装得下", "8 / 8 个装得下", "100%"]
    assert r.verdict is Verdict.holds


# --------------------------------------------------------------------------- rent or buy


def test_owning_against_renting_by_hand(gen: Generated) -> None:
    rows = {r.purchase.id: r for r in gen.results.ownership}
    # 12 hours a day x 730 / 24 = 365 hours a month.
    h100 = rows["h100-server"]
    assert h100.price_per_card == 300_000  # 2,400,000 / 8
    assert h100.own.depreciation == pytest.approx(300_000 * 0.8 / 36)  # 6,666.67
    assert h100.own.power == pytest.approx(0.7 * 1.5 * 365 * 0.5)  # 191.625
    assert h100.own.hosting == pytest.approx(0.7 * 200)  # 140
    # Hourly ¥15 x 365 = 5,475 beats the monthly 85,000 / 8 = 10,625 (mid of the range).
    assert h100.rent == pytest.approx(5475) and h100.rent_offer.id == "c-h100-hour"
    assert h100.break_even == pytest.approx(300_000 / (5475 - 191.625 - 140))  # 58.3 months
    assert h100.cheaper == "rent"  # 6,998 a month owned against 5,475 rented
    card = rows["rtx-4090-card"]
    assert card.own.total == pytest.approx(12999 * 0.8 / 36 + 0.45 * 1.5 * 365 * 0.5 + 0.45 * 200)  # 502.05
    assert card.rent == pytest.approx(2 * 365)
    assert card.break_even == pytest.approx(12999 / (730 - 123.1875 - 90))  # 25.2 months
    assert card.cheaper == "own"


def test_all_day_use_switches_to_the_monthly_offer(gen: Generated) -> None:
    assert gen.catalogue.ownership is not None
    inputs = replace(default_inputs(gen.catalogue.ownership), hours_per_day=24)
    h100 = next(r for r in ownership_rows(gen.catalogue, inputs) if r.purchase.id == "h100-server")
    # 24 hours: hourly 15 x 730 = 10,950 > monthly 10,625.
    assert h100.rent == pytest.approx(10625) and h100.rent_offer.id == "bm-h100-8"


def test_never_breaks_even_when_running_costs_exceed_the_rent(gen: Generated) -> None:
    assert gen.catalogue.ownership is not None
    inputs = replace(default_inputs(gen.catalogue.ownership), electricity_cny_per_kwh=10)
    card = next(r for r in ownership_rows(gen.catalogue, inputs) if r.purchase.id == "rtx-4090-card")
    # Power alone: 0.45 x 1.5 x 365 x 10 = 2,463.75 > the rent of 730.
    assert card.break_even is None


def test_the_answer_is_checked_over_the_quoted_electricity_range(tmp_path: Path) -> None:
    """The page uses the typical price (defaults.electricity) and says whether each row's answer holds
    between the lowest and the highest price the file quotes. Mini fixture plus a 2.0 yuan/kWh entry, by
    hand: the RTX 4090 card owned costs 12,999 x 0.8 / 36 + 0.45 kW x 200 + 0.45 x 1.5 x 365 h x price
    = 378.87 + 246.375 x price: 502.05 at 0.5 (below the 730 rent: buy), 871.62 at 2.0 (rent). The H100
    server is dearer to own at either end (6,998 at 0.5 against a 5,475 rent), so its answer holds."""

    def edit(data: Path) -> None:
        replace_in(
            data / "ownership.yaml",
            "pue:\n",
            "  - id: two-yuan\n    label: 测试高电价\n    value: 2.0\n    as_of: 2026-01-01\n"
            '    source: https://example.com/power2\n    quote: "电价 2 元/千瓦时"\npue:\n',
        )

    gen = generate(Project.at(make_project(tmp_path, edit)))
    rows = {r.purchase.id: r for r in gen.results.ownership}
    card, h100 = rows["rtx-4090-card"], rows["h100-server"]
    assert card.own.total == pytest.approx(502.05, abs=0.01) and card.cheaper == "own"
    assert card.cheaper_over_range == ("own", "rent") and not card.verdict_holds
    assert h100.cheaper_over_range == ("rent", "rent") and h100.verdict_holds
    page = gen.files["rent-or-buy.md"].decode()
    assert "典型 0.500 元/kWh（下方各条报价从 0.500 到 2.000 元/kWh）" in page
    assert "GeForce RTX 4090 24GB（单卡：最低电价时买更省，最高电价时租更省）" in page


def test_without_ownership_file_there_is_no_table(tmp_path: Path) -> None:
    gen = generate(Project.at(make_project(tmp_path, lambda data: (data / "ownership.yaml").unlink())))
    assert gen.results.ownership == []
    assert "数据中还没有买价" in gen.files["rent-or-buy.md"].decode()


# --------------------------------------------------------------------------- buyers, trends, explainer


def test_buyer_rows_are_the_computed_recommendations(gen: Generated) -> None:
    (b,) = gen.results.buyers
    scen = gen.results.scenarios["serve-7b"].rec
    page = next(m for m in gen.results.models if m.slug == "llama-2-13b-inference").rec
    assert [r.rec for r in b.rows] == [scen, page]
    picked = [r.pick.gpu.id for r in b.rows if r.pick]
    assert sum(n for _, n in b.most_picked) == len(picked)
    for a in b.article:
        assert a.picked == picked.count(a.gpu.id)
        assert a.picked <= a.eligible <= len(b.rows)


def test_trends_in_date_order_with_price_moves(gen: Generated) -> None:
    t = gen.results.trends
    assert [f.id for f in t.facts] == ["earlier", "later"]
    assert [(y.year, y.max_bandwidth_gbps) for y in t.years] == [(2020, 2039), (2022, 3350)]
    # The RTX 4090 is quoted on one date only. A100: the 2025-06-30 survey (18,000 per card-month, the low
    # end; history) against the current 8-card machine, 48,000 / 8 = 6,000. H100: its oldest price,
    # 2026-06-01, 15 x 730 = 10,950, against the cheapest current one, 80,000 / 8 = 10,000 (low end).
    moves = {m.gpu.id: m for m in t.moves}
    assert sorted(moves) == ["a100-sxm-80g", "h100-sxm-80g"]
    a100, h100 = moves["a100-sxm-80g"], moves["h100-sxm-80g"]
    assert (a100.old.offer.id, a100.new.offer.id) == ("old-a100-survey", "bm-a100-8")
    assert (a100.old.cny, a100.new.cny) == pytest.approx((18000, 6000))
    assert (h100.old.offer.id, h100.new.offer.id) == ("c-h100-hour", "bm-h100-8")
    assert (h100.old.cny, h100.new.cny) == pytest.approx((10950, 10000))
    assert h100.change == pytest.approx(10000 / 10950 - 1)
    assert t.domestic == []


def test_explainer_numbers(gen: Generated) -> None:
    m = gen.results.metrics
    assert m.model.id == "llama-2-7b"  # the model of the fixture's only inference scenario
    rows = {r.precision.value: r for r in m.precisions}
    assert rows["int8"].weights_gb == pytest.approx(6.74 * 8.25 / 8)  # 8.25 bits from rules.yaml
    assert rows["fp8"].gpus_with_figure == 2  # the A100 has no FP8 figure
    assert rows["int4"].gpus_with_figure is None and "mixed" not in rows
    assert m.sparse is not None
    assert (m.sparse.gpu.id, m.sparse.dense, m.sparse.sparse, m.sparse.stated) == ("h100-sxm-80g", 989.4, 1978.8, 1979)
    ceiling = {b.gpu.id: b.ceiling_tokens_per_s for b in m.bandwidth}
    assert ceiling["h100-sxm-80g"] == pytest.approx(3350 / 13.48)  # 6.74B x 2 bytes = 13.48 GB
    assert [b.gpu.id for b in m.bandwidth] == ["h100-sxm-80g", "a100-sxm-80g", "rtx-4090-24g"]
    power = {p.gpu.id: p for p in m.power}
    assert power["h100-sxm-80g"].kwh_month == pytest.approx(0.7 * 730)
    assert power["h100-sxm-80g"].cny_month == pytest.approx(0.7 * 730 * 1.5 * 0.5)
    # the fixture's HGX cards are NVSwitch boards, the 4090 has no scale-up link (most bandwidth first)
    assert [(row.gpu.id, row.gpu.topology) for row in m.links] == [
        ("h100-sxm-80g", LinkTopology.nvswitch), ("a100-sxm-80g", LinkTopology.nvswitch), ("rtx-4090-24g", None)]  # fmt: skip


# --------------------------------------------------------------------------- reader copy


def test_reader_text_replaces_precision_values() -> None:
    assert (
        reader_text("全参训练，mixed 精度：权重按 bf16 存储")
        == "全参训练，混合精度（BF16 计算 + FP32 主权重）：权重按 BF16 存储"
    )
    assert reader_text("q4_k_m 文件") == "GGUF Q4_K_M 文件"
    assert reader_text("mixed_precision 与 xbf16") == "mixed_precision 与 xbf16"  # only whole words


def test_reader_ids_whole_words_longest_first() -> None:
    names = {"rtx-4090-24g": "RTX 4090 24GB", "rtx-4090-24g-pro": "RTX 4090 Pro", "container": "容器实例"}
    assert reader_ids("编辑推荐 rtx-4090-24g-pro，规则给出 rtx-4090-24g（container）", names) == (
        "编辑推荐 RTX 4090 Pro，规则给出 RTX 4090 24GB（容器实例）"
    )


def test_variant_is_stable_per_key_and_varies_across_keys() -> None:
    options = ("一", "二", "三")
    assert variant(options, "h100") == variant(options, "h100")
    assert len({variant(options, f"gpu-{i}") for i in range(30)}) == 3
