"""JSON Schemas for editors: generated from the models, committed, and true to the data."""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator, FormatChecker

from generator.cli.schemas import main, write_schemas
from generator.data.datafiles import DATA_FILES, REFERENCES, DataFile
from generator.data.schemas import (
    DRAFT,
    SCHEMA_DIR,
    schema_files,
    schema_name,
    stale_schemas,
)

REPO = Path(__file__).resolve().parent.parent
NAMES = list(DATA_FILES)


def iso_dates(value: Any) -> Any:
    """YAML dates as the ISO text an editor typed (JSON has no date type)."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: iso_dates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [iso_dates(v) for v in value]
    return value


def load_data(name: str) -> Any:
    return iso_dates(yaml.safe_load((REPO / "data" / name).read_text(encoding="utf-8")))


def validator(name: str) -> Draft202012Validator:
    schema = json.loads(schema_files()[f"{SCHEMA_DIR}/{schema_name(name)}"])
    return Draft202012Validator(schema, format_checker=FormatChecker())


def errors(name: str, data: Any) -> list[str]:
    """Every message, including those under anyOf branches (nullable fields)."""
    out: list[str] = []

    def add(errs) -> None:  # type: ignore[no-untyped-def]
        for e in errs:
            out.append(f"{'/'.join(map(str, e.absolute_path))}: {e.message}")
            add(e.context or [])

    add(validator(name).iter_errors(data))
    return out


def test_committed_schemas_are_current() -> None:
    stale = stale_schemas(REPO)
    assert not stale, f"out of date: {stale}; run `make schemas` and commit data/schemas/"
    on_disk = sorted(p.relative_to(REPO).as_posix() for p in (REPO / SCHEMA_DIR).glob("*.json"))
    assert on_disk == sorted(schema_files()), "data/schemas/ holds a schema no data file uses"


def test_schema_files_are_deterministic_json() -> None:
    first, second = schema_files(), schema_files()
    assert first == second
    for rel, data in first.items():
        text = data.decode("utf-8")
        assert text.endswith("}\n") and not text.endswith("\n\n"), rel
        assert json.dumps(json.loads(text), ensure_ascii=False, indent=2, sort_keys=True) + "\n" == text


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_draft_2020_12_with_title(name: str) -> None:
    schema = validator(name).schema
    assert isinstance(schema, Mapping)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT
    assert schema["title"] == f"gpu-guide data/{name}"


@pytest.mark.parametrize("name", NAMES)
def test_every_object_forbids_unknown_keys_and_fields_are_described(name: str) -> None:
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                assert node.get("additionalProperties") is False, where
                for prop, sub in node["properties"].items():
                    assert sub.get("description"), f"{where}.{prop} has no description"
                    assert "title" not in sub, f"{where}.{prop}"
            for key, sub in node.items():
                walk(sub, f"{where}/{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                walk(sub, f"{where}/{i}")

    walk(validator(name).schema, name)


@pytest.mark.parametrize("name", NAMES)
def test_real_data_validates_against_its_schema(name: str) -> None:
    assert errors(name, load_data(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_data_file_names_its_schema_on_the_first_line(name: str) -> None:
    first = (REPO / "data" / name).read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# yaml-language-server: $schema=schemas/{schema_name(name)}"
    target = (REPO / "data" / first.split("$schema=", 1)[1]).resolve()
    assert target == (REPO / SCHEMA_DIR / schema_name(name)).resolve() and target.is_file()


def mutated(name: str, edit) -> Any:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(load_data(name))
    edit(data)
    return data


@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        (
            "gpus.yaml",
            lambda d: d["gpus"][0].update(memroy_gb=24),
            "Additional properties are not allowed ('memroy_gb'",
        ),
        ("gpus.yaml", lambda d: d["gpus"][0].update(tdp_w="700W"), "'700W' is not of type 'integer'"),
        ("gpus.yaml", lambda d: d["gpus"][0].update(form_factor="SXM"), "'SXM' is not one of"),
        ("gpus.yaml", lambda d: d["gpus"][0].update(unconfirmed=["memory"]), "'memory' is not one of"),
        ("gpus.yaml", lambda d: d["gpus"][0].update(source="javascript:alert(1)"), "does not match '^https?://'"),
        ("gpus.yaml", lambda d: d["gpus"][0].update(id="H100 SXM"), "does not match"),
        (
            "offers.yaml",
            lambda d: d["offers"][0].update(unit="hours"),
            "'hours' is not one of ['hour', 'day', 'month', 'year']",
        ),
        ("offers.yaml", lambda d: d["offers"][0].update(price=-2), "-2 is less than or equal to the minimum of 0"),
        ("offers.yaml", lambda d: d["offers"][0].update(currency="EUR"), "'EUR' is not one of ['CNY', 'USD']"),
        ("offers.yaml", lambda d: d["offers"][0].pop("quote"), "'quote' is a required property"),
        ("providers.yaml", lambda d: d["providers"][0].update(kind="reseller"), "'reseller' is not one of"),
        ("fx.yaml", lambda d: d["rates"][0].update(cny_per_unit=0), "0 is less than or equal to the minimum of 0"),
        ("offers.yaml", lambda d: d["offers"][0].update(as_of="2025-13-01"), "is not a 'date'"),
        ("offers.yaml", lambda d: d["offers"][0].pop("gpu"), "'gpu' is a required property"),
        ("scenarios.yaml", lambda d: d["scenarios"][0].update(workload="training"), "'training' is not one of"),
        ("scenarios.yaml", lambda d: d["scenarios"][0]["editor_pick"].update(cards=2), "('cards' was unexpected)"),
        ("pitfalls.yaml", lambda d: d["pitfalls"][0].update(evidence="chart"), "'chart' is not one of"),
        ("models.yaml", lambda d: d["models"][0].update(kind="vision"), "'vision' is not one of"),
        ("rules.yaml", lambda d: d["memory"]["overhead"].update(fragmentation_fraction=1.5), "1.5 is greater than"),
        ("rules.yaml", lambda d: d["speed"].update(turbo=True), "Additional properties are not allowed ('turbo'"),
        ("rules.yaml", lambda d: d["memory"]["bits_per_param"].update(fp2=2), "'fp2' is not one of"),
        ("rules.yaml", lambda d: d.update(rules=d.pop("cost")), "'cost' is a required property"),
    ],
)
def test_schema_rejects_bad_values(name: str, edit, expected: str) -> None:  # type: ignore[no-untyped-def]
    found = errors(name, mutated(name, edit))
    assert found, "the schema accepted a bad value"
    assert any(expected in e for e in found), found


def test_write_and_check_in_a_fresh_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sorted(stale_schemas(tmp_path)) == sorted(schema_files())
    assert main(["--root", str(tmp_path), "--check"]) == 1
    assert "data/schemas/gpus.schema.json" in capsys.readouterr().err
    assert sorted(write_schemas(tmp_path)) == sorted(schema_files())
    assert write_schemas(tmp_path) == []  # nothing changes the second time
    assert main(["--root", str(tmp_path), "--check"]) == 0
    target = tmp_path / SCHEMA_DIR / "offers.schema.json"
    target.write_text(target.read_text(encoding="utf-8").replace("Rental prices.", "Prices."), encoding="utf-8")
    assert stale_schemas(tmp_path) == [f"{SCHEMA_DIR}/offers.schema.json"]
    assert main(["--root", str(tmp_path), "--check"]) == 1
    assert "offers.schema.json" in capsys.readouterr().err
    assert main(["--root", str(tmp_path)]) == 0
    assert stale_schemas(tmp_path) == []


def test_a_link_on_the_way_stops_the_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """data/schemas/ a symbolic link to a folder elsewhere: nothing is written there (the schemas go
    through publish.safe_files.write_file, whose folders are opened without following links)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "project" / "data").mkdir(parents=True)
    (tmp_path / "project" / SCHEMA_DIR).symlink_to(outside, target_is_directory=True)
    assert main(["--root", str(tmp_path / "project")]) == 1
    assert list(outside.iterdir()) == []
    assert "data/schemas/" in capsys.readouterr().err


def test_schemas_name_every_cross_file_reference() -> None:
    """``x-references`` and the description of each schema list exactly that file's entries of
    datafiles.REFERENCES (the validator's table), each field with its target file and key."""
    files = {rel: json.loads(text) for rel, text in schema_files().items()}
    for name in NAMES:
        schema = files[f"{SCHEMA_DIR}/{schema_name(name)}"]
        want = [{"field": r.field, "target": r.target.path, "key": r.target_key} for r in REFERENCES if r.file == name]
        assert schema.get("x-references", []) == want, name
        for r in want:
            assert f"{r['field']} -> {r['target']} {r['key']}" in schema["description"], (name, r)
    # by hand from datafiles.py: offers name offers (replaces), providers and GPUs, in that order
    offers = files[f"{SCHEMA_DIR}/{schema_name(DataFile.offers)}"]["x-references"]
    assert [(x["field"], x["target"]) for x in offers] == [
        ("offers[].replaces", "data/offers.yaml"), ("offers[].provider", "data/providers.yaml"),
        ("offers[].gpu", "data/gpus.yaml")]  # fmt: skip
    assert "x-references" not in files[f"{SCHEMA_DIR}/{schema_name(DataFile.gpus)}"]
