"""Layout on a desktop (1280 px) and a phone (390 px), and the rent-or-buy form, in Chromium.

One page of every kind must not scroll sideways as a whole (tables may scroll inside
their own box); on a phone the ladder keeps the GPU and its price in view, a comparison
shows both GPUs (the calculator's own layout: tests/test_calculator_browser.py). Uses the real site
built once per session (conftest.built_site) and the browser set-up of conftest.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest
from conftest import skip_without_chromium

from generator.formats import cny
from generator.pipeline import Project, generate
from generator.results.ownership import default_inputs, ownership_rows

if TYPE_CHECKING:
    from playwright.sync_api import Page

skip_without_chromium()

pytestmark = pytest.mark.browser

#: Top-level pages, then one index and one member page of each section.
TOP = ["", "ladder", "metrics", "calculator", "buyers", "rent-or-buy", "pitfalls", "claims", "delivery", "trends",
       "editions", "sources", "about", "editor-guide"]  # fmt: skip
SECTIONS = ["scenarios", "gpus", "models", "compare"]
NOINDEX = '<meta name="robots" content="noindex">'


def open_page(browser, width: int):  # type: ignore[no-untyped-def]
    return browser.new_page(viewport={"width": width, "height": 900})


def longest_member(site: Path, section: str) -> str:
    """The member page with the longest slug (the comparison with the longest names); a retired URL's
    redirect page (noindex, it navigates away at once) is not a page to measure."""
    slugs = [
        p.name
        for p in (site / section).iterdir()
        if (p / "index.html").is_file() and NOINDEX not in (p / "index.html").read_text(encoding="utf-8")
    ]
    return f"{section}/{max(sorted(slugs), key=len)}"


#: Pages with the widest tables of their kind: the deployments table (nine columns, with TTFT).
WIDE = ["models/kimi-k2-inference"]


def every_kind(site: Path) -> list[str]:
    return TOP + SECTIONS + [longest_member(site, s) for s in SECTIONS] + WIDE


@pytest.mark.parametrize("width", [1280, 390])
def test_no_page_scrolls_sideways(browser, server: str, built_site: Path, width: int) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browser, width)
    wide = []
    for path in every_kind(built_site / "site"):
        page.goto(f"{server}/{path}/" if path else f"{server}/")
        page.wait_for_load_state("load")
        scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if scroll > inner:
            wide.append(f"{path or 'index'}: {scroll} > {inner}")
    page.close()
    assert wide == []


def test_ladder_keeps_gpu_and_price_in_view_on_a_phone(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browser, 390)
    page.goto(f"{server}/ladder/")
    page.wait_for_selector("article table[data-sortable]")
    headers = page.eval_on_selector_all("article table[data-sortable] thead th", "hs => hs.map(h => h.textContent)")
    gpu, price = headers.index("GPU"), headers.index("参考月租/卡")
    assert price == gpu + 1, "the price comes right after the GPU"

    def box(index: int) -> dict[str, float]:
        return cast(
            dict[str, float],
            page.evaluate(
                f"() => {{ const r = document.querySelector('article table[data-sortable] tbody tr').cells[{index}]"
                ".getBoundingClientRect(); return {left: r.left, right: r.right}; }"
            ),
        )

    for index in (gpu, price):
        assert box(index)["left"] >= 0 and box(index)["right"] <= 390
    # Scroll the table to its last column: the GPU column stays on screen.
    page.evaluate(
        "() => { const t = document.querySelector('article table[data-sortable]');"
        " for (const el of [t, t.closest('.md-typeset__scrollwrap')]) if (el) el.scrollLeft = 100000; }"
    )
    last = len(headers) - 1
    assert box(last)["right"] <= 390 + 1, "the table did not scroll"
    assert box(gpu)["left"] >= 0 and box(gpu)["right"] <= 390
    page.close()


def test_ladder_header_links_explain_without_sorting(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browser, 1280)
    page.goto(f"{server}/ladder/")
    page.wait_for_selector("article table[data-sortable]")
    links = page.eval_on_selector_all("article table thead th a.metric-help", "as => as.map(a => a.href)")
    assert links and all("/metrics/#" in href for href in links)
    page.click("article table thead th a.metric-help[href*='#memory']")
    page.wait_for_url("**/metrics/#memory")
    assert page.locator("#memory").count() == 1
    page.close()


def test_comparison_shows_both_gpus_on_a_phone(browser, server: str, built_site: Path) -> None:  # type: ignore[no-untyped-def]
    page = open_page(browser, 390)
    page.goto(f"{server}/{longest_member(built_site / 'site', 'compare')}/")
    page.wait_for_selector("article table")
    fits = page.evaluate(
        "() => Array.from(document.querySelectorAll('article table')).map(t => {"
        " const r = t.querySelector('thead th:last-child').getBoundingClientRect();"
        " return [t.scrollWidth <= t.clientWidth + 1, r.right <= window.innerWidth]; })"
    )
    assert fits and all(a and b for a, b in fits)
    page.close()


def cells(page: Page) -> list[dict[str, str]]:
    return cast(
        list[dict[str, str]],
        page.evaluate(
            "() => { const rows = {}; document.querySelectorAll('[data-own]').forEach(el => {"
            " (rows[el.dataset.own] = rows[el.dataset.own] || {})[el.dataset.cell] = el.textContent; });"
            " return Object.keys(rows).sort((a, b) => a - b).map(k => rows[k]); }"
        ),
    )


def test_rent_or_buy_form_recomputes_like_python(browser, server: str, built_site: Path) -> None:  # type: ignore[no-untyped-def]
    gen = generate(Project.at(built_site))
    assert gen.catalogue.ownership is not None
    page = open_page(browser, 390)
    page.goto(f"{server}/rent-or-buy/")
    page.wait_for_selector("#own-form[data-ready]")
    start = default_inputs(gen.catalogue.ownership)
    for fields, changes in (
        ({"#own-hours": "24"}, {"hours_per_day": 24.0}),
        ({"#own-hours": "6", "#own-price": "0.8", "#own-resale": "0"}, {"hours_per_day": 6.0, "electricity_cny_per_kwh": 0.8, "resale_fraction": 0.0}),
    ):  # fmt: skip
        for sel, value in fields.items():
            page.fill(sel, value)
        want = ownership_rows(gen.catalogue, replace(start, **changes))
        got = cells(page)
        assert len(got) == len(want) > 0
        for g, w in zip(got, want, strict=True):
            assert (g["own"], g["rent"], g["power"]) == (cny(w.own.total), cny(w.rent), cny(w.own.power))
        page.goto(f"{server}/rent-or-buy/")
        page.wait_for_selector("#own-form[data-ready]")
    # Bad input: a message beside the form and no numbers, never a silently clamped value.
    page.fill("#own-hours", "-5")
    assert "每天使用小时" in page.text_content("#own-message")
    assert page.get_attribute("#own-hours", "aria-invalid") == "true"
    assert {c["own"] for c in cells(page)} == {"—"}
    page.fill("#own-hours", "12")
    assert page.text_content("#own-message") == ""
    page.close()


def test_tables_below_the_fold_are_not_rendered_until_scrolled_to(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    """Issue #21: a GPU page's tables are most of its elements, and Material's script forces a style
    and layout of the whole page as it starts. extra.css gives the tables `content-visibility: auto`,
    so on a phone the browser skips those below the fold until they come near; this fails if the
    selector stops matching the tables (bare or wrapped by Material) or the property is dropped."""
    page = open_page(browser, 390)
    page.goto(f"{server}/gpus/h100-sxm-80g/")
    page.wait_for_selector("article .md-typeset__scrollwrap")  # Material's script has wrapped the tables
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    shown = "t => t.checkVisibility({contentVisibilityAuto: true})"
    tables = page.locator("article table")
    assert tables.count() > 3
    assert tables.first.evaluate(shown), "the first table is near the top and rendered"
    last = tables.last
    assert not last.evaluate(shown), "the last table is far below the fold and skipped"
    last.scroll_into_view_if_needed()
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert last.evaluate(shown), "scrolled into view, it is rendered"
    page.close()
