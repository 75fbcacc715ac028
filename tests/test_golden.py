"""Golden files: the Markdown and open data the mini fixture generates, reviewed by a person.

When a change alters generated pages on purpose, refresh with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py`` and read the diff of
tests/golden/ before committing it (the mkdocs-gen-files habit).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, make_project

from generator.pipeline import Project, generate

GOLDEN = Path(__file__).parent / "golden" / "mini"
#: Charts are checked for determinism in test_build; their bytes are not reviewable text.
SKIP_SUFFIXES = (".svg",)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = make_project(tmp_path_factory.mktemp("golden"))
    files = generate(Project.at(root, build_date=MINI_BUILD_DATE)).files
    return {k: v for k, v in files.items() if not k.endswith(SKIP_SUFFIXES)}


def test_golden_set_matches(generated: dict[str, bytes]) -> None:
    if os.environ.get("UPDATE_GOLDEN"):
        for old in GOLDEN.rglob("*"):
            if old.is_file() and old.relative_to(GOLDEN).as_posix() not in generated:
                old.unlink()
        for rel, data in generated.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_bytes(data)
    expected = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())
    assert expected == sorted(generated)


@pytest.mark.parametrize("rel", sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()))
def test_golden_file(rel: str, generated: dict[str, bytes]) -> None:
    assert generated[rel].decode("utf-8") == (GOLDEN / rel).read_text(encoding="utf-8")
