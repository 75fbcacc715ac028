"""Table rows the templates print, built from the catalogue and the results.

Rows are typed records rather than dicts, so a template that names a missing field
fails the build (``StrictUndefined``) instead of printing nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery, Gpu, Offer, OpenModel, Scenario
from generator.engine import cost as costs
from generator.engine.recommend import Recommendation
from generator.formats import cny_range, num
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
    """One price as quoted, with its per-card-month equivalent."""

    offer: Offer
    gpu: Gpu
    price_label: str
    card_month: float
    date_label: str


def offer_rows(cat: Catalogue, offers: list[Offer]) -> list[OfferRow]:
    return [
        OfferRow(o, cat.gpus[o.gpu], price_label(o), costs.card_month_cny(o, cat.rules.cost), date_label(cat, o))
        for o in offers
    ]


def date_label(cat: Catalogue, offer: Offer) -> str:
    """The offer's date, marked when it is much older than the newest price in the data.

    Measured against the data's edition date, not today, so the same data always builds
    the same page; ``gpu-guide check`` judges age against the date it is given.
    """
    lag = (cat.as_of - offer.as_of).days
    return (
        f"{offer.as_of}（比本期最新报价早 {lag} 天）" if lag > cat.rules.prices.fresh_days else offer.as_of.isoformat()
    )


@dataclass(frozen=True)
class PriceRange:
    """Lowest and highest price per card-month of one delivery form, and how many offers."""

    delivery: str
    low: float
    high: float
    count: int


def delivery_ranges(cat: Catalogue, offers: list[Offer]) -> list[PriceRange]:
    out = []
    for d in Delivery:
        mine = [o for o in offers if o.delivery is d]
        span = costs.card_month_range(mine, cat.rules.cost)
        if span is not None:
            out.append(PriceRange(d.value, span[0], span[1], len(mine)))
    return out


@dataclass(frozen=True)
class ScenarioRow:
    """A scenario with its computed recommendation and its model (home and index tables)."""

    scenario: Scenario
    rec: Recommendation
    model: OpenModel


def scenario_rows(cat: Catalogue, scenarios: dict[str, ScenarioResult]) -> list[ScenarioRow]:
    return [ScenarioRow(r.scenario, r.rec, cat.models[r.scenario.model]) for r in scenarios.values()]
