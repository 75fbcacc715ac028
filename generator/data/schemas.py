"""JSON Schemas for the files under ``data/``, generated from the typed records.

Editors' YAML tooling (yaml-language-server, the VS Code YAML extension) reads the
schema named on each data file's first line::

    # yaml-language-server: $schema=schemas/gpus.schema.json

and then checks fields, enum values and number ranges as you type, and offers the
field descriptions as hover text and completion. The schemas are never written by
hand: :func:`schema_files` builds them from the pydantic models listed in
:data:`generator.data.datafiles.DATA_FILES`, and a test fails when the committed copies
under ``data/schemas/`` are out of date. Regenerate with ``make schemas``
(``make schemas``, :mod:`generator.cli.schemas`); ``--check`` only reports stale files.

The build itself never reads these files: pydantic stays the one judge of the data,
and some of its checks (cross-references between files, an offer's single price *or*
price range) have no place in a per-file schema. The references are still named, from the one
table :data:`generator.data.datafiles.REFERENCES`: each schema's ``x-references`` (field, target
file, target key) and its top-level description, for the editor to read, not to check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator.data.datafiles import DATA_FILES, DataFile, references_of

#: Folder of the generated schemas, relative to the project root.
SCHEMA_DIR = "data/schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schema_name(data_file: str) -> str:
    """``gpus.yaml`` -> ``gpus.schema.json``."""
    return f"{Path(data_file).stem}.schema.json"


def schema_for(data_file: str, model: type[BaseModel]) -> dict[str, Any]:
    """The post-processed JSON Schema of one data file."""
    schema: dict[str, Any] = _clean(model.model_json_schema(mode="validation"))
    _describe_refs(schema, schema.get("$defs", {}))
    schema["$schema"] = DRAFT
    schema["title"] = f"gpu-guide data/{data_file}"
    schema["description"] = (
        f"data/{data_file}, generated from {model.__module__}.{model.__qualname__}; "
        "regenerate with `make schemas`, do not edit."
    )
    refs = references_of(DataFile(data_file))
    if refs:
        schema["description"] += (
            " Fields naming an entry of another file: "
            + "; ".join(f"{r.field} -> {r.target.path} {r.target_key}" for r in refs)
            + "."
        )
        schema["x-references"] = [{"field": r.field, "target": r.target.path, "key": r.target_key} for r in refs]
    return schema


def _clean(node: Any) -> Any:
    """Make pydantic's schema friendlier for YAML editors, recursively.

    * every object with ``properties`` forbids unknown keys (the models do too);
    * per-field ``title`` ("Price Cny") is dropped: the description is the help text;
    * enum definitions keep their string values and gain a one-line description;
    * ``format: uri`` fields only accept http(s) links, as the records do;
    * ``format: date`` stays, so ``as_of: 2025-06-30`` is checked as a date string.
    """
    if isinstance(node, list):
        return [_clean(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _drop_title(_clean(sub)) for name, sub in value.items()}
        elif key == "$defs" and isinstance(value, dict):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        else:
            out[key] = _clean(value)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if "enum" in out:
        out["enum"] = [v.value if hasattr(v, "value") else v for v in out["enum"]]
        if all(isinstance(v, str) for v in out["enum"]):
            out.setdefault("type", "string")
            out.setdefault("description", "One of: " + ", ".join(out["enum"]) + ".")
    if out.get("format") == "uri" and out.get("type") == "string":
        out.setdefault("pattern", "^https?://")
    return out


def _describe_refs(node: Any, defs: dict[str, Any]) -> None:
    """Give a bare ``$ref`` its target's description.

    Pydantic leaves out a field's description when it repeats the referenced model's
    docstring; editors show the property's own text on hover, so put it back.
    """
    if isinstance(node, list):
        for sub in node:
            _describe_refs(sub, defs)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and "description" not in node:
            target = defs.get(ref.removeprefix("#/$defs/"), {})
            if "description" in target:
                node["description"] = target["description"]
        for sub in node.values():
            _describe_refs(sub, defs)


def _drop_title(prop: Any) -> Any:
    if isinstance(prop, dict):
        prop.pop("title", None)
    return prop


def _dump(schema: dict[str, Any]) -> bytes:
    return (json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def schema_files() -> dict[str, bytes]:
    """``data/schemas/<name>.schema.json`` -> its bytes, for every data file."""
    return {
        f"{SCHEMA_DIR}/{schema_name(filename)}": _dump(schema_for(filename, model))
        for filename, (_key, model) in DATA_FILES.items()
    }


def stale_schemas(root: Path) -> list[str]:
    """Schema paths under ``root`` that are missing or differ from the models."""
    stale = []
    for rel, data in schema_files().items():
        path = Path(root) / rel
        if not path.is_file() or path.read_bytes() != data:
            stale.append(rel)
    return stale
