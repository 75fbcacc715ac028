"""Checks of the market data against the calendar and against how providers sell.

Run by :func:`generator.data.validate.cross_check`, so ``build`` and ``check`` refuse the same
things: a price dated after the build date (a source cannot print tomorrow's price), a rental of
fewer cards than the provider's smallest node (``providers.yaml`` ``node_only``), and, as a warning,
a per-card price that rises with the card count of the same provider, GPU, delivery and billing
(a Windows rate filed beside a Linux one, or a misread unit) unless ``shape_note`` says why, and, as a
notice at the fx.yaml rate, current foreign prices converted at a rate more than ``FX_GAP_DAYS`` days
older than the price (the newest rate predates them: the yuan figure uses an older rate).
"""

from __future__ import annotations

from generator.data.catalogue import Catalogue, rate_on
from generator.data.datafiles import DataFile
from generator.data.problems import Problem, Severity
from generator.data.records import Offer, PricePer

#: a per-card price this much above a smaller instance's is flagged (rounding in sources is below it)
RISE_TOLERANCE = 1.01
#: a current foreign price converted at a rate more than this many days older is named in a notice
FX_GAP_DAYS = 30


def market_problems(cat: Catalogue) -> list[Problem]:
    """Every problem of offers.yaml against the build date and the shapes providers sell."""
    return _future_dates(cat) + _node_only(cat) + _rising_per_card(cat) + _old_fx(cat)


def _old_fx(cat: Catalogue) -> list[Problem]:
    """One notice per fx.yaml rate that converts current offers dated more than FX_GAP_DAYS after it."""
    gaps: dict[int, list[int]] = {}
    dates: dict[int, list[str]] = {}
    for o in cat.current_offers:
        rate = rate_on(cat.fx, o.currency, o.as_of)
        if rate is None or (o.as_of - rate.as_of).days <= FX_GAP_DAYS:
            continue
        j = next(k for k, r in enumerate(cat.fx) if r is rate)
        gaps.setdefault(j, []).append((o.as_of - rate.as_of).days)
        dates.setdefault(j, []).append(o.as_of.isoformat())
    out = []
    for j, days in sorted(gaps.items()):
        r = cat.fx[j]
        out.append(cat.locate(DataFile.fx, ("rates", j, "as_of"),
            f"{len(days)} current {r.currency.value} offers (dated {min(dates[j])} to {max(dates[j])}) are shown in "
            f"yuan at this rate of {r.as_of}, {min(days)} to {max(days)} days older than their prices; add a later "
            "dated rate with its source", Severity.notice))  # fmt: skip
    return out


def _future_dates(cat: Catalogue) -> list[Problem]:
    """An offer dated after the build date. Without a build date the newest price is the date, so
    nothing can be after it; the command line always passes one (SOURCE_DATE_EPOCH or git)."""
    if cat.build_date is None:
        return []
    why = (
        "a source cannot state a later price; fix the date, or commit data/ (the build date is the commit "
        "date of data/) or set SOURCE_DATE_EPOCH"
    )
    return [
        cat.locate(
            DataFile.offers, ("offers", i, "as_of"), f"dated {o.as_of}, after the build date {cat.build_date}: {why}"
        )
        for i, o in enumerate(cat.offers)
        if o.as_of > cat.build_date
    ]


def _node_only(cat: Catalogue) -> list[Problem]:
    """An offer of fewer cards than the provider's smallest node of that GPU."""
    out = []
    for i, o in enumerate(cat.offers):
        prov = cat.providers.get(o.provider)
        shape = next((s for s in prov.node_only if s.gpu == o.gpu), None) if prov else None
        if shape is None or o.cards >= shape.cards:
            continue
        j = prov.node_only.index(shape)  # type: ignore[union-attr]
        line = (
            cat.docs[DataFile.providers].mark(("providers", list(cat.providers).index(o.provider), "node_only", j)).line
        )
        out.append(cat.locate(DataFile.offers, ("offers", i, "cards"),
            f"{prov.name} rents {o.gpu} only as {shape.cards}-card nodes (providers.yaml line {line}); "  # type: ignore[union-attr]
            f"a per-GPU price of that node is cards: {shape.cards} with per: card"))  # fmt: skip
    return out


def per_card(o: Offer) -> float:
    """The quoted price of one card, in the offer's own currency and unit."""
    return o.price_mid if o.per is PricePer.card else o.price_mid / o.cards


def _rising_per_card(cat: Catalogue) -> list[Problem]:
    """A per-card price above a smaller instance's of the same provider, GPU, delivery, billing,
    unit and currency (current offers; a ``shape_note`` says it was checked)."""
    out = []
    current = {o.id for o in cat.current_offers}
    for i, o in enumerate(cat.offers):
        if o.id not in current or o.shape_note:
            continue
        smaller = [
            s for s in cat.offers
            if s.id in current and s.cards < o.cards and (s.provider, s.gpu, s.delivery, s.billing, s.unit, s.currency)
            == (o.provider, o.gpu, o.delivery, o.billing, o.unit, o.currency)
        ]  # fmt: skip
        cheaper = [s for s in smaller if per_card(o) > per_card(s) * RISE_TOLERANCE]
        if not cheaper:
            continue
        s = min(cheaper, key=per_card)
        out.append(cat.locate(DataFile.offers, ("offers", i),
            f"{o.cards} cards cost {per_card(o):g} {o.currency.value} per card per {o.unit.value}, more than the "
            f"{s.cards}-card instance {s.id} ({per_card(s):g}); a bigger instance of the same family is rarely dearer "
            "per card: check it is the same OS (Windows rates), unit and region, or say why in shape_note",
            Severity.warning))  # fmt: skip
    return out
