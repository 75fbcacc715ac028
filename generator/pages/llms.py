"""``llms.txt`` at the site root (the llmstxt.org layout): the site in one Markdown file for language
models and other readers of the open data — a title, a one-line summary, the licence, every page in
the site's order with its description, and every open data file with its fields.

Deterministic: pages come in plan order, files in a fixed order, nothing depends on the clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.pages.open_data import (
    DATA_LICENSE,
    DATA_LICENSE_URL,
    GPU_COLUMNS,
    HISTORY_COLUMNS,
    OFFER_COLUMNS,
)
from generator.pages.render import Page
from generator.pages.seo import clip, page_url

#: (file under data/, what it holds, its fields or None)
DATA_FILES: tuple[tuple[str, str, Sequence[str] | None], ...] = (
    ("gpus.json", "GPU specs, one record per GPU, each figure with its source", GPU_COLUMNS),
    ("gpus.csv", "the same as CSV", None),
    (
        "offers.json",
        "every rental price with its source, date, source tier and quote, and the yuan figures "
        "the site computed (current and history)",
        OFFER_COLUMNS,
    ),
    ("offers.csv", "the same as CSV", None),
    (
        "price_history.json",
        "every dated price grouped by GPU, provider and series (a product's prices that "
        "replaced one another), oldest first; {license, license_url, records}",
        HISTORY_COLUMNS,
    ),
    ("price_history.csv", "the records as CSV", None),
    ("providers.json", "providers with their extra charges (each with its source) and their offers' ids", None),
    ("estimates.json", "per model page: memory per card, card counts and costs per GPU", None),
    ("LICENSE.txt", f"the licence of these files ({DATA_LICENSE})", None),
)


def llms_txt(site_name: str, summary: str, site_url: str, pages: Sequence[Page]) -> bytes:
    """The file's bytes."""
    base = site_url.rstrip("/") + "/"
    lines = [
        f"# {site_name}",
        "",
        f"> {summary}",
        "",
        f"数据（规格、报价、平台收费）以 {DATA_LICENSE} 发布：{DATA_LICENSE_URL} ；每个数字附来源，每个价格附来源和日期。",
        "",
        "## 页面",
        "",
    ]
    listed = [p for p in pages if p.redirect is None]  # a retired URL's redirect page is not content
    lines += [f"- [{_text(p.title)}]({page_url(site_url, p.path)}): {_text(clip(p.description, 200))}" for p in listed]
    lines += ["", "## 开放数据", ""]
    for name, what, fields in DATA_FILES:
        tail = f"; fields: {', '.join(fields)}" if fields else ""
        lines.append(f"- [{name}]({base}data/{name}): {what}{tail}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _text(value: str) -> str:
    """One line, with the Markdown link brackets a title could break escaped."""
    return " ".join(value.split()).replace("[", "\\[").replace("]", "\\]")
