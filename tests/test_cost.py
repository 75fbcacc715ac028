"""Step 4: normalising offers and pricing a month. Expected figures worked by hand."""

from __future__ import annotations

import datetime as dt
import gc
from pathlib import Path

import pytest
from conftest import make_project

from generator.data.catalogue import rate_on
from generator.data.records import Currency, FxRate, Offer
from generator.data.rules import CostRules
from generator.data.validate import load_catalogue
from generator.engine import cost
from generator.engine.reason import Reason, ReasonKind

RULES = CostRules(
    hours_per_month=730,
    disk_cny_per_gb_month=0.5,
    egress_cny_per_gb=1.0,
    public_ip_cny_month=20,
    assumptions_confirmed=False,
)


def rate(value: float, day: dt.date) -> FxRate:
    return FxRate.model_validate(
        dict(currency="USD", cny_per_unit=value, as_of=day, source="https://example.com/fx", quote=str(value))
    )


#: Two dated USD rates: 7.0 from June 1st, 7.2 from July 15th.
RATES = (rate(7.0, dt.date(2026, 6, 1)), rate(7.2, dt.date(2026, 7, 15)))
PRICING = cost.Pricing(RULES, RATES)


def offer(**kw) -> Offer:  # type: ignore[no-untyped-def]
    base = dict(id="o", provider="p", gpu="g", delivery="container", billing="on_demand", cards=1, unit="hour",
                currency="CNY", as_of=dt.date(2026, 7, 1), source="https://example.com/", source_tier="provider_page", quote="q")  # fmt: skip
    base.update(kw)
    return Offer.model_validate(base)


def test_hourly_offer_bills_used_hours_only() -> None:
    o = offer(price=1.96)
    m = cost.monthly_cost(o, 1, cost.Usage(200, 100, 10, True), PRICING)
    assert m.billing is cost.BillingMode.by_use
    assert m.gpu_rent == pytest.approx(392.0)  # 1.96 * 200
    assert m.disk == 50 and m.egress == 10 and m.public_ip == 20
    assert m.total == pytest.approx(472.0)
    assert m.idle_rent == pytest.approx(0.0)
    assert m.non_gpu_share == pytest.approx(80 / 472)


def test_monthly_whole_node_is_paid_in_full_even_for_two_cards() -> None:
    node = offer(delivery="bare_metal", cards=8, price=84480, unit="month", billing="monthly")
    m = cost.monthly_cost(node, 2, cost.Usage(365, 0, 0, False), PRICING)
    assert m.instances == 1 and m.cards_rented == 8
    assert m.gpu_rent == 84480
    assert m.idle_rent == pytest.approx(84480 * 0.5)  # half the month unused


def test_sixteen_cards_need_two_nodes() -> None:
    node = offer(delivery="bare_metal", cards=8, price=84480, unit="month", billing="monthly")
    assert cost.instances_needed(node, 16) == 2
    assert cost.instances_needed(node, 9) == 2
    assert cost.monthly_cost(node, 16, cost.Usage(730, 0, 0, True), PRICING).public_ip == 40


def test_daily_offer_bills_started_days() -> None:
    o = offer(price=48, unit="day", billing="daily")
    m = cost.monthly_cost(o, 1, cost.Usage(25, 0, 0, False), PRICING)
    assert m.gpu_rent == pytest.approx(96.0)  # two started days
    assert m.idle_rent == pytest.approx(46.0)  # 23 unused hours at 2/h


def test_yearly_offer_is_a_twelfth_each_month() -> None:
    o = offer(price=120000, unit="year", billing="reserved", cards=8, delivery="bare_metal")
    m = cost.monthly_cost(o, 8, cost.Usage(730, 0, 0, False), PRICING)
    assert m.billing is cost.BillingMode.fixed_month
    assert m.gpu_rent == pytest.approx(10000.0)  # 120,000 / 12
    assert cost.card_month_cny(o, PRICING) == pytest.approx(1250.0)  # 10,000 / 8 cards


def test_card_prices_from_instance_and_range() -> None:
    node = offer(delivery="bare_metal", cards=8, price=7920, unit="month")
    assert cost.card_month_cny(node, PRICING) == pytest.approx(990.0)
    ranged = offer(price_low=6000, price_high=9000, unit="month")
    assert cost.card_month_cny(ranged, PRICING) == pytest.approx(7500.0)
    assert cost.card_hour_cny(offer(price=1.96), PRICING) == pytest.approx(1.96)
    assert cost.card_month_range([node, ranged], PRICING) == pytest.approx((990.0, 9000.0))


def test_per_card_price_is_multiplied_back_to_the_instance() -> None:
    # $3.99 per card-hour of an 8-card VM, converted at 7.0: one card-hour is 3.99 x 7 = ¥27.93,
    # the whole VM-hour 8 x 27.93 = ¥223.44.
    vm = offer(delivery="vm", cards=8, per="card", price=3.99, currency="USD")
    assert cost.card_hour_cny(vm, PRICING) == pytest.approx(27.93)
    assert cost.instance_price_cny(vm, PRICING) == pytest.approx(223.44)
    assert cost.job_cost_cny(vm, cards=8, hours=10, pricing=PRICING) == pytest.approx(2234.4)


def test_foreign_price_uses_the_rate_at_or_before_its_date() -> None:
    july = offer(price=1.0, currency="USD", as_of=dt.date(2026, 7, 14))
    assert cost.card_hour_cny(july, PRICING) == pytest.approx(7.0)  # June 1st's rate, not July 15th's
    on_the_day = offer(price=1.0, currency="USD", as_of=dt.date(2026, 7, 15))
    assert cost.card_hour_cny(on_the_day, PRICING) == pytest.approx(7.2)
    # Before every rate: the earliest rate after the offer's date.
    early = offer(price=1.0, currency="USD", as_of=dt.date(2026, 1, 1))
    assert cost.card_hour_cny(early, PRICING) == pytest.approx(7.0)
    assert cost.card_hour_cny(offer(price=1.0), PRICING) == pytest.approx(1.0)  # yuan need no rate


def test_rate_on_picks_by_date_and_currency() -> None:
    rates = list(RATES)
    assert rate_on(rates, Currency.usd, dt.date(2026, 12, 1)) is RATES[1]
    assert rate_on(rates, Currency.usd, dt.date(2026, 6, 30)) is RATES[0]
    assert rate_on(rates, Currency.cny, dt.date(2026, 6, 30)) is None
    assert rate_on([], Currency.usd, dt.date(2026, 6, 30)) is None
    # Two rates on one day: the first in the file.
    twin = rate(7.1, dt.date(2026, 6, 1))
    assert rate_on([RATES[0], twin], Currency.usd, dt.date(2026, 6, 2)) is RATES[0]


def test_a_foreign_offer_without_a_rate_is_a_bug_not_a_guess() -> None:
    with pytest.raises(ValueError, match="no exchange rate for USD"):
        cost.card_hour_cny(offer(price=1.0, currency="USD"), cost.Pricing(RULES))


def test_job_cost_is_pro_rata() -> None:
    node = offer(delivery="bare_metal", cards=8, price=73000, unit="month")
    assert cost.job_cost_cny(node, cards=8, hours=73, pricing=PRICING) == pytest.approx(7300.0)


def test_a_job_pays_at_least_the_shortest_rental_its_tier_sells() -> None:
    # A monthly node (¥73,000 for 730 hours) running a 73-hour job still costs the month; a 731-hour
    # job two months. A daily price (¥240 a day) for 25 hours costs two days; on demand bills 25 hours.
    node = offer(delivery="bare_metal", cards=8, price=73000, unit="month", billing="monthly")
    assert cost.job_cost_cny(node, cards=8, hours=73, pricing=PRICING) == pytest.approx(73000.0)
    assert cost.job_cost_cny(node, cards=8, hours=730, pricing=PRICING) == pytest.approx(73000.0)
    assert cost.job_cost_cny(node, cards=8, hours=731, pricing=PRICING) == pytest.approx(146000.0)
    assert cost.minimum_rental_note(node, 73, RULES) == Reason(ReasonKind.minimum_months, {"months": 1})
    assert cost.minimum_rental_note(node, 731, RULES) == Reason(ReasonKind.minimum_months, {"months": 2})
    assert cost.minimum_rental_note(node, 730, RULES) is None
    day = offer(price=240, unit="day", billing="daily")
    assert cost.job_cost_cny(day, cards=1, hours=25, pricing=PRICING) == pytest.approx(480.0)
    assert cost.minimum_rental_note(day, 25, RULES) == Reason(ReasonKind.minimum_days, {"days": 2})
    hourly = offer(price=10, unit="hour", billing="on_demand")
    assert cost.job_cost_cny(hourly, cards=1, hours=25, pricing=PRICING) == pytest.approx(250.0)
    assert cost.minimum_rental_note(hourly, 25, RULES) is None


def test_a_catalogues_pricing_is_made_once_and_goes_with_it(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    one, _ = load_catalogue(root / "data", root)
    two, _ = load_catalogue(root / "data", root)
    assert one is not None and two is not None
    assert cost.pricing_of(one) is cost.pricing_of(one)  # a generation asks hundreds of times
    assert cost.pricing_of(two) is not cost.pricing_of(one)  # another catalogue: its own
    assert cost.pricing_of(two).tariffs == cost.pricing_of(one).tariffs  # of equal data, equal
    key = id(one)
    del one
    gc.collect()
    assert key not in cost._PRICED  # no catalogue is kept alive, nor its pricing
