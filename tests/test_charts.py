"""The SVG charts: well-formed, labelled, readable (no text over text) and deterministic.

Overlap checks use the writer's own text-width estimate, which is wider than the CJK
system fonts draw (checked once in Chromium with Noto Sans CJK: at most 1.0x for CJK,
about 0.86x for Latin), so boxes that do not overlap here do not overlap on screen.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import markdown
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.data.catalogue import Catalogue
from generator.data.validate import load_catalogue
from generator.pages import charts, svg
from generator.pages.charts import Bar, Point, bar_chart, scatter_chart
from generator.pages.render import MARKER
from generator.results.ladder import ladder

NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parent.parent
HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "]]> </title></textarea><svg onload=alert(1)>",
    "$\\frac{$",
    "$x^2$ and $\\frac{$ costs $5",
    "\"quoted\" 'single' & <b>",
    "<!-- comment",
    "before\u2028after\x00\x07\x1b end",
    "\ttab\u2029para\r\nend ",
    "x" * 150 + " <b>long</b>",
]


@pytest.fixture(scope="module")
def real() -> tuple[Catalogue, pd.DataFrame]:
    cat, problems = load_catalogue(ROOT / "data")
    assert cat is not None, problems
    return cat, ladder(cat)


def parse(doc: str | bytes) -> ET.Element:
    return ET.fromstring(doc)


def texts(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(NS + "text"))


def text_box(t: ET.Element) -> svg.Box:
    """The box the writer reserves for a <text>, from its own attributes."""
    size = float(t.get("font-size", "0"))
    width = svg.text_width(t.text or "", size)
    x = float(t.get("x", "0"))
    x -= {"end": width, "middle": width / 2}.get(t.get("text-anchor", "start"), 0.0)
    return svg.label_box(x, float(t.get("y", "0")), width, size)


def mark_boxes(root: ET.Element) -> list[svg.Box]:
    boxes = []
    for m in root.iter():
        if m.get("data-kind") and not m.get("data-legend"):
            if m.tag == NS + "circle":
                x, y, r = (float(m.get(a, "0")) for a in ("cx", "cy", "r"))
                boxes.append(svg.Box(x - r, y - r, x + r, y + r))
            else:  # the promo diamond: "M x y-6.5 L ..."
                nums = [float(v) for v in m.get("d", "").replace("M", " ").replace("L", " ").replace("Z", " ").split()]
                xs, ys = nums[0::2], nums[1::2]
                boxes.append(svg.Box(min(xs), min(ys), max(xs), max(ys)))
    return boxes


def assert_readable(doc: str) -> None:
    """No text overlaps other text, no label covers a mark, all text inside the picture."""
    root = parse(doc)
    width = float(root.get("viewBox", "").split()[2])
    boxes = [(t.text, text_box(t)) for t in texts(root)]
    for (a, ba), (b, bb) in itertools.combinations(boxes, 2):
        assert not ba.hits(bb, pad=0), (a, b, ba, bb)
    for t, box in boxes:
        assert box.x0 >= -0.5 and box.x1 <= width + 0.5, (t, box)
    labels = [text_box(t) for t in texts(root) if "lbl" in t.get("class", "").split()]
    for label, mark in itertools.product(labels, mark_boxes(root)):
        assert not label.hits(mark, pad=0), (label, mark)


def label_texts(doc: str) -> list[str]:
    """Names beside bars and points (not the values after bars)."""
    return [t.text or "" for t in texts(parse(doc)) if t.get("class") == "lbl"]


# --------------------------------------------------------------------------- structure


def test_every_chart_is_an_accessible_scalable_svg(real: tuple[Catalogue, pd.DataFrame]) -> None:
    cat, frame = real
    for name, doc in charts.ladder_page_charts(frame, cat).items():
        root = parse(doc)
        assert root.tag == NS + "svg" and root.get("role") == "img", name
        assert root.get("width") == "100%" and root.get("height") is None, name
        assert len(root.get("viewBox", "").split()) == 4, name
        assert (root.findtext(NS + "title") or "").strip(), name
        assert (root.findtext(NS + "desc") or "").strip(), name
        assert "Noto Sans CJK SC" in root.get("font-family", ""), name
        assert root.find(f"{NS}style") is None, name  # inline: colours come from the page's CSS
        assert "href" not in doc and "<script" not in doc and "foreignObject" not in doc


def test_standalone_files_carry_marker_style_and_background(real: tuple[Catalogue, pd.DataFrame]) -> None:
    cat, frame = real
    files = {name: charts.standalone(doc) for name, doc in charts.ladder_page_charts(frame, cat).items()}
    for name, data in files.items():
        assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n'), name
        assert f"<!-- {MARKER} -->".encode() in data[:4096], name
        root = parse(data)
        w, h = root.get("viewBox", "").split()[2:]
        assert (root.get("width"), root.get("height")) == (w, h), name
        assert root.find(f"{NS}style") is not None and root.find(f"{NS}rect") is not None, name


def test_same_input_same_bytes(real: tuple[Catalogue, pd.DataFrame]) -> None:
    cat, frame = real
    assert charts.ladder_page_charts(frame, cat) == charts.ladder_page_charts(frame.copy(), cat)


def test_inline_chart_passes_through_markdown_untouched(real: tuple[Catalogue, pd.DataFrame]) -> None:
    cat, frame = real
    doc = charts.ladder_page_charts(frame, cat)["price"]
    page = f'Text.\n\n<figure class="gpu-chart" markdown="0">\n{doc}</figure>\n\n[SVG 原图](x.svg)\n'
    html = markdown.markdown(page, extensions=["tables", "admonition", "attr_list", "toc"])
    assert doc.strip() in html


# --------------------------------------------------------------------------- reading the real charts


def named_in(doc: str) -> str:
    """Every name a chart shows: the labels beside its marks and the note of names that found no room."""
    notes = [t for t in texts(parse(doc)) if (t.text or "").startswith("图中未标注")]
    return " ".join(label_texts(doc) + [n.findtext(NS + "title") or "" for n in notes])


def key_entries(doc: str) -> dict[str, str]:
    """The numbered key under a scatter chart: number → name (the full name where it was cut)."""
    found: dict[str, str] = {}
    items = [t for t in texts(parse(doc)) if t.get("class") != "lbl"]
    for num, name in itertools.pairwise(items):
        if (num.text or "").isdigit() and num.get("font-weight") == "bold":
            found[num.text or ""] = name.findtext(NS + "title") or name.text or ""
    return found


def test_real_charts_are_readable_and_key_every_gpu(real: tuple[Catalogue, pd.DataFrame]) -> None:
    """As the site builds them (pages/files.py): the bar chart names every GPU in ladder order; the
    scatter charts mark each GPU with its ladder number, every mark is placed (no "图中未标注" note),
    and the key under the chart maps each number to its GPU."""
    cat, frame = real
    docs = charts.ladder_page_charts(frame, cat)
    for name, doc in docs.items():
        assert_readable(doc)
        assert "图中未标注" not in doc, name
    bars = label_texts(docs["ladder"])
    assert bars[: len(frame)] == list(frame["name"])  # best first, in ladder order
    number = {str(g): str(i) for i, g in enumerate(frame["name"], 1)}
    priced = {p.label for p in charts.price_points(frame, cat)}
    for name, gpus in (("memory", list(frame["name"])), ("price", [g for g in frame["name"] if g in priced])):
        key = key_entries(docs[name])
        assert {number[g] for g in gpus} == set(key), name
        for gpu_name in gpus:
            assert key[number[gpu_name]] == gpu_name, (name, gpu_name)
        marks = " ".join(label_texts(docs[name])).replace("/", " ").split()
        assert sorted(marks, key=int) == sorted({number[g] for g in gpus}, key=int), name  # each number once


def test_axis_units_and_titles(real: tuple[Catalogue, pd.DataFrame]) -> None:
    cat, frame = real
    docs = charts.ladder_page_charts(frame, cat)
    words = {k: [t.text for t in texts(parse(d))] for k, d in docs.items()}
    assert "稠密 BF16/FP16 Tensor 算力（TFLOPS）" in words["ladder"]
    assert "稠密 BF16/FP16 Tensor 算力（TFLOPS，对数刻度）" in words["price"]
    assert any(w and w.startswith("最低月租（元/卡·月") for w in words["price"])
    assert "显存容量（GB，对数刻度）" in words["memory"] and "显存带宽（GB/s，对数刻度）" in words["memory"]
    assert "1,000" in words["ladder"] and "10,000" in words["price"]  # thousands separators


def test_price_chart_marks_current_promo_and_history_prices(real: tuple[Catalogue, pd.DataFrame]) -> None:
    cat, frame = real
    points = charts.price_points(frame, cat)
    kinds = {(p.label, p.kind) for p in points}
    assert ("H100 80GB SXM", "promo") in kinds and ("H100 80GB SXM", "history") in kinds
    assert ("GeForce RTX 4090 24GB", "current") in kinds
    h100 = [p for p in points if p.label == "H100 80GB SXM"]
    assert {p.y for p in h100 if p.kind == "promo"} == {84480 / 8}  # 8-card node per month, per card


# --------------------------------------------------------------------------- legend and marks


def test_legend_has_one_entry_per_vendor_and_kind_present() -> None:
    points = [
        Point("A", 1, 1, "NVIDIA"),
        Point("B", 2, 3, "NVIDIA", "promo"),
        Point("C", 3, 2, "Huawei", "history"),
        Point("D", 4, 5, "SomeNewVendor"),
    ]
    root = parse(scatter_chart(points, title="t", x_label="x", y_label="y"))
    vendors = [e for e in root.iter() if e.get("data-legend") == "vendor"]
    assert sorted(str(e.get("class")) for e in vendors) == ["v-huawei", "v-nvidia", "v-other"]
    assert len([e for e in root.iter() if e.get("data-legend") == "kind"]) == 3
    only_current = parse(scatter_chart(points[:1], title="t", x_label="x", y_label="y"))
    assert [e for e in only_current.iter() if e.get("data-legend") == "kind"] == []
    bars = parse(bar_chart([Bar("a", 1, "AMD", ""), Bar("b", 2, "AMD", "")], title="t", x_label="x"))
    assert [e.get("class") for e in bars.iter() if e.get("data-legend") == "vendor"] == ["v-amd"]


def test_kinds_are_drawn_differently() -> None:
    points = [Point("A", 1, 1, "NVIDIA"), Point("B", 2, 2, "NVIDIA", "promo"), Point("C", 3, 3, "NVIDIA", "history")]
    root = parse(scatter_chart(points, title="t", x_label="x", y_label="y"))
    looks = {}
    for e in root.iter():
        if e.get("data-kind") and not e.get("data-legend"):
            looks[e.get("data-kind")] = (
                e.tag,
                e.get("fill"),
                e.get("stroke"),
                e.get("stroke-dasharray"),
                e.get("color"),
            )
    assert set(looks) == {"current", "promo", "history"}
    assert len(set(looks.values())) == 3
    assert looks["current"][1] == "currentColor" and looks["history"][1] == "none"
    assert looks["promo"][0] == NS + "path"


def test_vendor_colours_are_classes_the_page_can_restyle() -> None:
    root = parse(bar_chart([Bar("a", 1, "Biren", "8 GB")], title="t", x_label="x"))
    bar = next(e for e in root.iter(NS + "rect") if e.get("class") == "v-biren" and not e.get("data-legend"))
    assert bar.get("color") == "#3f51b5" and bar.get("fill") == "currentColor"
    css = (ROOT / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    for cls in ("v-nvidia", "v-amd", "v-huawei", "v-biren", "v-other", "k-history"):
        assert f'[data-md-color-scheme="slate"] .gpu-chart .{cls}' in css


# --------------------------------------------------------------------------- crowding


def test_crowded_points_never_overlap(real: tuple[Catalogue, pd.DataFrame]) -> None:
    """17 real GPU names on points that nearly coincide (within a few units of each other)."""
    _, frame = real
    names = list(frame["name"])
    points = [
        Point(name, 100 + i * 0.4, 1000 + (i % 5) * 4, "NVIDIA" if i % 3 else "AMD") for i, name in enumerate(names)
    ]
    doc = scatter_chart(points, title="拥挤", x_label="x（单位）", y_label="y（单位）")
    assert_readable(doc)
    root = parse(doc)
    shown = label_texts(doc)
    note = " ".join(t.text or "" for t in texts(root) if (t.text or "").startswith("图中未标注"))
    note_full = " ".join(t.findtext(NS + "title") or "" for t in texts(root) if (t.text or "").startswith("图中未标注"))
    for name in names:  # each name is labelled or listed under the chart, never lost
        assert any(name in s for s in shown) or name in note_full or name in note, name


def test_many_identical_points_share_one_label() -> None:
    points = [Point(f"X{i} 80GB SXM", 5, 5, "NVIDIA") for i in range(30)]
    doc = scatter_chart(points, title="t", x_label="x", y_label="y")
    assert_readable(doc)
    (label,) = label_texts(doc)
    assert label.endswith("…")  # cut to fit; the full list is its tooltip
    tip = next(t for t in texts(parse(doc)) if t.text == label).findtext(NS + "title")
    assert tip == "/".join(f"X{i}" for i in range(30)) + " 80GB SXM"
    assert svg.join_labels(["H100 80GB SXM", "H800 80GB SXM"]) == "H100/H800 80GB SXM"
    assert svg.join_labels(["L40 48GB", "壁砺 BR100 64GB"]) == "L40 48GB / 壁砺 BR100 64GB"


def test_log_axes_and_short_bar_labels() -> None:
    points = [Point(f"P{i}", 10 ** (i / 3), 2**i, "AMD", "current") for i in range(1, 12)]
    doc = scatter_chart(points, title="t", x_label="x", y_label="y", log_x=True, log_y=True)
    assert_readable(doc)
    bars = [Bar(f"G{i}", 100 - i, "NVIDIA", f"{i} GB") for i in range(20)]
    doc = bar_chart(bars, title="t", x_label="x")
    assert_readable(doc)
    root = parse(doc)
    names = [t for t in texts(root) if (t.text or "").startswith("G")]
    assert all(t.get("text-anchor") == "end" for t in names)  # short names sit left of the bars


# --------------------------------------------------------------------------- hostile text


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_stay_text(name: str) -> None:
    docs = [
        bar_chart([Bar(name, 10, name, name), Bar("b", 5, "NVIDIA", "")], title=name, x_label=name),
        scatter_chart(
            [Point(name, 1, 2, name, "promo"), Point("b", 2, 1, "NVIDIA")], title=name, x_label=name, y_label=name
        ),
    ]
    for doc in docs:
        root = parse(doc)  # well-formed
        for e in root.iter():
            assert e.tag.startswith(NS) and e.tag[len(NS) :] not in ("script", "foreignObject", "a", "image"), e.tag
            assert not any(a.lower().startswith("on") or "href" in a for a in e.attrib), e.attrib
        expected = svg.clean(name)
        assert root.findtext(NS + "title") == expected
        shown = [t.text or "" for t in texts(root)]
        assert any(s == expected or (s.endswith("…") and expected.startswith(s[:-1].rstrip())) for s in shown)
        assert_readable(doc)


def test_empty_and_odd_input_still_draws() -> None:
    for doc in (
        bar_chart([], title="t", x_label="x"),
        bar_chart([Bar("a", 0, "NVIDIA", ""), Bar("b", -1, "AMD", "")], title="t", x_label="x"),
        scatter_chart([], title="t", x_label="x", y_label="y"),
        scatter_chart(
            [Point("a", math.nan, 1, "AMD"), Point("b", 0, 0, "AMD")], title="t", x_label="x", y_label="y", log_x=True
        ),
        scatter_chart([Point("a", 3, 3, "AMD")], title="t", x_label="x", y_label="y"),
        scatter_chart([Point("a", 5, 5, "AMD")], title="t", x_label="x", y_label="y", log_x=True, log_y=True),
    ):
        assert_readable(doc)


def test_escape_and_clean() -> None:
    assert svg.esc("<a & 'b' \"c\">") == "&lt;a &amp; &#39;b&#39; &quot;c&quot;&gt;"
    assert svg.clean("a\x00b\x1b\u2028c\ud800 \n d") == "a b c d"
    assert svg.fit("x" * 100, 10, 60).endswith("…") and svg.text_width(svg.fit("x" * 100, 10, 60), 10) <= 60


# --------------------------------------------------------------------------- scales


def test_nice_ticks() -> None:
    assert svg.nice_step(1300, 5) == 500 and svg.nice_step(0.7, 5) == 0.2 and svg.nice_step(9, 3) == 5
    lo, hi, ticks = svg.linear_domain([864, 5300])
    assert lo == 0 and 5300 < hi < 5700 and ticks == [0, 2000, 4000]
    lo, hi, ticks = svg.linear_domain([50, 60])
    assert lo <= 50 and hi >= 60 and all(lo <= t <= hi for t in ticks) and len(ticks) >= 2
    lo, hi, ticks = svg.log_domain([990, 30000])
    assert ticks == [1000, 2000, 5000, 10000, 20000]
    assert [svg.tick_label(t, ticks) for t in ticks] == ["1,000", "2,000", "5,000", "10,000", "20,000"]
    assert svg.tick_label(0.25, [0, 0.25, 0.5]) == "0.25"
    assert svg.Scale(10, 1000, 0, 100, log=True)(100) == pytest.approx(50)
    assert math.isclose(svg.Scale(0, 10, 100, 0)(5), 50)


# --------------------------------------------------------------------------- any input

_names = st.text(alphabet=st.sampled_from("AbgiMW 0123456789/·（）昇腾改装<&\"'"), min_size=1, max_size=40)
_vendors = st.sampled_from(["NVIDIA", "AMD", "Huawei", "Biren", "Other Co"])
_numbers = st.floats(min_value=0.01, max_value=1e6, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(_names, _numbers, _numbers, _vendors, st.sampled_from(["current", "promo", "history"])),
             max_size=25),
    st.booleans(),
)  # fmt: skip
def test_any_scatter_is_readable(rows: list[tuple[str, float, float, str, str]], log: bool) -> None:
    doc = scatter_chart([Point(*r) for r in rows], title="t", x_label="x", y_label="y", log_x=log, log_y=log)
    assert_readable(doc)
    assert doc == scatter_chart([Point(*r) for r in rows], title="t", x_label="x", y_label="y", log_x=log, log_y=log)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_names, _numbers, _vendors, _names), max_size=25))
def test_any_bar_chart_is_readable(rows: list[tuple[str, float, str, str]]) -> None:
    assert_readable(bar_chart([Bar(*r) for r in rows], title="t", x_label="x"))
