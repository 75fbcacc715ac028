"""Search-engine basics on every page of the real site, checked with a real HTML parser."""

from __future__ import annotations

import json
import posixpath
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest
import yaml

SITE_URL = "https://gpu-guide.example.com/"


class Page(HTMLParser):
    """Collects what a crawler reads: title, meta, canonical, JSON-LD, links."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.meta: dict[str, str] = {}
        self.canonical: str | None = None
        self.jsonld: list[str] = []
        self.links: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "title":
            self._in = "title"
        elif tag == "script" and a.get("type") == "application/ld+json":
            self._in = "ld"
            self.jsonld.append("")
        elif tag == "meta" and (a.get("name") or a.get("property")):
            self.meta[a.get("name") or a.get("property", "")] = a.get("content", "")
        elif tag == "link" and a.get("rel") == "canonical":
            self.canonical = a.get("href")
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("title", "script"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "title":
            self.title += data
        elif self._in == "ld":
            self.jsonld[-1] += data


@pytest.fixture(scope="module")
def pages(built_site: Path) -> dict[str, Page]:
    out = {}
    for path in sorted((built_site / "site").rglob("*.html")):
        p = Page()
        p.feed(path.read_text(encoding="utf-8"))
        out[path.relative_to(built_site / "site").as_posix()] = p
    return out


def content_pages(pages: dict[str, Page]) -> dict[str, Page]:
    """Every page a search engine should index: not the 404 page, not a retired URL's redirect."""
    return {k: v for k, v in pages.items() if k != "404.html" and v.meta.get("robots") != "noindex"}


def test_redirect_pages_point_at_a_content_page(pages: dict[str, Page]) -> None:
    """Retired comparison URLs (comparisons.yaml retired) are kept as noindex pages whose canonical
    link and refresh name a page the site indexes, never another redirect or a missing page."""
    indexed = {p.canonical for p in content_pages(pages).values()}
    redirects = {k: v for k, v in pages.items() if v.meta.get("robots") == "noindex"}
    assert redirects, "the bundled data retires comparison URLs; none became a redirect page"
    for name, p in redirects.items():
        assert name.startswith("compare/"), name
        assert p.canonical in indexed, (name, p.canonical)


def graph(page: Page) -> list[dict[str, Any]]:
    assert len(page.jsonld) == 1
    data = json.loads(page.jsonld[0])
    assert data["@context"] == "https://schema.org"
    nodes: list[dict[str, Any]] = data.get("@graph", [data])
    return nodes


def test_site_url_is_what_the_tests_expect(built_site: Path) -> None:
    from mkdocs.utils.yaml import yaml_load

    assert yaml_load((built_site / "mkdocs.yml").read_text(encoding="utf-8"))["site_url"] == SITE_URL


def test_every_page_has_title_description_canonical_and_social_tags(pages: dict[str, Page]) -> None:
    for name, p in content_pages(pages).items():
        assert p.title.strip(), name
        desc = p.meta.get("description", "")
        assert 20 <= len(desc) <= 80, (name, desc)
        assert p.canonical and p.canonical.startswith(SITE_URL), name
        for tag in ("og:title", "og:description", "og:url", "twitter:card"):
            assert p.meta.get(tag), (name, tag)


def test_every_page_has_breadcrumb_json_ld(pages: dict[str, Page]) -> None:
    for name, p in content_pages(pages).items():
        crumbs = [g for g in graph(p) if g["@type"] == "BreadcrumbList"]
        assert len(crumbs) == 1, name
        items = crumbs[0]["itemListElement"]
        assert [i["position"] for i in items] == list(range(1, len(items) + 1))
        assert items[0]["item"] == SITE_URL
        assert items[-1]["item"] == p.canonical, name


def current_offers(built_site: Path, pickable: bool) -> list[dict[str, Any]]:
    """Offers the pages count, derived here from the raw YAML by the rules' words: dated within
    ``prices.fresh_days`` of the newest price, not replaced by a newer one, and (``pickable``) in a
    billing tier of ``prices.pick_billing``."""
    offers = yaml.safe_load((built_site / "data" / "offers.yaml").read_text(encoding="utf-8"))["offers"]
    prices = yaml.safe_load((built_site / "data" / "rules.yaml").read_text(encoding="utf-8"))["prices"]
    newest = max(o["as_of"] for o in offers)
    replaced = {o.get("replaces") for o in offers}
    return [
        o
        for o in offers
        if (newest - o["as_of"]).days <= prices["fresh_days"]
        and o["id"] not in replaced
        and (not pickable or o["billing"] in prices["pick_billing"])
    ]


def test_gpu_pages_have_product_with_cny_offers(pages: dict[str, Page], built_site: Path) -> None:
    offers = current_offers(built_site, pickable=True)
    priced = {o["gpu"] for o in offers}
    gpus = yaml.safe_load((built_site / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
    gpu_pages = {k: v for k, v in pages.items() if re.fullmatch(r"gpus/[^/]+/index\.html", k)}
    assert len(gpu_pages) == len(gpus)
    for name, p in gpu_pages.items():
        gpu_id = name.split("/")[1]
        product = next(g for g in graph(p) if g["@type"] == "Product")
        assert product["name"] and product["brand"]["name"]
        if gpu_id in priced:
            agg = product["offers"]
            assert agg["@type"] == "AggregateOffer" and agg["priceCurrency"] == "CNY"
            assert 0 < float(agg["lowPrice"]) <= float(agg["highPrice"])
            assert agg["offerCount"] == len(agg["offers"]) == sum(o["gpu"] == gpu_id for o in offers)
            dates = {o["validFrom"] for o in agg["offers"]}
            assert dates <= {str(o["as_of"]) for o in offers if o["gpu"] == gpu_id}
        else:
            assert "offers" not in product


def test_gpu_descriptions_never_claim_bf16_for_a_card_without_it(pages: dict[str, Page], built_site: Path) -> None:
    """V100 and T4 datasheets list FP16 tensor figures only (no BF16 before Ampere): a card whose
    data has no BF16 figure is described by its FP16 figure, said to lack BF16."""
    gpus = yaml.safe_load((built_site / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
    for g in gpus:
        desc = pages[f"gpus/{g['id']}/index.html"].meta["description"]
        if g["bf16_tflops_dense"] is None:
            assert "BF16/FP16" not in desc and f"稠密 FP16 {g['fp16_tflops_dense']:.1f}" in desc and "无 BF16" in desc
        else:
            assert "稠密 BF16/FP16" in desc


def test_provider_pages_have_an_organization_with_its_offers(pages: dict[str, Page], built_site: Path) -> None:
    offers = current_offers(built_site, pickable=False)
    providers = yaml.safe_load((built_site / "data" / "providers.yaml").read_text(encoding="utf-8"))["providers"]
    provider_pages = {k: v for k, v in pages.items() if re.fullmatch(r"providers/[^/]+/index\.html", k)}
    assert sorted(k.split("/")[1] for k in provider_pages) == sorted(p["id"] for p in providers)
    names = {p["id"]: p["name"] for p in providers}
    for name, p in provider_pages.items():
        pid = name.split("/")[1]
        org = next(g for g in graph(p) if g["@type"] == "Organization")
        assert org["name"] == names[pid]
        mine = [o for o in offers if o["provider"] == pid]
        made = org.get("makesOffer", [])
        assert len(made) == len(mine), pid
        for offer in made:
            assert offer["priceCurrency"] == "CNY" and float(offer["price"]) > 0
            assert offer["seller"]["name"] == names[pid]
            assert offer["itemOffered"]["url"].startswith(SITE_URL + "gpus/")


def test_question_pages_have_faq(pages: dict[str, Page]) -> None:
    faq_pages = [
        k
        for k in content_pages(pages)
        if k.startswith(("models/", "compare/")) and not k.endswith(("models/index.html", "compare/index.html"))
    ]
    assert len(faq_pages) > 50
    for name in faq_pages:
        faq = next(g for g in graph(pages[name]) if g["@type"] == "FAQPage")
        assert faq["mainEntity"] and all(
            q["name"].endswith("？") and q["acceptedAnswer"]["text"] for q in faq["mainEntity"]
        )


def test_titles_unique(pages: dict[str, Page]) -> None:
    seen: dict[str, str] = {}
    for name, p in content_pages(pages).items():
        assert p.title not in seen, (name, seen.get(p.title))
        seen[p.title] = name


def test_every_internal_link_resolves(pages: dict[str, Page], built_site: Path) -> None:
    site = built_site / "site"
    broken = []
    for name, p in pages.items():
        for href in p.links:
            url, _ = urldefrag(href)
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or not url or url.startswith("mailto:"):
                continue
            base = "" if url.startswith("/") else posixpath.dirname(name)  # 404.html links from the root
            # a query (the calculator's preloaded inputs) is the page's, not part of the file's path
            target = posixpath.normpath(posixpath.join(base, parts.path.lstrip("/")))
            path = site / target
            if not (path.is_file() or (path / "index.html").is_file()):
                broken.append(f"{name} -> {href}")
    assert broken == []


def test_sitemap_lists_every_page_with_data_dates(pages: dict[str, Page], built_site: Path) -> None:
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    root = ET.parse(built_site / "site" / "sitemap.xml").getroot()
    entries = {
        u.findtext("s:loc", namespaces=ns): u.findtext("s:lastmod", namespaces=ns) for u in root.findall("s:url", ns)
    }
    canonicals = {p.canonical for p in content_pages(pages).values()}
    assert canonicals == set(entries)
    offers = yaml.safe_load((built_site / "data" / "offers.yaml").read_text(encoding="utf-8"))["offers"]
    dates = {str(o["as_of"]) for o in offers}
    assert set(entries.values()) <= dates, "lastmod must come from the data's as-of dates"


def test_robots_txt_points_at_the_sitemap(built_site: Path) -> None:
    text = (built_site / "site" / "robots.txt").read_text(encoding="utf-8")
    assert f"Sitemap: {SITE_URL}sitemap.xml" in text.splitlines()


def test_every_gpu_and_model_page_exists(built_site: Path) -> None:
    site = built_site / "site"
    gpus = yaml.safe_load((built_site / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
    models = yaml.safe_load((built_site / "data" / "models.yaml").read_text(encoding="utf-8"))["models"]
    for g in gpus:
        assert (site / "gpus" / g["id"] / "index.html").is_file()
    for m in models:
        if m.get("kind") == "video":  # one page per video model (generator/pages/plan.py plan_video_model_pages)
            assert (site / "models" / m["id"] / "index.html").is_file(), m["id"]
            continue
        kinds = ["inference"] if m.get("kind") == "diffusion" else ["inference", "lora", "qlora", "full"]
        for k in kinds:
            assert (site / "models" / f"{m['id']}-{k}" / "index.html").is_file(), (m["id"], k)


def test_generated_pages_stay_out_of_the_sidebar(built_site: Path) -> None:
    """Material writes the nav into every page; programmatic pages would make builds quadratic."""
    html = (built_site / "site" / "index.html").read_text(encoding="utf-8")
    assert html.count('href="gpus/h100-sxm-80g/"') == 0
    assert html.count('href="compare/') <= 2
    assert html.count('href="providers/') <= 2  # the index, once in the nav
