"""租还是买: the monthly cost of owning a card against renting one, and the break-even month.

For one purchase price (a card, or a server of ``cards`` cards) and the inputs a reader can
change (hours a day, years kept, electricity price, PUE, resale share, hosting per kW):

* owning one card for a month costs
  ``price / cards × (1 − resale) / (12 × years)`` (depreciation to the resale value)
  ``+ kW × PUE × hours × electricity price`` (power while it works: a server at its system power, a
  single card with its host; the price is the typical one, and the row says whether its answer holds
  over the lowest and highest prices the file quotes)
  ``+ TDP kW × hosting per kW-month`` (rack space, cooling and network, all month);
* renting one card for the same hours costs the cheapest current offer's rent for one
  whole instance (hourly offers billed by the hour, monthly offers in full;
  :func:`generator.engine.cost.monthly_cost`) divided by the instance's cards: everything
  is compared per card, a server price and an 8-card rental alike;
* break-even: ``price / cards ÷ (rent − power − hosting)`` months, the time after which the
  purchase has paid for itself from the rent it saves (resale not counted); none when renting
  costs no more than running the card.

``docs/javascripts/ownership.js`` mirrors :func:`own_month`, :func:`rent_month` and
:func:`break_even_months` for the page's form; tests compare both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from generator.data.catalogue import Catalogue
from generator.data.editorial import OwnershipFile, Purchase, PurchaseKind, SourcedValue
from generator.data.records import FormFactor, Gpu, Market, Offer
from generator.data.rules import CostRules
from generator.engine import cost as costs
from generator.results.prices import current_offers

DAY_HOURS = 24.0
MONTHS_PER_YEAR = 12.0


#: What each input may physically be: (lowest, highest, lowest excluded). The page's form takes
#: the same ranges (``LIMITS`` in ``docs/javascripts/ownership.js``; tests compare them). PUE is
#: a data centre's total power over its IT power, so never below 1; 3 is far above any machine
#: room still in use. A card kept 0 years or used 0 hours a day has no monthly cost to compare.
LIMITS: dict[str, tuple[float, float, bool]] = {
    "hours_per_day": (0.0, 24.0, True),
    "years": (0.0, 10.0, True),
    "electricity_cny_per_kwh": (0.0, 10.0, False),
    "pue": (1.0, 3.0, False),
    "resale_fraction": (0.0, 0.99, False),
    "hosting_cny_per_kw_month": (0.0, 100_000.0, False),
}


def input_problem(name: str, value: float) -> str | None:
    """Why ``value`` cannot be the input ``name`` (e.g. ``pue must be from 1 to 3, got 0.5``), or None."""
    low, high, low_open = LIMITS[name]
    if math.isnan(value) or (value <= low if low_open else value < low) or value > high:
        word = "above" if low_open else "from"
        return f"{name} must be {word} {low:g} {'and at most' if low_open else 'to'} {high:g}, got {value:g}"
    return None


@dataclass(frozen=True)
class OwnershipInputs:
    """The numbers a reader can change on the page; out-of-range values are refused (:data:`LIMITS`)."""

    hours_per_day: float
    years: float
    electricity_cny_per_kwh: float
    pue: float
    resale_fraction: float
    hosting_cny_per_kw_month: float

    def __post_init__(self) -> None:
        for name in LIMITS:
            problem = input_problem(name, getattr(self, name))
            if problem is not None:
                raise ValueError(problem)


def default_inputs(own: OwnershipFile) -> OwnershipInputs:
    """The page's starting inputs: the chosen electricity and PUE entries and the assumptions."""
    d = own.defaults
    return OwnershipInputs(
        hours_per_day=d.hours_per_day.value,
        years=d.years.value,
        electricity_cny_per_kwh=chosen(own.electricity, d.electricity).value,
        pue=chosen(own.pue, d.pue).value,
        resale_fraction=d.resale_fraction.value,
        hosting_cny_per_kw_month=d.hosting_cny_per_kw_month.value,
    )


def chosen(entries: Sequence[SourcedValue], entry_id: str) -> SourcedValue:
    """The entry with ``entry_id`` (validate.editorial_check makes sure it exists)."""
    return next(e for e in entries if e.id == entry_id)


def electricity_range(own: OwnershipFile) -> tuple[SourcedValue, SourcedValue]:
    """The lowest and the highest electricity price the file quotes (ties: the first listed); the page
    shows them around its default, the typical price (``defaults.electricity``)."""
    entries = list(own.electricity)
    return min(entries, key=lambda e: e.value), max(entries, key=lambda e: e.value)


def hours_per_month(inputs: OwnershipInputs, rules: CostRules) -> float:
    """Hours of use in a month of ``rules.hours_per_month`` hours."""
    return inputs.hours_per_day * rules.hours_per_month / DAY_HOURS


@dataclass(frozen=True)
class OwnMonth:
    """A month of owning one card, in yuan."""

    depreciation: float
    power: float
    hosting: float

    @property
    def total(self) -> float:
        return self.depreciation + self.power + self.hosting

    @property
    def running(self) -> float:
        """What the card costs to keep working, without the purchase itself."""
        return self.power + self.hosting


def own_month(price_per_card: float, watts: float, inputs: OwnershipInputs, rules: CostRules) -> OwnMonth:
    """A month of one card that draws ``watts`` (with its share of the machine, :func:`power_per_card_w`)."""
    kw = watts / 1000
    return OwnMonth(
        depreciation=price_per_card * (1 - inputs.resale_fraction) / (MONTHS_PER_YEAR * inputs.years),
        power=kw * inputs.pue * hours_per_month(inputs, rules) * inputs.electricity_cny_per_kwh,
        hosting=kw * inputs.hosting_cny_per_kw_month,
    )


def power_per_card_w(purchase: Purchase, gpu: Gpu, own: OwnershipFile) -> float:
    """Watts one card draws with its share of the machine: a whole server at its datasheet's system
    power (per GPU, as a multiple of TDP); a single card with the editor's host factor; else the TDP."""
    if purchase.what is PurchaseKind.server and own.system_power:
        return gpu.tdp_w * own.system_power[0].factor
    if purchase.what is PurchaseKind.card and own.defaults.host_power_factor is not None:
        return gpu.tdp_w * own.defaults.host_power_factor.value
    return gpu.tdp_w


def runnable(purchase: Purchase, gpu: Gpu) -> bool:
    """Whether what the price buys can run by itself: an SXM or OAM module needs its baseboard and a
    host (an HGX server), so only whole servers of such cards are compared."""
    return purchase.what is PurchaseKind.server or gpu.form_factor not in (FormFactor.sxm, FormFactor.oam)


def buyer_offers(cat: Catalogue, gpu_id: str) -> list[Offer]:
    """The current offers a buyer in China compares with: the Chinese market's where it has any,
    else every market's (the page says so)."""
    offers = current_offers(cat, gpu_id)
    cn = [o for o in offers if cat.providers[o.provider].market is Market.cn]
    return cn or offers


def rent_month(offer: Offer, inputs: OwnershipInputs, pricing: costs.Pricing) -> float:
    """Rent per card for a month of the inputs' hours: one whole instance of ``offer``, per card (in yuan:
    a per-card or foreign price goes through ``pricing``)."""
    usage = costs.Usage(hours_per_month(inputs, pricing.rules), disk_gb=0.0, egress_gb_month=0.0, public_ip=False)
    return costs.monthly_cost(offer, offer.cards, usage, pricing).gpu_rent / offer.cards


def break_even_months(price_per_card: float, rent: float, own: OwnMonth) -> float | None:
    """Months until the rent saved pays for the card; None when owning never catches up."""
    saved = rent - own.running
    return price_per_card / saved if saved > 0 else None


@dataclass(frozen=True)
class OwnershipRow:
    """One purchase price against the cheapest current rent of the same GPU."""

    purchase: Purchase
    gpu: Gpu
    price_per_card: float
    own: OwnMonth
    rent: float
    rent_offer: Offer
    break_even: float | None
    power_w: float = 0.0  # one card with its share of the machine (system power), watts
    #: 'own' or 'rent' at the lowest and at the highest quoted electricity price (other inputs unchanged)
    cheaper_over_range: tuple[str, str] = ("", "")

    @property
    def cheaper(self) -> str:
        """'own' or 'rent': which costs less per month over the years kept."""
        return "own" if self.own.total < self.rent else "rent"

    @property
    def verdict_holds(self) -> bool:
        """Whether the answer is the same anywhere in the quoted electricity range."""
        return all(v in ("", self.cheaper) for v in self.cheaper_over_range)


def cheapest_rent(cat: Catalogue, gpu_id: str, inputs: OwnershipInputs) -> tuple[float, Offer] | None:
    """Lowest per-card rent among the GPU's current offers (ties: offer id)."""
    pricing = costs.pricing_of(cat)
    found = [(rent_month(o, inputs, pricing), o) for o in buyer_offers(cat, gpu_id)]
    return min(found, key=lambda f: (round(f[0], 6), f[1].id), default=None)


def ownership_rows(cat: Catalogue, inputs: OwnershipInputs | None = None) -> list[OwnershipRow]:
    """A row per purchase price whose GPU has a current rental price, in the file's order."""
    own = cat.ownership
    if own is None:
        return []
    inputs = inputs or default_inputs(own)
    rows = []
    for p in own.purchases:
        gpu = cat.gpus[p.gpu]
        if not runnable(p, gpu):
            continue
        rent = cheapest_rent(cat, p.gpu, inputs)
        if rent is None:
            continue
        per_card = p.price_cny / p.cards
        watts = power_per_card_w(p, gpu, own)
        month = own_month(per_card, watts, inputs, cat.rules.cost)
        ends = tuple(
            _cheaper(per_card, watts, rent[0], replace(inputs, electricity_cny_per_kwh=e.value), cat.rules.cost)
            for e in electricity_range(own)
        )
        rows.append(
            OwnershipRow(
                p,
                gpu,
                per_card,
                month,
                rent[0],
                rent[1],
                break_even_months(per_card, rent[0], month),
                watts,
                (ends[0], ends[1]),
            )
        )
    return rows


def _cheaper(per_card: float, watts: float, rent: float, inputs: OwnershipInputs, rules: CostRules) -> str:
    """'own' or 'rent' for one card at ``inputs`` against ``rent`` (the electricity price does not change
    the rent, so the row's holds)."""
    return "own" if own_month(per_card, watts, inputs, rules).total < rent else "rent"


def unrunnable_purchases(cat: Catalogue) -> list[tuple[Purchase, Gpu]]:
    """Module prices (SXM, OAM) that buy nothing that runs alone: listed, not compared."""
    if cat.ownership is None:
        return []
    return [(p, cat.gpus[p.gpu]) for p in cat.ownership.purchases if not runnable(p, cat.gpus[p.gpu])]


def unrented_purchases(cat: Catalogue) -> list[tuple[Purchase, Gpu]]:
    """Purchase prices of GPUs with no current rental price (listed, not compared)."""
    if cat.ownership is None:
        return []
    return [(p, cat.gpus[p.gpu]) for p in cat.ownership.purchases if not current_offers(cat, p.gpu)]
