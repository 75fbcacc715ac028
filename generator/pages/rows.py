"""Table rows the templates print, built from the catalogue and the results.

Rows are typed records rather than dicts, so a template that names a missing field
fails the build (``StrictUndefined``) instead of printing nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.data.records import FxRate, Gpu, Offer, OpenModel, Provider, Scenario
from generator.engine import cost as costs
from generator.engine.recommend import Recommendation
from generator.formats import cny, cny_range, num
from generator.pages.render import price_label
from generator.results.scenarios import ScenarioResult


@dataclass(frozen=True)
class LadderRow:
    """One GPU on the ladder (天梯图), with its price columns."""

    rank: int
    ranked: bool  # False: the tensor figure is unconfirmed, listed after the ranked cards
    id: str
    name: str
    vendor: str
    domestic: bool
    memory_gb: float
    memory_type: str
    memory_bandwidth_gbps: float
    tensor_tflops: float
    gpu: Gpu
    tensor_label: str  # dense 16-bit TFLOPS, "†" when unconfirmed
    price_label: str  # lowest–highest per card-month, "—" without offers
    month_low: float | None
    month_high: float | None
    hour_low: float | None
    cny_per_tflop_hour: float | None
    cny_per_gib_month: float | None

    @property
    def rank_label(self) -> str:
        """The place on the ladder, or 未排名 for a card whose tensor figure is unconfirmed."""
        return str(self.rank) if self.ranked else "未排名"


def _number(value: object) -> float | None:
    """pandas stores a missing number as NaN; rows hold None ('—' on the page)."""
    if value is None:
        return None
    f = float(value)  # type: ignore[arg-type]
    return None if math.isnan(f) else f


def ladder_rows(cat: Catalogue, frame: pd.DataFrame) -> list[LadderRow]:
    rows = []
    for rec in frame.to_dict("records"):
        gpu = cat.gpus[str(rec["id"])]
        tensor_name = "bf16_tflops_dense" if gpu.bf16_tflops_dense else "fp16_tflops_dense"
        mark = " †" if tensor_name in gpu.unconfirmed_names else ""
        low, high = _number(rec["month_low"]), _number(rec["month_high"])
        price = "—" if low is None or high is None else cny_range(low, high)
        rows.append(
            LadderRow(
                rank=int(rec["rank"]),
                ranked=bool(rec["ranked"]),
                id=gpu.id,
                name=gpu.name,
                vendor=gpu.vendor.value,
                domestic=gpu.domestic,
                memory_gb=gpu.memory_gb,
                memory_type=gpu.memory_type,
                memory_bandwidth_gbps=gpu.memory_bandwidth_gbps,
                tensor_tflops=gpu.tensor_tflops,
                gpu=gpu,
                tensor_label=f"{num(gpu.tensor_tflops, 1)}{mark}",
                price_label=price,
                month_low=low,
                month_high=high,
                hour_low=_number(rec["hour_low"]),
                cny_per_tflop_hour=_number(rec["cny_per_tflop_hour"]),
                cny_per_gib_month=_number(rec["cny_per_gib_month"]),
            )
        )
    return rows


@dataclass(frozen=True)
class OfferRow:
    """One price as quoted, with its yuan per card-hour and card-month and what made them."""

    offer: Offer
    gpu: Gpu
    provider: Provider
    price_label: str  # as quoted: '$3.99/卡·时'
    card_hour: float  # yuan per card-hour (mid of a range)
    card_month: float  # yuan per card-month
    rate: FxRate | None  # the exchange rate used; None for yuan
    date_label: str
    current: bool  # within the freshness window
    shape: str  # 'vCPU 16 · 内存 64 GB · 盘 50 GB', or '—'

    @property
    def card_hour_range(self) -> str:
        return self._range(self.card_hour, 2)

    @property
    def card_month_range(self) -> str:
        return self._range(self.card_month, 0)

    def _range(self, mid: float, digits: int) -> str:
        """'¥1.96' or, for a quoted range, '¥1,800–2,700' (the range's ends, converted alike)."""
        if self.offer.price is not None:
            return cny(mid, digits)
        low, high = self.offer.ends
        return cny_range(mid * low / self.offer.price_mid, mid * high / self.offer.price_mid, digits)


def shape_label(offer: Offer) -> str:
    """The instance's published shape, per instance."""
    parts = []
    if offer.vcpu is not None:
        parts.append(f"{offer.vcpu} vCPU")
    if offer.ram_gb is not None:
        parts.append(f"内存 {num(offer.ram_gb, 0)} GB")
    if offer.disk_gb is not None:
        parts.append(f"盘 {num(offer.disk_gb, 0)} GB")
    return " · ".join(parts) or "—"


def offer_rows(cat: Catalogue, offers: list[Offer], pricing: costs.Pricing | None = None) -> list[OfferRow]:
    pricing = pricing or costs.pricing_of(cat)
    return [
        OfferRow(
            offer=o,
            gpu=cat.gpus[o.gpu],
            provider=cat.providers[o.provider],
            price_label=price_label(o),
            card_hour=costs.card_hour_cny(o, pricing),
            card_month=costs.card_month_cny(o, pricing),
            rate=pricing.rate(o.currency, o.as_of),
            date_label=date_label(cat, o),
            current=cat.is_current(o),
            shape=shape_label(o),
        )
        for o in offers
    ]


def date_label(cat: Catalogue, offer: Offer) -> str:
    """The offer's date and its age on the build date ('2026-10-17（45 天前）'), marked when it is
    history.

    Measured against the build date (an input: SOURCE_DATE_EPOCH or the commit date of data/),
    never the clock, so the same data and date always build the same page.
    """
    age = cat.age_days(offer)
    when = "当天" if age == 0 else f"{age} 天前"
    if cat.is_current(offer):
        return f"{offer.as_of}（{when}）"
    if offer.id in cat.replaced:
        return f"{offer.as_of}（{when}，已被新报价取代）"
    return f"{offer.as_of}（{when}，超过 {cat.rules.prices.fresh_days} 天时效）"


@dataclass(frozen=True)
class ScenarioRow:
    """A scenario with its computed recommendation and its model (home and index tables)."""

    scenario: Scenario
    rec: Recommendation
    model: OpenModel


def scenario_rows(cat: Catalogue, scenarios: dict[str, ScenarioResult]) -> list[ScenarioRow]:
    return [ScenarioRow(r.scenario, r.rec, cat.models[r.scenario.model]) for r in scenarios.values()]
