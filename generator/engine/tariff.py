"""Each provider's own extras in yuan: disk per GB-month, egress per GB, a public IP per month.

Read from ``providers.yaml`` ``extras`` (each with its source): the first extra of an item in a unit
the cost model can use (disk: ``gb_month`` or ``gb_day``; egress: ``gb``; public IP: ``month`` or
``hour``) prices that item (a disk price marked ``state: stopped`` prices only the stopped hours, see
``disk_stopped_cny_per_gb_month``); anything else leaves it to ``rules.yaml``'s marked assumptions
(``cost.disk_cny_per_gb_month`` and the rest). Foreign prices use the exchange rate of the extra's
date. ``terms.stopped`` (with its source) says whether a stopped instance still bills the whole instance:
then an hourly or daily instance costs the whole month however few hours it runs (it must stay allocated
between uses); unknown, the cost model assumes a stopped instance bills only its storage. The calculator gets the same figures precomputed (``generator.pages.calculator``), so the
JS port only chooses between a tariff and an assumption, as :func:`generator.engine.cost.monthly_cost`
does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from generator.data.catalogue import rate_on
from generator.data.records import (
    Currency,
    Extra,
    ExtraItem,
    ExtraState,
    ExtraUnit,
    FxRate,
    Provider,
    StoppedBilling,
)
from generator.data.rules import CostRules

#: the extras the cost model prices, by the field name of MonthlyCost
ITEMS = ("disk", "egress", "public_ip")


@dataclass(frozen=True)
class Tariff:
    """One provider's extras in yuan; None where it publishes none the model can use."""

    disk_cny_per_gb_month: float | None = None
    #: the disk's price while the instance is stopped, where the provider prices it apart (RunPod bills a
    #: stopped Pod's volume disk at twice the running rate); None: the same as running
    disk_stopped_cny_per_gb_month: float | None = None
    egress_cny_per_gb: float | None = None
    public_ip_cny_month: float | None = None
    #: the provider's own term for a stopped instance (providers.yaml terms.stopped): True when it still bills
    #: the whole instance, False when it does not; None: unknown, the cost model assumes only storage bills
    stopped_bills_instance: bool | None = None

    def sourced(self) -> tuple[str, ...]:
        """The items priced by the provider's own tariff (the rest are assumptions)."""
        values = (self.disk_cny_per_gb_month, self.egress_cny_per_gb, self.public_ip_cny_month)
        return tuple(name for name, v in zip(ITEMS, values, strict=True) if v is not None)


def _yuan(x: Extra, rates: list[FxRate]) -> float | None:
    if x.currency is Currency.cny:
        return x.price
    rate = rate_on(rates, x.currency, x.as_of)
    return None if rate is None else x.price * rate.cny_per_unit


def _first(
    extras: Iterable[Extra],
    item: ExtraItem,
    units: dict[ExtraUnit, float],
    rates: list[FxRate],
    stopped: bool = False,
) -> float | None:
    """The first price of ``item`` in a usable unit: for a stopped instance (``stopped``) only one marked
    ``state: stopped``; else one marked running or unmarked."""
    for x in extras:
        if (x.state is ExtraState.stopped) != stopped:
            continue
        if x.item is item and x.unit in units:
            yuan = _yuan(x, rates)
            if yuan is not None:
                return yuan * units[x.unit]
    return None


def tariff_of(provider: Provider, rates: list[FxRate], rules: CostRules) -> Tariff:
    """The provider's extras converted to the units the cost model uses."""
    month = rules.hours_per_month
    disk_units = {ExtraUnit.gb_month: 1.0, ExtraUnit.gb_day: month / 24}
    return Tariff(
        disk_cny_per_gb_month=_first(provider.extras, ExtraItem.disk, disk_units, rates),
        disk_stopped_cny_per_gb_month=_first(provider.extras, ExtraItem.disk, disk_units, rates, stopped=True),
        egress_cny_per_gb=_first(provider.extras, ExtraItem.egress, {ExtraUnit.gb: 1.0}, rates),
        public_ip_cny_month=_first(
            provider.extras, ExtraItem.public_ip, {ExtraUnit.month: 1.0, ExtraUnit.hour: month}, rates
        ),
        stopped_bills_instance=(
            None
            if provider.terms is None or provider.terms.stopped is None
            else provider.terms.stopped.bills is StoppedBilling.instance
        ),
    )


def tariffs_of(providers: Iterable[Provider], rates: list[FxRate], rules: CostRules) -> dict[str, Tariff]:
    """Every provider's tariff, by provider id (providers publishing none usable are left out)."""
    out = {}
    for p in providers:
        t = tariff_of(p, rates, rules)
        if t.sourced() or t.stopped_bills_instance is not None or t.disk_stopped_cny_per_gb_month is not None:
            out[p.id] = t
    return out
