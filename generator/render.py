"""Jinja environment and the number formats every page shares.

Templates are Markdown with Jinja; ``StrictUndefined`` turns a typo into a build
error, and every value from data goes through an escaping filter from
:mod:`generator.escape` (Jinja's autoescape is HTML-only and stays off for .md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from generator import escape
from generator.names import UNIT_NAMES
from generator.output import MARKER
from generator.records import Offer


@dataclass(frozen=True)
class Page:
    """One generated Markdown page: where it goes, which template, and its context."""

    path: str  # relative to docs/, e.g. "scenarios/lora-7b.md"
    template: str  # relative to templates/pages/
    title: str
    description: str
    context: Mapping[str, Any] = field(default_factory=dict)
    inputs: tuple[str, ...] = ()  # data files the page is made from, for the marker
    hide_toc: bool = False  # wide tables: give them the table-of-contents column
    jsonld: Mapping[str, Any] | None = None  # structured data for search engines
    lastmod: str | None = None  # ISO date of the data the page shows (sitemap lastmod)


def environment(templates: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        md=escape.md,
        url=escape.url,
        json_script=escape.json_for_script,
        yaml_str=escape.yaml_str,
        html=escape.html_text,
        num=num,
        cny=cny,
        gib=gib,
        pct=pct,
    )
    return env


def render_page(env: jinja2.Environment, page: Page, common: Mapping[str, Any]) -> bytes:
    """Front matter with the marker, then the page template rendered with its context."""
    template = env.get_template(f"pages/{page.template}")
    body = template.render(**common, **page.context, page_title=page.title)
    inputs = ", ".join(page.inputs + (f"templates/pages/{page.template}",))
    head = (
        "---\n"
        f"# {MARKER}. Edit the inputs instead: {inputs}\n"
        f"title: {escape.yaml_str(page.title)}\n"
        f"description: {escape.yaml_str(page.description)}\n"
        + (f"lastmod: {escape.yaml_str(page.lastmod)}\n" if page.lastmod else "")
        + ("hide:\n  - toc\n" if page.hide_toc else "")
        + (f"jsonld: {escape.yaml_str(escape.json_for_script(page.jsonld))}\n" if page.jsonld else "")
        + "---\n\n"
    )
    return (head + body.rstrip() + "\n").encode("utf-8")


# --------------------------------------------------------------------------- formats
# Fixed formats so the same numbers always print the same characters.


def num(value: float | int | None, digits: int = 1) -> str:
    """1234.5 -> '1,234.5'; None -> '—'."""
    if value is None:
        return "—"
    if isinstance(value, int) or digits == 0:
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def cny(value: float | None, digits: int = 0) -> str:
    """Yuan with a thousands separator: '¥84,480'."""
    return "—" if value is None else f"¥{value:,.{digits}f}"


def gib(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f} GiB"


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def price_label(offer: Offer) -> str:
    """'¥1.96/时' or '¥6,000–9,000/月'."""
    unit = UNIT_NAMES[offer.unit.value]
    digits = 2 if offer.unit.value == "hour" else 0
    if offer.price_cny is not None:
        return f"{cny(offer.price_cny, digits)}/{unit}"
    return f"{cny(offer.price_low_cny, digits)}–{num(offer.price_high_cny, digits)}/{unit}"
