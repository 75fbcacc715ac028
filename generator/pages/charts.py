"""Charts drawn at build time with matplotlib, written as SVG with deterministic bytes.

Determinism: a fixed ``svg.hashsalt`` (element ids), no ``Date`` metadata, text kept
as ``<text>`` (``svg.fonttype: none``) so no glyph outlines depend on the fonts of
the build machine; the browser draws the Chinese labels with its own fonts.
"""

from __future__ import annotations

import io
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd

from generator.pages.render import MARKER

_STYLE = {
    "svg.hashsalt": "gpu-guide",
    "svg.fonttype": "none",
    # GPU names are data, not TeX: "$" must never start mathtext (an odd "$\\frac{$" would crash).
    "text.parse_math": False,
    "font.family": ["DejaVu Sans"],
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_COLORS = {"NVIDIA": "#76b900", "AMD": "#ed1c24", "Huawei": "#c7000b", "Biren": "#3f51b5"}


def _svg(fig: plt.Figure, title: str) -> bytes:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Title": title, "Creator": "gpu-guide"})
    plt.close(fig)
    text = buf.getvalue()
    # Marker right after the XML declaration, so output.is_marked() sees it.
    head, _, rest = text.partition("\n")
    return f"{head}\n<!-- {MARKER} -->\n{rest}".encode()


def ladder_chart(frame: pd.DataFrame) -> bytes:
    """Horizontal bars of dense 16-bit TFLOPS, best at the top, coloured by vendor."""
    with plt.rc_context(_STYLE), warnings.catch_warnings():
        # DejaVu has no CJK glyphs; layout still works and the browser draws them.
        warnings.simplefilter("ignore", UserWarning)
        rows = frame.iloc[::-1]
        fig, ax = plt.subplots(figsize=(8, 0.38 * len(rows) + 1.2))
        colors = [_COLORS.get(v, "#888888") for v in rows["vendor"]]
        ax.barh(rows["name"], rows["tensor_tflops"], color=colors)
        for y, (value, mem) in enumerate(zip(rows["tensor_tflops"], rows["memory_gb"], strict=False)):
            ax.text(value, y, f" {value:,.0f} · {mem:g} GB", va="center", fontsize=8)
        ax.set_xlabel("稠密 BF16/FP16 Tensor TFLOPS")
        ax.set_xlim(0, float(rows["tensor_tflops"].max()) * 1.25)
        fig.tight_layout()
        return _svg(fig, "GPU 天梯图")


def _scatter(frame: pd.DataFrame, x: str, y: str, xlabel: str, ylabel: str, title: str) -> bytes:
    """One labelled point per GPU, coloured by vendor."""
    with plt.rc_context(_STYLE), warnings.catch_warnings():
        # DejaVu has no CJK glyphs; layout still works and the browser draws them.
        warnings.simplefilter("ignore", UserWarning)
        fig, ax = plt.subplots(figsize=(8, 5))
        for _, row in frame.iterrows():
            ax.scatter(row[x], row[y], color=_COLORS.get(row["vendor"], "#888888"))
            ax.annotate(row["name"], (row[x], row[y]), fontsize=7, xytext=(4, 3), textcoords="offset points")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        fig.tight_layout()
        return _svg(fig, title)


def price_performance_chart(frame: pd.DataFrame) -> bytes:
    """Monthly price per card against dense TFLOPS, for GPUs that have a price."""
    priced = frame.dropna(subset=["month_low"])
    return _scatter(
        priced, "tensor_tflops", "month_low", "稠密 BF16/FP16 Tensor TFLOPS", "最低月租（元/卡）", "价格与算力"
    )


def memory_bandwidth_chart(frame: pd.DataFrame) -> bytes:
    """Memory size against memory bandwidth."""
    return _scatter(frame, "memory_gb", "memory_bandwidth_gbps", "显存容量（GB）", "显存带宽（GB/s）", "显存容量与带宽")
