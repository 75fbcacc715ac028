"""``gpu-guide check`` lint: data that validates but is probably wrong, with exact messages.

Prices in the messages are worked by hand from tests/fixtures/mini (offers in yuan per
card-hour; the fixture's USD offer is $0.50 x 7.0, its June-1st rate, = ¥3.50).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import replace_in

from generator.cli.main import main
from generator.data.problems import render
from generator.pipeline import Project, generate
from generator.results.lint import lint, quote_states, quoted_numbers

TODAY = dt.date(2026, 8, 1)


def lint_text(root: Path, today: dt.date = TODAY) -> str:
    gen = generate(Project.at(root))
    return render(lint(gen.catalogue, gen.results, today=today))


def add_offers(root: Path, text: str) -> None:
    path = root / "data" / "offers.yaml"
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def extra_4090(oid: str, fields: str) -> str:
    return f"""  - id: {oid}
    provider: fixture-market
    gpu: rtx-4090-24g
    delivery: container
    billing: on_demand
    unit: hour
    currency: CNY
    as_of: 2026-07-01
    source: https://example.org/gpus
    source_tier: aggregator
{fields}"""


def test_mini_fixture_lints_clean(mini: Path) -> None:
    assert lint_text(mini) == ""


def test_sparse_looking_tensor_figure(mini: Path) -> None:
    replace_in(mini / "data" / "gpus.yaml", "fp16_tflops_dense: 989.4", "fp16_tflops_dense: 1978.9")
    assert lint_text(mini) == (
        "data/gpus.yaml:60:24: gpus[2].fp16_tflops_dense: warning: 1978.9 is 30x the FP32 figure; that looks like "
        "a sparse figure: halve it if the datasheet says 'with sparsity'"
    )


def test_blackwell_may_have_thirty_times_fp32(mini: Path) -> None:
    # B200: 2,250 dense FP16 against 75 FP32 (30x) is the datasheet's; the limit for Blackwell is 32x.
    replace_in(mini / "data" / "gpus.yaml", "fp16_tflops_dense: 989.4", "fp16_tflops_dense: 1978.9")
    replace_in(mini / "data" / "gpus.yaml", "architecture: Hopper", "architecture: Blackwell")
    assert lint_text(mini) == ""


def test_fp8_more_than_twice_bf16(mini: Path) -> None:
    replace_in(mini / "data" / "gpus.yaml", "fp8_tflops_dense: 330.3", "fp8_tflops_dense: 660.6")
    assert lint_text(mini) == (
        "data/gpus.yaml:17:23: gpus[0].fp8_tflops_dense: warning: FP8 (660.6) is more than twice BF16 (165.2); "
        "check for a sparse figure"
    )


def test_bandwidth_that_does_not_fit_the_memory_type(mini: Path) -> None:
    replace_in(mini / "data" / "gpus.yaml", "memory_bandwidth_gbps: 2039", "memory_bandwidth_gbps: 600")
    assert lint_text(mini) == (
        "data/gpus.yaml:34:28: gpus[1].memory_bandwidth_gbps: warning: 600 GB/s does not fit HBM2e (700-10000 GB/s "
        "per card); is this the NVLink bandwidth?"
    )
    # The V100's HBM2 at 900 GB/s is real: the floor is the P100's 732.
    replace_in(mini / "data" / "gpus.yaml", "memory_bandwidth_gbps: 600", "memory_bandwidth_gbps: 900")
    assert lint_text(mini) == ""


def test_future_price_is_an_error(mini: Path) -> None:
    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-07-01", "as_of: 2026-09-01")
    assert lint_text(mini) == "data/offers.yaml:11:12: offers[0].as_of: date is in the future"


def test_prices_pages_still_use_are_stale_after_the_window(mini: Path) -> None:
    # On 2026-12-29 the fixture's July-1st prices are 181 days old (30 + 31 + 30 + 31 + 30 + 29 days
    # from July 1st), the June-1st H100 container price 211. Flagged: only the offers the pages rank and
    # price with. Not flagged: the spot offer (shown, never ranked) and the 2025 survey (already history).
    old = "and pages still rank and price with it; check it and update as_of, or add a newer price"
    assert lint_text(mini, dt.date(2026, 12, 29)) == "\n".join(
        [
            f"data/offers.yaml:11:12: offers[0].as_of: warning: price is 181 days old on 2026-12-29 (over 180) {old}",
            f"data/offers.yaml:24:12: offers[1].as_of: warning: price is 181 days old on 2026-12-29 (over 180) {old}",
            f"data/offers.yaml:50:12: offers[3].as_of: warning: price is 181 days old on 2026-12-29 (over 180) {old}",
            f"data/offers.yaml:64:12: offers[4].as_of: warning: price is 181 days old on 2026-12-29 (over 180) {old}",
            f"data/offers.yaml:77:12: offers[5].as_of: warning: price is 211 days old on 2026-12-29 (over 180) {old}",
        ]
    )


def test_quote_must_state_the_price(mini: Path) -> None:
    replace_in(mini / "data" / "offers.yaml", "quote: RTX 4090 容器 ¥2/时", "quote: RTX 4090 容器 ¥2.2/时")
    assert lint_text(mini) == (
        "data/offers.yaml:14:12: offers[0].quote: warning: the quote does not state the price 2; copy the source's "
        "words that give it (thousands separators and 万 are understood), or fix the price"
    )


def test_quoted_numbers_understand_separators_ranges_and_wan() -> None:
    assert quoted_numbers("A100 8 卡裸金属 48,000 元/月") == [8, 48000]
    assert quoted_numbers("H100 8 卡 8-9万元/月") == [8, 80000, 90000]
    assert quoted_numbers("| 1.8-3万元 |") == [18000, 30000]
    assert quote_states("月租8.7万元/台/月", 87000)
    assert quote_states("**10.50** 元", 10.5)
    assert not quote_states("¥1.96/时", 1.9)


def test_price_outlier(mini: Path) -> None:
    # The 4090's current on-demand offers per card-hour: ¥2, ¥3.50 and the added ¥20 -> median ¥3.50;
    # ¥20 is 20 / 3.5 = 5.7x of it.
    add_offers(mini, extra_4090("dear", "    cards: 1\n    price: 20\n    quote: ¥20/时\n"))
    assert lint_text(mini) == (
        "data/offers.yaml:95:5: offers[7]: warning: ¥20.00 per card-hour is 5.7x the median ¥3.50 of the 3 current "
        "on_demand offers for rtx-4090-24g; check price, unit, per and currency (once checked against the source, "
        "say why in outlier_note)"
    )
    add_offers(mini, "    outlier_note: 公有云官网价，已核对来源\n")
    assert lint_text(mini) == ""


def test_per_instance_price_that_looks_per_card(mini: Path) -> None:
    # ¥2 an hour for 8 cards is ¥0.25 a card-hour; the group (¥2, ¥3.50, ¥0.25) has median ¥2:
    # 0.25 x 3 = 0.75 < 2, and 0.25 x 8 = ¥2 fits the median, so the price is probably one card's.
    add_offers(mini, extra_4090("eight", "    cards: 8\n    price: 2\n    quote: ¥2/时\n"))
    assert lint_text(mini) == (
        "data/offers.yaml:95:5: offers[7].per: warning: ¥0.25 per card-hour for 8 cards is far under the median "
        "¥2.00 of the 3 current on_demand offers for rtx-4090-24g, and fits it as one card's price; is the price "
        "for one card? then set per: card"
    )


def test_per_card_price_that_looks_per_instance(mini: Path) -> None:
    # per: card at ¥16 is ¥16 a card-hour: the group (¥2, ¥3.50, ¥16) has median ¥3.50, 16 > 3 x 3.5,
    # and 16 / 8 = ¥2 fits the median, so ¥16 is probably the whole instance's price.
    add_offers(mini, extra_4090("eight", "    cards: 8\n    per: card\n    price: 16\n    quote: ¥16/卡时\n"))
    assert lint_text(mini) == (
        "data/offers.yaml:106:10: offers[7].per: warning: ¥16.00 per card-hour is far over the median ¥3.50 of the "
        "3 current on_demand offers for rtx-4090-24g, and fits it as the whole instance's price; is the price for "
        "all 8 cards? then remove per: card"
    )


def test_provider_without_sourced_extras_is_a_notice(mini: Path) -> None:
    path = mini / "data" / "providers.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index("    extras:\n      - item: egress")], encoding="utf-8")
    assert lint_text(mini) == (
        "data/providers.yaml:20:5: providers[1]: notice: Fixture Market: no sourced price for disk, traffic or "
        "public IP; its page says the assumed prices in rules.yaml apply. Add extras with a source when you find them"
    )


def test_check_strict_fails_on_warnings_and_annotates_on_request(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator.pipeline import build

    build(Project.at(mini), site=False)
    replace_in(mini / "data" / "gpus.yaml", "fp8_tflops_dense: 330.3", "fp8_tflops_dense: 660.6")
    build(Project.at(mini), site=False)
    assert main(["--root", str(mini), "check"]) == 0
    capsys.readouterr()
    assert main(["--root", str(mini), "check", "--strict"]) == 1
    plain = capsys.readouterr().err.splitlines()
    line = (
        "data/gpus.yaml:17:23: gpus[0].fp8_tflops_dense: warning: FP8 (660.6) is more than twice BF16 (165.2); "
        "check for a sparse figure"
    )
    annotation = (
        "::warning file=data/gpus.yaml,line=17,col=23::gpus[0].fp8_tflops_dense: FP8 (660.6) is more than twice "
        "BF16 (165.2); check for a sparse figure"
    )
    assert line in plain and annotation not in plain
    assert main(["--root", str(mini), "check", "--strict", "--format", "github"]) == 1
    github = capsys.readouterr().err.splitlines()
    assert line in github and annotation in github


def test_price_age_is_configurable(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from generator.pipeline import build

    build(Project.at(mini), site=False)
    gen = generate(Project.at(mini))
    later = dt.date(2026, 12, 29)
    assert lint(gen.catalogue, gen.results, today=later, max_price_age_days=500) == []
    main(["--root", str(mini), "check", "--as-of", "2026-12-29", "--max-price-age", "100000"])
    assert "days old" not in capsys.readouterr().err
    main(["--root", str(mini), "check", "--as-of", "2026-12-29"])
    assert "price is 181 days old on 2026-12-29" in capsys.readouterr().err


def test_an_offer_only_the_cuda_default_rules_out_is_still_usable(mini: Path) -> None:
    """An AMD card every page rules out by rules.yaml's require_cuda default is one a reader can rent
    (the calculator's and the CLI's --no-require-cuda): its offers are not dead. A card no workload
    fits even then is."""
    gpus = mini / "data" / "gpus.yaml"
    dead = "no recommendation can use this offer (h100-sxm-80g is never an eligible option"
    replace_in(gpus, "name: H100 80GB SXM\n    vendor: NVIDIA", "name: H100 80GB SXM\n    vendor: AMD")
    replace_in(gpus, "    compute_capability: 9.0\n", "")  # CUDA's numbering is NVIDIA's only
    gen = generate(Project.at(mini))
    assert not any(
        o.gpu.id == "h100-sxm-80g" and o.eligible for r in gen.results.scenarios.values() for o in r.rec.options
    )
    assert dead not in lint_text(mini)
    replace_in(gpus, "    domestic: false\n    memory_gb: 80\n    memory_type: HBM3\n    memory_bandwidth_gbps: 3350",
               "    domestic: false\n    memory_gb: 0.5\n    memory_type: HBM3\n    memory_bandwidth_gbps: 3350")  # fmt: skip
    assert dead in lint_text(mini)
