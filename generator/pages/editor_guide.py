"""The editor's field reference, generated from the typed records.

:func:`field_docs` walks the pydantic models of every data file (the same ones the
JSON Schemas in :mod:`generator.data.schemas` come from) and lists each field an editor can
write: its name, its type in plain words (Chinese, for the guide page), whether it is
required or what its default is, the limits, the allowed values of an enum, and the
field's ``description=`` text from the model. Nested models (rules sections, a
scenario's ``editor_pick``) are walked with dotted names: ``memory.overhead.cuda_context_gib``;
a list of records adds ``[]`` (``speed.scaling.nvlink[].cards``) and a mapping whose
values are records adds ``*`` (``memory.training.recipes.*.weights``).

The template ``templates/pages/editor_guide.md.j2`` renders the result; every text in
it comes from code, but the template escapes it like data all the same.
"""

from __future__ import annotations

import datetime as dt
import json
import types
import typing
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import AnyUrl, BaseModel
from pydantic.fields import FieldInfo

from generator.data.datafiles import DATA_FILES, references_of
from generator.data.records import Slug
from generator.data.rules import Rules
from generator.data.schemas import SCHEMA_DIR, schema_name

_SLUG_PATTERN = next(m.pattern for m in get_args(Slug)[1].metadata if getattr(m, "pattern", None))


def field_docs(rules: Rules | None = None) -> list[dict[str, Any]]:
    """One entry per data file, in ``DATA_FILES`` order.

    Each entry::

        {"file": "gpus.yaml", "path": "data/gpus.yaml",
         "schema": "data/schemas/gpus.schema.json",
         "key": "gpus",            # the list the entries live under; None for rules.yaml
         "record": "Gpu",          # model of one entry (or of the whole file)
         "summary": "One GPU SKU as it is rented ...",   # model docstring, first line
         "fields": [FieldDoc, ...],
         "references": [{"field": "gpu", "target": "data/gpus.yaml", "key": "gpus[].id"}, ...]}

    and each field::

        {"name": "memory_gb", "type": "数字", "limits": "> 0, ≤ 1024",
         "required": True, "nullable": False, "default": None,   # YAML text, e.g. "730", "null", "[]"
         "description": "Memory per card as the datasheet states it (GB).",
         "choices": []}            # allowed values when the field is an enum (not "values":
                                   # Jinja would find dict.values first)
    """
    out = []
    for filename, (_key, file_model) in DATA_FILES.items():
        key, record = _entry_model(file_model)
        out.append(
            {
                "file": filename,
                "path": f"data/{filename}",
                "schema": f"{SCHEMA_DIR}/{schema_name(filename)}",
                "key": key,
                "record": record.__name__,
                "summary": _first_line(record.__doc__),
                "fields": list(_walk(record, "", rules)),
                "references": [
                    {"field": _from_entry(r.field, key), "target": r.target.path, "key": r.target_key}
                    for r in references_of(filename)
                ],
            }
        )
    return out


def _from_entry(field: str, key: str | None) -> str:
    """A reference's field as the guide names fields: from one entry (``gpu``, not ``offers[].gpu``)."""
    return field.removeprefix(f"{key}[].") if key else field


def _entry_model(file_model: type[BaseModel]) -> tuple[str | None, type[BaseModel]]:
    """A file holding one list of records documents the record; otherwise the file itself."""
    fields = file_model.model_fields
    if len(fields) == 1:
        ((key, info),) = fields.items()
        item = _list_item(info.annotation)
        if item is not None and isinstance(item, type) and issubclass(item, BaseModel):
            return key, item
    return None, file_model


def _list_item(tp: Any) -> Any:
    return get_args(tp)[0] if get_origin(tp) is list else None


def _first_line(doc: str | None) -> str:
    return doc.strip().splitlines()[0].strip().replace("``", "") if doc and doc.strip() else ""


def _walk(model: type[BaseModel], prefix: str, rules: Rules | None) -> typing.Iterator[dict[str, Any]]:
    # A record defined above a type it names (ModelRelease above Precision in records.py) keeps
    # that name as an unresolved ForwardRef in its field info; the module's own hints resolve it.
    hints = typing.get_type_hints(model, include_extras=True)
    for name, info in model.model_fields.items():
        full = f"{prefix}{name}"
        annotation = _resolved(info.annotation, hints.get(name))
        yield _doc(full, info, annotation, rules)
        nested, suffix = _nested_model(annotation)
        if nested is not None:
            yield from _walk(nested, f"{full}{suffix}.", rules)


def _nested_model(tp: Any) -> tuple[type[BaseModel] | None, str]:
    """The record type a field holds, directly, in a list (``[]``) or as mapping values (``.*``)."""
    tp, _ = _strip_optional(_unannotate(tp)[0])
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp, ""
    origin = get_origin(tp)
    if origin is list:
        inner = _unannotate(get_args(tp)[0])[0]
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner, "[]"
    if origin is dict:
        inner = _unannotate(get_args(tp)[1])[0]
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner, ".*"
    return None, ""


def _resolved(annotation: Any, hint: Any) -> Any:
    """The field's type: pydantic's annotation, or the resolved hint where pydantic kept a ForwardRef.

    The hint carries the field's ``Annotated`` metadata too; pydantic moved that into the field
    info, so the hint is stripped of it (the metadata is read from ``info.metadata``)."""
    if hint is None or not _has_forward_ref(annotation):
        return annotation
    return _unannotate(hint)[0]


def _has_forward_ref(tp: Any) -> bool:
    if isinstance(tp, (typing.ForwardRef, str)):
        return True
    return any(_has_forward_ref(a) for a in get_args(tp))


def _doc(name: str, info: FieldInfo, annotation: Any, rules: Rules | None) -> dict[str, Any]:
    tp, nullable = _strip_optional(annotation)
    words, values = _describe(tp, info.metadata)
    required = info.is_required()
    default = None if required else _yaml_text(info.get_default(call_default_factory=True))
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if "default_from" in extra:
        # Left out, the value comes from rules.yaml (one source of defaults); null means the same.
        where = str(extra["default_from"])
        default, nullable = f"rules.yaml {where}" + (f"（现为 {_rule_value(rules, where)}）" if rules else ""), False
    return {
        "name": name,
        "type": words + ("，可为 null" if nullable else ""),
        "limits": _limits(tp, info.metadata),
        "required": required,
        "nullable": nullable,
        "default": default,
        "description": info.description or "",
        "choices": values,
    }


# --------------------------------------------------------------------------- types in words


def _unannotate(tp: Any) -> tuple[Any, list[Any]]:
    """``Annotated[X, FieldInfo(...), ...]`` -> (X, flat metadata)."""
    meta: list[Any] = []
    while get_origin(tp) is typing.Annotated:
        base, *extra = get_args(tp)
        for m in extra:
            meta.extend(m.metadata if isinstance(m, FieldInfo) else [m])
        tp = base
    return tp, meta


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(args) < len(get_args(tp)):
            return args[0], True
    return tp, False


def _describe(tp: Any, meta: list[Any]) -> tuple[str, list[str]]:
    """(type in plain words, allowed values) of one annotation."""
    tp, inner_meta = _unannotate(tp)
    meta = [*meta, *inner_meta]
    tp, nullable = _strip_optional(tp)
    if nullable:
        words, values = _describe(tp, meta)
        return words + "或 null", values
    origin = get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return "取值之一", [str(m.value) for m in tp]
    if origin is Literal:
        return "取值之一", [str(v) for v in get_args(tp)]
    if origin is list:
        words, values = _describe(get_args(tp)[0], [])
        return (f"列表，每项{words}" if values else f"列表，每项：{words}"), values
    if origin is dict:
        k_words, k_values = _describe(get_args(tp)[0], [])
        value = _unannotate(get_args(tp)[1])[0]
        nested = isinstance(value, type) and issubclass(value, BaseModel)
        v_words = "映射（字段见下方各行）" if nested else _describe(value, [])[0]
        key = "键取值之一" if k_values else f"键：{k_words}"
        return f"映射，值：{v_words}，{key}", k_values
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return "映射，字段见下方各行", []
    if tp is bool:
        return "true / false", []
    if tp is int:
        return "整数", []
    if tp is float:
        return "数字", []
    if tp is dt.date:
        return "日期（YYYY-MM-DD）", []
    if isinstance(tp, type) and issubclass(tp, AnyUrl):
        return "链接（http 或 https）", []
    if tp is str:
        if any(getattr(m, "pattern", None) == _SLUG_PATTERN for m in meta):
            return "id：小写字母和数字，用 - 或 . 连接", []
        return "文本", []
    return getattr(tp, "__name__", str(tp)), []


def _limits(tp: Any, meta: list[Any]) -> str:
    """Number ranges, text lengths and list sizes, e.g. ``> 0, ≤ 1024``."""
    parts = []
    text = _unannotate(tp)[0] is str
    for m in [*meta, *_unannotate(tp)[1]]:
        if isinstance(m, annotated_types.Gt):
            parts.append(f"> {_num(m.gt)}")
        elif isinstance(m, annotated_types.Ge):
            parts.append(f"≥ {_num(m.ge)}")
        elif isinstance(m, annotated_types.Lt):
            parts.append(f"< {_num(m.lt)}")
        elif isinstance(m, annotated_types.Le):
            parts.append(f"≤ {_num(m.le)}")
        elif isinstance(m, annotated_types.MinLen) and m.min_length > (1 if text else 0):
            parts.append(f"至少 {m.min_length} {'个字符' if text else '项'}")
        elif isinstance(m, annotated_types.MaxLen) and not text:
            parts.append(f"至多 {m.max_length} 项")
        elif isinstance(m, annotated_types.MaxLen):
            parts.append(f"至多 {m.max_length} 个字符")
    return ", ".join(dict.fromkeys(parts))


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _rule_value(rules: Rules, dotted: str) -> str:
    """The current value of ``defaults.batch`` and the like, as YAML text."""
    value: Any = rules
    for part in dotted.split("."):
        value = getattr(value, part)
    return _yaml_text(value)


def _yaml_text(value: Any) -> str:
    """A default as an editor would write it in YAML."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, (int, float)):
        return _num(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
