"""Published comparison URLs the data would drop without a redirect.

A ``compare/`` page the last build listed in ``docs/.generated.json`` but the data no longer makes
(neither a current comparison nor a retired one, which gets a redirect page at the same path) would
vanish: readers' bookmarks and search results would hit a 404. ``check`` warns at comparisons.yaml's
``retired`` list so the editor can add the slug there.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from generator.data.catalogue import Catalogue
from generator.data.datafiles import DataFile
from generator.data.problems import Problem, Severity
from generator.publish.ownership import read_manifest

#: Where comparison pages live under docs/.
COMPARE = "compare/"
RETIRED = "retired"


def vanishing_comparisons(docs: Path, files: Mapping[str, bytes], cat: Catalogue) -> list[Problem]:
    """One warning per comparison page the manifest lists that ``files`` (this build) lacks, at the
    ``retired`` key of comparisons.yaml (line 1 when the file has no such key, which the message says)."""
    gone = sorted(
        rel
        for rel in read_manifest(docs)
        if rel.startswith(COMPARE) and rel.endswith(".md") and rel != f"{COMPARE}index.md" and rel not in files
    )
    return [_warning(cat, rel[len(COMPARE) : -len(".md")]) for rel in gone]


def _warning(cat: Catalogue, slug: str) -> Problem:
    text = (
        f"compare/{slug}/ was published (docs/.generated.json lists it) and this build no longer makes it, "
        f"so its URL would vanish; add {slug} to {RETIRED}: so it redirects to the nearest comparison"
    )
    doc = cat.docs.get(DataFile.comparisons)
    key = doc.key_marks.get((RETIRED,)) if doc is not None else None
    if doc is not None and key is not None:  # the `retired:` key's own line, where the slug goes under
        return Problem(doc.name, key.line, key.col, RETIRED, text, Severity.warning)
    where = (
        "the file has no retired: list (line 1 stands for it); start one" if doc is not None else "the file is absent"
    )
    name = doc.name if doc is not None else DataFile.comparisons.path
    return Problem(name, 1, 1, RETIRED, f"{text} ({where})", Severity.warning)
