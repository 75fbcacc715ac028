"""The data-file table (generator.data.datafiles): every file of data/ named once, nowhere else."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
from conftest import REPO, docstring_ids
from pydantic import BaseModel

from generator.data.datafiles import DATA_FILES, OPTIONAL_FILES, REFERENCES, DataFile
from generator.data.records import OffersFile

GENERATOR = REPO / "generator"
TABLE = GENERATOR / "data" / "datafiles.py"
#: A whole string literal that is a data file's name or path ("gpus.yaml", "data/gpus.yaml").
FILENAME = re.compile(r"(?:data/)?[\w-]+\.yaml")


def filename_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal, f-string parts included, that is a YAML file name;
    docstrings are prose and not counted."""
    tree = ast.parse(source)
    docs = docstring_ids(tree)
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in docs
        and FILENAME.fullmatch(n.value)
    ]


@pytest.mark.parametrize("path", sorted(GENERATOR.rglob("*.py")), ids=lambda p: p.relative_to(GENERATOR).as_posix())
def test_no_file_name_outside_the_table(path: Path) -> None:
    if path == TABLE:
        return
    assert filename_literals(path.read_text(encoding="utf-8")) == [], "name the file by its DataFile member"


def test_the_table_names_every_data_file() -> None:
    on_disk = {p.name for p in (REPO / "data").glob("*.yaml")}
    assert on_disk <= {f.value for f in DataFile}  # every bundled file is in the table
    assert set(DATA_FILES) == set(DataFile) and set(OPTIONAL_FILES) <= set(DataFile)
    assert {f.value for f in DataFile} - on_disk <= {f.value for f in OPTIONAL_FILES}
    assert (
        str(DataFile.gpus) == "gpus.yaml" and DataFile.gpus.path == "data/gpus.yaml" and f"{DataFile.fx}" == "fx.yaml"
    )
    keyed: dict[str, int] = {DataFile.gpus: 1}
    assert keyed["gpus.yaml"] == 1  # a member is the name as a key too
    assert filename_literals(TABLE.read_text(encoding="utf-8"))  # the one place the names are written


def test_the_check_can_fail() -> None:
    """Controls: literals are found, prose and docstrings are not; validate.py before the table
    (fd6df2a) had about a hundred."""
    assert filename_literals('x = "gpus.yaml"\ny = f"{d}/x" + "data/offers.yaml"\n') == [
        (1, "gpus.yaml"),
        (2, "data/offers.yaml"),
    ]
    assert filename_literals('"""See gpus.yaml."""\nhelp = "model id from data/models.yaml"\n') == []
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    old = subprocess.run([git, "-C", str(REPO), "show", "fd6df2a:generator/data/validate.py"],
                         capture_output=True, text=True, check=False)  # fmt: skip
    if old.returncode != 0:
        pytest.skip("fd6df2a is not in this clone")
    assert len(filename_literals(old.stdout)) > 90


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The record models an annotation can hold (through Optional, unions and Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in get_args(annotation) for m in _models(a)]


def field_at(model: type[BaseModel], path: tuple[str, ...]) -> bool:
    """Whether ``path`` ("*": a list's items) names a field of ``model``'s documents."""
    annotations: list[Any] = [model]
    for step in path:
        if step == "*":
            annotations = [a for ann in annotations for a in _list_items(ann)]
        else:
            fields = [m.model_fields[step] for ann in annotations for m in _models(ann) if step in m.model_fields]
            annotations = [f.annotation for f in fields]
        if not annotations:
            return False
    return True


def _list_items(annotation: Any) -> list[Any]:
    if get_origin(annotation) is list:
        return list(get_args(annotation))
    return [i for a in get_args(annotation) for i in _list_items(a)]


def test_every_reference_is_a_field_of_its_file() -> None:
    """Each declared reference (datafiles.REFERENCES, which validate.reference_check walks) is a
    field of its file's model that holds ids, and points at a file whose entries have ids."""
    for r in REFERENCES:
        assert field_at(DATA_FILES[r.file][1], r.path), r
        key, target = DATA_FILES[r.target]
        assert field_at(target, (key, "*", "id")), r
    # controls: a misspelt field, and "*" on a field that is not a list
    assert not field_at(OffersFile, ("offers", "*", "gpus"))
    assert not field_at(OffersFile, ("offers", "*", "gpu", "*"))
