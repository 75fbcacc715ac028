"""The ladder page's charts, written as SVG by :mod:`generator.pages.svg` (no plotting library).

Charts are 400 units wide and scale to their container: on a 390 px phone (about 358 px
of content) 13-unit text draws at about 11.6 px; the site's CSS caps them at 480 px on
wider screens. Colours work on light and dark pages: text, axes and grid use
``currentColor``; each vendor's marks carry a ``v-…`` class and a ``color`` attribute
that the site's CSS may override (dark scheme). No text overlaps other text or a mark,
by :func:`generator.pages.svg.text_width`'s generous estimate; a scatter chart grows
taller when its labels need room, and names any label that still finds none under the
plot. Every value from data is escaped and stays text.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.engine.cost import card_month_cny, pricing_of
from generator.pages import svg
from generator.pages.svg import Attrs, Box, Scale, el, esc, fit, n, standalone, text, text_width

W, PAD, FS, TS = 400.0, 10.0, 13.0, 15.0
VENDOR_COLORS = {"NVIDIA": "#76b900", "AMD": "#ed1c24", "Huawei": "#c7000b", "Biren": "#3f51b5"}
OTHER_COLOR, HISTORY_COLOR = "#888888", "#8a8a8a"
KIND_NAMES = {"current": "当前报价", "promo": "活动价", "history": "历史报价"}
KINDS = tuple(KIND_NAMES)
_MUTED: Attrs = {"fill": "currentColor", "fill-opacity": "0.75"}
_GRID: Attrs = {"stroke": "currentColor", "stroke-opacity": "0.14", "stroke-width": 1}
_AXIS: Attrs = {"stroke": "currentColor", "stroke-opacity": "0.55", "stroke-width": 1}

__all__ = [
    "CHART_FILES", "Bar", "ChartMemo", "Line", "Point", "bar_chart", "history_chart", "ladder_page_charts", "scatter_chart",
    "standalone",
]  # fmt: skip


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    vendor: str
    note: str  # shown after the value, e.g. "80 GB"


@dataclass(frozen=True)
class Point:
    """One mark. Points with the same label and x are one item (several prices of one GPU):
    joined by a thin line and labelled once, at the first of them."""

    label: str
    x: float
    y: float
    vendor: str
    kind: str = "current"  # current, promo or history
    key: str = ""  # a short mark drawn beside the point (e.g. "12"); the chart then lists key → label


def vendor_class(vendor: str) -> str:
    return "v-" + re.sub("[^a-z0-9]", "", vendor.lower()) if vendor in VENDOR_COLORS else "v-other"


def _vendor(vendor: str) -> Attrs:
    return {"class": vendor_class(vendor), "color": VENDOR_COLORS.get(vendor, OTHER_COLOR)}


def _value(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.3g}"


def mark(kind: str, x: float, y: float, color: Attrs, tip: str = "", **extra: str) -> str:
    """A point: filled circle (current), tinted diamond (promo), dashed grey ring (history)."""
    content = el("title", {}, esc(tip)) if tip else None
    color = {**color, **extra}
    if kind == "promo":
        d = f"M{n(x)} {n(y - 6.5)}L{n(x + 6.5)} {n(y)}L{n(x)} {n(y + 6.5)}L{n(x - 6.5)} {n(y)}Z"
        attrs: Attrs = {"d": d, "fill": "currentColor", "fill-opacity": 0.2, "stroke": "currentColor"}
        return el("path", {**attrs, "stroke-width": 2, **color, "data-kind": "promo"}, content)
    if kind == "history":  # grey whatever the vendor: an old price, not the vendor's current one
        attrs = {"cx": x, "cy": y, "r": 4.5, "fill": "none", "stroke": "currentColor", "stroke-width": 1.6}
        ring: Attrs = {"stroke-dasharray": "2.5 1.5", "class": "k-history", "color": HISTORY_COLOR, **extra}
        return el("circle", {**attrs, **ring, "data-kind": "history"}, content)
    return el("circle", {"cx": x, "cy": y, "r": 5, "fill": "currentColor", **color, "data-kind": "current"}, content)


def _legend(vendors: Iterable[str], kinds: Iterable[str], top: float) -> tuple[list[str], float]:
    """Legend entries flowed into rows from ``top``; returns the elements and the bottom."""
    entries: list[tuple[str, str]] = []
    order = list(VENDOR_COLORS)
    for v in sorted(set(vendors), key=lambda v: (order.index(v) if v in order else len(order), v)):
        entries.append(("vendor:" + v, fit(v, FS, 140)))
    present = set(kinds)
    if present - {"current"}:  # shapes need a key only when more than plain current points appear
        entries += [("kind:" + k, KIND_NAMES[k]) for k in KINDS if k in present]
    out, x, y = [], PAD, top + FS
    for key, label in entries:
        width = 16 + text_width(label, FS) + 14
        if x > PAD and x + width > W - PAD:
            x, y = PAD, y + FS * 1.5
        what, name = key.split(":", 1)
        if what == "vendor":
            swatch = el("rect", {"x": x, "y": y - 10, "width": 11, "height": 11, "rx": 2, "fill": "currentColor",
                                 **_vendor(name), "data-legend": "vendor"})  # fmt: skip
        else:
            neutral = {"color": "currentColor", "class": "k-legend"} if name != "history" else {}
            swatch = mark(name, x + 5.5, y - 4.5, neutral, **{"data-legend": "kind"})
        out += [swatch, text(x + 16, y, label, FS)]
        x += width
    return out, y + FS * 0.6


def _head(title: str, vendors: Iterable[str], kinds: Iterable[str]) -> tuple[list[str], float]:
    body = [text(PAD, PAD + TS, fit(title, TS, W - 2 * PAD), TS, **{"font-weight": "bold"})]
    legend, bottom = _legend(vendors, kinds, PAD + TS + 8)
    return body + legend, bottom


def bar_chart(bars: list[Bar], *, title: str, x_label: str) -> str:
    """Horizontal bars in the given order (best first, at the top), value and note after each bar."""
    body, top = _head(title, [b.vendor for b in bars], [])
    labels = [fit(b.label, FS, W - 2 * PAD) for b in bars]
    label_w = max((text_width(t, FS) for t in labels), default=0.0)
    beside = label_w <= 0.36 * (W - 2 * PAD)  # names left of the bars, else on a line above each bar
    left = PAD + label_w + 8 if beside else PAD
    pitch, bar_h = (22.0, 14.0) if beside else (34.0, 12.0)
    top += 10
    right = W - PAD
    tails = [fit(f"{_value(b.value)} · {b.note}" if svg.clean(b.note) else _value(b.value), FS, 160) for b in bars]
    rooms = [(right - left - 5 - text_width(t, FS)) / b.value for b, t in zip(bars, tails, strict=True) if b.value > 0]
    k = min([*rooms, (right - left) / max((b.value for b in bars), default=1.0)]) if rooms else 1.0
    k = max(k, 1e-9)
    bottom = top + pitch * len(bars)
    ticks, step = [0.0], svg.nice_step((right - left) / k, max(2, int((right - left) // 70)))
    while (ticks[-1] + step) * k <= right - left:
        ticks.append(ticks[-1] + step)
    for t in ticks:
        x = left + t * k
        body.append(el("line", {"x1": x, "y1": top - 4, "x2": x, "y2": bottom, **(_AXIS if t == 0 else _GRID)}))
    body += svg.x_tick_labels(ticks, lambda t: left + t * k, bottom + FS + 4, FS, W, _MUTED)
    for i, (b, label, tail) in enumerate(zip(bars, labels, tails, strict=True)):
        y0 = top + i * pitch + ((pitch - bar_h) / 2 if beside else FS * 1.3 + 1)
        mid = y0 + bar_h / 2 + 0.33 * FS
        width = max(b.value * k, 1.0) if b.value > 0 else 0.0
        tip = el("title", {}, esc(f"{b.label}：{tail}"))
        body.append(el("rect", {"x": left, "y": y0, "width": width, "height": bar_h, "fill": "currentColor",
                                **_vendor(b.vendor)}, tip))  # fmt: skip
        full = {"title": b.label} if label != svg.clean(b.label) else {}
        if beside:
            body.append(text(left - 6, mid, label, FS, **{"text-anchor": "end", "class": "lbl"}, **full))
        else:
            body.append(text(left, top + i * pitch + FS * 0.95, label, FS, **{"class": "lbl"}, **full))
        body.append(text(left + width + 5, mid, tail, FS, **{"class": "lbl val"}))
    body.append(text((left + right) / 2, bottom + 2 * FS + 14, fit(x_label, FS, W - 2 * PAD), FS,
                     **{"text-anchor": "middle"}))  # fmt: skip
    desc = f"横向条形图，{len(bars)} 项按{svg.clean(x_label)}从高到低排列：" + "；".join(
        f"{b.label} {_value(b.value)} {b.note}" for b in bars
    )
    return svg.document(W, bottom + 2 * FS + 24, title, desc, body)


def _domain(values: list[float], log: bool, count: int) -> tuple[float, float, list[float]]:
    return svg.log_domain(values) if log else svg.linear_domain(values, count)


def _plot(
    ok: list[Point], x_label: str, log_x: bool, log_y: bool, top: float, height: float
) -> tuple[list[str], float, list[str]]:
    """Axes, marks and labels of a scatter chart whose plot is ``height`` tall; the elements,
    the bottom of the plot, and the labels that found no room."""
    body: list[str] = []
    xs, ys = [p.x for p in ok] or [1.0], [p.y for p in ok] or [1.0]
    (x_lo, x_hi, x_ticks), (y_lo, y_hi, y_ticks) = _domain(xs, log_x, 5), _domain(ys, log_y, int(height // 60))
    y_labels = [svg.tick_label(t, y_ticks) for t in y_ticks]
    left = PAD + max((text_width(t, FS) for t in y_labels), default=0.0) + 6
    right, bottom = W - PAD - 4, top + height
    sx, sy = Scale(x_lo, x_hi, left, right, log_x), Scale(y_lo, y_hi, bottom, top, log_y)
    last = math.inf
    for t, lab in zip(y_ticks, y_labels, strict=True):
        body.append(el("line", {"x1": left, "y1": sy(t), "x2": right, "y2": sy(t), **_GRID}))
        if sy(t) <= last - FS * 1.3:  # thinned where they would touch
            body.append(text(left - 5, sy(t) + 0.33 * FS, lab, FS, **{"text-anchor": "end", **_MUTED}))
            last = sy(t)
    for t in x_ticks:
        body.append(el("line", {"x1": sx(t), "y1": top, "x2": sx(t), "y2": bottom, **_GRID}))
    body += svg.x_tick_labels(x_ticks, sx, bottom + FS + 8, FS, W, _MUTED)
    body.append(el("path", {"d": f"M{n(left)} {n(top)}V{n(bottom)}H{n(right)}", "fill": "none", **_AXIS}))
    body.append(text(right, bottom + 2 * FS + 14, fit(x_label, FS, W - 2 * PAD), FS, **{"text-anchor": "end"}))

    groups: dict[tuple[str, float], list[Point]] = {}
    for p in ok:
        groups.setdefault((svg.clean(p.label), p.x), []).append(p)
    obstacles: list[Box] = []
    for members in groups.values():
        if len(members) > 1:
            ends = sorted(sy(p.y) for p in members)
            x = sx(members[0].x)
            body.append(el("line", {"x1": x, "y1": ends[0], "x2": x, "y2": ends[-1], **_AXIS}))
            obstacles.append(Box(x - 1, ends[0], x + 1, ends[-1]))
    for kind in ("history", "promo", "current"):  # current prices drawn last, on top
        for p in (p for p in ok if p.kind == kind):
            x, y = sx(p.x), sy(p.y)
            tip = f"{svg.clean(p.label)} · {KIND_NAMES.get(kind, kind)}：{_value(p.x)}，{_value(p.y)}"
            body.append(mark(kind, x, y, _vendor(p.vendor), tip))
            obstacles.append(Box(x - 6.5, y - 6.5, x + 6.5, y + 6.5))

    # One label per item; items drawn at the same spot share one label ("A / B", or keys "4/5").
    spots: dict[tuple[float, float], list[str]] = {}
    keyed = all(p.key for p in ok)
    for (label, _), members in groups.items():
        spots.setdefault((round(sx(members[0].x), 1), round(sy(members[0].y), 1)), []).append(
            members[0].key if keyed else label
        )
    full = ["/".join(keys) if keyed else svg.join_labels(keys) for keys in spots.values()]
    shown = [fit(t, FS, (right - left) * 0.7) for t in full]
    area = Box(left + 2, top + 2, right, bottom - 2)
    anchors = [(x, y, 6.5) for x, y in spots]
    spots_placed = svg.place_labels(anchors, [text_width(t, FS) for t in shown], FS, area, obstacles)
    return body, bottom, _draw_labels(body, shown, full, spots_placed)


def _draw_labels(body: list[str], shown: list[str], whole: list[str], placed: list[svg.Placed | None]) -> list[str]:
    """Append each placed label (and its leader line) to ``body``; a shortened label carries its
    whole text as a tooltip. Returns the whole texts of the labels that found no room."""
    missing = []
    for label, full, spot in zip(shown, whole, placed, strict=True):
        if spot is None:
            missing.append(full)
            continue
        if spot.leader:
            x0, y0, x1, y1 = spot.leader
            body.append(el("line", {"x1": x0, "y1": y0, "x2": x1, "y2": y1, **_AXIS, "stroke-width": 0.8}))
        full_text = {"title": full} if label != full else {}
        body.append(text(spot.x, spot.y, label, FS, **{"class": "lbl"}, **full_text))
    return missing


def _key_block(points: list[Point], top: float) -> tuple[list[str], float]:
    """The key of numbered marks, in two columns below the plot: "12 L40S 48GB" (full name on hover)."""
    entries: dict[str, tuple[str, str]] = {}
    for p in points:
        entries.setdefault(p.key, (p.label, p.vendor))
    ordered = sorted(entries.items(), key=lambda kv: (int(kv[0]) if kv[0].isdigit() else 10**6, kv[0]))
    size, pitch, col_w = FS - 1, (FS - 1) * 1.45, (W - 2 * PAD) / 2
    rows = math.ceil(len(ordered) / 2)
    out = [text(PAD, top + size, "图中编号：", size, **_MUTED)]
    y0 = top + size + pitch
    for i, (key, (label, vendor)) in enumerate(ordered):
        col, row = divmod(i, rows)
        x, y = PAD + col * col_w, y0 + row * pitch
        out.append(text(x, y, key, size, **{"font-weight": "bold", **_vendor(vendor)}))
        shown = fit(label, size, col_w - 28)
        out.append(text(x + 24, y, shown, size, **({"title": svg.clean(label)} if shown != svg.clean(label) else {})))
    return out, y0 + rows * pitch + 6


def scatter_chart(
    points: list[Point], *, title: str, x_label: str, y_label: str, log_x: bool = False, log_y: bool = False
) -> str:
    """Points coloured by vendor and shaped by kind, each item labelled once, labels never overlapping."""
    ok = [p for p in points if all(math.isfinite(v) and (v > 0 or not lg) for v, lg in ((p.x, log_x), (p.y, log_y)))]
    body, top = _head(title, [p.vendor for p in ok], [p.kind for p in ok])
    body.append(text(PAD, top + FS + 6, fit(y_label, FS, W - 2 * PAD), FS))
    top += FS + 18
    for plot_h in (300.0, 360.0, 420.0):  # a crowded chart grows until every label fits
        plot, bottom, missing = _plot(ok, x_label, log_x, log_y, top, plot_h)
        if not missing:
            break
    body += plot
    height = bottom + 2 * FS + 22
    if ok and all(p.key for p in ok):
        block, height = _key_block(ok, height)
        body += block
    if missing:  # crowded beyond every free slot: name them under the chart instead
        note = fit("图中未标注：" + "、".join(missing), FS, W - 2 * PAD)
        body.append(text(PAD, height + FS, note, FS, **_MUTED, title="、".join(missing)))
        height += FS + 10
    kinds = "、".join(f"{KIND_NAMES.get(k, k)}" for k in KINDS if any(p.kind == k for p in ok))
    scale = "，".join(f"{a}为对数刻度" for a, lg in (("横轴", log_x), ("纵轴", log_y)) if lg)
    desc = (
        f"散点图（{kinds}{'；' + scale if scale else ''}），横轴{svg.clean(x_label)}，纵轴{svg.clean(y_label)}："
        + "；".join(f"{p.label} · {KIND_NAMES.get(p.kind, p.kind)}：{_value(p.x)}，{_value(p.y)}" for p in ok)
    )
    return svg.document(W, height, title, desc, body)


# --------------------------------------------------------------------------- the ladder page's charts

LADDER_TITLE = "GPU 天梯图：稠密 BF16/FP16 Tensor 算力"
TFLOPS_LABEL = "稠密 BF16/FP16 Tensor 算力（TFLOPS）"
TFLOPS_LOG_LABEL = "稠密 BF16/FP16 Tensor 算力（TFLOPS，对数刻度）"
PRICE_TITLE = "价格与算力：每卡最低月租"
PRICE_LABEL = "最低月租（元/卡·月，对数刻度）"
MEMORY_TITLE = "显存容量与带宽"


def ladder_bars(frame: pd.DataFrame) -> list[Bar]:
    return [
        Bar(str(r["name"]), float(r["tensor_tflops"]), str(r["vendor"]), f"{float(r['memory_gb']):g} GB")
        for _, r in frame.iterrows()
    ]


def chart_keys(frame: pd.DataFrame) -> dict[str, str]:
    """GPU id → its number on the scatter charts: the row's place in the ladder (ranked first)."""
    return {str(gid): str(i) for i, gid in enumerate(frame["id"], 1)}


def price_points(frame: pd.DataFrame, cat: Catalogue, keys: dict[str, str] | None = None) -> list[Point]:
    """Per GPU (ladder order) and kind, the lowest card-month price: current, promotional, and
    history (seen more than ``rules.prices.fresh_days`` before the build date, or replaced by a newer one);
    billing tiers that may rank a recommendation only (``rules.prices.pick_billing``)."""
    if not cat.offers:
        return []
    pricing = pricing_of(cat)
    points = []
    for _, r in frame.iterrows():
        lows: dict[str, float] = {}
        for o in cat.offers_for(str(r["id"])):
            if o.billing not in cat.rules.prices.pick_billing:
                continue  # spot and reserved prices never rank anything (rules.prices.pick_billing)
            old = not cat.is_current(o)  # older than the freshness window, or replaced by a newer price
            kind = "history" if old else "promo" if o.promo else "current"
            price = card_month_cny(o, pricing, o.ends[0])
            lows[kind] = min(price, lows.get(kind, price))
        x, key = float(r["tensor_tflops"]), (keys or {}).get(str(r["id"]), "")
        points += [Point(str(r["name"]), x, lows[k], str(r["vendor"]), k, key) for k in KINDS if k in lows]
    return points


def memory_points(frame: pd.DataFrame, keys: dict[str, str] | None = None) -> list[Point]:
    return [
        Point(
            str(r["name"]),
            float(r["memory_gb"]),
            float(r["memory_bandwidth_gbps"]),
            str(r["vendor"]),
            key=(keys or {}).get(str(r["id"]), ""),
        )
        for _, r in frame.iterrows()
    ]


class ChartMemo:
    """Each chart's last drawing by its inputs, for a long-lived process (``gpu-guide serve``).

    A chart is a function of its bars or points and its titles (placing the scatter charts' labels
    is most of the cost); when those pickle to the same bytes as last time, the last ``<svg>`` text
    stands. A price edit moves one point of the price chart: the ladder bars and the memory chart
    are kept."""

    def __init__(self) -> None:
        self._drawn: dict[str, tuple[bytes, str]] = {}  # chart -> (digest of its inputs, svg text)

    def draw(self, name: str, chart: Callable[..., str], items: list[Any], **labels: Any) -> str:
        """``chart(items, **labels)``, or its last drawing when ``items`` and ``labels`` are unchanged."""
        key = hashlib.sha256(pickle.dumps((chart.__qualname__, items, sorted(labels.items())), protocol=5)).digest()
        kept = self._drawn.get(name)
        if kept is not None and kept[0] == key:
            return kept[1]
        drawn = chart(items, **labels)
        self._drawn[name] = (key, drawn)
        return drawn


def _draw_now(name: str, chart: Callable[..., str], items: list[Any], **labels: Any) -> str:
    return chart(items, **labels)


def ladder_page_charts(ranked: pd.DataFrame, cat: Catalogue, memo: ChartMemo | None = None) -> dict[str, str]:
    """The ladder page's three charts as ``<svg>`` text, each drawn once: the bar chart in
    ranking order; the scatter charts mark each GPU with its ladder number (a key lists them),
    since 30-odd full names cannot all sit beside their points on a phone-width chart.
    ``memo``: keep the drawings whose inputs did not change (:class:`ChartMemo`)."""
    keys = chart_keys(ranked)
    draw = memo.draw if memo is not None else _draw_now
    return {
        "ladder": draw("ladder", bar_chart, ladder_bars(ranked), title=LADDER_TITLE, x_label=TFLOPS_LABEL),
        "price": draw("price", scatter_chart, price_points(ranked, cat, keys), title=PRICE_TITLE,
                      x_label=TFLOPS_LOG_LABEL, y_label=PRICE_LABEL, log_x=True, log_y=True),
        "memory": draw("memory", scatter_chart, memory_points(ranked, keys), title=MEMORY_TITLE,
                       x_label="显存容量（GB，对数刻度）", y_label="显存带宽（GB/s，对数刻度）", log_x=True, log_y=True),
    }  # fmt: skip


#: The standalone .svg files under docs/assets/charts/, by chart.
CHART_FILES = {"ladder": "ladder.svg", "price": "price-vs-tflops.svg", "memory": "memory-vs-bandwidth.svg"}


@dataclass(frozen=True)
class LazyChart:
    """A chart below the fold, shown as ``<img loading="lazy">`` of its .svg file: the page's HTML
    stays small and the browser fetches the drawing only when the reader scrolls near it."""

    file: str  #: under assets/charts/
    width: str
    height: str
    alt: str  #: the chart's title (escaped, from its <title>); every figure it plots is in the ladder table


def lazy_chart(name: str, svg_text: str) -> LazyChart:
    """The lazy image of one of the ladder page's charts (from :func:`ladder_page_charts`)."""
    size = re.match(r'<svg [^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', svg_text)
    title = re.search(r"<title>(.*?)</title>", svg_text, re.S)
    assert size and title, "not a chart from document()"
    return LazyChart(CHART_FILES[name], size.group(1), size.group(2), title.group(1) + "（各卡的数字见本页天梯表）")


# --------------------------------------------------------------------------- price history (GPU pages)


@dataclass(frozen=True)
class Line:
    """One provider's price over time: (date as ISO text, yuan per card-month), oldest first."""

    label: str
    points: list[tuple[str, float]]


def history_chart(lines: list[Line], *, title: str) -> str:
    """Card-month prices over time, one line per provider, its name at its newest price.

    Dates run left to right in days (ticks at month starts); prices on a log axis when
    they span more than 3x, else linear; a label that finds no room goes under the chart."""
    import datetime as dt

    lines = [ln for ln in lines if len(ln.points) >= 2]
    body, top = _head(title, [], [])
    y_label = "每卡每月（元）"
    body.append(text(PAD, top + FS + 6, y_label, FS))
    top += FS + 18
    days = [dt.date.fromisoformat(d).toordinal() for ln in lines for d, _ in ln.points] or [0, 1]
    prices = [p for ln in lines for _, p in ln.points] or [1.0]
    log_y = max(prices) / min(prices) > 3
    body[-1] = text(PAD, top - 12, y_label + ("，对数刻度" if log_y else ""), FS)
    (y_lo, y_hi, y_ticks) = _domain(prices, log_y, 4)
    y_labels = [svg.tick_label(t, y_ticks) for t in y_ticks]
    left = PAD + max((text_width(t, FS) for t in y_labels), default=0.0) + 6
    right, height = W - PAD - 4, 200.0
    bottom = top + height
    d_lo, d_hi = min(days), max(days)
    span = max(d_hi - d_lo, 1)
    sx = Scale(d_lo - span * 0.05, d_hi + span * 0.05, left, right - 110, False)  # room for names at the right
    sy = Scale(y_lo, y_hi, bottom, top, log_y)
    for t, lab in zip(y_ticks, y_labels, strict=True):
        body.append(el("line", {"x1": left, "y1": sy(t), "x2": right, "y2": sy(t), **_GRID}))
        body.append(text(left - 5, sy(t) + 0.33 * FS, lab, FS, **{"text-anchor": "end", **_MUTED}))
    first, last = dt.date.fromordinal(d_lo), dt.date.fromordinal(d_hi)
    months, step = [], max(1, ((last.year - first.year) * 12 + last.month - first.month) // 4 or 1)
    yr, mo = first.year, first.month
    while (yr, mo) <= (last.year, last.month):
        months.append(dt.date(yr, mo, 1).toordinal())
        mo += step
        yr, mo = yr + (mo - 1) // 12, (mo - 1) % 12 + 1
    ticks = [t for t in months if sx.lo <= t <= sx.hi] or [d_lo]
    last_end = -math.inf
    for tick in ticks:  # month labels, left to right, each dropped where it would touch the one before
        label = dt.date.fromordinal(int(tick)).strftime("%Y-%m")
        w = text_width(label, FS)
        x = min(max(sx(tick) - w / 2, 0.0), W - w)
        if x > last_end + 6:
            body.append(text(x, bottom + FS + 8, label, FS, **_MUTED))
            last_end = x + w
    body.append(el("path", {"d": f"M{n(left)} {n(top)}V{n(bottom)}H{n(right)}", "fill": "none", **_AXIS}))
    anchors, widths, names, obstacles = [], [], [], []
    for ln in lines:
        pts = [(sx(dt.date.fromisoformat(d).toordinal()), sy(p)) for d, p in ln.points]
        body.append(el("polyline", {"points": " ".join(f"{n(x)},{n(y)}" for x, y in pts), "fill": "none",
                                    "stroke": "currentColor", "stroke-width": 1.6}))  # fmt: skip
        for (x, y), (d, p) in zip(pts, ln.points, strict=True):
            tip = el("title", {}, esc(f"{svg.clean(ln.label)} {d}：{_value(p)} 元/卡·月"))
            body.append(el("circle", {"cx": x, "cy": y, "r": 3.5, "fill": "currentColor"}, tip))
            obstacles.append(Box(x - 4, y - 4, x + 4, y + 4))
        shown = fit(ln.label, FS, 105)
        anchors.append((pts[-1][0], pts[-1][1], 4.0))
        widths.append(text_width(shown, FS))
        names.append(shown)
    placed = svg.place_labels(anchors, widths, FS, Box(left + 2, top + 2, right, bottom - 2), obstacles)
    missing = _draw_labels(body, names, names, placed)
    total = bottom + FS + 22
    if missing:
        body.append(text(PAD, total + FS, fit("图中未标注：" + "、".join(missing), FS, W - 2 * PAD), FS, **_MUTED))
        total += FS + 10
    desc = "折线图，各提供方同一产品先后的报价（元/卡·月）：" + "；".join(
        f"{ln.label} " + " → ".join(f"{d} {_value(p)}" for d, p in ln.points) for ln in lines
    )
    return svg.document(W, total, title, desc, body)
