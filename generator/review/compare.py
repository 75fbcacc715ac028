"""Compare two editions: what a data change does to prices, GPUs, the ladder, scenarios and files.

The result is a typed :class:`Report`; ``gpu-guide diff`` prints it as Markdown
(:mod:`generator.review.report`) or JSON, and ``gpu-guide edition`` words it in Chinese.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from generator.data.records import Offer
from generator.engine import cost as costs
from generator.engine.recommend import Recommendation
from generator.formats import cny, cny_range
from generator.pages.open_data import GPU_COLUMNS, gpu_record
from generator.pipeline import Generated

#: GPU fields compared for "spec changes" (the open-data columns, minus the id and links).
SPEC_FIELDS = [c for c in GPU_COLUMNS if c not in ("id", "sources")]
UNIT_WORDS = {"hour": "hour", "day": "day", "month": "month"}


@dataclass(frozen=True)
class OfferRecord:
    offer: str
    gpu: str
    card_month_cny: float
    price: str  # as quoted, per instance: '¥2.00/hour', '¥80,000–90,000/month for 8 cards'
    price_cny: float | None
    price_low_cny: float | None
    price_high_cny: float | None
    unit: str
    cards: int


@dataclass(frozen=True)
class PriceChange:
    offer: str
    gpu: str
    old: OfferRecord
    new: OfferRecord
    change_pct: float  # per card-month


@dataclass(frozen=True)
class Prices:
    changed: list[PriceChange]
    added: list[OfferRecord]
    removed: list[OfferRecord]


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
    """'¥2.00/hour', '¥80,000–90,000/month for 8 cards' (the price as quoted, per instance)."""
    digits = 2 if o.unit.value == "hour" else 0
    if o.price_cny is not None:
        text = cny(o.price_cny, digits)
    else:
        text = cny_range(o.price_low_cny or 0.0, o.price_high_cny or 0.0, digits)
    text += f"/{UNIT_WORDS[o.unit.value]}"
    return text + (f" for {o.cards} cards" if o.cards > 1 else "")


def _offer_record(o: Offer, gen: Generated) -> OfferRecord:
    return OfferRecord(
        offer=o.id,
        gpu=o.gpu,
        card_month_cny=round(costs.card_month_cny(o, gen.catalogue.rules.cost), 2),
        price=raw_price(o),
        price_cny=o.price_cny,
        price_low_cny=o.price_low_cny,
        price_high_cny=o.price_high_cny,
        unit=o.unit.value,
        cards=o.cards,
    )


def _prices(old: Generated, new: Generated) -> Prices:
    olds = {o.id: o for o in old.catalogue.offers}
    news = {o.id: o for o in new.catalogue.offers}
    changed = []
    for o in new.catalogue.offers:
        if o.id not in olds:
            continue
        a, b = _offer_record(olds[o.id], old), _offer_record(o, new)
        if (a.card_month_cny, a.price_cny, a.price_low_cny, a.price_high_cny, a.unit, a.cards) != (
            b.card_month_cny, b.price_cny, b.price_low_cny, b.price_high_cny, b.unit, b.cards
        ):  # fmt: skip
            pct = (b.card_month_cny - a.card_month_cny) / a.card_month_cny * 100
            changed.append(PriceChange(o.id, o.gpu, a, b, round(pct, 1) + 0.0))
    return Prices(
        changed=changed,
        added=[_offer_record(o, new) for o in new.catalogue.offers if o.id not in olds],
        removed=[_offer_record(o, old) for o in old.catalogue.offers if o.id not in news],
    )


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
