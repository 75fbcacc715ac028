"""Retired comparison URLs stay alive (#17): comparisons.yaml ``retired`` lists comparison pages once
published; each that is not a current page again becomes a redirect page to the nearest current
comparison, with a meta refresh and a canonical link to it, and stays out of the sitemap and search."""

from __future__ import annotations

from pathlib import Path

from conftest import make_project

from generator.data.validate import load_catalogue
from generator.results.comparisons import Comparison, redirects


def test_nearest_page_is_the_same_pair_else_the_closest_ladder_neighbour(tmp_path: Path) -> None:
    """Worked by hand on a made-up ladder: places 4090 = 1, A100 = 2, H100 = 3. With only
    H100-vs-A100 and A100-vs-4090 published, a retired 4090-vs-H100 has two pages that keep one of its
    GPUs; H100-vs-A100 puts A100 (place 2) where 4090 (1) was: distance 1; A100-vs-4090 puts A100 (2)
    where H100 (3) was: distance 1 too, so the slug decides ('a100…' before 'h100…')."""
    root = make_project(tmp_path)
    cat, _ = load_catalogue(root / "data", root)
    assert cat is not None
    g = cat.gpus
    rank = {"rtx-4090-24g": 1, "a100-sxm-80g": 2, "h100-sxm-80g": 3}
    h_a = Comparison(g["h100-sxm-80g"], g["a100-sxm-80g"], ())
    a_r = Comparison(g["a100-sxm-80g"], g["rtx-4090-24g"], ())
    got = redirects(["rtx-4090-24g-vs-h100-sxm-80g"], [h_a, a_r], rank)
    assert [(r.slug, r.target) for r in got] == [("rtx-4090-24g-vs-h100-sxm-80g", a_r)]
    # move 4090 far down the ladder: H100-vs-A100 (A100 at 2 for 4090 at 9: 7) loses to
    # A100-vs-4090 (A100 at 2 for H100 at 3: 1) still; put H100 far instead and H100-vs-A100 wins
    far = {"rtx-4090-24g": 1, "a100-sxm-80g": 2, "h100-sxm-80g": 9}
    assert redirects(["rtx-4090-24g-vs-h100-sxm-80g"], [h_a, a_r], far)[0].target == h_a
    # the same pair in the other order; a current slug gets none; an unknown GPU goes to the index
    assert redirects(["rtx-4090-24g-vs-a100-sxm-80g"], [h_a, a_r], rank)[0].target == a_r
    assert redirects(["h100-sxm-80g-vs-a100-sxm-80g"], [h_a, a_r], rank) == []
    assert redirects(["h100-sxm-80g-vs-rtx-4090d-24g"], [h_a, a_r], rank)[0].target is None


def test_mini_site_keeps_retired_urls_as_redirect_pages(built_mini: Path) -> None:
    """The mini fixture retires three slugs (tests/fixtures/mini/data/comparisons.yaml): the reversed
    pair redirects to the current page, the unknown GPU's to the comparison index, and the slug that
    is a current page again stays that page."""
    docs, site = built_mini / "docs" / "compare", built_mini / "site"
    page = (docs / "rtx-4090-24g-vs-a100-sxm-80g.md").read_text(encoding="utf-8")
    assert 'redirect: "compare/a100-sxm-80g-vs-rtx-4090-24g/"' in page
    assert "](a100-sxm-80g-vs-rtx-4090-24g.md)" in page
    html = (site / "compare" / "rtx-4090-24g-vs-a100-sxm-80g" / "index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../a100-sxm-80g-vs-rtx-4090-24g/">' in html
    assert '<link rel="canonical" href="https://fixture.example.com/compare/a100-sxm-80g-vs-rtx-4090-24g/">' in html
    assert '<meta name="robots" content="noindex">' in html and "data-pagefind-body" not in html
    assert html.count('rel="canonical"') == 1
    gone = (site / "compare" / "h100-sxm-80g-vs-rtx-4090d-24g" / "index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../">' in gone
    current = (docs / "h100-sxm-80g-vs-a100-sxm-80g.md").read_text(encoding="utf-8")
    assert "redirect:" not in current
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "rtx-4090-24g-vs-a100-sxm-80g" not in sitemap and "h100-sxm-80g-vs-a100-sxm-80g" in sitemap
    llms = (docs.parent / "llms.txt").read_text(encoding="utf-8")
    assert "rtx-4090-24g-vs-a100-sxm-80g" not in llms and "h100-sxm-80g-vs-a100-sxm-80g" in llms
