"""The data-file table (generator.data.datafiles): every file of data/ named once, nowhere else."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, docstring_ids

from generator.data.datafiles import DATA_FILES, OPTIONAL_FILES, DataFile

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
