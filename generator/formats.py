"""Number formats shared by every stage that writes text: pages, reasons, reports, the CLI.

Fixed formats, so the same number always prints the same characters.
"""

from __future__ import annotations


def num(value: float | int | None, digits: int = 1) -> str:
    """1234.5 -> '1,234.5'; None -> '—'."""
    if value is None:
        return "—"
    if isinstance(value, int) or digits == 0:
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def cny(value: float | None, digits: int = 0) -> str:
    """Yuan with a thousands separator: '¥84,480'; None -> '—'."""
    return "—" if value is None else f"¥{value:,.{digits}f}"


def cny_range(low: float, high: float, digits: int = 0) -> str:
    """'¥6,000–9,000' (one figure when both ends round to the same)."""
    if f"{low:,.{digits}f}" == f"{high:,.{digits}f}":
        return cny(low, digits)
    return f"{cny(low, digits)}–{high:,.{digits}f}"


def gib(value: float | None) -> str:
    """'12.3 GiB'; None -> '—'."""
    return "—" if value is None else f"{value:,.1f} GiB"


def pct(value: float | None) -> str:
    """0.25 -> '25%'; None -> '—'."""
    return "—" if value is None else f"{value * 100:.0f}%"
