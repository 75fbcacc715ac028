"""The ladder page's charts kept between edits (generator.pages.charts.ChartMemo, ``gpu-guide serve``).

A chart is drawn again when its points or labels change and kept otherwise; what the memo returns
is always what a fresh drawing of the same inputs gives, across a price edit that moves a point.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from conftest import make_project, replace_in

from generator.data.catalogue import Catalogue
from generator.data.validate import load_catalogue
from generator.pages import charts
from generator.results.evaluate import evaluate


def ladder(root: Path) -> tuple[Catalogue, pd.DataFrame]:
    cat, problems = load_catalogue(root / "data", root)
    assert cat is not None, problems
    return cat, evaluate(cat).ladder


def test_a_kept_chart_is_the_fresh_drawing_of_its_inputs(tmp_path: Path) -> None:
    cat, ranked = ladder(make_project(tmp_path / "a"))
    # the A100 server's monthly price: its point on the price chart moves
    cat2, ranked2 = ladder(
        make_project(
            tmp_path / "b", lambda d: replace_in(d / "offers.yaml", "    price: 48000\n", "    price: 48600\n")
        )
    )
    memo = charts.ChartMemo()
    first = charts.ladder_page_charts(ranked, cat, memo)
    assert first == charts.ladder_page_charts(ranked, cat)
    fresh = charts.ladder_page_charts(ranked2, cat2)
    assert fresh["price"] != first["price"]  # the edit reaches the chart, so a stale one would show
    assert charts.ladder_page_charts(ranked2, cat2, memo) == fresh
    # and back: the memo holds one drawing per chart, the last
    assert charts.ladder_page_charts(ranked, cat, memo) == first


def test_unchanged_inputs_are_not_drawn_again() -> None:
    memo = charts.ChartMemo()
    calls: list[int] = []

    def chart(items: list[charts.Bar], *, title: str) -> str:
        calls.append(len(items))
        return f"<svg>{title}{len(items)}</svg>"

    bars = [charts.Bar("A", 1.0, "nvidia", "80 GB")]
    assert memo.draw("x", chart, bars, title="t") == "<svg>t1</svg>"
    assert memo.draw("x", chart, list(bars), title="t") == "<svg>t1</svg>"
    assert calls == [1]  # equal inputs: the kept drawing
    assert memo.draw("x", chart, bars, title="u") == "<svg>u1</svg>"  # a label is an input too
    assert memo.draw("x", chart, bars + bars, title="u") == "<svg>u2</svg>"
    assert calls == [1, 1, 2]
