"""Data lint for ``gpu-guide check``: things that validate but are probably wrong.

Every finding is a :class:`Problem` at the line of the offending field, a warning
unless noted, so it prints like a schema error and becomes a GitHub annotation.

Offers are compared in yuan per card-hour (:mod:`generator.engine.cost`), so a per-card
price entered as a whole instance's (or the reverse), a wrong unit or a wrong currency
shows up against the other offers of the same GPU.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics

from generator.data.catalogue import Catalogue
from generator.data.datafiles import DataFile
from generator.data.problems import Problem, Severity, YamlPath
from generator.data.records import Offer, PricePer
from generator.engine import cost as costs
from generator.engine.recommend import for_scenario
from generator.results.evaluate import Results

#: FP16 dense tensor over this multiple of FP32 suggests a sparse figure (H100 SXM is ~14.8x).
MAX_TENSOR_TO_FP32 = 16.0
#: Architectures whose dense tensor rate is far above FP32 by design: Blackwell data-centre parts
#: shrank FP32 (B200: 2,250 dense FP16 against 75 FP32 in NVIDIA's HGX B200 table, 30x).
TENSOR_TO_FP32_BY_ARCH = {"Blackwell": 32.0}
#: Plausible memory bandwidth per card by memory technology (GB/s). HBM2 starts at the P100's 732
#: and the V100's 900; GDDR at entry cards' 200.
BANDWIDTH_LIMITS = {"GDDR": (200, 2000), "HBM": (700, 10000)}
#: A card-hour price this many times away from the median of the same GPU and billing tier is suspicious.
PRICE_OUTLIER_FACTOR = 3.0
#: Fewest current offers of the same GPU and billing tier (the offer included) before a median means anything.
MIN_GROUP = 3

#: A number as sources print it: "1.96", "15,600", "8.7万", "6,000-9,000", "1.8-3万" (not the "100" of "A100").
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_AMOUNT = re.compile(rf"(?<![A-Za-z0-9.])({_NUMBER})(?:\s*[-–~～至到]\s*({_NUMBER}))?\s*(万)?")


def quoted_numbers(quote: str) -> list[float]:
    """Every number a quote states, thousands separators removed, ``万`` (10,000) applied to both
    ends of a range it follows ("1.8-3万" -> 18000, 30000)."""
    out: list[float] = []
    for m in _AMOUNT.finditer(quote):
        scale = 10_000 if m.group(3) else 1
        for part in (m.group(1), m.group(2)):
            if part is None:
                continue
            try:
                out.append(float(part.replace(",", "")) * scale)
            except ValueError:  # "1,2,3" is not a number
                continue
    return out


def quote_states(quote: str, value: float) -> bool:
    """Whether ``quote`` states ``value`` (to a millionth, so 10.5 matches "10.50")."""
    return any(abs(n - value) <= 1e-6 * max(1.0, abs(value)) for n in quoted_numbers(quote))


def lint(cat: Catalogue, results: Results, today: dt.date, max_price_age_days: int | None = None) -> list[Problem]:
    """All lint findings, in file order. ``today`` is an input, never the clock; prices that pages
    still rank and price with, older than ``max_price_age_days`` before ``today`` (default:
    ``rules.prices.fresh_days``), are stale."""
    if max_price_age_days is None:
        max_price_age_days = cat.rules.prices.fresh_days
    return _gpu_lint(cat) + _offer_lint(cat, results, today, max_price_age_days) + _provider_lint(cat)


def _gpu_lint(cat: Catalogue) -> list[Problem]:
    out: list[Problem] = []
    warn = Severity.warning
    for i, g in enumerate(cat.gpus.values()):
        limit = TENSOR_TO_FP32_BY_ARCH.get(g.architecture, MAX_TENSOR_TO_FP32)
        if g.fp32_tflops and g.fp16_tflops_dense and g.fp16_tflops_dense > limit * g.fp32_tflops:
            out.append(cat.locate(DataFile.gpus, ("gpus", i, "fp16_tflops_dense"),
                f"{g.fp16_tflops_dense:g} is {g.fp16_tflops_dense / g.fp32_tflops:.0f}x the FP32 figure; "
                "that looks like a sparse figure: halve it if the datasheet says 'with sparsity'", warn))  # fmt: skip
        if g.bf16_tflops_dense and g.fp8_tflops_dense and g.fp8_tflops_dense > 2.05 * g.bf16_tflops_dense:
            out.append(cat.locate(DataFile.gpus, ("gpus", i, "fp8_tflops_dense"),
                f"FP8 ({g.fp8_tflops_dense:g}) is more than twice BF16 ({g.bf16_tflops_dense:g}); "
                "check for a sparse figure", warn))  # fmt: skip
        kind = g.memory_type.upper()
        for prefix, (low, high) in BANDWIDTH_LIMITS.items():
            if kind.startswith(prefix) and not low <= g.memory_bandwidth_gbps <= high:
                out.append(cat.locate(DataFile.gpus, ("gpus", i, "memory_bandwidth_gbps"),
                    f"{g.memory_bandwidth_gbps:g} GB/s does not fit {g.memory_type} ({low}-{high} GB/s per card); "
                    "is this the NVLink bandwidth?", warn))  # fmt: skip
    return out


def _median(group: list[tuple[Offer, float]]) -> tuple[float, int] | None:
    """Median card-hour price of a group of offers (the offer itself included), or None for small groups."""
    if len(group) < MIN_GROUP:
        return None
    return statistics.median(price for _, price in group), len(group)


def _offer_lint(cat: Catalogue, results: Results, today: dt.date, max_age: int) -> list[Problem]:
    out: list[Problem] = []
    warn = Severity.warning
    pricing = costs.pricing_of(cat)
    hour = {o.id: costs.card_hour_cny(o, pricing) for o in cat.offers}
    by_tier: dict[tuple[str, str], list[tuple[Offer, float]]] = {}
    for o in cat.current_offers:
        by_tier.setdefault((o.gpu, o.billing.value), []).append((o, hour[o.id]))
    # Offers the pages rank and price with: the ladder's price columns and every recommendation.
    used = {o.id for o in cat.pickable_offers}
    recs = [r.rec for r in results.scenarios.values()] + [m.rec for m in results.models]
    eligible = {opt.gpu.id for rec in recs for opt in rec.options if opt.eligible}
    for i, o in enumerate(cat.offers):
        at = ("offers", i)
        if o.as_of > today:
            out.append(cat.locate(DataFile.offers, (*at, "as_of"), "date is in the future", Severity.error))
        age = (today - o.as_of).days
        if o.id in used and age > max_age:
            out.append(cat.locate(DataFile.offers, (*at, "as_of"),
                f"price is {age} days old on {today} (over {max_age}) and pages still rank and price with it; "
                "check it and update as_of, or add a newer price", warn))  # fmt: skip
        missing = [v for v in dict.fromkeys(o.ends) if not quote_states(o.quote, v)]
        if missing:
            said = " and ".join(f"{v:g}" for v in missing)
            out.append(cat.locate(DataFile.offers, (*at, "quote"),
                f"the quote does not state the price {said}; copy the source's words that give it "
                "(thousands separators and 万 are understood), or fix the price", warn))  # fmt: skip
        if not cat.is_current(o):
            continue
        tier = _median(by_tier[(o.gpu, o.billing.value)])
        if tier is None or o.outlier_note:  # a checked outlier says why; not flagged again
            continue
        median, n = tier
        mine = hour[o.id]
        mixup = _per_mixup(cat, o, at, mine, median, n)
        out += mixup
        far = mine > median * PRICE_OUTLIER_FACTOR or mine * PRICE_OUTLIER_FACTOR < median
        if far and not mixup:
            out.append(cat.locate(DataFile.offers, at,
                f"¥{mine:,.2f} per card-hour is {_times(mine, median)} the median ¥{median:,.2f} of the {n} current "
                f"{o.billing.value} offers for {o.gpu}; check price, unit, per and currency (once checked against "
                "the source, say why in outlier_note)", warn))  # fmt: skip
    unused = {o.gpu for o in cat.offers if o.id in used and o.gpu not in eligible}
    unused -= _eligible_by_choice(cat, unused)
    for i, o in enumerate(cat.offers):
        if o.id in used and o.gpu in unused:
            out.append(cat.locate(DataFile.offers, ("offers", i, "gpu"),
                f"no recommendation can use this offer ({o.gpu} is never an eligible option on any scenario "
                "or model page, even without the CUDA or 国产 requirement)", warn))  # fmt: skip
    return out


def _eligible_by_choice(cat: Catalogue, gpus: set[str]) -> set[str]:
    """Of ``gpus``, those some scenario's workload can use once the reader lifts the CUDA and 国产
    requirements, as the calculator and ``--no-require-cuda`` let them: an AMD card every page
    rules out by rules.yaml's ``require_cuda`` default is still a card a reader can rent."""
    if not gpus:
        return set()
    out: set[str] = set()
    for scenario in cat.scenarios.values():
        relaxed = scenario.model_copy(update={"require_cuda": False, "domestic_only": False})
        rec = for_scenario(cat, relaxed)
        out |= {opt.gpu.id for opt in rec.options if opt.eligible and opt.gpu.id in gpus}
    return out


def _times(mine: float, median: float) -> str:
    return f"{mine / median:.1f}x" if mine >= median else f"1/{median / mine:.1f} of"


def _per_mixup(cat: Catalogue, o: Offer, at: YamlPath, mine: float, median: float, n: int) -> list[Problem]:
    """A multi-card offer far from the median of its GPU and billing tier that fits it only after multiplying or
    dividing by its card count: ``per`` is probably wrong (the outlier warning is not repeated)."""
    if o.cards < 2:
        return []
    per_card = o.per is PricePer.card
    far = mine > median * PRICE_OUTLIER_FACTOR if per_card else mine * PRICE_OUTLIER_FACTOR < median
    fixed = mine / o.cards if per_card else mine * o.cards
    if not far or not median / PRICE_OUTLIER_FACTOR <= fixed <= median * PRICE_OUTLIER_FACTOR:
        return []
    if per_card:
        text = (
            f"¥{mine:,.2f} per card-hour is far over the median ¥{median:,.2f} of the {n} current "
            f"{o.billing.value} offers for {o.gpu}, and fits it as the whole instance's price; is the price for "
            f"all {o.cards} cards? then remove per: card"
        )
    else:
        text = (
            f"¥{mine:,.2f} per card-hour for {o.cards} cards is far under the median ¥{median:,.2f} of the "
            f"{n} current {o.billing.value} offers for {o.gpu}, and fits it as one card's price; is the price "
            "for one card? then set per: card"
        )
    return [cat.locate(DataFile.offers, (*at, "per"), text, Severity.warning)]


def _provider_lint(cat: Catalogue) -> list[Problem]:
    """Providers whose charges besides the card have no source: their pages fall back to the
    assumptions in rules.yaml. A notice: often no such price is published."""
    out = []
    for i, p in enumerate(cat.providers.values()):
        if not p.extras:
            message = (
                f"{p.name}: no sourced price for disk, traffic or public IP; its page says the assumed prices in "
                "rules.yaml apply. Add extras with a source when you find them"
            )
            out.append(cat.locate(DataFile.providers, ("providers", i), message, Severity.notice))
    return out
