"""The site's search index: Pagefind, run over the built HTML.

MkDocs Material's own search writes the whole site's text into one ``search_index.json`` that
every page downloads on load, so each page view grows with the site. Pagefind (the extended
build, which segments Chinese at index time) writes the index as small content-addressed
chunks under ``site/pagefind/``; a query fetches only the chunks its words live in.

Pages mark what is indexed in the theme (``templates/overrides/main.html``): the article body
(``data-pagefind-body``, so the sidebar's link text does not match every query) and the page
kind as metadata (``data-pagefind-meta="kind:GPU"``) that the search box groups by. (Not a
Pagefind filter: version 1.5 writes the filter file in a different order on each run.) The kind
also sets the title's ranking weight (the h1's ``data-pagefind-weight``) and the kind's rank among
pages named for a query (``rank`` metadata), so generic queries find guide and scenario pages
before the many per-model pages that share their words; the ranking options that go with those
weights travel with the search box (``templates/overrides/partials/search.html``).

The binary comes from the ``pagefind[extended]`` package. It runs with a scrubbed environment
(no ``PAGEFIND_*`` settings) in an empty working folder (no stray ``pagefind.yml``), so the
index depends only on the HTML. Its output names are hashes of their content: the same site
gives the same files.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

#: Folder under the site that holds the index and Pagefind's browser library.
SUBDIR = "pagefind"


#: Not indexed: heading permalinks (¶) and small print (the breadcrumb trail, the as-of note).
EXCLUDE = (".headerlink", "p > small")

#: Pagefind's ready-made search interfaces: the site has its own (javascripts/search.js).
UNUSED = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-highlight.js",
)


class SearchIndexError(Exception):
    """Pagefind is missing or refused to index the site."""


def pagefind_binary() -> Path:
    """The Pagefind executable shipped by the ``pagefind[extended]`` package."""
    try:
        import pagefind_bin_extended
    except ImportError:
        raise SearchIndexError("search: the pagefind[extended] package is not installed (pip install -e .)") from None
    try:
        return Path(pagefind_bin_extended.get_executable())
    except FileNotFoundError as exc:
        raise SearchIndexError(f"search: {exc}") from None


def index_site(site: Path) -> None:
    """Write the search index of the built site in ``site`` into ``site/pagefind/``."""
    binary = pagefind_binary()
    excludes = [arg for selector in EXCLUDE for arg in ("--exclude-selectors", selector)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGEFIND")}
    with tempfile.TemporaryDirectory(prefix="gpu-guide-pagefind-") as cwd:
        done = subprocess.run(
            [str(binary), "--site", str(site.resolve()), "--output-subdir", SUBDIR, *excludes, "--silent"],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise SearchIndexError("search: pagefind failed: " + (" / ".join(detail[-5:]) or f"exit {done.returncode}"))
    for name in UNUSED:
        (site / SUBDIR / name).unlink(missing_ok=True)
    if not (site / SUBDIR / "pagefind.js").is_file():
        raise SearchIndexError(f"search: pagefind wrote no {SUBDIR}/pagefind.js (no page had data-pagefind-body?)")
