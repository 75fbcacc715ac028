"""Compare two editions: what a data change does to prices, GPUs, the ladder, scenarios and files.

The result is a typed :class:`Report`; ``gpu-guide diff`` prints it as Markdown
(:mod:`generator.review.report`) or JSON, and ``gpu-guide edition`` words it in Chinese.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from generator.data.records import Offer, PricePer
from generator.engine import cost as costs
from generator.engine.recommend import Recommendation
from generator.formats import cny, cny_range
from generator.pages.names import CURRENCY_SIGNS
from generator.pages.open_data import GPU_COLUMNS, gpu_record
from generator.pipeline import Generated

#: GPU fields compared for "spec changes" (the open-data columns, minus the id and links).
SPEC_FIELDS = [c for c in GPU_COLUMNS if c not in ("id", "sources")]
UNIT_WORDS = {"hour": "hour", "day": "day", "month": "month", "year": "year"}


@dataclass(frozen=True)
class OfferRecord:
    offer: str
    provider: str
    gpu: str
    card_month_cny: float  # yuan per card-month (a range counts with its middle; foreign prices converted)
    price: str  # as quoted: '¥2.00/hour', '$3.99/card-hour for 8 cards', '¥80,000–90,000/month for 8 cards'
    price_value: float | None
    price_low: float | None
    price_high: float | None
    currency: str
    per: str
    unit: str
    billing: str
    cards: int
    as_of: str
    current: bool  # within the freshness window and not replaced, in its edition


@dataclass(frozen=True)
class PriceChange:
    offer: str
    provider: str
    gpu: str
    old: OfferRecord
    new: OfferRecord
    change_pct: float  # per card-month


@dataclass(frozen=True)
class PriceGroup:
    """Everything that happened to one provider's prices for one GPU."""

    provider: str
    gpu: str
    changed: list[PriceChange]
    added: list[OfferRecord]
    expired: list[OfferRecord]  # current in the base edition, history now (too old, or replaced)
    removed: list[OfferRecord]


@dataclass(frozen=True)
class Prices:
    changed: list[PriceChange]
    added: list[OfferRecord]
    expired: list[OfferRecord]
    removed: list[OfferRecord]
    groups: list[PriceGroup]  # the same changes by provider, then GPU


@dataclass(frozen=True)
class GpuAdded:
    gpu: str
    name: str
    rank: int


@dataclass(frozen=True)
class GpuRemoved:
    gpu: str
    name: str


@dataclass(frozen=True)
class SpecChange:
    gpu: str
    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class Gpus:
    added: list[GpuAdded]
    removed: list[GpuRemoved]
    specs: list[SpecChange]


@dataclass(frozen=True)
class RankMove:
    gpu: str
    old: int
    new: int


@dataclass(frozen=True)
class Pick:
    """A scenario's computed pick; all None when no GPU qualifies."""

    gpu: str | None
    cards: int | None
    delivery: str | None
    monthly_cny: int | None
    job_cost_cny: int | None


@dataclass(frozen=True)
class ScenarioChange:
    scenario: str
    old: Pick
    new: Pick
    pick_changed: bool  # GPU, cards or delivery moved (else only the cost)


@dataclass(frozen=True)
class ScenarioAdded:
    scenario: str
    new: Pick


@dataclass(frozen=True)
class ScenarioRemoved:
    scenario: str
    old: Pick


@dataclass(frozen=True)
class CardChange:
    scenario: str
    gpu: str
    old: int | None
    new: int | None


@dataclass(frozen=True)
class Scenarios:
    changed: list[ScenarioChange]
    added: list[ScenarioAdded]
    removed: list[ScenarioRemoved]
    cards: list[CardChange]


@dataclass(frozen=True)
class Files:
    added: list[str]
    removed: list[str]
    changed: list[str]


@dataclass(frozen=True)
class Counts:
    prices_changed: int
    offers_added: int
    offers_expired: int
    offers_removed: int
    gpus_added: int
    gpus_removed: int
    spec_figures_changed: int
    ladder_ranks_moved: int
    scenario_picks_changed: int
    scenario_costs_changed: int
    scenarios_added: int
    scenarios_removed: int
    card_counts_changed: int
    pages_added: int
    pages_removed: int
    files_changed: int


@dataclass(frozen=True)
class Report:
    """Everything the change report says, in a deterministic order."""

    base: str
    base_commit: str
    summary: str
    unchanged: bool
    counts: Counts
    prices: Prices
    gpus: Gpus
    ladder: list[RankMove]
    scenarios: Scenarios
    files: Files
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (``--format json``)."""
        return asdict(self)


def compare(old: Generated, new: Generated, *, base: str, commit: str, notes: list[str] | None = None) -> Report:
    prices = _prices(old, new)
    gpus = _gpus(old, new)
    ladder = _ladder(old, new)
    scenarios = _scenarios(old, new)
    files = Files(
        added=sorted(set(new.files) - set(old.files)),
        removed=sorted(set(old.files) - set(new.files)),
        changed=sorted(k for k in set(old.files) & set(new.files) if old.files[k] != new.files[k]),
    )
    counts = Counts(
        prices_changed=len(prices.changed),
        offers_added=len(prices.added),
        offers_expired=len(prices.expired),
        offers_removed=len(prices.removed),
        gpus_added=len(gpus.added),
        gpus_removed=len(gpus.removed),
        spec_figures_changed=len(gpus.specs),
        ladder_ranks_moved=len(ladder),
        scenario_picks_changed=sum(1 for s in scenarios.changed if s.pick_changed),
        scenario_costs_changed=sum(1 for s in scenarios.changed if not s.pick_changed),
        scenarios_added=len(scenarios.added),
        scenarios_removed=len(scenarios.removed),
        card_counts_changed=len(scenarios.cards),
        pages_added=len(files.added),
        pages_removed=len(files.removed),
        files_changed=len(files.changed),
    )
    unchanged = not (files.added or files.removed or files.changed)
    return Report(base, commit, summary_line(counts), unchanged, counts, prices, gpus, ladder, scenarios, files,
                  list(notes or []))  # fmt: skip


_SUMMARY_PARTS = [
    ("prices_changed", "price changed", "prices changed"),
    ("offers_added", "offer added", "offers added"),
    ("offers_expired", "offer expired", "offers expired"),
    ("offers_removed", "offer removed", "offers removed"),
    ("gpus_added", "GPU added", "GPUs added"),
    ("gpus_removed", "GPU removed", "GPUs removed"),
    ("spec_figures_changed", "spec figure changed", "spec figures changed"),
    ("ladder_ranks_moved", "ladder rank moved", "ladder ranks moved"),
    ("scenario_picks_changed", "scenario pick changed", "scenario picks changed"),
    ("scenario_costs_changed", "scenario cost changed", "scenario costs changed"),
    ("scenarios_added", "scenario added", "scenarios added"),
    ("scenarios_removed", "scenario removed", "scenarios removed"),
    ("card_counts_changed", "card count changed", "card counts changed"),
]


def summary_line(counts: Counts) -> str:
    """'1 price changed, 1 GPU added, …, 2 pages added, 0 removed, 9 files changed' (no zero data items)."""
    c = asdict(counts)
    parts = [f"{c[k]} {one if c[k] == 1 else many}" for k, one, many in _SUMMARY_PARTS if c[k]]
    parts.append(f"{counts.pages_added} {'page' if counts.pages_added == 1 else 'pages'} added")
    parts.append(f"{counts.pages_removed} removed")
    parts.append(f"{counts.files_changed} {'file' if counts.files_changed == 1 else 'files'} changed")
    return ", ".join(parts)


def raw_price(o: Offer) -> str:
    """'¥2.00/hour', '$3.99/card-hour for 8 cards', '¥80,000–90,000/month for 8 cards' (the price as quoted)."""
    digits = 2 if o.unit.value in ("hour", "day") else 0
    sign = CURRENCY_SIGNS[o.currency.value]
    if o.price is not None:
        text = sign + cny(o.price, digits)[1:]
    else:
        text = sign + cny_range(o.price_low or 0.0, o.price_high or 0.0, digits)[1:]
    per = "card-" if o.per is PricePer.card else ""
    text += f"/{per}{UNIT_WORDS[o.unit.value]}"
    return text + (f" for {o.cards} cards" if o.cards > 1 else "")


def _offer_record(o: Offer, gen: Generated, pricing: costs.Pricing) -> OfferRecord:
    return OfferRecord(
        offer=o.id,
        provider=o.provider,
        gpu=o.gpu,
        card_month_cny=round(costs.card_month_cny(o, pricing), 2),
        price=raw_price(o),
        price_value=o.price,
        price_low=o.price_low,
        price_high=o.price_high,
        currency=o.currency.value,
        per=o.per.value,
        unit=o.unit.value,
        billing=o.billing.value,
        cards=o.cards,
        as_of=o.as_of.isoformat(),
        current=gen.catalogue.is_current(o),
    )


def _prices(old: Generated, new: Generated) -> Prices:
    olds = {o.id: o for o in old.catalogue.offers}
    news = {o.id: o for o in new.catalogue.offers}
    op, np_ = costs.pricing_of(old.catalogue), costs.pricing_of(new.catalogue)
    changed, expired = [], []
    for o in new.catalogue.offers:
        if o.id not in olds:
            continue
        a, b = _offer_record(olds[o.id], old, op), _offer_record(o, new, np_)
        if _quoted(a) != _quoted(b):
            pct = (b.card_month_cny - a.card_month_cny) / a.card_month_cny * 100
            changed.append(PriceChange(o.id, o.provider, o.gpu, a, b, round(pct, 1) + 0.0))
        if a.current and not b.current:
            expired.append(b)
    added = [_offer_record(o, new, np_) for o in new.catalogue.offers if o.id not in olds]
    removed = [_offer_record(o, old, op) for o in old.catalogue.offers if o.id not in news]
    return Prices(changed, added, expired, removed, _groups(changed, added, expired, removed))


def _quoted(r: OfferRecord) -> tuple[Any, ...]:
    """What makes a price different: the yuan figure and everything that goes into it."""
    return (r.card_month_cny, r.price_value, r.price_low, r.price_high, r.currency, r.per, r.unit, r.cards)


def _groups(
    changed: list[PriceChange], added: list[OfferRecord], expired: list[OfferRecord], removed: list[OfferRecord]
) -> list[PriceGroup]:
    """The price changes by provider, then GPU (both in alphabetical order of their ids)."""
    keys = sorted({(c.provider, c.gpu) for c in changed} | {(r.provider, r.gpu) for r in added + expired + removed})
    return [
        PriceGroup(
            provider=p,
            gpu=g,
            changed=[c for c in changed if (c.provider, c.gpu) == (p, g)],
            added=[r for r in added if (r.provider, r.gpu) == (p, g)],
            expired=[r for r in expired if (r.provider, r.gpu) == (p, g)],
            removed=[r for r in removed if (r.provider, r.gpu) == (p, g)],
        )
        for p, g in keys
    ]


def _spec_value(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _gpus(old: Generated, new: Generated) -> Gpus:
    og, ng = old.catalogue.gpus, new.catalogue.gpus
    ranks = new.results.ranks
    specs = []
    for gid, gpu in ng.items():
        if gid not in og:
            continue
        a, b = gpu_record(og[gid]), gpu_record(gpu)
        specs += [SpecChange(gid, f, _spec_value(a[f]), _spec_value(b[f])) for f in SPEC_FIELDS if a[f] != b[f]]
    return Gpus(
        added=[GpuAdded(g, ng[g].name, ranks[g]) for g in ng if g not in og],
        removed=[GpuRemoved(g, og[g].name) for g in og if g not in ng],
        specs=specs,
    )


def _ladder(old: Generated, new: Generated) -> list[RankMove]:
    a, b = old.results.ranks, new.results.ranks
    moves = [RankMove(g, a[g], r) for g, r in b.items() if g in a and a[g] != r]
    return sorted(moves, key=lambda m: (m.new, m.gpu))


def _pick(rec: Recommendation) -> Pick:
    p = rec.pick
    if p is None:
        return Pick(None, None, None, None, None)
    return Pick(
        gpu=p.gpu.id,
        cards=p.cards,
        delivery=p.delivery.value,
        monthly_cny=round(p.monthly.total) if p.monthly else None,
        job_cost_cny=round(p.job_cost_cny) if p.job_cost_cny is not None else None,
    )


def _scenarios(old: Generated, new: Generated) -> Scenarios:
    os_, ns = old.results.scenarios, new.results.scenarios
    changed, cards = [], []
    for sid, r in ns.items():
        if sid not in os_:
            continue
        a, b = _pick(os_[sid].rec), _pick(r.rec)
        if a != b:
            moved = (a.gpu, a.cards, a.delivery) != (b.gpu, b.cards, b.delivery)
            changed.append(ScenarioChange(sid, a, b, moved))
        for opt in r.rec.options:
            was = os_[sid].rec.option_for(opt.gpu.id)
            if was is not None and was.cards != opt.cards:
                cards.append(CardChange(sid, opt.gpu.id, was.cards, opt.cards))
    order = {g: i for i, g in enumerate(new.catalogue.gpus)}
    sids = list(ns)
    cards.sort(key=lambda c: (sids.index(c.scenario), order[c.gpu]))
    return Scenarios(
        changed=changed,
        added=[ScenarioAdded(s, _pick(ns[s].rec)) for s in ns if s not in os_],
        removed=[ScenarioRemoved(s, _pick(os_[s].rec)) for s in os_ if s not in ns],
        cards=cards,
    )
