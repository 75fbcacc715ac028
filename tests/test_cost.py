"""Step 4: normalising offers and pricing a month. Expected figures worked by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from generator.data.records import Delivery, Offer
from generator.data.rules import CostRules
from generator.engine import cost

RULES = CostRules(
    hours_per_month=730,
    disk_cny_per_gb_month=0.5,
    egress_cny_per_gb=1.0,
    public_ip_cny_month=20,
    assumptions_confirmed=False,
)


def offer(**kw) -> Offer:  # type: ignore[no-untyped-def]
    base = dict(id="o", gpu="g", delivery="container", cards=1, unit="hour", as_of=dt.date(2026, 7, 1),
                provider="p", source="https://example.com/")  # fmt: skip
    base.update(kw)
    return Offer.model_validate(base)


def test_hourly_offer_bills_used_hours_only() -> None:
    o = offer(price_cny=1.96)
    m = cost.monthly_cost(o, 1, cost.Usage(200, 100, 10, True), RULES)
    assert m.billing is cost.BillingMode.by_use
    assert m.gpu_rent == pytest.approx(392.0)  # 1.96 * 200
    assert m.disk == 50 and m.egress == 10 and m.public_ip == 20
    assert m.total == pytest.approx(472.0)
    assert m.idle_rent == pytest.approx(0.0)
    assert m.non_gpu_share == pytest.approx(80 / 472)


def test_monthly_whole_node_is_paid_in_full_even_for_two_cards() -> None:
    node = offer(delivery="bare_metal", cards=8, price_cny=84480, unit="month")
    m = cost.monthly_cost(node, 2, cost.Usage(365, 0, 0, False), RULES)
    assert m.instances == 1 and m.cards_rented == 8
    assert m.gpu_rent == 84480
    assert m.idle_rent == pytest.approx(84480 * 0.5)  # half the month unused


def test_sixteen_cards_need_two_nodes() -> None:
    node = offer(delivery="bare_metal", cards=8, price_cny=84480, unit="month")
    assert cost.instances_needed(node, 16) == 2
    assert cost.instances_needed(node, 9) == 2
    assert cost.monthly_cost(node, 16, cost.Usage(730, 0, 0, True), RULES).public_ip == 40


def test_daily_offer_bills_started_days() -> None:
    o = offer(price_cny=48, unit="day")
    m = cost.monthly_cost(o, 1, cost.Usage(25, 0, 0, False), RULES)
    assert m.gpu_rent == pytest.approx(96.0)  # two started days
    assert m.idle_rent == pytest.approx(46.0)  # 23 unused hours at 2/h


def test_card_prices_from_instance_and_range() -> None:
    node = offer(delivery="bare_metal", cards=8, price_cny=7920, unit="month")
    assert cost.card_month_cny(node, RULES) == pytest.approx(990.0)
    ranged = offer(price_low_cny=6000, price_high_cny=9000, unit="month")
    assert cost.card_month_cny(ranged, RULES) == pytest.approx(7500.0)
    assert cost.card_hour_cny(offer(price_cny=1.96), RULES) == pytest.approx(1.96)


def test_job_cost_is_pro_rata() -> None:
    node = offer(delivery="bare_metal", cards=8, price_cny=73000, unit="month")
    assert cost.job_cost_cny(node, cards=8, hours=73, rules=RULES) == pytest.approx(7300.0)


def test_matching_offers_falls_back_to_unspecified() -> None:
    a = offer(id="a", delivery="container", price_cny=2)
    b = offer(id="b", delivery="unspecified", price_low_cny=1000, price_high_cny=2000, unit="month")
    node = offer(id="n", delivery="bare_metal", cards=8, price_cny=9600, unit="month")
    assert cost.matching_offers([a, b], "g", Delivery.container) == ([a], False)
    assert cost.matching_offers([a, b], "g", Delivery.bare_metal) == ([b], True)
    assert cost.matching_offers([a, b], "other", Delivery.container) == ([], True)
    # A container workload may run on a whole bare-metal machine; never the other way round.
    assert cost.matching_offers([node], "g", Delivery.container) == ([node], True)
    assert cost.matching_offers([a], "g", Delivery.bare_metal) == ([], True)


def test_cheapest_picks_hourly_for_light_use_and_monthly_for_heavy_use() -> None:
    hourly = offer(id="h", price_cny=2.0)
    monthly = offer(id="m", price_cny=1000, unit="month")
    light = cost.cheapest([hourly, monthly], 1, cost.Usage(200, 0, 0, False), RULES)
    heavy = cost.cheapest([hourly, monthly], 1, cost.Usage(700, 0, 0, False), RULES)
    assert light is not None and light.offer_id == "h"  # 400 < 1000
    assert heavy is not None and heavy.offer_id == "m"  # 1400 > 1000
