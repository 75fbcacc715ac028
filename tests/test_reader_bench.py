"""The reader's side of `make bench` (generator/cli/reader_bench.py), on the mini site."""

from __future__ import annotations

import gzip
from pathlib import Path

from generator.cli.reader_bench import first_view_bytes, first_views, report, search_query_bytes


def test_a_first_view_counts_the_page_and_what_it_loads_at_start(built_mini: Path) -> None:
    site = built_mini / "site"
    page = site / "gpus" / "index.html"
    html = len(gzip.compress(page.read_bytes(), 6, mtime=0))
    css = next((site / "assets" / "stylesheets").glob("main.*.min.css"))
    got = first_view_bytes(page)
    assert got > html + len(gzip.compress(css.read_bytes(), 6, mtime=0))
    kinds = first_views(site)
    assert {"guide", "gpus", "models"} <= set(kinds) and kinds["gpus"] >= 0


def test_a_query_costs_less_than_the_whole_index(built_mini: Path) -> None:
    site = built_mini / "site"
    typical, worst = search_query_bytes(site)
    whole = sum(p.stat().st_size for p in (site / "pagefind").rglob("*") if p.is_file())
    assert 0 < typical <= worst < whole
    first, later, query = report(site)
    assert first.startswith("first view (gzip, heaviest page of each kind): ") and "gpus " in first
    models = len(gzip.compress((site / "assets" / "calculator-models.json").read_bytes(), 6, mtime=0))
    assert later == f"the calculator then fetches every model with its architecture: {models / 1024:.1f} KiB"
    assert query.startswith("a two-word search query fetches about ")
