"""Step 4 of the decision: what a month (or a job) really costs.

An offer's price is quoted for a whole *instance* of ``offer.cards`` cards (``per:
instance``) or for one card of it (``per: card``), per hour, day, month or year, in yuan
or a foreign currency. :class:`Pricing` turns it into yuan per instance: a per-card price
times the cards, a foreign price times the dated exchange rate of ``data/fx.yaml``
(:func:`generator.data.catalogue.rate_on`: the rate nearest in date at or before the
offer's date, else the earliest after it). Nothing here estimates a price: every yuan
comes from a quoted price and, for foreign prices, a quoted rate.

A buyer who needs ``n`` cards rents ``ceil(n / offer.cards)`` instances: two cards on an
8-card bare-metal node still pay for the node. Hourly and daily offers are billed by the
hours actually used; monthly and yearly offers are paid in full, idle or not.
"""

from __future__ import annotations

import datetime as dt
import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from generator.data.catalogue import Catalogue, rate_on
from generator.data.records import Billing, Currency, FxRate, Offer, PricePer, PriceUnit
from generator.data.rules import CostRules, Rules
from generator.engine.reason import Reason, ReasonKind
from generator.engine.tariff import Tariff, tariffs_of


class BillingMode(StrEnum):
    """How rent accrues over a month."""

    by_use = "by_use"  # hourly or daily offers: pay for the hours (or started days) used
    fixed_month = "fixed_month"  # monthly or yearly offers: the whole month is paid, used or not


@dataclass(frozen=True)
class Pricing:
    """What turns a quoted price into yuan: the cost rules (month length, assumed extras) and
    the dated exchange rates."""

    rules: CostRules
    rates: tuple[FxRate, ...] = field(default=())
    #: each provider's own extras in yuan (providers.yaml extras), by provider id; a provider left
    #: out, or an item it does not price, uses the rules' marked assumptions
    tariffs: Mapping[str, Tariff] = field(default_factory=dict)
    #: (currency, date) -> rate; lookups repeat for every option priced
    _memo: dict[tuple[Currency, dt.date], FxRate | None] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def rate(self, currency: Currency, on: dt.date) -> FxRate | None:
        """The exchange rate used for a price of ``currency`` dated ``on`` (None for yuan)."""
        key = (currency, on)
        if key not in self._memo:
            self._memo[key] = rate_on(list(self.rates), currency, on)
        return self._memo[key]

    def cny_factor(self, offer: Offer) -> float:
        """Yuan per unit of the offer's currency (1 for yuan). A foreign offer without any rate
        cannot pass validation (``validate.cross_check``), so a missing rate is a bug here."""
        if offer.currency is Currency.cny:
            return 1.0
        rate = self.rate(offer.currency, offer.as_of)
        if rate is None:
            raise ValueError(f"no exchange rate for {offer.currency.value} (offer {offer.id})")
        return rate.cny_per_unit


#: Each living catalogue's pricing, by identity: one generation asks for it about 300 times (every
#: ranking, table and chart) and the providers' tariffs take 0.5 ms each time. Weakly held, so the
#: entry goes with its catalogue (whose records never change: Catalogue is frozen, its records too).
_PRICED: dict[int, tuple[weakref.ReferenceType[Catalogue], Pricing]] = {}


def pricing_of(cat: Catalogue) -> Pricing:
    """The pricing of one catalogue: its cost rules and its exchange rates (made once per catalogue)."""
    key = id(cat)
    kept = _PRICED.get(key)
    if kept is not None and kept[0]() is cat:
        return kept[1]
    pricing = Pricing(cat.rules.cost, tuple(cat.fx), tariffs_of(cat.providers.values(), cat.fx, cat.rules.cost))
    _PRICED[key] = (weakref.ref(cat, lambda _dead: _PRICED.pop(key, None)), pricing)
    return pricing


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
    """Hours one price unit buys (a month is ``rules.hours_per_month``, a year twelve of them)."""
    month = rules.hours_per_month
    return {PriceUnit.hour: 1.0, PriceUnit.day: 24.0, PriceUnit.month: month, PriceUnit.year: 12 * month}[unit]


def instance_price_cny(offer: Offer, pricing: Pricing, price: float | None = None) -> float:
    """One whole instance for one ``offer.unit``, in yuan (mid of a range unless ``price`` is given,
    ``price`` being in the offer's currency and basis)."""
    value = offer.price_mid if price is None else price
    cards = offer.cards if offer.per is PricePer.card else 1
    return value * cards * pricing.cny_factor(offer)


def card_hour_cny(offer: Offer, pricing: Pricing, price: float | None = None) -> float:
    """One card for one hour at this offer, in yuan (mid of a range unless ``price`` is given)."""
    return instance_price_cny(offer, pricing, price) / offer.cards / hours_per_unit(offer.unit, pricing.rules)


def card_month_cny(offer: Offer, pricing: Pricing, price: float | None = None) -> float:
    """One card for a whole month of ``rules.hours_per_month`` hours, in yuan."""
    return card_hour_cny(offer, pricing, price) * pricing.rules.hours_per_month


def card_month_range(offers: list[Offer], pricing: Pricing) -> tuple[float, float] | None:
    """Lowest and highest price per card-month over ``offers`` (range ends included); None if none."""
    if not offers:
        return None
    lows = [card_month_cny(o, pricing, o.ends[0]) for o in offers]
    highs = [card_month_cny(o, pricing, o.ends[1]) for o in offers]
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
    #: extras priced by the provider's own tariff ('disk', 'egress', 'public_ip'); the rest are assumptions
    sourced: tuple[str, ...] = ()

    @property
    def total(self) -> float:
        return self.gpu_rent + self.disk + self.egress + self.public_ip

    @property
    def non_gpu_share(self) -> float:
        """Share of the total that is not GPU rent."""
        return 0.0 if self.total == 0 else (self.total - self.gpu_rent) / self.total


def monthly_cost(offer: Offer, cards: int, usage: Usage, pricing: Pricing) -> MonthlyCost:
    """Cost of renting ``cards`` cards from ``offer`` for a month used as ``usage`` says."""
    rules = pricing.rules
    hours_used = usage.hours_per_month
    instances = instances_needed(offer, cards)
    block = hours_per_unit(offer.unit, rules)
    instance_hour = instance_price_cny(offer, pricing) / block
    tariff = pricing.tariffs.get(offer.provider, Tariff())
    if offer.unit in (PriceUnit.month, PriceUnit.year):
        months = 12 if offer.unit is PriceUnit.year else 1
        rent = instance_price_cny(offer, pricing) / months * instances
        idle = rent * max(0.0, 1 - hours_used / rules.hours_per_month)
        billing = BillingMode.fixed_month
        runs = 1.0  # share of the month the instance runs: a monthly instance is held all month
    else:
        # Daily offers are billed by started days; hourly by hours. A provider whose stopped instances still
        # bill (its terms, with a source) charges the whole month: the instance stays allocated between uses.
        running = rules.hours_per_month if tariff.stopped_bills_instance else hours_used
        billed_hours = math.ceil(max(hours_used, running) / block) * block
        rent = instance_hour * billed_hours * instances
        idle = instance_hour * (billed_hours - hours_used) * instances
        billing = BillingMode.by_use
        runs = min(1.0, max(hours_used, running) / rules.hours_per_month)
    disk_rate = _either(tariff.disk_cny_per_gb_month, rules.disk_cny_per_gb_month)
    if tariff.disk_stopped_cny_per_gb_month is not None:
        # the disk is kept all month: the running rate for the share of the month the instance runs, the
        # provider's stopped rate for the rest
        disk_rate = disk_rate * runs + tariff.disk_stopped_cny_per_gb_month * (1 - runs)
    egress_rate = _either(tariff.egress_cny_per_gb, rules.egress_cny_per_gb)
    ip_rate = _either(tariff.public_ip_cny_month, rules.public_ip_cny_month)
    return MonthlyCost(
        offer_id=offer.id,
        billing=billing,
        instances=instances,
        cards_rented=instances * offer.cards,
        hours_used=hours_used,
        gpu_rent=rent,
        disk=usage.disk_gb * disk_rate,
        egress=usage.egress_gb_month * egress_rate,
        public_ip=ip_rate * instances if usage.public_ip else 0.0,
        idle_rent=idle,
        sourced=tariff.sourced(),
    )


def _either(own: float | None, assumed: float) -> float:
    """The provider's own price where it publishes one, else the rules' assumption."""
    return assumed if own is None else own


def billed_hours(offer: Offer, hours: float, rules: CostRules) -> float:
    """Hours paid for a job of ``hours`` hours: whole months on a monthly offer, whole days on a
    daily one (the shortest rental the tier sells); on-demand offers bill what is used."""
    period = {Billing.monthly: rules.hours_per_month, Billing.daily: 24.0}.get(offer.billing)
    if period is None:
        return hours
    return math.ceil(hours / period - 1e-9) * period


def minimum_rental_note(offer: Offer, hours: float, rules: CostRules) -> Reason | None:
    """Said when a job is shorter than what the offer's tier bills: whole months or whole days."""
    billed = billed_hours(offer, hours, rules)
    if billed <= hours + 1e-9:
        return None
    if offer.billing is Billing.monthly:
        return Reason(ReasonKind.minimum_months, {"months": round(billed / rules.hours_per_month)})
    return Reason(ReasonKind.minimum_days, {"days": round(billed / 24)})


def job_cost_cny(offer: Offer, cards: int, hours: float, pricing: Pricing) -> float:
    """Rent for running a job of ``hours`` wall-clock hours on ``cards`` cards: the hourly rent times
    the hours the offer's billing tier makes you pay (:func:`billed_hours`)."""
    instance_hour = instance_price_cny(offer, pricing) / hours_per_unit(offer.unit, pricing.rules)
    return instance_hour * instances_needed(offer, cards) * billed_hours(offer, hours, pricing.rules)
