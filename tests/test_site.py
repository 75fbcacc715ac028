"""The real site, built once per session from the bundled data: what readers and crawlers get."""

from __future__ import annotations

import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import yaml

REQUIRED_GPU_FIELDS = {
    "id", "name", "vendor", "form_factor", "memory_gb", "memory_type", "memory_bandwidth_gbps", "fp32_tflops",
    "fp16_tflops_dense", "bf16_tflops_dense", "fp8_tflops_dense", "int8_tops_dense", "tdp_w", "domestic", "sources",
}  # fmt: skip
SEED_GPUS = {
    "rtx-4090-24g", "rtx-4090-48g", "rtx-6000-ada", "a100-sxm-80g", "a100-pcie-80g", "l40", "h100-sxm-80g",
    "h100-nvl-94g", "h20", "mi300x", "ascend-910b", "br100", "l20", "l40s", "a800-sxm-80g", "h800-sxm-80g",
    "h200-sxm-141g",
}  # fmt: skip


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.meta: dict[str, str] = {}
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "title":
            self._in_title = True
        if tag == "meta" and (a.get("name") or a.get("property")):
            self.meta[a.get("name") or a.get("property") or ""] = a.get("content") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def head(path: Path) -> _Head:
    h = _Head()
    h.feed(path.read_text(encoding="utf-8"))
    return h


def test_every_seed_gpu_has_a_page_and_open_data(built_site: Path) -> None:
    site = built_site / "site"
    rows = json.loads((site / "data" / "gpus.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in rows} >= SEED_GPUS
    for r in rows:
        assert set(r) >= REQUIRED_GPU_FIELDS, r["id"]
        assert r["sources"]["*"].startswith("https://")
        assert (site / "gpus" / r["id"] / "index.html").is_file()
    with (site / "data" / "gpus.csv").open(encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == len(rows)
    with (site / "data" / "offers.csv").open(encoding="utf-8") as fh:
        offers = list(csv.DictReader(fh))
    assert offers and all(o["as_of"] and o["source"].startswith("http") for o in offers)


def test_every_scenario_has_a_page_with_the_four_steps(built_site: Path) -> None:
    scenarios = yaml.safe_load((built_site / "data" / "scenarios.yaml").read_text(encoding="utf-8"))["scenarios"]
    for s in scenarios:
        md = (built_site / "docs" / "scenarios" / f"{s['id']}.md").read_text(encoding="utf-8")
        assert "## 第二步：显存与卡数" in md and "## 第四步：总成本" in md


def test_titles_and_descriptions_are_present_and_unique(built_site: Path) -> None:
    pages = sorted((built_site / "site").rglob("index.html"))
    assert len(pages) > 30
    titles: dict[str, list[Path]] = {}
    descriptions: dict[str, list[Path]] = {}
    for p in pages:
        if p.parent.name == "404":
            continue
        h = head(p)
        assert h.title.strip(), p
        assert h.meta.get("description"), p
        titles.setdefault(h.title, []).append(p)
        descriptions.setdefault(h.meta["description"], []).append(p)
    assert [t for t, ps in titles.items() if len(ps) > 1] == []
    assert [d for d, ps in descriptions.items() if len(ps) > 1] == []


def test_generated_pages_in_repo_are_current(built_site: Path) -> None:
    """The committed docs/ equals a fresh build: reviewers see every change in the PR."""
    repo_docs = Path(__file__).resolve().parent.parent / "docs"
    fresh = built_site / "docs"
    generated = json.loads((fresh / ".generated.json").read_text(encoding="utf-8"))["files"]
    stale = [rel for rel in generated if not (repo_docs / rel).is_file() or
             (repo_docs / rel).read_bytes() != (fresh / rel).read_bytes()]  # fmt: skip
    assert stale == [], "run `make site` and commit docs/"


class _Resources(HTMLParser):
    """URLs a browser fetches while rendering: scripts, stylesheets, images, fonts, frames."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "video", "audio") and a.get("src"):
            self.urls.append(a["src"] or "")
        if tag == "link" and (a.get("rel") or "") in ("stylesheet", "preconnect", "preload", "icon", "dns-prefetch"):
            self.urls.append(a.get("href") or "")


def test_no_request_leaves_the_site(built_site: Path) -> None:
    """Published for readers in mainland China: no Google Fonts, no CDN, nothing third-party."""
    site = built_site / "site"
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
        parser = _Resources()
        parser.feed(text)
        outside = [u for u in parser.urls if u.startswith(("http://", "https://", "//"))]
        assert outside == [], (page, outside)
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?(https?:)?//", css.read_text(encoding="utf-8")), css


# A measure word said twice ("1,024 路 路") is how a template and the helper that fills it
# disagree about who writes the unit; no generated page may carry one.
_DOUBLED_UNIT = re.compile(r"(路|张|卡|小时|天|个|份) \1(?![\w])")


def test_no_generated_page_says_a_unit_twice(built_site: Path) -> None:
    fresh = built_site / "docs"
    generated = json.loads((fresh / ".generated.json").read_text(encoding="utf-8"))["files"]
    doubled = {
        rel: m.group(0)
        for rel in generated
        if rel.endswith(".md") and (m := _DOUBLED_UNIT.search((fresh / rel).read_text(encoding="utf-8")))
    }
    assert doubled == {}
    assert _DOUBLED_UNIT.search("默认最多 1,024 路 路）")  # the pattern sees the case it was written for
