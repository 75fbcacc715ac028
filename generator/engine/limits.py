"""What a request asks of a model beyond what the model was built for, as typed records.

A language model's positions stop at its ``max_position_embeddings`` (``models.yaml``'s
``max_context``): a request for a longer context sizes a KV cache the model cannot fill, so it is
refused, not sized. :func:`context_limit` is the one check; the command line
(``generator/cli/workload.py``) words its record in English, the calculator
(``docs/javascripts/engine/workload.js`` ``contextLimit``) in the reader's words from the form table
(:data:`generator.pages.form_messages.FORM_ZH`, kind ``context_over_model``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from generator.engine.reason import Record


class LimitKind(StrEnum):
    """What limit of the model a request passes."""

    context_over_model = "context_over_model"  # context longer than the model's positions (params: context, limit, key)


@dataclass(frozen=True)
class Limit(Record[LimitKind]):
    """A request refused for passing a limit of the model: its kind and the figures its message names.
    Worded from the calculator's form table (the refusal is about what the reader typed)."""

    table: ClassVar[str] = "form"


#: Where the limit was read: a catalogue model's field, or a config.json's key.
LIMIT_KEYS = ("max_context", "max_position_embeddings")


def context_limit(context: int, limit: int | None, key: str) -> Limit | None:
    """The refusal of a ``context``-token request to a model whose positions stop at ``limit`` (None: no
    stated limit), read from ``key`` (one of :data:`LIMIT_KEYS`); None when the context fits."""
    if key not in LIMIT_KEYS:
        raise ValueError(f"unknown limit key {key!r}")
    if limit is None or context <= limit:
        return None
    return Limit(LimitKind.context_over_model, {"context": context, "limit": limit, "key": key})


#: The command line's words for each kind (English, as every command-line error).
LIMIT_EN: dict[LimitKind, str] = {
    LimitKind.context_over_model: "a {context}-token context is longer than the model supports: "
    "its {key} is {limit} tokens",
}


def limit_text_en(record: Limit) -> str:
    """The command line's sentence for a refusal."""
    return LIMIT_EN[record.kind].format(**record.params)
