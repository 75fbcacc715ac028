"""Every relative link in the README, CONTRIBUTING.md and docs-dev/*.md points at a file or folder
that exists (the maintainer pages moved out of the README; a moved or renamed file fails here)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO

#: ``[text](target)`` outside code spans; the target up to ``)``, ``#`` or a space.
LINK = re.compile(r"\]\(([^)#\s]*)(?:#[^)\s]*)?\)")
CODE = re.compile(r"`[^`]*`")
DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs-dev").glob("*.md"))]


def broken(path: Path, root: Path = REPO) -> list[str]:
    """``file:line: target`` of each relative link in ``path`` whose target is missing."""
    out, fenced = [], False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        for target in LINK.findall(CODE.sub("", line)):
            if not target or re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # an anchor in the same page, or an absolute URL
            if not (path.parent / target).exists():
                out.append(f"{path.relative_to(root)}:{n}: {target}")
    return out


def test_relative_links_resolve() -> None:
    assert (REPO / "docs-dev" / "README.md").is_file()
    assert sum(len(LINK.findall(p.read_text(encoding="utf-8"))) for p in DOCS) > 10  # the scan sees links
    assert [b for p in DOCS for b in broken(p)] == []


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "x.md"
    (tmp_path / "there.md").write_text("", encoding="utf-8")
    page.write_text("[a](there.md) [b](gone.md#x) `[c](nope.md)` [d](https://e.org)\n", encoding="utf-8")
    assert [b.split(": ")[1] for b in broken(page, tmp_path)] == ["gone.md"]


def test_readme_links_the_maintainer_docs() -> None:
    for name in ("README.md", "CONTRIBUTING.md"):
        assert "docs-dev/README.md" in (REPO / name).read_text(encoding="utf-8"), name
