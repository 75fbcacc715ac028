"""The reader's side of ``make bench``: what a first page view and a search query transfer.

First view (per page kind, the heaviest page of the kind): the HTML, its stylesheets, its
start-up scripts (module scripts with the modules they import) and the images not marked
``loading="lazy"``, each gzip-compressed as a static host serves it. The same sum the budget
test checks (tests/test_page_weight.py), measured here rather than asserted.

The calculator's models file (``assets/calculator-models.json``: every model, architecture
included, beyond the few its page lists inline), which its page fetches after the first
calculation, is reported beside the first views: not part of one, but bytes a calculator visit
still transfers.

Search query (Pagefind, site/pagefind/): what the first query of a visit fetches, from the
index's files: the loader (pagefind.js, its WebAssembly, the entry and metadata files), one
index chunk per query word (the largest chunk is the worst case) and the excerpts of the 20
results the search box shows (20 mean fragments). Pagefind's chunks are already compressed;
its loader files are counted gzip-compressed.
"""

from __future__ import annotations

import gzip
import re
import statistics
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

from generator.pages.calculator import ARCHITECTURES

SHOWN = 20  #: results whose excerpts the search box fetches (docs/javascripts/search.js)
_STATIC_IMPORT = re.compile(r'^\s*import\s[^;]*?from\s+"([^"]+)"', re.M)


@cache
def _gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 6, mtime=0))


class _Loads(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and a.get("rel") == "stylesheet" and a.get("href"):
            self.found.append(("css", str(a["href"]), a))
        elif tag == "script" and a.get("src"):
            self.found.append(("js", str(a["src"]), a))
        elif tag == "img" and a.get("src") and a.get("loading") != "lazy":
            self.found.append(("img", str(a["src"]), a))


def first_view_bytes(page: Path) -> int:
    """Gzip bytes of a first view of one built page (same-host resources only)."""
    parser = _Loads()
    parser.feed(page.read_text(encoding="utf-8"))
    files = {page.resolve()}
    for kind, url, attrs in parser.found:
        if re.match(r"^([a-z]+:)?//", url) or (kind == "js" and "async" in attrs):
            continue
        target = (page.parent / url.split("?")[0].split("#")[0]).resolve()
        if not target.is_file():
            continue
        todo = [target]
        while todo:
            f = todo.pop()
            if f in files:
                continue
            files.add(f)
            if kind == "js" and attrs.get("type") == "module":
                todo += [(f.parent / s).resolve() for s in _STATIC_IMPORT.findall(f.read_text(encoding="utf-8"))]
    return sum(_gz(f) for f in files)


def first_views(site: Path) -> dict[str, int]:
    """The heaviest first view of each page kind (top folder; "guide" for top-level pages)."""
    out: dict[str, int] = {}
    for page in site.rglob("index.html"):
        parts = page.relative_to(site).parts
        if parts[0] == "pagefind":
            continue
        kind = parts[0] if len(parts) > 2 else "guide"
        out[kind] = max(out.get(kind, 0), first_view_bytes(page))
    return dict(sorted(out.items()))


def search_query_bytes(site: Path, words: int = 2) -> tuple[int, int]:
    """(typical, worst) bytes the first query of ``words`` words fetches from site/pagefind/."""
    pf = site / "pagefind"
    loader = sum(_gz(p) for p in pf.glob("pagefind*.js")) + sum(_gz(p) for p in pf.glob("*.pagefind"))
    loader += sum(p.stat().st_size for p in pf.glob("*.pf_meta")) + _gz(pf / "pagefind-entry.json")
    chunks = [p.stat().st_size for p in (pf / "index").iterdir()]
    fragments = [p.stat().st_size for p in (pf / "fragment").iterdir()]
    excerpts = int(min(SHOWN, len(fragments)) * statistics.mean(fragments))  # a small site has fewer pages
    return loader + words * int(statistics.median(chunks)) + excerpts, loader + words * max(chunks) + excerpts


def calculator_fetch_bytes(site: Path) -> int | None:
    """Gzip bytes of the models file the calculator fetches after its first calculation (None: no file)."""
    path = site / ARCHITECTURES
    return _gz(path) if path.is_file() else None


def report(site: Path) -> list[str]:
    """Lines for the bench's output."""
    views = first_views(site)
    typical, worst = search_query_bytes(site)
    later = calculator_fetch_bytes(site)
    return [
        "first view (gzip, heaviest page of each kind): "
        + ", ".join(f"{k} {v / 1024:.0f} KiB" for k, v in views.items()),
        *(
            [f"the calculator then fetches every model with its architecture: {later / 1024:.1f} KiB"]
            if later is not None
            else []
        ),
        f"a two-word search query fetches about {typical / 1024:.0f} KiB (at most {worst / 1024:.0f} KiB)",
    ]
