"""Public API prices next to the cost of serving the same size of model on rented cards.

An API price is compared with a model page when the open-weights model it serves is within
``rules.pages.api_size_tolerance`` of the page model's size (mixture-of-experts models only
with each other). The API's input and output prices are blended at the page's own prompt and
output lengths, so both sides count the same tokens. A dollar price is shown in yuan at the
``fx.yaml`` rate of its date (as the rents are).

Freshness works as for the rents: an API price older than ``rules.prices.api_fresh_days`` before
the build date, or ``replaces``-d by a newer one, is history. The pages list it with its age,
but no comparison with renting (the cheapest API, the FAQ answer) uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from generator.data.catalogue import Catalogue, rate_on
from generator.data.records import ApiPrice, FxRate, OpenModel


class ApiStatus(StrEnum):
    """Whether an API price may be compared with renting on the build date."""

    current = "current"
    stale = "stale"  # older than rules.prices.api_fresh_days
    replaced = "replaced"  # a newer price of the same API replaces it


@dataclass(frozen=True)
class ApiComparison:
    """One API price in yuan, blended at a prompt/output mix, with its age on the build date."""

    price: ApiPrice
    rate: FxRate | None  # the exchange rate a foreign price was converted at (None for yuan)
    input_cny_per_mtok: float
    output_cny_per_mtok: float
    blended_cny_per_mtok: float
    age_days: int
    status: ApiStatus

    @property
    def current(self) -> bool:
        return self.status is ApiStatus.current


@dataclass(frozen=True)
class ApiComparisons:
    """The API prices of models about a page model's size: current ones (compared), then history."""

    current: tuple[ApiComparison, ...] = ()
    history: tuple[ApiComparison, ...] = ()
    fresh_days: int = 0  # rules.prices.api_fresh_days, the window the pages name

    def __bool__(self) -> bool:
        return bool(self.current or self.history)


#: no API price to show (image models, training workloads)
NO_API = ApiComparisons()


def blended(input_per_mtok: float, output_per_mtok: float, prompt_tokens: int, output_tokens: int) -> float:
    """Price per million tokens for requests of this prompt/output mix (both tokens counted)."""
    total = prompt_tokens + output_tokens
    return (input_per_mtok * prompt_tokens + output_per_mtok * output_tokens) / total


def compare(cat: Catalogue, price: ApiPrice, prompt_tokens: int, output_tokens: int) -> ApiComparison:
    """One price in yuan at the rate of its date, blended, with its status on the build date."""
    rate = rate_on(cat.fx, price.currency, price.as_of)
    factor = rate.cny_per_unit if rate is not None else 1.0
    inp, out = price.input_per_mtok * factor, price.output_per_mtok * factor
    if price.id in cat.api_replaced:
        status = ApiStatus.replaced
    elif price.as_of < cat.api_fresh_since:
        status = ApiStatus.stale
    else:
        status = ApiStatus.current
    return ApiComparison(
        price, rate, inp, out, blended(inp, out, prompt_tokens, output_tokens), cat.api_age_days(price), status
    )


def same_size_prices(
    cat: Catalogue, model: OpenModel, prompt_tokens: int, output_tokens: int, tolerance: float
) -> ApiComparisons:
    """API prices of models about ``model``'s size, each group cheapest blended price first (ties: newest, id)."""
    moe = model.experts is not None
    found = [
        compare(cat, p, prompt_tokens, output_tokens)
        for p in cat.api_prices
        if p.open_params_b is not None
        and p.moe == moe
        and abs(p.open_params_b - model.params_b) <= tolerance * model.params_b
    ]
    found.sort(key=lambda c: (c.blended_cny_per_mtok, -c.price.as_of.toordinal(), c.price.id))
    return ApiComparisons(
        tuple(c for c in found if c.current),
        tuple(c for c in found if not c.current),
        cat.rules.prices.api_fresh_days,
    )
