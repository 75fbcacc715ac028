"""Public API prices next to the cost of serving the same size of model on rented cards.

An API price is compared with a model page when the open-weights model it serves is within
``rules.pages.api_size_tolerance`` of the page model's size (mixture-of-experts models only
with each other). The API's input and output prices are blended at the page's own prompt and
output lengths, so both sides count the same tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.records import ApiPrice, OpenModel


@dataclass(frozen=True)
class ApiComparison:
    """One API price, blended at a prompt/output mix."""

    price: ApiPrice
    blended_cny_per_mtok: float


def same_size_prices(
    prices: list[ApiPrice], model: OpenModel, prompt_tokens: int, output_tokens: int, tolerance: float
) -> list[ApiComparison]:
    """API prices of models about ``model``'s size, cheapest blended price first (ties: newest, id)."""
    moe = model.experts is not None
    found = [
        ApiComparison(p, p.blended_cny_per_mtok(prompt_tokens, output_tokens))
        for p in prices
        if p.open_params_b is not None
        and p.moe == moe
        and abs(p.open_params_b - model.params_b) <= tolerance * model.params_b
    ]
    return sorted(found, key=lambda c: (c.blended_cny_per_mtok, -c.price.as_of.toordinal(), c.price.id))
