"""A small SVG writer for the charts: escaping, text measure, scales, ticks, label placement.

No dependencies and no fonts: text stays ``<text>`` drawn by the reader's browser with
a CJK system font stack, so its width is *estimated* (:func:`text_width`, on the high
side) and every layout decision uses that estimate. Output is deterministic: the same
input gives the same bytes (coordinates rounded to 0.1, no ids, no dates).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from generator.pages.render import MARKER

FONT_STACK = (
    '"PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC",'
    '"Source Han Sans SC","WenQuanYi Micro Hei",sans-serif'
)
#: Colours for a chart outside the page (an ``<img>``, or the file opened on its own).
STANDALONE_STYLE = (
    "svg{color:#1f2328;background:#fff}.lbl{stroke:#fff;stroke-width:3px;stroke-linejoin:round;paint-order:stroke}"
)

#: Attributes of an element: names are ours, values numbers (coordinates) or text.
Attrs = Mapping[str, str | float]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_NARROW = set("iljI.,:;!|'`") | {" "}
_SEMI = set('ftr()[]{}-/\\"*')


def clean(text: str) -> str:
    """One line of plain text: control and non-XML characters gone, white space folded."""
    text = _NOT_XML.sub(" ", text)
    return " ".join(text.split())


def esc(text: str) -> str:
    """Text (or an attribute value) safe inside XML: cleaned, then & < > " ' escaped."""
    return (
        clean(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def char_em(ch: str) -> float:
    """Estimated advance of one character in em, a little wider than common CJK UI fonts draw it."""
    if unicodedata.east_asian_width(ch) in ("W", "F", "A"):
        return 1.0
    if ch in _NARROW:
        return 0.32
    if ch in _SEMI:
        return 0.42
    if ch in "mwMW@%":
        return 0.95
    if ch.isdigit():
        return 0.6
    if ch.isupper():
        return 0.74
    return 0.6


def text_width(text: str, size: float) -> float:
    return sum(char_em(ch) for ch in clean(text)) * size


def fit(text: str, size: float, width: float) -> str:
    """``text`` cleaned, cut with an ellipsis to fit ``width`` by the estimate."""
    text = clean(text)
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def n(value: float) -> str:
    """A coordinate: one decimal, no trailing zeros, no ``-0``."""
    out = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if out == "-0" else out


def el(tag: str, attrs: Attrs, content: str | None = None) -> str:
    """One element; attribute names are ours, values (and ``content``, already markup) are escaped.
    Numbers are coordinates, rounded to 0.1; give finer values (opacities) as text."""
    parts = [tag]
    for name, value in attrs.items():
        assert name.isascii() and not name.lower().startswith("on"), name
        parts.append(f'{name}="{n(value) if isinstance(value, float | int) else esc(value)}"')
    head = " ".join(parts)
    return f"<{head}/>" if content is None else f"<{head}>{content}</{tag}>"


def text(x: float, y: float, value: str, size: float, **attrs: str | float) -> str:
    """A ``<text>`` element; ``title`` (the full text of a shortened label) becomes a tooltip."""
    full = attrs.pop("title", None)
    tip = el("title", {}, esc(str(full))) if full else ""
    return el("text", {"x": x, "y": y, "font-size": size, **attrs}, esc(value) + tip)


# --------------------------------------------------------------------------- scales


@dataclass(frozen=True)
class Scale:
    """Data values ``lo..hi`` onto ``a..b`` (units of the viewBox), linear or log10."""

    lo: float
    hi: float
    a: float
    b: float
    log: bool = False

    def __call__(self, v: float) -> float:
        f: Callable[[float], float] = math.log10 if self.log else float
        return float(self.a + (f(v) - f(self.lo)) / (f(self.hi) - f(self.lo)) * (self.b - self.a))


def nice_step(span: float, count: int) -> float:
    """A 1-2-5 step that cuts ``span`` into about ``count`` parts."""
    raw = span / max(count, 1) if span > 0 else 1.0
    mag = 10.0 ** math.floor(math.log10(raw))
    return next((m * mag for m in (1, 2, 5) if m * mag >= raw * 0.999), 10 * mag)


def linear_domain(values: list[float], count: int = 5) -> tuple[float, float, list[float]]:
    """Axis ends and ticks: from 0 when the data sit far enough above it (else a little below
    the smallest value, on a tick), to 6 % past the largest value; 1-2-5 ticks in between."""
    lo, hi = min(values), max(values)
    if hi <= lo:
        lo, hi = lo - abs(lo) * 0.1 - 1, hi + abs(hi) * 0.1 + 1
    start = 0.0 if 0 <= lo <= hi / 2 else lo
    pad = (hi - start) * 0.06
    hi, start = hi + pad, start if start == 0 else lo - pad
    step = nice_step(hi - start, count)
    lo = math.floor(start / step) * step
    return lo, hi, [lo + i * step for i in range(math.floor((hi - lo) / step + 1e-9) + 1)]


def log_domain(values: list[float]) -> tuple[float, float, list[float]]:
    """Axis ends padded by a quarter in ratio, ticks at 1-2-5 (or 1-1.5-2-3-5-7, or decades)."""
    lo, hi = min(values) / 1.25, max(values) * 1.25
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    for mants in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1,)):
        ticks = [m * 10.0**e for e in decades for m in mants if lo <= m * 10.0**e <= hi]
        if 3 <= len(ticks) <= 7:
            return lo, hi, ticks
    return lo, hi, ticks


def tick_label(value: float, ticks: list[float]) -> str:
    """Thousands separators; as few decimals as show every tick exactly."""
    digits = next((d for d in range(7) if all(abs(round(t, d) - t) < 1e-9 * max(1.0, abs(t)) for t in ticks)), 6)
    return f"{value:,.{digits}f}"


def x_tick_labels(ticks: list[float], at: Callable[[float], float], baseline: float, size: float, width: float,
                  attrs: Attrs) -> list[str]:  # fmt: skip
    """Labels centred under their ticks (nudged inside ``0..width`` at the edges), left to
    right, each dropped where it would touch the one before."""
    out, last = [], -math.inf
    for t in ticks:
        lab = tick_label(t, ticks)
        w = text_width(lab, size)
        x0 = min(max(at(t) - w / 2, 0.0), width - w)
        if x0 >= last + 8:
            out.append(text(x0 + w / 2, baseline, lab, size, **{"text-anchor": "middle", **attrs}))
            last = x0 + w
    return out


# --------------------------------------------------------------------------- label placement


def join_labels(labels: list[str]) -> str:
    """Labels of items drawn at one spot: "H100/H800 80GB SXM" when only the first word differs."""
    words = [t.split(" ") for t in labels]
    if len(labels) > 1 and all(len(w) > 1 and w[1:] == words[0][1:] for w in words):
        return "/".join(w[0] for w in words) + " " + " ".join(words[0][1:])
    return " / ".join(labels)


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def hits(self, o: Box, pad: float = 1.0) -> bool:
        return self.x0 < o.x1 + pad and o.x0 < self.x1 + pad and self.y0 < o.y1 + pad and o.y0 < self.y1 + pad

    def inside(self, o: Box) -> bool:
        return o.x0 <= self.x0 and self.x1 <= o.x1 and o.y0 <= self.y0 and self.y1 <= o.y1

    def nearest(self, x: float, y: float) -> tuple[float, float]:
        return min(max(x, self.x0), self.x1), min(max(y, self.y0), self.y1)


Segment = tuple[float, float, float, float]


def segment_hits(seg: Segment, box: Box) -> bool:
    """Whether the segment crosses ``box`` (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = seg
    t0, t1, dx, dy = 0.0, 1.0, x1 - x0, y1 - y0
    for p, q in ((-dx, x0 - box.x0), (dx, box.x1 - x0), (-dy, y0 - box.y0), (dy, box.y1 - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def segments_cross(a: Segment, b: Segment) -> bool:
    def side(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
        return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)

    d1, d2 = side(*b, a[0], a[1]), side(*b, a[2], a[3])
    d3, d4 = side(*a, b[0], b[1]), side(*a, b[2], b[3])
    return d1 * d2 < 0 and d3 * d4 < 0


@dataclass(frozen=True)
class Placed:
    """Where a label went: its text's start and baseline, its box, and a leader line if any."""

    x: float
    y: float
    box: Box
    leader: Segment | None


def label_box(x: float, baseline: float, width: float, size: float) -> Box:
    return Box(x, baseline - 0.92 * size, x + width, baseline + 0.26 * size)


def _candidates(px: float, py: float, r: float, w: float, size: float, area: Box) -> list[tuple[float, float, float]]:
    """(distance from the point, x, baseline) of every spot a label may take, nearest first.

    Beside the point (right, left, centred above or below, corners), then the same sides
    a half line further at a time, then columns along the area's left and right edges."""
    gap, mid = r + 3, py + 0.33 * size
    xs = [px + gap, px - gap - w, px - w / 2, px - r, px + r - w, area.x1 - w, area.x0]
    steps = int(min(area.y1 - area.y0, 320) / (0.6 * size)) + 1
    ys = [mid + k * sign * 0.6 * size for k in range(steps) for sign in ((1,) if k == 0 else (-1, 1))]
    ys[1:1] = [py - gap - 0.3 * size, py + gap + 0.95 * size]  # just above, just below
    out = []
    for y in ys:
        for x in xs:
            box = label_box(x, y, w, size)
            if box.inside(area):
                nx, ny = box.nearest(px, py)
                out.append((round(math.hypot(nx - px, ny - py), 1), x, y))
    out.sort(key=lambda c: c[0])  # stable: equal distances keep the order above
    return out


def _gap(a: Box, b: Box) -> float:
    """Distance between two boxes (0 when they touch or overlap)."""
    return math.hypot(max(0.0, a.x0 - b.x1, b.x0 - a.x1), max(0.0, a.y0 - b.y1, b.y0 - a.y1))


def _place(
    order: list[int], anchors: list[tuple[float, float, float]], widths: list[float], size: float, area: Box,
    obstacles: list[Box],
) -> list[Placed | None]:  # fmt: skip
    """Greedy placement in ``order``. A label nearer another mark than its own (or, with a
    leader line, almost touching another mark) reads as that mark's label: such a spot is
    taken only when no unambiguous spot is free."""
    placed: list[Placed | None] = [None] * len(anchors)
    labels: list[Box] = []
    leaders: list[Segment] = []
    for i in order:
        (px, py, r), w = anchors[i], widths[i]
        others = [b for b in obstacles if not (b.x0 <= px <= b.x1 and b.y0 <= py <= b.y1)]
        chosen: Placed | None = None
        fallback: Placed | None = None
        for dist, x, y in _candidates(px, py, r, w, size, area):
            box = label_box(x, y, w, size)
            if any(box.hits(t) for t in labels) or any(box.hits(t) for t in obstacles):
                continue
            if any(segment_hits(seg, box) for seg in leaders):
                continue
            line = None
            if dist > r + 5:
                nx, ny = box.nearest(px, py)
                line = (px, py, nx, ny)
                if any(segment_hits(line, t) for t in labels + others):
                    continue
                if any(segments_cross(line, seg) for seg in leaders):
                    continue
            spot = Placed(x, y, box, line)
            clear = size * 0.8 if line else dist - r  # a leader shows whose label it is; keep clear of others
            if all(_gap(box, b) > clear for b in others):
                chosen = spot
                break
            fallback = fallback or spot
        placed[i] = chosen = chosen or fallback
        if chosen is not None:
            labels.append(chosen.box)
            if chosen.leader is not None:
                leaders.append(chosen.leader)
    return placed


def place_labels(
    anchors: list[tuple[float, float, float]],
    widths: list[float],
    size: float,
    area: Box,
    obstacles: list[Box],
) -> list[Placed | None]:
    """Labels for marks at ``anchors`` (x, y, radius): inside ``area``, each at the nearest
    spot (:func:`_candidates`) where it overlaps no other label, no obstacle (the marks)
    and no leader line; a label away from its mark gets a leader line that crosses no
    label, mark or other leader. None for a label that fits nowhere.

    Greedy, so the order matters: tries crowded marks first (most other marks within 40
    units), the given order, top to bottom and bottom to top, each once more with its
    unplaced labels first; keeps the try with the fewest unplaced labels, then the
    shortest leader lines, then the earliest."""

    def crowd(i: int) -> int:
        px, py, _ = anchors[i]
        return sum(math.hypot((b.x0 + b.x1) / 2 - px, (b.y0 + b.y1) / 2 - py) < 40 for b in obstacles)

    def cost(result: list[Placed | None]) -> tuple[int, float]:
        lines = [p.leader for p in result if p is not None and p.leader is not None]
        return sum(p is None for p in result), round(sum(math.hypot(x1 - x0, y1 - y0) for x0, y0, x1, y1 in lines), 1)

    idx = list(range(len(anchors)))
    orders = [
        sorted(idx, key=lambda i: -crowd(i)), idx, sorted(idx, key=lambda i: anchors[i][1]),
        sorted(idx, key=lambda i: -anchors[i][1]),
    ]  # fmt: skip
    best: list[Placed | None] | None = None
    for order in orders:
        result = _place(order, anchors, widths, size, area, obstacles)
        missing = [i for i in order if result[i] is None]
        tries = [result]
        if missing:
            tries.append(
                _place(missing + [i for i in order if i not in missing], anchors, widths, size, area, obstacles)
            )
        for r in tries:
            if best is None or cost(r) < cost(best):
                best = r
        if best is not None and cost(best) == (0, 0.0):
            break
    return best if best is not None else []


# --------------------------------------------------------------------------- documents


def document(width: float, height: float, title: str, desc: str, body: list[str]) -> str:
    """An ``<svg>`` that scales to its container, with its accessible name and description."""
    head = el(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {n(width)} {n(height)}",
            "width": "100%",
            "role": "img",
            "fill": "currentColor",
            "font-family": FONT_STACK,
            "class": "gpu-chart-svg",
        },
        "",
    ).removesuffix("</svg>")
    return "\n".join([head, el("title", {}, esc(title)), el("desc", {}, esc(desc)), *body, "</svg>"]) + "\n"


def standalone(svg: str) -> bytes:
    """A chart as an .svg file: XML declaration, generated marker, own colours and background."""
    match = re.match(r'<svg [^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert match, "not a chart from document()"
    w, h = match.groups()
    svg = svg.replace('width="100%"', f'width="{w}" height="{h}"', 1)
    head, sep, rest = svg.partition("</desc>\n")
    extra = el("style", {}, STANDALONE_STYLE) + "\n" + el("rect", {"width": w, "height": h, "fill": "#fff"}) + "\n"
    out = f'<?xml version="1.0" encoding="UTF-8"?>\n<!-- {MARKER} -->\n{head}{sep}{extra}{rest}'
    return out.encode("utf-8")
