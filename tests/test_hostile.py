"""Hostile text in every free-text field that reaches a page never becomes markup.

One full MkDocs build (module-scoped) of the mini fixture project grown with one GPU,
offer, model, scenario and pitfall per payload. Each text field of each entry holds a
payload on its own (so it starts the value, where Markdown's block syntax bites), the
payloads rotate through the fields so every payload lands in every field, and the long
fields (notes, bodies, summaries) also carry every payload at once, mid-text. Every
HTML page is then parsed with :mod:`html.parser` and checked for injected elements,
attributes and links, broken tables, lost text and evaluated template or snippet
syntax; the open-data JSON and CSV must carry the strings back exactly.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_project, replace_in

from generator.data.problems import render
from generator.data.validate import load_catalogue
from generator.pipeline import Project, build

#: The payloads the issue lists, then a few more that Markdown, Jinja, SVG text or
#: YAML front matter could act on.
PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "a | b | c",
    "\n| x | y |",
    '{: onclick="alert(1)" }',
    '--8<-- "/etc/passwd"',
    "{{ 7*7 }}",
    "{% raw %}",
    "[x](javascript:alert(1))",
    "<javascript:alert(1)>",
    "**bold**",
    "# heading",
    "- item",
    "&amp;",
    "before\u2028after",
    "</script><script>alert(1)</script>",
    "\"quoted\" 'single'",
    # more
    "{{ 12345*11 }}",
    "1. first",
    "+ plus",
    "> quote",
    '!!! danger "boom"',
    "<!-- comment",
    "]]> </title></textarea><svg onload=alert(1)>",
    "$x^2$ and $\\frac{$ costs $5",
    "$\\frac{$",
    "title: x\n---\nhide: [toc]",
    "`code` ~~strike~~ ==mark== ^^ins^^ :smile: https://evil.example.com/",
    "\ttab\u2029para\nend ",
    "x" * 150 + " <b>long</b>",
]
N = len(PAYLOADS)
ALL = " · ".join(PAYLOADS)
#: A nasty link the strict URL syntax still accepts, for every ``source``: quotes, parentheses
#: and ``javascript:`` inside must stay inert in the link the url filter writes.
NASTY_URL = "https://example.com/a?b='x'onmouseover=alert(1)//&c=javascript:alert(1)*!$;@~#f'(g)"


def P(i: int) -> str:
    return PAYLOADS[i % N]


def shown(text: str) -> str:
    """How a value reads on a page: the md filter folds every run of white space."""
    return " ".join(text.split())


class _Dumper(yaml.SafeDumper):
    """Text always double-quoted (escapes for newlines, U+2028, tabs); numbers, dates plain."""


_Dumper.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style='"'))


def _dump(path: Path, value: Any) -> None:
    path.write_text(yaml.dump(value, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100000), "utf-8")


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def hostile_edit(data: Path) -> None:
    """Grow the mini fixture's data with one hostile entry per payload in each file."""
    gpus = _load(data / "gpus.yaml")
    base_gpu = next(g for g in gpus["gpus"] if g["id"] == "h100-sxm-80g")
    for i in range(N):
        g = copy.deepcopy(base_gpu)
        g.update(
            id=f"h-{i:02d}",
            name=P(i),
            architecture=P(i + 1),
            memory_type=P(i + 2),
            interconnect=P(i + 3),
            notes=f"{P(i + 4)} 注 {ALL}",
            source=NASTY_URL,
            field_sources={"memory_type": NASTY_URL},
            unconfirmed=["memory_type", "interconnect"] if i % 2 else [],
        )
        gpus["gpus"].append(g)
    _dump(data / "gpus.yaml", gpus)

    providers = _load(data / "providers.yaml")
    day = _load(data / "offers.yaml")["offers"][0]["as_of"]  # a date, written plain
    for i in range(N):
        providers["providers"].append(
            {
                "id": f"v-{i:02d}",
                "name": P(i),
                "market": "cn",
                "kind": "marketplace",
                "url": NASTY_URL,
                "extras": [
                    {"item": "disk", "price": 0.01, "currency": "CNY", "unit": "gb_day", "as_of": day,
                     "source": NASTY_URL, "quote": f"{P(i + 2)} 0.01", "note": f"{P(i + 3)} 盘 {ALL}"}
                ],
                "note": f"{P(i + 1)} 说明 {ALL}",
            }
        )  # fmt: skip
    _dump(data / "providers.yaml", providers)

    offers = _load(data / "offers.yaml")
    for i in range(N):
        price = 10 + i if i % 2 else 70000 + i
        offers["offers"].append(
            {
                "id": f"o-{i:02d}",
                "provider": f"v-{i:02d}",
                "gpu": f"h-{i:02d}",
                "cards": 1 if i % 2 else 8,
                "delivery": "container" if i % 2 else "bare_metal",
                "billing": "on_demand" if i % 2 else "monthly",
                "unit": "hour" if i % 2 else "month",
                "price": price,
                "currency": "CNY",
                "region": P(i + 2),
                "as_of": _load(data / "offers.yaml")["offers"][0]["as_of"],
                "source": NASTY_URL,
                "source_tier": "aggregator",
                "quote": f"{P(i)} {price}",
                "note": f"{P(i + 1)} 注 {ALL}",
            }
        )
    _dump(data / "offers.yaml", offers)

    models = _load(data / "models.yaml")
    base_model = models["models"][0]
    for i in range(N):
        m = copy.deepcopy(base_model)
        m.update(id=f"m-{i:02d}", name=P(i), license=P(i + 1), source=NASTY_URL)
        models["models"].append(m)
    _dump(data / "models.yaml", models)

    scenarios = _load(data / "scenarios.yaml")
    base_scenario = scenarios["scenarios"][0]
    for i in range(N):
        s = copy.deepcopy(base_scenario)
        s.update(
            id=f"s-{i:02d}",
            model=f"m-{i:02d}",
            title=P(i),
            audience=P(i + 1),
            summary=f"{P(i + 2)} 概述 {ALL}",
            body=f"{P(i + 3)} 正文 {ALL}",
            # an editor's pick the rules disagree with: the notice quotes GPU names
            editor_pick={"gpu": "a100-sxm-80g", "delivery": "bare_metal"},
        )
        scenarios["scenarios"].append(s)
    _dump(data / "scenarios.yaml", scenarios)

    pitfalls = _load(data / "pitfalls.yaml")
    kinds = ["figures", "hidden_costs", "overkill", "none"]
    for i in range(N):
        p: dict[str, Any] = {
            "id": f"p-{i:02d}",
            "title": P(i),
            "body": f"{P(i + 1)} 说明 {ALL}",
            "evidence": kinds[i % 4],
            "advice": f"{P(i + 2)}",
        }
        if p["evidence"] == "figures":
            p.update(gpus=[f"h-{i:02d}", f"h-{(i + 1) % N:02d}"], figures=["memory_type", "interconnect", "memory_gb"])
        elif p["evidence"] != "none":
            p["scenario"] = f"s-{i:02d}"
        pitfalls["pitfalls"].append(p)
    _dump(data / "pitfalls.yaml", pitfalls)
    hostile_editorial(data)


def hostile_editorial(data: Path) -> None:
    """The editorial files too: claims, buyers, market facts, purchase prices and their sources."""
    claims = _load(data / "claims.yaml")
    for i in range(N):
        c = copy.deepcopy(claims["claims"][i % len(claims["claims"])])
        c.update(id=f"c-{i:02d}", claim=P(i), source_title=P(i + 1), source=NASTY_URL)
        claims["claims"].append(c)
    _dump(data / "claims.yaml", claims)
    buyers = _load(data / "buyers.yaml")
    for i in range(N):
        buyers["buyers"].append({"id": f"b-{i:02d}", "title": P(i), "summary": f"{P(i + 1)} 概述 {ALL}",
                                 "source": NASTY_URL, "article_picks": [f"h-{i:02d}"],
                                 "workloads": [{"scenario": f"s-{i:02d}"}]})  # fmt: skip
    _dump(data / "buyers.yaml", buyers)
    trends = _load(data / "trends.yaml")
    for i in range(N):
        trends["facts"].append({"id": f"t-{i:02d}", "date": trends["facts"][0]["date"], "topic": "memory",
                                "fact": P(i), "source": NASTY_URL, "quote": P(i + 1), "note": f"{P(i + 2)} 注 {ALL}"})  # fmt: skip
    _dump(data / "trends.yaml", trends)
    own = _load(data / "ownership.yaml")
    base = own["purchases"][0]
    for i in range(N):
        own["purchases"].append({**base, "id": f"u-{i:02d}", "gpu": f"h-{i:02d}", "source": NASTY_URL,
                                 "quote": P(i), "note": f"{P(i + 1)} 注 {ALL}"})  # fmt: skip
        own["electricity"].append({**own["electricity"][0], "id": f"e-{i:02d}", "label": P(i), "source": NASTY_URL,
                                   "quote": P(i + 1), "note": f"{P(i + 2)} 注"})  # fmt: skip
    _dump(data / "ownership.yaml", own)


#: (file, list key, fields) of every free-text field the test fills
TEXT_FIELDS = {
    "gpus": ["name", "architecture", "memory_type", "interconnect", "notes"],
    "offers": ["quote", "region", "note"],
    "providers": ["name", "note"],
    "models": ["name", "license"],
    "scenarios": ["title", "summary", "audience", "body"],
    "pitfalls": ["title", "body", "advice"],
}


# --------------------------------------------------------------------------- parsing


class Page(HTMLParser):
    """Elements, attributes, script bodies, visible text and tables of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.scripts: list[tuple[str, str]] = []  # (type attribute, body)
        self.text: list[str] = []
        self.title = ""
        self.tables: list[list[list[tuple[str, str]]]] = []  # table -> rows -> (tag, text) cells
        self._stack: list[str] = []
        self._in_script = False
        self._in_title = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))
        if tag == "script":
            self._in_script = True
            self.scripts.append((dict(attrs).get("type") or "", ""))
        elif tag == "title":
            self._in_title = True
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self.tables[-1][-1].append((tag, ""))
            self._cell = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False
        elif tag == "title":
            self._in_title = False
        elif tag in ("td", "th") and self._cell is not None and self.tables and self.tables[-1]:
            kind, _ = self.tables[-1][-1][-1]
            self.tables[-1][-1][-1] = (kind, "".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._in_script:
            kind, body = self.scripts[-1]
            self.scripts[-1] = (kind, body + data)
            return
        if self._in_title:
            self.title += data
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    @property
    def visible(self) -> str:
        return shown("".join(self.text))


def parse(path: Path) -> Page:
    return parse_text(path.read_text(encoding="utf-8"))


def parse_text(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


# --------------------------------------------------------------------------- fixtures


def make_hostile_project(tmp: Path) -> Path:
    # The nav's scenarios/*.md puts every scenario, hostile titles too, in the sidebar.
    return make_project(tmp, hostile_edit)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_hostile_project(tmp_path_factory.mktemp("hostile"))
    build(Project.at(root))
    return root


@pytest.fixture(scope="module")
def pages(hostile: Path) -> dict[str, Page]:
    site = hostile / "site"
    return {p.relative_to(site).as_posix(): parse(p) for p in sorted(site.rglob("*.html"))}


# --------------------------------------------------------------------------- tests


def test_hostile_yaml_is_accepted_by_the_strict_loader(hostile: Path) -> None:
    cat, problems = load_catalogue(hostile / "data", hostile)
    assert cat is not None, render(problems)
    assert [p for p in problems if p.severity.value == "error"] == []
    for key, fields in TEXT_FIELDS.items():
        table: dict[str, list[Any]] = {"gpus": list(cat.gpus.values()), "offers": cat.offers,
                 "models": list(cat.models.values()), "scenarios": list(cat.scenarios.values()),
                 "pitfalls": cat.pitfalls, "providers": list(cat.providers.values())}  # fmt: skip
        entries = table[key]
        prefix = {"gpus": "h-", "offers": "o-", "models": "m-", "scenarios": "s-", "pitfalls": "p-", "providers": "v-"}
        hostile_entries = [e for e in entries if e.id.startswith(prefix[key])]
        assert len(hostile_entries) == N
        for field in fields:
            values = {getattr(e, field) for e in hostile_entries}
            assert all(any(p in v for v in values) for p in PAYLOADS), (key, field)


def test_every_page_was_built(hostile: Path, pages: dict[str, Page]) -> None:
    for i in range(N):
        assert f"gpus/h-{i:02d}/index.html" in pages
        assert f"scenarios/s-{i:02d}/index.html" in pages
    assert len(pages) >= 2 * N + 10


def test_no_markup_from_data(pages: dict[str, Page]) -> None:
    problems = []
    for name, page in pages.items():
        for kind, body in page.scripts:
            if kind in ("application/ld+json", "application/json"):
                # a data block (JSON-LD, the calculator's data), never run: it must be JSON
                # whose strings hold the payloads
                try:
                    json.loads(body)
                except ValueError as exc:
                    problems.append(f"{name}: JSON-LD does not parse ({exc}): {body[:80]!r}")
            elif "alert" in body:
                problems.append(f"{name}: <script> with alert: {body[:80]!r}")
        for tag, attrs in page.elements:
            if not tag.replace("-", "").isalnum():
                problems.append(f"{name}: odd element <{tag}>")
            if tag in ("img", "svg", "iframe", "object", "embed") and any("alert" in (v or "") for _, v in attrs):
                problems.append(f"{name}: <{tag}> {attrs}")
            if tag == "img" and dict(attrs).get("src") == "x":
                problems.append(f"{name}: <img src=x>")
            for attr, value in attrs:
                if attr.startswith("on"):
                    problems.append(f"{name}: <{tag} {attr}={value!r}>")
                if attr in ("href", "src", "action", "formaction", "xlink:href") and value is not None:
                    v = "".join(value.split()).lower()
                    if v.startswith(("javascript:", "data:", "vbscript:")):
                        problems.append(f"{name}: <{tag} {attr}={value!r}>")
                if value is not None and (
                    "alert(" in value and attr not in ("content", "title", "alt", "data-md-component")
                ):
                    problems.append(f"{name}: <{tag} {attr}={value!r}>")
    assert problems == []


def test_hostile_source_urls_are_inert(pages: dict[str, Page]) -> None:
    hrefs = [
        dict(attrs).get("href") or ""
        for tag, attrs in pages["gpus/h-00/index.html"].elements
        if tag == "a" and "example.com/a" in (dict(attrs).get("href") or "")
    ]
    assert hrefs, "the hostile source link is on the GPU page"
    for href in hrefs:
        assert href.startswith("https://example.com/a?")
        assert not set(href) & set("<>\"' `()[]"), href
        assert "onmouseover" in href  # only as inert text inside the link


def test_tables_keep_their_shape(pages: dict[str, Page]) -> None:
    problems = []
    count = 0
    for name, page in pages.items():
        for t, rows in enumerate(page.tables):
            if not rows:
                continue
            width = len(rows[0])
            assert all(kind == "th" for kind, _ in rows[0]), (name, t)
            for r, row in enumerate(rows[1:], 1):
                count += 1
                if len(row) != width or any(kind != "td" for kind, _ in row):
                    problems.append(f"{name}: table {t} row {r} has {len(row)} cells, header has {width}: {row}")
    assert problems == []
    assert count > 500
    # One row per GPU: no payload opened an extra row.
    (index_table,) = pages["gpus/index.html"].tables
    assert len(index_table) == 1 + 3 + N
    # the offers by source tier: a header and one row per tier (five)
    (sources_gpus, sources_tiers, sources_offers, sources_rates, sources_models) = pages["sources/index.html"].tables
    assert len(sources_tiers) == 1 + 5
    assert (len(sources_gpus), len(sources_offers), len(sources_rates), len(sources_models)) == (
        1 + 3 + N,
        1 + 7 + N,
        1 + 2,
        1 + 2 + N,
    )


def test_payloads_show_as_text(pages: dict[str, Page]) -> None:
    missing = []

    def expect(page_name: str, value: str, what: str) -> None:
        if shown(value) not in pages[page_name].visible:
            missing.append(f"{page_name}: {what} {value!r}")

    for i in range(N):
        gpu_page = f"gpus/h-{i:02d}/index.html"
        expect(gpu_page, P(i) + " 规格与租赁价格", "name")
        expect(gpu_page, P(i + 1), "architecture")
        expect(gpu_page, P(i + 2), "memory_type")
        expect(gpu_page, P(i + 3), "interconnect")
        expect(gpu_page, f"{P(i + 4)} 注 {ALL}", "notes")
        expect(gpu_page, P(i), "offer provider")
        expect(gpu_page, f"{P(i + 1)} 注 {ALL}", "offer note")
        expect("sources/index.html", P(i), "offer provider")
        provider_page = f"providers/v-{i:02d}/index.html"
        expect(provider_page, P(i) + " GPU 租赁价格", "provider name")
        expect(provider_page, f"{P(i + 1)} 说明 {ALL}", "provider note")
        expect(provider_page, f"{P(i + 3)} 盘 {ALL}", "provider extra's note")
        expect("providers/index.html", P(i), "provider name")
        expect("sources/index.html", P(i), "model name")
        scenario_page = f"scenarios/s-{i:02d}/index.html"
        expect(scenario_page, P(i), "scenario title")
        expect(scenario_page, P(i + 1), "scenario audience")
        expect(scenario_page, f"{P(i + 2)} 概述 {ALL}", "scenario summary")
        expect(scenario_page, f"{P(i + 3)} 正文 {ALL}", "scenario body")
        expect(scenario_page, P(i), "model name")
        expect("scenarios/index.html", P(i), "scenario title")
        expect("pitfalls/index.html", P(i), "pitfall title")
        expect("pitfalls/index.html", f"{P(i + 1)} 说明 {ALL}", "pitfall body")
        expect("pitfalls/index.html", P(i + 2), "pitfall advice")
        # the browser tab title, from the front matter
        if shown(P(i)) not in shown(pages[gpu_page].title):
            missing.append(f"{gpu_page}: <title> {pages[gpu_page].title!r}")
        # the search-engine description, an attribute: decoded, it reads as the text
        description = next(
            dict(attrs).get("content") or ""
            for tag, attrs in pages[scenario_page].elements
            if tag == "meta" and dict(attrs).get("name") == "description"
        )
        if shown(P(i + 2))[:30] not in description:
            missing.append(f"{scenario_page}: description {description!r}")
    assert missing == []
    assert "<script>alert(1)</script> 规格与租赁价格" in pages["gpus/h-00/index.html"].visible


def test_editorial_payloads_show_as_text(pages: dict[str, Page]) -> None:
    missing = []

    def expect(page_name: str, value: str, what: str) -> None:
        if shown(value) not in pages[page_name].visible:
            missing.append(f"{page_name}: {what} {value!r}")

    for i in range(N):
        expect("claims/index.html", P(i), "claim")
        expect("claims/index.html", P(i + 1), "claim source title")
        expect("buyers/index.html", P(i), "buyer title")
        expect("buyers/index.html", f"{P(i + 1)} 概述 {ALL}", "buyer summary")
        expect("trends/index.html", P(i), "fact")
        expect("trends/index.html", P(i + 1), "fact quote")
        expect("trends/index.html", f"{P(i + 2)} 注 {ALL}", "fact note")
        expect("rent-or-buy/index.html", P(i), "purchase quote")
        expect("rent-or-buy/index.html", f"{P(i + 1)} 注 {ALL}", "purchase note")
        expect("rent-or-buy/index.html", P(i), "electricity label")
    assert missing == []


def test_template_and_snippet_syntax_is_not_evaluated(hostile: Path, pages: dict[str, Page]) -> None:
    i = PAYLOADS.index("{{ 7*7 }}")
    page = pages[f"gpus/h-{i:02d}/index.html"]
    assert "{{ 7*7 }} 规格与租赁价格" in page.visible
    assert "49 规格与租赁价格" not in page.visible
    for name, page in pages.items():
        assert "135795" not in page.visible, name  # {{ 12345*11 }}
        assert "root:" not in page.visible, name  # --8<-- "/etc/passwd"
        assert '--8<-- "/etc/passwd"' in page.visible or "pitfalls" not in name
    for md in (hostile / "docs").rglob("*.md"):
        text = md.read_text(encoding="utf-8")
        assert "135795" not in text and "root:x:" not in text, md


def test_front_matter_stays_front_matter(hostile: Path) -> None:
    i = PAYLOADS.index("title: x\n---\nhide: [toc]")
    for md in sorted((hostile / "docs" / "scenarios").glob("s-*.md")):
        head, sep, _body = md.read_text(encoding="utf-8").partition("\n---\n\n")
        assert sep, md
        meta = yaml.safe_load(head.removeprefix("---\n"))
        assert "hide" not in meta and set(meta) <= {"title", "description", "lastmod", "jsonld", "nav_order"}, (
            md,
            meta,
        )
        assert "<" not in meta["title"] and "<" not in meta["description"], md
    meta = yaml.safe_load(
        (hostile / "docs" / "scenarios" / f"s-{i:02d}.md").read_text(encoding="utf-8").split("\n---\n")[0][4:]
    )
    assert meta["title"] == "title: x --- hide: [toc]"


def test_charts_are_well_formed_svg_without_scripts(hostile: Path) -> None:
    for svg in (hostile / "site" / "assets" / "charts").glob("*.svg"):
        tree = ET.parse(svg)
        tags = {el.tag.rsplit("}", 1)[-1] for el in tree.iter()}
        assert "script" not in tags and "foreignObject" not in tags, svg
        for el in tree.iter():
            assert not any(a.lower().startswith("on") for a in el.attrib), (svg, el.tag, el.attrib)
    ladder = (hostile / "site" / "assets" / "charts" / "ladder.svg").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in ladder


def test_open_data_round_trips_exactly(hostile: Path) -> None:
    data = hostile / "site" / "data"
    gpus = {g["id"]: g for g in json.loads((data / "gpus.json").read_text(encoding="utf-8"))}
    gpu_rows = {r["id"]: r for r in _csv(data / "gpus.csv")}
    offer_rows = {r["id"]: r for r in _csv(data / "offers.csv")}
    for i in range(N):
        gid = f"h-{i:02d}"
        want = {"name": P(i), "architecture": P(i + 1), "memory_type": P(i + 2), "interconnect": P(i + 3)}
        for field, value in want.items():
            assert gpus[gid][field] == value, (gid, field)  # JSON: exact
            assert gpu_rows[gid][field] == spreadsheet_safe(value), (gid, field)
        assert offer_rows[f"o-{i:02d}"]["provider_name"] == spreadsheet_safe(P(i))
        assert offer_rows[f"o-{i:02d}"]["note"] == spreadsheet_safe(f"{P(i + 1)} 注 {ALL}")
        assert offer_rows[f"o-{i:02d}"]["quote"] == spreadsheet_safe(f"{P(i)} {10 + i if i % 2 else 70000 + i}")
    assert len(gpu_rows) == 3 + N and len(offer_rows) == 7 + N
    offers = {o["id"]: o for o in json.loads((data / "offers.json").read_text(encoding="utf-8"))}
    providers = {p["id"]: p for p in json.loads((data / "providers.json").read_text(encoding="utf-8"))}
    for i in range(N):
        assert offers[f"o-{i:02d}"]["region"] == P(i + 2)
        assert providers[f"v-{i:02d}"]["name"] == P(i)
        assert providers[f"v-{i:02d}"]["extras"][0]["note"] == f"{P(i + 3)} 盘 {ALL}"
    entry = json.loads((hostile / "site" / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8"))
    assert entry["languages"]["zh"]["page_count"] > N  # Pagefind indexed the hostile pages too


def spreadsheet_safe(text: str) -> str:
    """What the CSV holds for a text: OWASP's CSV-injection advice, a leading apostrophe before
    a first character a spreadsheet would start a formula with (= + - @ tab carriage return)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def test_csv_payloads_include_formula_starts() -> None:
    """Control: the corpus has payloads the CSV must change, so the round trip above can fail."""
    starts = ['--8<-- "/etc/passwd"', "- item", "+ plus", "\ttab\u2029para\nend "]
    assert [p for p in PAYLOADS if spreadsheet_safe(p) != p] == starts


def _csv(path: Path) -> list[dict[str, str]]:
    text = path.read_bytes().decode("utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "gpus.yaml",
            "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306",
            "    source: javascript:alert(1)",
            'data/gpus.yaml:69:13: gpus[2].source: only http:// or https:// links are allowed, got "javascript:alert(1)"',
        ),
        (
            "gpus.yaml",
            "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306",
            '    source: "JavaScript:alert(1)"',
            'data/gpus.yaml:69:13: gpus[2].source: only http:// or https:// links are allowed, got "JavaScript:alert(1)"',
        ),
        (
            "gpus.yaml",
            "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306",
            "    source: https://resources.nvidia.com/x\n    field_sources: {memory_gb: 'javascript:alert(1)'}",
            "data/gpus.yaml:70:32: gpus[2].field_sources.memory_gb: only http:// or https:// links are allowed, got "
            '"javascript:alert(1)"',
        ),
        (
            "offers.yaml",
            "    source: https://example.com/prices\n    source_tier: provider_page\n    quote: RTX 4090",
            "    source: data:text/html,<script>alert(1)</script>\n    source_tier: provider_page\n    quote: RTX 4090",
            # strict URL syntax refuses the "<" before the scheme check runs: refused all the same
            'data/offers.yaml:12:13: offers[0].source: not a valid link: "data:text/html,<script>alert(1)</script>"; '
            "write a full https:// address",
        ),
        (
            "offers.yaml",
            "    source: https://example.com/prices\n    source_tier: provider_page\n    quote: RTX 4090",
            "    source: data:text/html;base64,PHNjcmlwdD4K\n    source_tier: provider_page\n    quote: RTX 4090",
            "data/offers.yaml:12:13: offers[0].source: only http:// or https:// links are allowed, got "
            '"data:text/html;base64,PHNjcmlwdD4K"',
        ),
        (
            "models.yaml",
            "    source: https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json",
            "    source: javascript:alert(1)",
            "data/models.yaml:13:13: models[0].source: only http:// or https:// links are allowed, got "
            '"javascript:alert(1)"',
        ),
    ],
)
def test_javascript_source_is_rejected(tmp_path: Path, file: str, old: str, new: str, expected: str) -> None:
    root = make_project(tmp_path, lambda data: replace_in(data / file, old, new))
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    assert render(problems) == expected


@pytest.mark.parametrize(
    ("escape", "code"),
    [
        ("\\v", "000B"),
        ("\\x00", "0000"),
        ("\\e", "001B"),
        ("\\r", "000D"),
        ("\\ud800", "D800"),
        ("\\uFFFF", "FFFF"),
        ("\\x7f", "007F"),  # DEL: raw in front matter, PyYAML refused the page's header (issue 10)
        ("\\x80", "0080"),  # the C1 controls, U+0080 to U+009F
        ("\\N", "0085"),
        ("\\x9b", "009B"),
        ("\\u009F", "009F"),
    ],
)
def test_unshowable_characters_from_escapes_are_refused(tmp_path: Path, escape: str, code: str) -> None:
    """The loader refuses raw control characters; written as a quoted escape they must not slip through."""
    root = make_project(
        tmp_path, lambda data: replace_in(data / "gpus.yaml", "name: A100 80GB SXM", f'name: "A100{escape}"')
    )
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    assert render(problems) == (
        f"data/gpus.yaml:26:11: gpus[1].name: contains the invisible character U+{code}, which a web page cannot show; "
        "remove it (it comes from a backslash escape inside quotes)"
    )


#: Unicode's Bidi_Control characters as PropList.txt lists them (061C; 200E..200F; 202A..202E; 2066..2069).
BIDI = ["061C", "200E", "200F", "202A", "202B", "202C", "202D", "202E", "2066", "2067", "2068", "2069"]


@pytest.mark.parametrize("code", BIDI)
@pytest.mark.parametrize("typed", ["raw", "escape"])
def test_direction_controls_are_refused(tmp_path: Path, code: str, typed: str) -> None:
    """U+202E made "¥0848" read "¥8480" (issue 10). Direction controls are invisible in most
    editors and valid YAML, typed raw or as a "\\u" escape; both are refused with the fix."""
    written = chr(int(code, 16)) if typed == "raw" else f"\\u{code}"
    root = make_project(
        tmp_path, lambda data: replace_in(data / "gpus.yaml", "name: A100 80GB SXM", f'name: "A100 ¥{written}0848"')
    )
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    assert render(problems) == (
        f"data/gpus.yaml:26:11: gpus[1].name: contains the invisible direction control U+{code}, which shows the "
        "text after it in another order (a price can read backwards); delete it (retype the value if your editor "
        "does not show it)"
    )


# --------------------------------------------------------------------------- second line of defence

#: Control and direction characters around Markdown a reader could click or load. Validation
#: refuses them; these tests switch that check off to show the pages hold even then: DEL or a
#: C1 control in a name made PyYAML refuse the whole front matter, MkDocs rendered it as page
#: text, and the link in it was live on 23 pages (issue 10).
CONTROL_PAYLOADS = [
    "A\x7f[x](javascript:alert(1))",
    "B\x85![i](https://evil.example.com/x.png)",
    "C\x9b<javascript:alert(2)>",
    "D\x01\x1f\x80[z](JaVaScRiPt:alert(3))",
    "¥\u202e0848 [y](javascript:alert(4))",
    "E\u2066\u200f![j](https://evil.example.com/y.png)",
    "F\u200b\ufeff\U000e0041 [w](javascript:alert(5))",  # other invisible format characters
]


def control_edit(data: Path) -> None:
    """Every GPU, model, scenario, offer, provider and pitfall of the mini fixture gets a control payload."""
    k = iter(range(1000))

    def nxt() -> str:
        return CONTROL_PAYLOADS[next(k) % len(CONTROL_PAYLOADS)]

    for name, key, fields in [
        ("gpus.yaml", "gpus", ["name", "architecture"]),
        ("models.yaml", "models", ["name"]),
        ("scenarios.yaml", "scenarios", ["title", "summary", "audience"]),
        ("offers.yaml", "offers", ["region", "note"]),
        ("providers.yaml", "providers", ["name", "note"]),
        ("pitfalls.yaml", "pitfalls", ["title", "body"]),
    ]:
        doc = _load(data / name)
        for entry in doc[key]:
            for field in fields:
                entry[field] = nxt()
        _dump(data / name, doc)


def build_control_site(tmp: Path) -> Path:
    """The mini project with :data:`CONTROL_PAYLOADS` everywhere, built with validation's character
    check switched off (also used by the browser test)."""
    root = make_project(tmp, control_edit)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("generator.data.validate.forbidden_character", lambda text: None)
        build(Project.at(root))
    return root


@pytest.fixture(scope="module")
def control_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_control_site(tmp_path_factory.mktemp("control"))


def test_control_payloads_would_break_plain_front_matter() -> None:
    """Control: written the old way (JSON-quoted, so C0 is escaped but DEL and C1 are raw), the
    payloads with DEL or C1 other than U+0085 (a YAML line break) make PyYAML refuse the header."""
    for payload in (CONTROL_PAYLOADS[0], CONTROL_PAYLOADS[2], CONTROL_PAYLOADS[3]):
        with pytest.raises(yaml.YAMLError):
            yaml.safe_load("title: " + json.dumps(payload, ensure_ascii=False))


def test_control_characters_cannot_break_front_matter_or_inject_links(control_site: Path) -> None:
    site = control_site / "site"
    pages = {p.relative_to(site).as_posix(): parse(p) for p in sorted(site.rglob("*.html"))}
    assert len(pages) >= 20
    problems = []
    for name, page in pages.items():
        if "generated file, do not edit" in page.visible or "nav_order:" in page.visible:
            problems.append(f"{name}: the front matter is shown as text")
        if not page.title.strip():
            problems.append(f"{name}: no <title>")
        for tag, attrs in page.elements:
            for attr, value in attrs:
                if attr not in ("href", "src", "srcset", "action", "formaction", "poster", "data", "xlink:href"):
                    continue
                text = "".join(ch for ch in (value or "") if ch.isprintable() and not ch.isspace()).lower()
                if text.startswith("javascript:"):
                    problems.append(f"{name}: <{tag} {attr}={value!r}> runs script")
                if "evil.example.com" in text:
                    problems.append(f"{name}: <{tag} {attr}={value!r}> loads from outside")
        # Text outside the inline SVG charts: their <desc> goes through generator.pages.svg.clean,
        # which keeps direction controls (only reachable with validation switched off, as here).
        html = re.sub(r"<svg\b.*?</svg>", "", (site / name).read_text(encoding="utf-8"), flags=re.S)
        text = "".join(parse_text(html).text)
        for ch in "\x7f\x85\x9b\x80\x01\u202e\u2066\u200f":
            if ch in text:
                problems.append(f"{name}: U+{ord(ch):04X} reached the page text")
    assert problems == []
    # The front matter parsed: each GPU page has its own title (the payload's visible part).
    gpu_page = pages["gpus/rtx-4090-24g/index.html"]
    assert gpu_page.title.startswith("A[x](javascript:alert(1))"), gpu_page.title


def test_plain_mkdocs_build_escapes_the_same(tmp_path: Path) -> None:
    """Every way of building gets the escaping: the gpu-guide plugin is registered in mkdocs.yml,
    so a scenario whose title and summary close the description attribute, built by plain
    `mkdocs build` (not `gpu-guide build`), still yields no live attribute or element."""
    import subprocess
    import sys

    payload = '" onmouseover="alert(1)" x="<script>alert(2)</script>'

    def edit(data: Path) -> None:
        replace_in(data / "scenarios.yaml", "    title: 7B 推理\n", f"    title: {json.dumps(payload)}\n")
        replace_in(
            data / "scenarios.yaml", "    summary: 一张卡上的 7B 推理。\n", f"    summary: {json.dumps(payload)}\n"
        )

    root = make_project(tmp_path, edit)
    build(Project.at(root), site=False)  # writes docs/ only
    out = tmp_path / "plain-site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(root / "mkdocs.yml"), "-d", str(out)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = parse(out / "scenarios" / "serve-7b" / "index.html")
    for tag, attrs in page.elements:
        assert not any(name.lower().startswith("on") for name, _ in attrs), (tag, attrs)
    [meta] = [dict(a) for t, a in page.elements if t == "meta" and dict(a).get("name") == "description"]
    assert '" onmouseover="alert(1)" x="<script>' in (meta["content"] or "")  # the quotes are text in the value
    for kind, body in page.scripts:
        if kind == "application/ld+json":
            json.loads(body)  # data, and still valid JSON
        else:
            assert "alert(" not in body, body
    assert page.title.startswith(payload)
