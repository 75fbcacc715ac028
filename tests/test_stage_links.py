"""The staging folder's unchanged files are hard links to the live ones (generator.publish.swap).

Staging copies every file of docs/ that a write leaves alone; ``serve`` stages on every edit, and 375
copies took 0.2 s of its 2 s (issue 21). A link costs one system call and keeps the modification time
(which ``mkdocs serve --dirty`` reads) as a copy did. It is safe only while nothing writes through it:
a changed file must arrive as a new file, so the live docs/ stays as it was until the swap.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from generator.publish import swap
from generator.publish.safe_files import remove_tree


def published(docs: Path, files: dict[str, bytes]) -> None:
    stage = swap.stage_docs(docs, files)
    swap.swap_in(stage, docs)
    remove_tree(stage)


def test_unchanged_files_are_linked_and_changed_ones_never_written_through(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    published(docs, {"a.md": b"a\n", "gpus/b.md": b"b\n"})
    stage = swap.stage_docs(docs, {"a.md": b"a\n", "gpus/b.md": b"B\n"})
    try:
        assert os.path.samefile(stage / "a.md", docs / "a.md")  # unchanged: a link to the live file
        assert not os.path.samefile(stage / "gpus/b.md", docs / "gpus/b.md")
        assert (stage / "gpus/b.md").read_bytes() == b"B\n"
        assert (docs / "gpus/b.md").read_bytes() == b"b\n"  # the live file is as it was until the swap
    finally:
        remove_tree(stage)


def test_where_links_are_refused_the_files_are_copied_with_their_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    published(docs, {"a.md": b"a\n", "b.md": b"b\n"})
    os.utime(docs / "a.md", ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))

    def refused(*_args: object, **_kw: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refused)  # the module swap calls it from
    stage = swap.stage_docs(docs, {"a.md": b"a\n", "b.md": b"B\n"})
    try:
        assert not os.path.samefile(stage / "a.md", docs / "a.md")
        assert (stage / "a.md").read_bytes() == b"a\n"
        assert (stage / "a.md").stat().st_mtime_ns == 1_700_000_000_000_000_000  # kept, as --dirty needs
    finally:
        remove_tree(stage)
