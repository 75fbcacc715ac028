"""The page-weight budget, on the built site (issue #21).

What a first view transfers before the reader can interact, as a static host serves it
(gzip): the HTML, its stylesheets, the scripts it loads at start (module scripts with every
module they import statically) and the images not marked ``loading="lazy"``. Every page,
of every kind, stays within 150 KiB. Nothing render-blocking comes from another host, and
the calculator's code loads on its own page only, as one module.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from conftest import REPO_BUILD_DATE, copy_repo_site

from generator.cli.bench import scale_models
from generator.data.records import ModelKind
from generator.pages.calculator import INLINE_MODELS
from generator.pipeline import Project, generate

BUDGET = 150 * 1024  #: bytes, gzip-compressed


class Loads(HTMLParser):
    """The resources a page loads at start: (kind, url, attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, dict[str, str | None]]] = []
        self.in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "head":
            self.in_head = True
        if tag == "link" and a.get("rel") == "stylesheet" and a.get("href"):
            self.found.append(("css", str(a["href"]), a))
        elif tag == "script" and a.get("src"):
            self.found.append(("js", str(a["src"]), a))
        elif tag == "img" and a.get("src") and a.get("loading") != "lazy":
            self.found.append(("img", str(a["src"]), a))

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.in_head = False


@functools.cache
def gzipped(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 6, mtime=0))


_STATIC_IMPORT = re.compile(r'^\s*import\s[^;]*?from\s+"([^"]+)"', re.M)


def module_graph(path: Path) -> set[Path]:
    """A module and every module it imports statically (the browser fetches all before running)."""
    seen: set[Path] = set()
    todo = [path]
    while todo:
        p = todo.pop().resolve()
        if p in seen:
            continue
        seen.add(p)
        todo += [p.parent / spec for spec in _STATIC_IMPORT.findall(p.read_text(encoding="utf-8"))]
    return seen


def first_view(site: Path, page: Path) -> tuple[int, list[str]]:
    """Bytes (gzip) of a first view of ``page``, and the resources counted."""
    parser = Loads()
    parser.feed(page.read_text(encoding="utf-8"))
    files = {page}
    for kind, url, attrs in parser.found:
        if re.match(r"^([a-z]+:)?//", url):
            continue  # other hosts: test_nothing_render_blocking_from_another_host
        target = (page.parent / url.split("?")[0].split("#")[0]).resolve()
        assert target.is_file(), (page, url)
        if kind == "js" and attrs.get("type") == "module":
            files |= module_graph(target)
        elif kind == "js" and "async" in attrs:
            continue  # fetched without holding anything up, run whenever it arrives
        else:
            files.add(target)
    return sum(gzipped(f) for f in files), sorted(f.relative_to(site).as_posix() for f in files)


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("index.html") if "pagefind" not in p.relative_to(site).parts)


def test_every_page_of_every_kind_is_within_the_budget(built_site: Path) -> None:
    site = built_site / "site"
    heaviest: dict[str, tuple[int, str]] = {}
    for page in pages(site):
        size, _ = first_view(site, page)
        kind = page.relative_to(site).parts[0] if len(page.relative_to(site).parts) > 2 else "guide"
        heaviest[kind] = max(heaviest.get(kind, (0, "")), (size, page.relative_to(site).as_posix()))
    assert {"gpus", "models", "scenarios", "compare", "providers", "guide"} <= set(heaviest)
    over = {k: v for k, v in heaviest.items() if v[0] > BUDGET}
    assert not over, over


def test_the_calculator_is_one_module_on_its_own_page(built_site: Path) -> None:
    site = built_site / "site"
    size, files = first_view(site, site / "calculator" / "index.html")
    scripts = [f for f in files if f.startswith("javascripts/calculator") or f.startswith("javascripts/engine/")]
    assert scripts == ["javascripts/calculator.bundle.js"]
    assert size <= BUDGET
    for page in pages(site):
        if page.parent.name != "calculator":
            html = page.read_text(encoding="utf-8")
            assert "calculator.bundle.js" not in html and "javascripts/engine/" not in html, page


def test_nothing_render_blocking_from_another_host(built_site: Path) -> None:
    site = built_site / "site"
    for page in pages(site):
        parser = Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        for kind, url, attrs in parser.found:
            if re.match(r"^([a-z]+:)?//", url):
                assert kind == "js" and ("async" in attrs or "defer" in attrs), (page, url)


def test_charts_below_the_fold_load_lazily(built_site: Path) -> None:
    html = (built_site / "site" / "ladder" / "index.html").read_text(encoding="utf-8")
    images = re.findall(r"<img [^>]*>", html)
    charts = [i for i in images if "assets/charts/" in i]
    assert len(charts) == 2
    for img in charts:
        assert 'loading="lazy"' in img and re.search(r'width="[\d.]+" height="[\d.]+"', img), img
        assert re.search(r'alt="(价格与算力|显存容量与带宽)[^"]*"', img), img
    assert html.count("<svg") >= 1  # the ladder itself, at the top, stays inline
    src = re.findall(r'src="(\.\./assets/charts/[^"]+)"', html)
    assert len(src) == 2
    assert all((built_site / "site" / "ladder" / s).is_file() for s in src)


_BLOB = re.compile(r'(<script type="application/json" id="calc-data">)(.*?)(</script>)', re.S)


def test_the_calculator_stays_within_the_budget_at_forty_times_the_models(built_site: Path, tmp_path: Path) -> None:
    """The calculator's inline data holds the start model and the catalogue's first few others for the
    form's list; every model comes from a file fetched after the first calculation
    (generator.pages.calculator.page_data). With 40 copies of every model (``make bench ARGS="--scale
    40"``) the first view still fits: the built page with its data replaced by the scaled site's (the
    only part of the page that grows with the catalogue). Before the split the page was over the
    budget there (161,166 B, 157 KiB, with the whole model list inline)."""
    site = built_site / "site"
    page = site / "calculator" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert len(_BLOB.findall(html)) == 1
    root = copy_repo_site(tmp_path)
    scale_models(Project.at(root), 40)
    scaled = generate(Project.at(root, build_date=REPO_BUILD_DATE))
    blob = _BLOB.search(scaled.files["calculator.md"].decode("utf-8"))
    assert blob is not None
    data = json.loads(blob.group(2))
    # 40 copies of every model the calculator offers (video models are not offered yet)
    offered = [m for m in scaled.catalogue.models.values() if m.kind is not ModelKind.video]
    assert data["architectures"]["count"] == len(offered) > 1000
    assert len(data["models"]) <= INLINE_MODELS + 1  # the first few and the start; the copies come with the file
    size, files = first_view(site, page)
    scaled_html = _BLOB.sub(lambda m: m.group(1) + blob.group(2) + m.group(3), html)
    scaled_size = size - gzipped(page) + len(gzip.compress(scaled_html.encode("utf-8"), 6, mtime=0))
    assert scaled_size <= BUDGET, (scaled_size, files)
    assert "assets/calculator-models.json" not in files  # fetched later, not part of the first view
    assert (site / "assets" / "calculator-models.json").is_file()
