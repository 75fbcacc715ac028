"""Render one page: the Jinja environment, the front matter, and the generated marker.

Templates are Markdown with Jinja; ``StrictUndefined`` turns a typo into a build
error, and every value from data goes through an escaping filter from
:mod:`generator.pages.escape` (Jinja's autoescape is HTML-only and stays off for .md).
Each template receives exactly the fields of its typed context
(:mod:`generator.pages.contexts`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from generator.data.records import Offer
from generator.formats import cny, cny_range, gib, num, pct
from generator.pages import escape
from generator.pages.messages import cards_label, explain
from generator.pages.names import CURRENCY_SIGNS, TOPOLOGY_NAMES, UNIT_NAMES, variant

if TYPE_CHECKING:
    from generator.pages.contexts import PageContext

#: Present in every generated text file, near the top; a file without it is hand-written.
MARKER = "gpu-guide: generated file, do not edit"


@dataclass(frozen=True)
class Page:
    """One generated Markdown page: where it goes, which template, and its context."""

    path: str  # relative to docs/, e.g. "scenarios/lora-7b.md"
    title: str
    description: str
    context: PageContext  # its type names the template (contexts.TEMPLATE_OF)
    breadcrumbs: tuple[tuple[str, str], ...] = ()  # (name, relative link) of the pages above
    inputs: tuple[str, ...] = ()  # data files the page is made from, for the marker
    hide_toc: bool = False  # wide tables: give them the table-of-contents column
    hide_nav: bool = False  # the calculator: form and answer side by side need the sidebar's width too
    jsonld: Mapping[str, Any] | None = None  # structured data for search engines
    lastmod: str | None = None  # ISO date of the data the page shows (sitemap lastmod)
    nav_order: int | None = None  # place among pages a nav pattern matches (generator.publish.plugin)
    redirect: str | None = None  # a retired URL: the site path it now sends to (templates/overrides/main.html)

    @property
    def template(self) -> str:
        """The template under templates/pages/, chosen by the context's type."""
        from generator.pages.contexts import TEMPLATE_OF  # contexts uses the row helpers beside this module

        return TEMPLATE_OF[type(self.context)]


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
        variant=variant,
        explain=explain,
        cards_label=cards_label,
        topology_label=TOPOLOGY_NAMES.__getitem__,
    )
    return env


def context_fields(context: Any) -> dict[str, Any]:
    """A context dataclass's fields as template variables (shallow: values stay objects)."""
    return {f.name: getattr(context, f.name) for f in fields(context)}


def render_page(env: jinja2.Environment, page: Page, common: Mapping[str, Any]) -> bytes:
    """Front matter with the marker, then the page template rendered with its context."""
    template = env.get_template(f"pages/{page.template}")
    body = template.render(
        **common, **context_fields(page.context), breadcrumbs=page.breadcrumbs, page_title=page.title
    )
    inputs = ", ".join(page.inputs + (f"templates/pages/{page.template}",))
    head = (
        "---\n"
        f"# {MARKER}. Edit the inputs instead: {inputs}\n"
        f"title: {escape.yaml_str(page.title)}\n"
        f"description: {escape.yaml_str(page.description)}\n"
        + (f"lastmod: {escape.yaml_str(page.lastmod)}\n" if page.lastmod else "")
        + (f"nav_order: {page.nav_order}\n" if page.nav_order is not None else "")
        + (f"redirect: {escape.yaml_str(page.redirect)}\n" if page.redirect else "")
        + ("hide:\n" if page.hide_toc or page.hide_nav else "")
        + ("  - navigation\n" if page.hide_nav else "")
        + ("  - toc\n" if page.hide_toc else "")
        + (f"jsonld: {escape.yaml_str(escape.json_for_script(page.jsonld))}\n" if page.jsonld else "")
        + "---\n\n"
    )
    return (head + body.rstrip() + "\n").encode("utf-8")


def money(value: float, currency: str, digits: int = 0) -> str:
    """'¥1,341', '$2.69'."""
    return CURRENCY_SIGNS[currency] + cny(value, digits)[1:]


def price_label(offer: Offer) -> str:
    """The price as quoted: '¥1.96/时', '¥6,000–9,000/月', '$3.99/卡·时' (per card of the instance)."""
    unit = UNIT_NAMES[offer.unit.value]
    per = "卡·" if offer.per.value == "card" else ""
    digits = 2 if offer.unit.value in ("hour", "day") or offer.price_mid < 100 else 0
    sign = CURRENCY_SIGNS[offer.currency.value]
    if offer.price is not None:
        text = f"{offer.price:,.{_digits(offer.price, digits)}f}"
    else:
        low, high = offer.ends
        text = cny_range(low, high, digits)[1:]
    return f"{sign}{text}/{per}{unit}"


def _digits(value: float, digits: int) -> int:
    """Keep the digits a source printed (1.9633 stays 1.9633 at up to 4 places)."""
    for d in range(digits, 5):
        if abs(round(value, d) - value) < 1e-9:
            return d
    return 4
