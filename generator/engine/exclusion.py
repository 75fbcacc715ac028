"""Why an option cannot be the pick, as a typed record (griffe's ``Breakage`` + ``BreakageKind``).

The engine says *what* rules an option out (an :class:`ExclusionKind` and its parameters); the
reader's words live in one message table per language (:mod:`generator.pages.messages`), which the
pages format through and the calculator receives in its JSON. ``docs/javascripts/engine/*.js``
return the same ``{kind, params}`` records.

Parameters are those of :class:`generator.engine.reason.Reason`: display-ready scalars (integers,
strings the engine has already formatted as figures, ``tiers`` billing tier ids named by the page's
billing names) and nested reasons (a card's link, a format's refusal).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from generator.engine.reason import Record


class ExclusionKind(StrEnum):
    """What rules an option out."""

    not_domestic = "not_domestic"  # the buyer asked for domestic accelerators only
    needs_cuda = "needs_cuda"  # the buyer's code needs CUDA and the card is not NVIDIA
    too_big = "too_big"  # no card count up to max_cards holds the workload
    unsupported_format = "unsupported_format"  # no kernel of the plan's number format runs (refusal)
    no_scale_up_link = "no_scale_up_link"  # sharded training on cards without an all-to-all link
    no_offers = "no_offers"  # no offer of this card in the data
    history_only = "history_only"  # only offers older than fresh_days
    spot_only = "spot_only"  # only spot or reserved offers
    no_billing_tier = "no_billing_tier"  # no current offer in the billing tiers the buyer accepts
    no_whole_server_offer = "no_whole_server_offer"  # no bare-metal or whole-server VM offer
    no_container_offer = "no_container_offer"  # no container or VM offer
    needs_fabric = "needs_fabric"  # a cluster is needed and no provider sells an inter-node fabric
    no_multi_card_offer = "no_multi_card_offer"  # fits one server, but no offer rents that many cards of it at once
    deadline = "deadline"  # no plan up to max_plan_cards finishes within the deadline
    volume = "volume"  # no plan up to max_plan_cards makes the monthly image volume
    too_slow = "too_slow"  # below the serving latency floor
    thin_headroom = (
        "thin_headroom"  # serving: fits only above the engine's default memory share, no plan with more cards
    )
    no_whole_server = "no_whole_server"  # multi-card training offers lack a whole linked server
    over_budget = "over_budget"  # the best plan's month costs more than the budget
    video_does_not_fit = "video_does_not_fit"  # peak phase above the card at every card count, offloaded too
    video_no_tensor_figure = "video_no_tensor_figure"  # no dense 16-bit tensor figure to time a video job with


@dataclass(frozen=True)
class Exclusion(Record[ExclusionKind]):
    """One reason an option cannot be the pick: its kind and the figures its message names."""

    table: ClassVar[str] = "exclusion"
