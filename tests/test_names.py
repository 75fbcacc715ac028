"""Every dotted ``generator.…`` name the prose mentions exists: docstrings, comments, templates,
the README and the maintainer docs. A module moved or renamed without its mentions fails here."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from conftest import REPO

#: ``generator.engine.memory``, ``generator.data.validate.DATA_FILES`` … (not ``gpu-generator.x``).
DOTTED = re.compile(r"(?<![\w./-])generator(?:\.[A-Za-z_]\w*)+")
SOURCES = sorted(
    [*(REPO / "generator").rglob("*.py"), *(REPO / "tests").glob("*.py"), *(REPO / "templates").rglob("*.j2"),
     *(REPO / "templates").rglob("*.html"), *(REPO / "docs-dev").glob("*.md"), *REPO.glob("*.md"),
     REPO / "Makefile", REPO / "pyproject.toml"]
)  # fmt: skip


def resolves(name: str) -> bool:
    """Whether ``name`` is a module under ``generator`` or an attribute (a record's field too) of one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        if module.endswith("__main__"):
            return (REPO / Path(*parts[:i])).with_suffix(".py").is_file() and i == len(parts)
        try:
            obj: object = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            fields = {**getattr(obj, "model_fields", {}), **getattr(obj, "__dataclass_fields__", {})}
            if attr in fields:
                return attr == parts[-1]
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def mentions() -> list[tuple[str, str]]:
    """(``file:line``, name) of every dotted name in :data:`SOURCES`."""
    out = []
    for path in SOURCES:
        if path.name == "test_names.py":  # the control below names the old modules on purpose
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            out += [(f"{path.relative_to(REPO)}:{n}", m.group()) for m in DOTTED.finditer(line)]
    return out


def test_every_dotted_name_resolves() -> None:
    found = mentions()
    assert len(found) > 50  # the scan sees the prose
    assert [f"{where}: {name}" for where, name in found if not resolves(name)] == []


def test_the_resolver_can_fail() -> None:
    """Control: names from before the move to stage packages do not resolve; their new homes do."""
    for old, new in (("generator.bench", "generator.cli.bench"), ("generator.schemas", "generator.data.schemas"),
                     ("generator.validate.DATA_FILES", "generator.data.validate.DATA_FILES"),
                     ("generator.engine.footprint.lora_params", "generator.engine.training_memory.lora_params"),
                     ("generator.data.rules.Rules.nonexistent", "generator.data.rules.Rules.defaults")):  # fmt: skip
        assert not resolves(old) and resolves(new), (old, new)
