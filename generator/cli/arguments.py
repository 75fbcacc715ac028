"""Checked command-line values: every number is finite and in range, or the command
exits 2 with one line naming the flag (never a NaN in JSON, never a silent clamp).
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import sys
from collections.abc import Callable
from typing import NoReturn

from generator.data.records import Billing
from generator.engine.bounds import BOUNDS


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line: ``gpu-guide recommend: argument --params: …``."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def number(low: float | None = None, high: float | None = None, *, low_open: bool = False) -> Callable[[str], float]:
    """A finite decimal in [low, high] (``low_open``: strictly above ``low``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        _check_range(value, text, low, high, low_open)
        return value

    return parse


def whole(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A whole number in [low, high]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        _check_range(value, text, low, high, False)
        return value

    return parse


def _check_range(value: float, text: str, low: float | None, high: float | None, low_open: bool) -> None:
    if low is not None and (value <= low if low_open else value < low):
        word = "above" if low_open else "at least"
        raise argparse.ArgumentTypeError(f"must be {word} {_bound(low)}, got {text}")
    if high is not None and value > high:
        raise argparse.ArgumentTypeError(f"must be at most {_bound(high)}, got {text}")


def _bound(value: float) -> str:
    """A limit as typed: every digit of a whole number (--context's 1048576, not 1.04858e+06)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def bounded(flag: str) -> Callable[[str], float] | Callable[[str], int]:
    """The checked value of a workload flag, in the range :data:`generator.engine.bounds.BOUNDS` gives it."""
    b = BOUNDS[flag]
    if b.whole:
        return whole(None if b.low is None else int(b.low), None if b.high is None else int(b.high))
    return number(b.low, b.high, low_open=b.low_open)


def side_or_size(text: str) -> int | tuple[int, int]:
    """``--resolution``: one side (an image model's square, ``1024``) or WIDTHxHEIGHT (a video, ``1280x720``).

    A size's sides are whole multiples of 16 (the Wan-VAE's 8× downsampling times the DiT's 2×2 patch)."""
    if "x" not in text.lower():
        return int(bounded("resolution")(text))
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected a side (1024) or WIDTHxHEIGHT (1280x720), got {text!r}")
    w, h = (int(p) for p in parts)
    for side in (w, h):
        if not 16 <= side <= 8192 or side % 16:
            raise argparse.ArgumentTypeError(f"each side must be a multiple of 16 from 16 to 8192, got {text}")
    return (w, h)


def iso_date(text: str) -> dt.date:
    """A calendar date written YYYY-MM-DD."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None


def slug(text: str) -> str:
    """A non-empty id (model or GPU id); whether it exists is checked against the data later."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text.strip()


def billing_tiers(text: str) -> tuple[Billing, ...]:
    """Billing tiers separated by commas (``on_demand,daily``), each named once."""
    names = [t.strip() for t in text.split(",")]
    known = [b.value for b in Billing]
    out: list[Billing] = []
    for name in names:
        if name not in known:
            raise argparse.ArgumentTypeError(
                f"expected tiers from {', '.join(known)} separated by commas, got {text!r}"
            )
        if Billing(name) not in out:
            out.append(Billing(name))
    return tuple(out)
