"""Shapes as sold: a GPU a provider rents only as whole nodes (providers.yaml node_only) cannot be
filed as a 1-card rental, and a per-card price that rises with the card count is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, REPO, replace_in

from generator.data.problems import DataError, Severity
from generator.data.validate import load_catalogue
from generator.pipeline import Project, generate

NODE_ONLY = """    url: https://example.com
    node_only:
      - gpu: h100-sxm-80g
        cards: 8
        source: https://example.com/shapes
        quote: H100 SXM 只按 8 卡整机出租
"""


def test_one_card_rental_of_a_node_only_gpu_is_refused_with_its_line(mini: Path) -> None:
    """Fixture Cloud's H100 container (cards: 1, line of `cards` in offers.yaml) against its
    8-card-only H100 SXM."""
    replace_in(mini / "data" / "providers.yaml", "    url: https://example.com\n", NODE_ONLY)
    text = (mini / "data" / "offers.yaml").read_text(encoding="utf-8")
    start = text.index("  - id: c-h100-hour")
    line = text[: text.index("    cards: 1", start)].count("\n") + 1
    with pytest.raises(DataError) as got:
        generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    [p] = [p for p in got.value.problems if "only as 8-card nodes" in p.message]
    assert (p.file, p.line, p.path) == ("data/offers.yaml", line, "offers[5].cards")
    assert "providers.yaml line 8" in p.message and "cards: 8 with per: card" in p.message


def test_the_node_itself_passes(mini: Path) -> None:
    """The 8-card H100 bare-metal node of the same provider is what it sells: no problem once the
    1-card offer is gone."""
    replace_in(mini / "data" / "providers.yaml", "    url: https://example.com\n", NODE_ONLY)
    replace_in(mini / "data" / "offers.yaml", "  - id: c-h100-hour\n    provider: fixture-cloud\n    gpu: h100-sxm-80g\n"
               "    cards: 1\n", "  - id: c-h100-hour\n    provider: fixture-cloud\n    gpu: h100-sxm-80g\n"
               "    cards: 8\n    per: card\n")  # fmt: skip
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None and not [p for p in problems if "node" in p.message]


def test_per_card_price_rising_with_cards_is_flagged_until_a_shape_note(mini: Path) -> None:
    """A 2-card H100 container at ¥40/hour is ¥20 a card, above the 1-card ¥15: a warning at the
    2-card offer; a shape_note (checked against the source) silences it."""
    extra = """  - id: c-h100-2x-hour
    provider: fixture-cloud
    gpu: h100-sxm-80g
    cards: 2
    delivery: container
    billing: on_demand
    unit: hour
    price: 40
    currency: CNY
    as_of: 2026-06-01
    source: https://example.com/prices
    source_tier: provider_page
    quote: H100 容器 2 卡 ¥40/时
"""
    path = mini / "data" / "offers.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  - id: old-a100-survey", extra + "  - id: old-a100-survey"), encoding="utf-8")
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None
    [w] = [p for p in problems if "per card" in p.message]
    assert w.severity is Severity.warning and w.path == "offers[6]"
    assert "2 cards cost 20 CNY per card per hour, more than the 1-card instance c-h100-hour (15)" in w.message
    path.write_text(path.read_text(encoding="utf-8").replace(
        "    quote: H100 容器 2 卡 ¥40/时\n", "    quote: H100 容器 2 卡 ¥40/时\n    shape_note: 源页面如此，含双倍内存\n"),
        encoding="utf-8")  # fmt: skip
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None and not [p for p in problems if "per card" in p.message]


def test_bundled_node_only_products_are_nodes() -> None:
    """Together rents H100/H200 SXM in multiples of 8 (its API docs); the bundled offers say so."""
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None and not [p for p in problems if "only as" in p.message or "per card" in p.message]
    together = {o.id: o for o in cat.offers if o.provider == "together"}
    assert {(o.gpu, o.cards, o.per.value) for o in together.values()} == {
        ("h100-sxm-80g", 8, "card"), ("h200-sxm-141g", 8, "card")}  # fmt: skip


def test_an_offer_without_its_shape_is_refused(mini: Path) -> None:
    """Every offer states its shape as sold: the cards in one rented instance has no default, so an offer
    that leaves it out is refused at the offer, not filed as a 1-card rental."""
    text = (mini / "data" / "offers.yaml").read_text(encoding="utf-8")
    start = text.index("  - id: c-h100-hour")
    at = text.index("    cards: 1\n", start)
    (mini / "data" / "offers.yaml").write_text(text[:at] + text[at + len("    cards: 1\n") :], encoding="utf-8")
    with pytest.raises(DataError) as got:
        generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    [p] = [p for p in got.value.problems if p.path.startswith("offers[5]")]
    assert p.severity is Severity.error and "cards" in (p.path + p.message)


def test_prices_converted_at_a_much_older_rate_get_a_notice_at_that_rate(mini: Path) -> None:
    """The mini data's two USD offers (m-4090-usd, m-4090-spot) are dated 2026-07-01 and converted at the
    2026-06-01 rate: 30 days, the limit, so no notice. Moved to 2026-05-31 the rate is 31 days older than
    both prices: one notice at that rate's as_of (fx.yaml line 4), naming 2 offers and 31 days."""
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None and not [p for p in problems if "shown in yuan" in p.message]
    replace_in(mini / "data" / "fx.yaml", "    as_of: 2026-06-01\n", "    as_of: 2026-05-31\n")
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None
    [n] = [p for p in problems if "shown in yuan" in p.message]
    assert (n.file, n.line, n.path, n.severity) == ("data/fx.yaml", 4, "rates[0].as_of", Severity.notice)
    assert n.message.startswith("2 current USD offers (dated 2026-07-01 to 2026-07-01) are shown in yuan at this "
                                "rate of 2026-05-31, 31 to 31 days older than their prices")  # fmt: skip
