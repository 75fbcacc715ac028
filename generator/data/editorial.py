"""Typed records for the editorial files: claims to check, the cost of owning a card,
the kinds of buyer, and dated market facts.

These files hold what the reader pages 常见说法核对, 租还是买, 三类用户怎么选 and 市场趋势
are computed from. Like every record, field ``description=`` texts are the editor's
documentation (JSON Schemas and the editor's guide come from them).

Nothing here holds a verdict, a pick or a total: a claim names a *check* (a kind from a
fixed set and its parameters) and :mod:`generator.results.claims` computes the verdict;
a buyer names workloads and :mod:`generator.results.buyers` computes the picks.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import Field, Strict, model_validator

from generator.data.records import (
    Figure,
    HttpUrl,
    Record,
    ShortText,
    Slug,
    Text,
    Workload,
)

#: A quote copied from its source, long enough for a sentence or two.
Quote = Text
#: A workload name as YAML text (enum members are matched by value, see records.Record).
WorkloadName = Annotated[Workload, Strict(False)]

# --------------------------------------------------------------------------- claims


class CheckKind(StrEnum):
    """How a claim is checked against the data (what generator.results.claims computes)."""

    #: dense 16-bit TFLOPS of `gpu` over `versus`, against `stated` (a ratio); `stated_figure`
    #: is the TFLOPS figure the claim quotes for `gpu`, compared with its dense and sparse value
    tflops_ratio = "tflops_ratio"
    #: one spec figure (`figure`) of `gpu` against `stated`
    spec_value = "spec_value"
    #: share of the scenario and model pages `gpu` fits within `cards` cards, against `stated` (0-1)
    fit_share = "fit_share"
    #: `gpu`'s place by price per dense TFLOP-hour among priced GPUs, against `stated` (a place, 1 = best)
    price_rank = "price_rank"
    #: cheapest current card-month price of `gpu` over that of `versus`, against `stated` (a ratio)
    price_ratio = "price_ratio"
    #: the engine's multi-card scaling efficiency at `cards` PCIe cards, against `stated` (0-1)
    scaling = "scaling"
    #: the engine's peak memory per card for `model` under `workload` on one card, against `stated` (GB)
    memory = "memory"
    #: cards of `gpu` the engine needs for each of `models` x `workloads`, against `cards`
    card_fits = "card_fits"


#: Parameters each check kind needs; validate.cross_check reports the missing ones.
CHECK_NEEDS: dict[CheckKind, tuple[str, ...]] = {
    CheckKind.tflops_ratio: ("gpu", "versus", "stated"),
    CheckKind.spec_value: ("gpu", "figure", "stated"),
    CheckKind.fit_share: ("gpu", "cards", "stated"),
    CheckKind.price_rank: ("gpu", "stated"),
    CheckKind.price_ratio: ("gpu", "versus", "stated"),
    CheckKind.scaling: ("cards", "stated"),
    CheckKind.memory: ("model", "workload", "stated"),
    CheckKind.card_fits: ("gpu", "models", "workloads", "cards"),
}


class ClaimCheck(Record):
    """What to compute for a claim: a kind from a fixed set and the parameters it needs."""

    kind: CheckKind = Field(
        strict=False,
        description="tflops_ratio, spec_value, fit_share, price_rank, price_ratio, scaling, memory or card_fits.",
    )
    gpu: Slug | None = Field(default=None, description="GPU id (gpus.yaml) the claim is about.")
    versus: Slug | None = Field(default=None, description="GPU id the claim compares it with.")
    figure: Figure | None = Field(
        strict=False, default=None, description="spec_value: the spec figure, e.g. tdp_w or memory_gb."
    )
    model: Slug | None = Field(default=None, description="memory: model id (models.yaml).")
    workload: Workload | None = Field(strict=False, default=None, description="memory: inference, lora, qlora or full.")
    models: list[Slug] = Field(default_factory=list, description="card_fits: model ids.")
    workloads: list[WorkloadName] = Field(
        default_factory=list, description="card_fits: workloads sized for each model."
    )
    cards: int | None = Field(default=None, ge=1, le=64, description="Card count the claim speaks of.")
    stated: float | None = Field(
        default=None, gt=0, description="The number the claim states (a ratio, a share 0-1, a place, GB or a figure)."
    )
    stated_figure: float | None = Field(
        default=None, gt=0, description="tflops_ratio: the TFLOPS figure the claim quotes for gpu."
    )

    def missing(self) -> list[str]:
        """Parameters this kind needs that are not set."""
        return [name for name in CHECK_NEEDS[self.kind] if getattr(self, name) in (None, [])]


class Claim(Record):
    """A claim people commonly make about GPUs, and how the site checks it."""

    id: Slug = Field(description="Stable id.")
    claim: ShortText = Field(description="The claim as commonly stated, in your own words (Chinese).")
    source: HttpUrl = Field(description="Where the claim was seen.")
    source_title: ShortText = Field(description="Name of that article or page (Chinese).")
    check: ClaimCheck = Field(description="The check that computes the verdict.")


class Tolerance(Record):
    """How close a computed number must be to the claim's for each verdict."""

    holds: float = Field(gt=0, lt=1, description="Relative difference up to which a claim holds (成立), e.g. 0.15.")
    partly: float = Field(gt=0, lt=1, description="Relative difference up to which it partly holds (部分成立).")

    @model_validator(mode="after")
    def _ordered(self) -> Tolerance:
        if self.partly < self.holds:
            raise ValueError(f"partly ({self.partly:g}) must be at least holds ({self.holds:g})")
        return self


class ClaimsFile(Record):
    """data/claims.yaml"""

    tolerance: Tolerance = Field(description="How close a number must be for 成立 and 部分成立.")
    claims: list[Claim] = Field(description="Claims checked on the 常见说法核对 page.")


# --------------------------------------------------------------------------- ownership


class PurchaseKind(StrEnum):
    card = "card"
    server = "server"


class Purchase(Record):
    """A purchase price of a card or a whole server, as a source stated it."""

    id: Slug = Field(description="Stable id.")
    gpu: Slug = Field(description="GPU id (gpus.yaml).")
    what: PurchaseKind = Field(strict=False, description="card, or server (a whole machine with `cards` cards).")
    cards: int = Field(ge=1, le=64, description="Cards the price buys.")
    price_cny: float = Field(gt=0, le=100_000_000, description="Price in yuan (CNY) for all of them.")
    as_of: dt.date = Field(description="Date the price applied, YYYY-MM-DD.")
    source: HttpUrl = Field(description="Where the price was seen.")
    quote: Quote = Field(description="The source's own words, copied exactly.")
    note: Text | None = Field(
        default=None, description="What a reader should know (reliability, how the date was set)."
    )


class SourcedValue(Record):
    """A running-cost figure with its source: an electricity price or a PUE."""

    id: Slug = Field(description="Stable id.")
    label: ShortText = Field(description="What the figure is, for the page (Chinese).")
    value: float = Field(gt=0, le=100, description="The figure: yuan per kWh, or a PUE ratio.")
    as_of: dt.date = Field(description="Date the figure applied, YYYY-MM-DD.")
    source: HttpUrl = Field(description="Where the figure was seen.")
    quote: Quote = Field(description="The source's own words, copied exactly.")
    note: Text | None = Field(default=None, description="What a reader should know.")


class ElectricityPrice(SourcedValue):
    """An electricity price in yuan per kWh, with its source."""

    value: float = Field(gt=0, le=10, description="Yuan per kWh (above 0, at most 10).")


class Pue(SourcedValue):
    """A data centre's power usage effectiveness (total power over IT power), with its source."""

    value: float = Field(
        ge=1, le=3, description="The ratio: at least 1 by definition (IT power is part of the total), at most 3."
    )


class Assumed(Record):
    """An input no source gives: the editor's assumption, shown as such on the page."""

    value: float = Field(ge=0, le=1_000_000, description="The assumed value.")
    assumption: bool = Field(description="Must be true: the page marks the value as an editor's assumption.")
    note: Text = Field(description="Why this value (Chinese, shown on the page).")

    @model_validator(mode="after")
    def _marked(self) -> Assumed:
        if not self.assumption:
            raise ValueError("an input without a source must say assumption: true; a sourced figure goes in a list")
        return self


class SystemPower(Record):
    """A whole server's power from its datasheet: what the GPUs draw with their host (CPUs, memory,
    NICs, NVSwitches, fans), as a multiple of the GPUs' own TDP."""

    id: Slug = Field(description="Stable id.")
    label: ShortText = Field(description="Which server (Chinese).")
    server_watts: float = Field(gt=0, le=200_000, description="The server's stated power, watts.")
    gpus: int = Field(ge=1, le=72, description="GPUs in that server.")
    gpu_watts: float = Field(gt=0, le=5_000, description="One GPU's TDP in that server, watts.")
    as_of: dt.date = Field(description="Date of the datasheet, YYYY-MM-DD.")
    source: HttpUrl = Field(description="The datasheet.")
    quote: Quote = Field(description="The datasheet's own words, copied exactly.")
    note: Text | None = Field(default=None, description="What a reader should know (how the date was set).")

    @property
    def factor(self) -> float:
        """Server power per GPU, as a multiple of the GPU's TDP."""
        return self.server_watts / (self.gpus * self.gpu_watts)


class OwnershipDefaults(Record):
    """What the rent-or-buy page starts from; readers change them in the form."""

    electricity: Slug = Field(description="Id of the electricity entry the page uses.")
    pue: Slug = Field(description="Id of the PUE entry the page uses.")
    hosting_cny_per_kw_month: Assumed = Field(
        description="Rack space, cooling and network per kW of card power per month."
    )
    resale_fraction: Assumed = Field(
        description="Share of the purchase price the card still sells for at the end (0-1)."
    )
    years: Assumed = Field(description="Years the card is kept before it is sold.")
    hours_per_day: Assumed = Field(description="Hours a day the card works (the same hours are rented).")
    host_power_factor: Assumed | None = Field(
        default=None,
        description="A single PCIe card's power with its share of the host (CPU, memory, disks), as a multiple of its TDP.",
    )

    @model_validator(mode="after")
    def _ranges(self) -> OwnershipDefaults:
        if self.resale_fraction.value >= 1:
            raise ValueError("resale_fraction.value is a share below 1, e.g. 0.2 for 20%")
        if not 0 < self.hours_per_day.value <= 24:
            raise ValueError("hours_per_day.value must be above 0 and at most 24")
        if not 0 < self.years.value <= 10:
            raise ValueError("years.value must be above 0 and at most 10")
        if self.hosting_cny_per_kw_month.value > 100_000:
            raise ValueError("hosting_cny_per_kw_month.value must be at most 100000 yuan per kW-month")
        return self


class OwnershipFile(Record):
    """data/ownership.yaml"""

    purchases: list[Purchase] = Field(description="Purchase prices in yuan.")
    electricity: list[ElectricityPrice] = Field(min_length=1, description="Electricity prices (yuan per kWh).")
    pue: list[Pue] = Field(min_length=1, description="Power usage effectiveness figures (ratio).")
    defaults: OwnershipDefaults = Field(description="The page's starting inputs.")
    system_power: list[SystemPower] = Field(
        default_factory=list,
        description="Server datasheets' power: whole servers are costed at system power, not GPU TDP.",
    )


# --------------------------------------------------------------------------- buyers


class BuyerWorkload(Record):
    """A workload that represents a buyer: a scenario, or a model page (model and workload)."""

    scenario: Slug | None = Field(default=None, description="Scenario id (scenarios.yaml).")
    model: Slug | None = Field(default=None, description="Model id (models.yaml), with workload.")
    workload: Workload | None = Field(strict=False, default=None, description="inference, lora, qlora or full.")

    @model_validator(mode="after")
    def _one_form(self) -> BuyerWorkload:
        page = self.model is not None or self.workload is not None
        if (self.scenario is not None) == page:
            raise ValueError("give either scenario, or model and workload")
        if page and (self.model is None or self.workload is None):
            raise ValueError("a model page needs both model and workload")
        return self


class Buyer(Record):
    """A kind of buyer and the workloads that represent them."""

    id: Slug = Field(description="Stable id.")
    title: ShortText = Field(description="Who they are (Chinese).")
    summary: Text = Field(description="What they need, in your own words (Chinese).")
    source: HttpUrl = Field(description="Article that describes this kind of buyer.")
    article_picks: list[Slug] = Field(default_factory=list, description="GPU ids that article recommends.")
    workloads: list[BuyerWorkload] = Field(min_length=1, description="Scenarios or model pages that represent them.")


class BuyersFile(Record):
    """data/buyers.yaml"""

    buyers: list[Buyer] = Field(description="Kinds of buyer.")


# --------------------------------------------------------------------------- trends


class TrendTopic(StrEnum):
    export_controls = "export_controls"
    memory = "memory"
    domestic = "domestic"
    energy = "energy"
    prices = "prices"


class TrendFact(Record):
    """A dated fact about the market, with its source's own words."""

    id: Slug = Field(description="Stable id.")
    date: dt.date = Field(description="When it happened, YYYY-MM-DD.")
    topic: TrendTopic = Field(strict=False, description="export_controls, memory, domestic, energy or prices.")
    fact: ShortText = Field(description="What happened, in your own words (Chinese).")
    source: HttpUrl = Field(description="Where it was reported.")
    quote: Quote = Field(description="The source's own words, copied exactly.")
    note: Text | None = Field(default=None, description="What a reader should know (how the date was set).")


class TrendsFile(Record):
    """data/trends.yaml"""

    facts: list[TrendFact] = Field(description="Dated market facts.")
