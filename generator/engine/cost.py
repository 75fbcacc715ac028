"""Step 4 of the decision: what a month (or a job) really costs.

Prices are quoted per *instance* (``offer.cards`` cards) per hour, day or month. A
buyer who needs ``n`` cards rents ``ceil(n / offer.cards)`` instances: two cards on an
8-card bare-metal node still pay for the node. Hourly and daily offers are billed by
the hours actually used; monthly offers are paid in full, idle or not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from generator.data.records import Delivery, Offer, PriceUnit
from generator.data.rules import CostRules, Rules


class BillingMode(StrEnum):
    """How rent accrues over a month."""

    by_use = "by_use"  # hourly or daily offers: pay for the hours (or started days) used
    fixed_month = "fixed_month"  # monthly offers: the whole month is paid, used or not


@dataclass(frozen=True)
class Usage:
    """How a buyer uses what they rent in a month: the inputs of step 4 besides the offer."""

    hours_per_month: float  #: hours the cards run
    disk_gb: float  #: data disk kept all month
    egress_gb_month: float  #: outbound traffic
    public_ip: bool  #: one public IP per rented instance

    @classmethod
    def from_rules(
        cls,
        rules: Rules,
        hours_per_month: float | None = None,
        disk_gb: float | None = None,
        egress_gb_month: float | None = None,
        public_ip: bool | None = None,
    ) -> Usage:
        """A usage with every value the caller leaves out taken from ``rules.defaults``
        (hours: the whole month, ``rules.cost.hours_per_month``). The one place defaults come from."""
        d = rules.defaults
        return cls(
            hours_per_month=rules.cost.hours_per_month if hours_per_month is None else hours_per_month,
            disk_gb=d.disk_gb if disk_gb is None else disk_gb,
            egress_gb_month=d.egress_gb_month if egress_gb_month is None else egress_gb_month,
            public_ip=d.public_ip if public_ip is None else public_ip,
        )


def hours_per_unit(unit: PriceUnit, rules: CostRules) -> float:
    """Hours one price unit buys (a month is ``rules.hours_per_month``)."""
    return {PriceUnit.hour: 1.0, PriceUnit.day: 24.0, PriceUnit.month: rules.hours_per_month}[unit]


def card_hour_cny(offer: Offer, rules: CostRules, price: float | None = None) -> float:
    """One card for one hour at this offer (mid of a range unless ``price`` is given)."""
    value = offer.price_mid_cny if price is None else price
    return value / offer.cards / hours_per_unit(offer.unit, rules)


def card_month_cny(offer: Offer, rules: CostRules, price: float | None = None) -> float:
    """One card for a whole month of ``rules.hours_per_month`` hours."""
    return card_hour_cny(offer, rules, price) * rules.hours_per_month


def card_month_range(offers: list[Offer], rules: CostRules) -> tuple[float, float] | None:
    """Lowest and highest price per card-month over ``offers`` (range ends included); None if none."""
    if not offers:
        return None
    lows = [card_month_cny(o, rules, o.price_low_cny or o.price_cny) for o in offers]
    highs = [card_month_cny(o, rules, o.price_high_cny or o.price_cny) for o in offers]
    return min(lows), max(highs)


def instances_needed(offer: Offer, cards: int) -> int:
    """Whole instances to rent for ``cards`` cards."""
    return math.ceil(cards / offer.cards)


@dataclass(frozen=True)
class MonthlyCost:
    """A month of ownership, split into its parts (yuan)."""

    offer_id: str
    billing: BillingMode
    instances: int
    cards_rented: int
    hours_used: float
    gpu_rent: float
    disk: float
    egress: float
    public_ip: float
    idle_rent: float  # part of gpu_rent paid for hours nobody used (monthly billing)

    @property
    def total(self) -> float:
        return self.gpu_rent + self.disk + self.egress + self.public_ip

    @property
    def non_gpu_share(self) -> float:
        """Share of the total that is not GPU rent."""
        return 0.0 if self.total == 0 else (self.total - self.gpu_rent) / self.total


def monthly_cost(offer: Offer, cards: int, usage: Usage, rules: CostRules) -> MonthlyCost:
    """Cost of renting ``cards`` cards from ``offer`` for a month used as ``usage`` says."""
    hours_used = usage.hours_per_month
    instances = instances_needed(offer, cards)
    instance_hour = offer.price_mid_cny / hours_per_unit(offer.unit, rules)
    if offer.unit is PriceUnit.month:
        rent = offer.price_mid_cny * instances
        idle = rent * max(0.0, 1 - hours_used / rules.hours_per_month)
        billing = BillingMode.fixed_month
    else:
        # Daily offers are billed by started days; hourly by hours.
        block = hours_per_unit(offer.unit, rules)
        billed_hours = math.ceil(hours_used / block) * block
        rent = instance_hour * billed_hours * instances
        idle = instance_hour * (billed_hours - hours_used) * instances
        billing = BillingMode.by_use
    return MonthlyCost(
        offer_id=offer.id,
        billing=billing,
        instances=instances,
        cards_rented=instances * offer.cards,
        hours_used=hours_used,
        gpu_rent=rent,
        disk=usage.disk_gb * rules.disk_cny_per_gb_month,
        egress=usage.egress_gb_month * rules.egress_cny_per_gb,
        public_ip=rules.public_ip_cny_month * instances if usage.public_ip else 0.0,
        idle_rent=idle,
    )


def job_cost_cny(offer: Offer, cards: int, hours: float, rules: CostRules) -> float:
    """Rent for running a job of ``hours`` wall-clock hours on ``cards`` cards, pro rata."""
    instance_hour = offer.price_mid_cny / hours_per_unit(offer.unit, rules)
    return instance_hour * instances_needed(offer, cards) * hours


def matching_offers(offers: list[Offer], gpu_id: str, delivery: Delivery) -> tuple[list[Offer], bool]:
    """Offers that can price ``delivery`` for this GPU, and whether they are a fallback.

    In order: offers in that form; market ranges with no form stated; and, for a
    container workload only, bare-metal offers (a whole machine can run what a container
    runs, at the machine's price; the reverse is not true: multi-card training needs the
    bare-metal machine's links). The pages say when a fallback priced an option.
    """
    mine = [o for o in offers if o.gpu == gpu_id]
    for form in (delivery, Delivery.unspecified):
        found = [o for o in mine if o.delivery is form]
        if found:
            return found, form is not delivery
    if delivery is Delivery.container:
        return [o for o in mine if o.delivery is Delivery.bare_metal], True
    return [], True


def cheapest(offers: list[Offer], cards: int, usage: Usage, rules: CostRules) -> MonthlyCost | None:
    """The offer with the lowest monthly total for this use (ties broken by offer id)."""
    costs = [monthly_cost(o, cards, usage, rules) for o in offers]
    return min(costs, key=lambda c: (round(c.total, 6), c.offer_id), default=None)
