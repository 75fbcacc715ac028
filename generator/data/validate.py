"""Turn loaded YAML documents into a typed :class:`Catalogue`, collecting every problem.

Two passes: each file against its record model (pydantic), then the cross-record
checks (unique ids, references between files). Pydantic's own messages are written
for programmers; :func:`_message` rewrites the common ones into sentences that say
the fix, and every problem is placed at the line and column the editor typed.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from generator.data.catalogue import Catalogue
from generator.data.characters import BIDI_CLASS
from generator.data.datafiles import DATA_FILES, OPTIONAL_FILES, REFERENCES, DataFile
from generator.data.editorial import BuyersFile, ClaimsFile, OwnershipFile, TrendsFile
from generator.data.load import Document, ParseMemo, load_file
from generator.data.market_check import market_problems
from generator.data.problems import Problem, YamlPath, format_path
from generator.data.records import (
    ApiPricesFile,
    ComparisonsFile,
    Currency,
    EditionsFile,
    FxFile,
    GpusFile,
    ModelKind,
    ModelsFile,
    OffersFile,
    PitfallsFile,
    ProvidersFile,
    ScenariosFile,
    Workload,
)
from generator.data.rules import Rules

_M = TypeVar("_M", bound=BaseModel)


def load_catalogue(
    data_dir: Path,
    display_root: Path | None = None,
    build_date: dt.date | None = None,
    memo: ParseMemo | None = None,
) -> tuple[Catalogue | None, list[Problem]]:
    """Load and validate every data file; return the catalogue, or None and the problems.

    ``build_date`` is the date prices are judged against (see :attr:`Catalogue.build_date`);
    ``memo`` keeps the parse of files whose bytes did not change (``gpu-guide serve``)."""
    problems: list[Problem] = []
    records: dict[str, BaseModel] = {}
    absent: set[str] = set()  # optional files left out
    docs: dict[str, Document] = {}
    for filename, (root_key, model) in DATA_FILES.items():
        path = data_dir / filename
        name = _display(path, display_root)
        if not path.is_file() and filename in OPTIONAL_FILES:
            default = OPTIONAL_FILES[filename]
            if default is None:
                absent.add(filename)
            else:
                records[filename] = default
            continue
        if not path.is_file():
            problems.append(Problem(name, 1, 1, "", f"file is missing; every build needs {filename} in {data_dir}"))
            continue
        doc, found = load_file(path, name, root=root_key, memo=memo)
        problems += found
        if doc is None:
            continue
        docs[filename] = doc
        unshowable = text_problems(doc)
        record, found = validate_document(doc, model)
        said = {p.path for p in unshowable}
        problems += unshowable + [p for p in found if p.path not in said]
        if record is not None:
            records[filename] = record
    problems += reference_check(docs)
    if len(records) + len(absent) != len(DATA_FILES):
        return None, problems
    own = records.get(DataFile.ownership)
    cat = Catalogue(
        gpus={g.id: g for g in _typed(records, DataFile.gpus, GpusFile).gpus},
        offers=list(_typed(records, DataFile.offers, OffersFile).offers),
        models={m.id: m for m in _typed(records, DataFile.models, ModelsFile).models},
        scenarios={s.id: s for s in _typed(records, DataFile.scenarios, ScenariosFile).scenarios},
        pitfalls=list(_typed(records, DataFile.pitfalls, PitfallsFile).pitfalls),
        rules=_typed(records, DataFile.rules, Rules),
        editions=list(_typed(records, DataFile.editions, EditionsFile).editions),
        claims=_typed(records, DataFile.claims, ClaimsFile),
        ownership=None if own is None else _typed(records, DataFile.ownership, OwnershipFile),
        buyers=_typed(records, DataFile.buyers, BuyersFile),
        trends=_typed(records, DataFile.trends, TrendsFile),
        api_prices=list(_typed(records, DataFile.api_prices, ApiPricesFile).prices),
        inputs=tuple(_display(data_dir / f, display_root) for f in DATA_FILES if f in docs),
        docs=docs,
        providers={p.id: p for p in _typed(records, DataFile.providers, ProvidersFile).providers},
        fx=list(_typed(records, DataFile.fx, FxFile).rates),
        searched=list(_typed(records, DataFile.comparisons, ComparisonsFile).comparisons),
        retired_comparisons=list(_typed(records, DataFile.comparisons, ComparisonsFile).retired),
        build_date=build_date,
    )
    problems += cross_check(cat, docs)
    if any(p.severity.value == "error" for p in problems):
        return None, problems
    return cat, problems


def _typed(records: dict[str, BaseModel], name: DataFile, model: type[_M]) -> _M:
    """The validated record of ``name`` as its model (the one ``DATA_FILES`` pairs it with)."""
    record = records[name]
    if not isinstance(record, model):
        raise TypeError(f"{name} holds a {type(record).__name__}, not the {model.__name__} DATA_FILES names")
    return record


def _display(path: Path, root: Path | None) -> str:
    try:
        return path.relative_to(root).as_posix() if root else path.as_posix()
    except ValueError:
        return path.as_posix()


# --------------------------------------------------------------------------- pass 1


def validate_document(doc: Document, model: type[BaseModel]) -> tuple[BaseModel | None, list[Problem]]:
    """Validate one loaded file against its model; problems carry the editor's line:col."""
    try:
        return model.model_validate(doc.value), []
    except ValidationError as exc:
        return None, [_problem(doc, err, model) for err in exc.errors(include_url=False)]


#: Characters a quoted YAML escape (``"\\v"``, ``"\\x7f"``, ``"\\x85"``, ``"\\ud800"``) can put into
#: text that no page, SVG chart or UTF-8 file can carry: C0 controls other than tab and the
#: line feed (a carriage return only gets there as "\\r": YAML turns typed line breaks into
#: line feeds, and a lone one would split a CSV row), DEL, the C1 controls U+0080–U+009F, lone
#: surrogates and the two non-characters XML forbids. (The loader already refuses them typed
#: raw; see generator.data.load.)
_UNSHOWABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
#: The bidirectional controls (Unicode's Bidi_Control, see generator.data.characters): invisible,
#: and they reorder the text around them on the page (U+202E makes "¥0848" read "¥8480").
#: They can be typed raw, so they need no escape.
_BIDI = re.compile(f"[{BIDI_CLASS}]")


def forbidden_character(text: str) -> tuple[str, str] | None:
    """The first character of ``text`` no page may carry, as ("U+202E", "control" or "direction"), else None."""
    found = _UNSHOWABLE.search(text)
    if found:
        return f"U+{ord(found.group()):04X}", "control"
    found = _BIDI.search(text)
    if found:
        return f"U+{ord(found.group()):04X}", "direction"
    return None


def _text_message(code: str, kind: str) -> str:
    if kind == "control":
        return (
            f"contains the invisible character {code}, which a web page cannot show; "
            "remove it (it comes from a backslash escape inside quotes)"
        )
    return (
        f"contains the invisible direction control {code}, which shows the text after it in another order "
        "(a price can read backwards); delete it (retype the value if your editor does not show it)"
    )


def text_problems(doc: Document) -> list[Problem]:
    """Text values holding characters a page cannot show, at the value's line."""
    problems: list[Problem] = []

    def walk(value: Any, path: YamlPath) -> None:
        if isinstance(value, str):
            found = forbidden_character(value)
            if found:
                mark = doc.mark(path)
                problems.append(Problem(doc.name, mark.line, mark.col, format_path(path), _text_message(*found)))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk(doc.value, ())
    return problems


def _problem(doc: Document, err: Any, model: type[BaseModel]) -> Problem:
    loc: YamlPath = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    loc = _strip_variant_names(loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        mark = doc.key_marks.get(loc) or doc.mark(loc)
    elif kind == "missing":
        mark = doc.mark(loc[:-1])
    else:
        mark = doc.mark(loc)
    return Problem(doc.name, mark.line, mark.col, format_path(loc), _message(doc, loc, err, model))


def _strip_variant_names(loc: YamlPath) -> YamlPath:
    """Pydantic adds union/enum branch names ('float', 'is-instance[Delivery]') to locs; drop them."""
    known = ("str", "float", "int", "bool", "date", "none", "list", "dict", "url")
    out = []
    for part in loc:
        if isinstance(part, str) and (part in known or "[" in part or part.startswith("constrained-")):
            continue
        out.append(part)
    return tuple(out)


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value:g}"
    if isinstance(value, dt.date):
        return f"the date {value.isoformat()}"
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = str(value)
    return f'"{_one_line(text[:60])}…"' if len(text) > 60 else f'"{_one_line(text)}"'


def _one_line(text: str) -> str:
    """Text quoted in a message, with line breaks and other invisible characters as escapes,
    so every problem stays on one ``file:line:col:`` line."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
    return "".join(out)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _field_names(model: type[BaseModel], loc: YamlPath) -> list[str]:
    """The field names allowed at the mapping that holds ``loc``'s last key."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return []
        current = _inner_model(field.annotation)
        if current is None:
            return []
    return list(getattr(current, "model_fields", {}))


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _message(doc: Document, loc: YamlPath, err: Any, model: type[BaseModel]) -> str:
    kind: str = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    scalar = doc.scalars.get(loc)
    name = _one_line(str(loc[-1])) if loc else ""
    if kind == "missing":
        return f'missing required field "{name}"'
    if kind == "extra_forbidden":
        allowed = _field_names(model, loc)
        close = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.6)
        hint = f'; did you mean "{close[0]}"?' if close else f"; allowed fields: {', '.join(allowed)}"
        return f'unknown field "{name}"{hint}'
    if kind == "string_type":
        if scalar is not None and scalar.plain and not isinstance(value, (dict, list)):
            return (
                f"expected text, got {_describe(value)} (YAML reads the bare {scalar.text} that way); "
                f'put it in quotes: "{scalar.text}"'
            )
        return f"expected text, got {_describe(value)}"
    if kind in ("float_type", "int_type", "int_from_float", "float_parsing", "int_parsing"):
        want = "a whole number" if kind.startswith("int") else "a number"
        if isinstance(value, str):
            digits = "".join(ch for ch in value if ch.isdigit() or ch == ".")
            hint = f"; write {digits} and give the unit in its own field" if digits else ""
            return f"expected {want}, got text {_describe(value)}{hint}"
        return f"expected {want}, got {_describe(value)}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        words = {
            "greater_than": ("above", ctx.get("gt")),
            "greater_than_equal": ("at least", ctx.get("ge")),
            "less_than": ("below", ctx.get("lt")),
            "less_than_equal": ("at most", ctx.get("le")),
        }[kind]
        return f"must be {words[0]} {words[1]:g}, got {value:g}" if isinstance(value, (int, float)) else err["msg"]
    if kind == "bool_type":
        return f"expected true or false, got {_describe(value)}"
    if kind in ("enum", "literal_error"):
        expected = str(ctx.get("expected", "")).replace("'", "")
        options = [o.strip() for o in expected.replace(" or ", ",").split(",") if o.strip()]
        close = difflib.get_close_matches(str(value), options, n=1, cutoff=0.5)
        hint = f'; did you mean "{close[0]}"?' if close else ""
        return f"must be one of {', '.join(options)}; got {_describe(value)}{hint}"
    if kind == "url_scheme":
        return f"only http:// or https:// links are allowed, got {_describe(value)}"
    if kind.startswith("url_") or kind == "url_parsing":
        return f"not a valid link: {_describe(value)}; write a full https:// address"
    if kind in ("date_type", "date_parsing", "date_from_datetime_parsing"):
        return f"expected a date written YYYY-MM-DD, got {_describe(value)}"
    if kind == "string_pattern_mismatch":
        return f"ids use lower-case letters and digits joined by '-' or '.', got {_describe(value)}"
    if kind in ("string_too_long", "too_long"):
        return f"too long: at most {ctx.get('max_length')} characters/items"
    if kind in ("string_too_short", "too_short"):
        return "must not be empty"
    if kind == "list_type":
        return f"expected a list (lines starting with '- '), got {_describe(value)}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected a mapping of field: value, got {_describe(value)}"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return str(err["msg"])


# --------------------------------------------------------------------------- pass 2


def _entries(docs: dict[str, Document], filename: str, key: str) -> list[Any] | None:
    """The raw list under ``key`` of a loaded file, or None when the file did not load."""
    doc = docs.get(filename)
    if doc is None or not isinstance(doc.value, dict) or not isinstance(doc.value.get(key), list):
        return None
    entries: list[Any] = doc.value[key]
    return entries


def _ids(entries: list[Any] | None) -> list[str] | None:
    if entries is None:
        return None
    return [e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]


def reference_check(docs: dict[str, Document]) -> list[Problem]:
    """Unique ids and every reference between files, on the raw documents.

    Runs even when some records failed their schema, so one run reports schema errors and
    broken references together. A reference into a file that did not load is not checked.
    """
    problems: list[Problem] = []

    def at(filename: str, path: YamlPath, message: str) -> None:
        doc = docs[filename]
        mark = doc.mark(path)
        problems.append(Problem(doc.name, mark.line, mark.col, format_path(path), message))

    def field(entry: Any, name: str) -> Any:
        return entry.get(name) if isinstance(entry, dict) else None

    for filename, (key, _model) in DATA_FILES.items():
        raw_ids = [field(e, "id") for e in (_entries(docs, filename, key) or [])]
        raw_ids = [v if isinstance(v, (str, int, float, bool)) else None for v in raw_ids]
        for i, dup in _duplicates(raw_ids):
            if dup is None:
                continue
            first = raw_ids.index(dup)
            line = docs[filename].mark((key, first, "id")).line
            at(filename, (key, i, "id"), f'duplicate id "{dup}" (first used at line {line}); ids must be unique')

    def ref(filename: str, path: YamlPath, value: Any, target: DataFile) -> None:
        ids = known[target]
        if ids is None or not isinstance(value, str) or value in ids:
            return
        close = difflib.get_close_matches(value, ids, n=1, cutoff=0.6)
        hint = f'; did you mean "{close[0]}"?' if close else f" in {target}"
        at(filename, path, f'unknown {target.split(".", maxsplit=1)[0].rstrip("s")} id "{value}"{hint}')

    known = {t: _ids(_entries(docs, t, DATA_FILES[t][0])) for t in {r.target for r in REFERENCES}}
    for r in REFERENCES:
        if r.file in docs:
            for path, value in _walk(docs[r.file].value, r.path):
                ref(r.file, path, value, r.target)
    return problems


def _walk(value: Any, pattern: tuple[str, ...], at: YamlPath = ()) -> Iterator[tuple[YamlPath, Any]]:
    """(path, value) of every place ``pattern`` reaches in a raw document (``"*"``: each list item);
    a key that is absent, or a list or mapping that is not one, reaches nothing."""
    if not pattern:
        yield at, value
        return
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        for i, item in enumerate(value if isinstance(value, list) else []):
            yield from _walk(item, rest, (*at, i))
    elif isinstance(value, dict) and head in value:
        yield from _walk(value[head], rest, (*at, head))


def cross_check(cat: Catalogue, docs: dict[str, Document]) -> list[Problem]:
    """Checks across fields of valid records that the schema cannot express."""
    problems: list[Problem] = []

    def at(filename: str, path: YamlPath, message: str) -> None:
        problems.append(cat.locate(filename, path, message))

    for i, p in enumerate(cat.pitfalls):
        if p.evidence.value == "figures" and not (p.gpus and p.figures):
            at(DataFile.pitfalls, ("pitfalls", i, "evidence"), "evidence: figures needs both gpus and figures")
        if p.evidence.value in ("hidden_costs", "overkill") and p.scenario is None:
            at(DataFile.pitfalls, ("pitfalls", i, "evidence"), f"evidence: {p.evidence.value} needs a scenario")
    load = cat.scenarios.get(cat.rules.pages.model_pages.inference.load_scenario)
    if load is not None and not (
        load.workload is Workload.inference
        and (m := cat.models.get(load.model)) is not None
        and m.kind is ModelKind.llm
    ):
        at(
            DataFile.rules,
            ("pages", "model_pages", "inference", "load_scenario"),
            f'scenario "{load.id}" must serve a language model (workload: inference) to give the serving load',
        )
    for i, m in enumerate(cat.models.values()):
        for j, plan in enumerate(m.deployments):
            if plan.gpu not in cat.gpus:
                close = difflib.get_close_matches(plan.gpu, list(cat.gpus), n=1)
                hint = f'; did you mean "{close[0]}"?' if close else ""
                at(DataFile.models, ("models", i, "deployments", j, "gpu"), f'no GPU has id "{plan.gpu}"{hint}')
    for i, g in enumerate(cat.gpus.values()):
        if g.bf16_tflops_dense is None and g.fp16_tflops_dense is None:
            at(DataFile.gpus, ("gpus", i), "needs bf16_tflops_dense or fp16_tflops_dense to place it on the ladder")
        if (g.interconnect is None) != (g.interconnect_gbps is None):
            at(
                DataFile.gpus,
                ("gpus", i, "interconnect"),
                "set interconnect and interconnect_gbps together, or neither",
            )
    by_id = {o.id: o for o in cat.offers}
    for i, o in enumerate(cat.offers):
        old = by_id.get(o.replaces) if o.replaces else None
        if old is None:
            continue
        if old.id == o.id:
            at(DataFile.offers, ("offers", i, "replaces"), "an offer cannot replace itself")
        elif (old.provider, old.gpu) != (o.provider, o.gpu):
            at(DataFile.offers, ("offers", i, "replaces"),
               f'"{old.id}" is {old.provider}\'s {old.gpu}; an offer replaces only an older price of the same '
               "provider and GPU")  # fmt: skip
        elif old.as_of >= o.as_of:
            at(DataFile.offers, ("offers", i, "replaces"),
               f'"{old.id}" is dated {old.as_of}, not before this offer ({o.as_of}); only an older price is replaced')  # fmt: skip
    rated = {r.currency for r in cat.fx}
    for i, o in enumerate(cat.offers):
        if o.currency is not Currency.cny and o.currency not in rated:
            at(DataFile.offers, ("offers", i, "currency"),
               f"no exchange rate for {o.currency.value} in fx.yaml; add a dated rate with its source "
               "so the price can be shown in yuan")  # fmt: skip
    api_by_id = {p.id: p for p in cat.api_prices}
    for i, ap in enumerate(cat.api_prices):
        if ap.currency is not Currency.cny and ap.currency not in rated:
            at(DataFile.api_prices, ("prices", i, "currency"),
               f"no exchange rate for {ap.currency.value} in fx.yaml; add a dated rate with its source "
               "so the price can be shown in yuan")  # fmt: skip
        older = api_by_id.get(ap.replaces) if ap.replaces else None
        if older is None:
            continue
        if older.id == ap.id:
            at(DataFile.api_prices, ("prices", i, "replaces"), "a price cannot replace itself")
        elif older.provider != ap.provider:
            at(DataFile.api_prices, ("prices", i, "replaces"),
               f'"{older.id}" is {older.provider}\'s; a price replaces only an older price of the same provider')  # fmt: skip
        elif older.as_of >= ap.as_of:
            at(DataFile.api_prices, ("prices", i, "replaces"),
               f'"{older.id}" is dated {older.as_of}, not before this price ({ap.as_of}); only an older price is replaced')  # fmt: skip
    for i, prov in enumerate(cat.providers.values()):
        for j, x in enumerate(prov.extras):
            if x.currency is not Currency.cny and x.currency not in rated:
                at(DataFile.providers, ("providers", i, "extras", j, "currency"),
                   f"no exchange rate for {x.currency.value} in fx.yaml; add a dated rate with its source")  # fmt: skip
    seen: dict[frozenset[str], int] = {}
    for i, pair in enumerate(cat.searched):
        key = frozenset((pair.a, pair.b))
        if pair.a == pair.b:
            at(DataFile.comparisons, ("comparisons", i, "b"), f'a pair needs two different GPUs; both are "{pair.a}"')
        elif key in seen:
            line = docs[DataFile.comparisons].mark(("comparisons", seen[key])).line
            at(DataFile.comparisons, ("comparisons", i), f"this pair is already listed at line {line}; remove one")
        else:
            seen[key] = i
    retired: dict[str, int] = {}
    for i, slug in enumerate(cat.retired_comparisons):
        if slug in retired:
            line = docs[DataFile.comparisons].mark(("retired", retired[slug])).line
            at(DataFile.comparisons, ("retired", i), f"{slug} is already listed at line {line}; remove one")
        retired[slug] = i
    for i, m in enumerate(cat.models.values()):
        if m.kind.value == "llm" and None in (m.layers, m.hidden, m.heads, m.vocab):
            at(DataFile.models, ("models", i), "an llm needs layers, hidden, heads and vocab for the memory estimate")
        if (m.experts is None) != (m.experts_per_token is None):
            at(
                DataFile.models,
                ("models", i),
                "set experts and experts_per_token together for a mixture-of-experts model",
            )
        problems += _diffusion_model_problems(cat, i, m)
    models = cat.models
    for i, sc in enumerate(cat.scenarios.values()):
        model = models.get(sc.model)
        if model is None:
            continue
        here = ("scenarios", i)
        if model.kind.value == "diffusion":
            if sc.context is not None:
                at(DataFile.scenarios, (*here, "context"), "an image model has no token context; give the image side "
                   "as resolution (e.g. resolution: 1024 for 1024×1024) and remove context")  # fmt: skip
            if sc.output_tokens is not None:
                at(DataFile.scenarios, (*here, "output_tokens"), "output_tokens is for language models; remove it")
        else:
            for name in ("resolution", "offload"):
                if getattr(sc, name) is not None:
                    at(DataFile.scenarios, (*here, name), f"{name} is for image models; remove it")
            context = sc.context or cat.rules.defaults.context
            if sc.output_tokens is not None and sc.output_tokens >= context:
                at(DataFile.scenarios, (*here, "output_tokens"), f"output_tokens ({sc.output_tokens}) must be below "
                   f"the context ({context} tokens: prompt + output); raise context or lower output_tokens")  # fmt: skip
            if sc.output_tokens is not None and sc.workload.value != "inference":
                at(DataFile.scenarios, (*here, "output_tokens"), "output_tokens is for serving (workload: inference)")
    problems += editorial_check(cat)
    problems += market_problems(cat)
    return problems


def editorial_check(cat: Catalogue) -> list[Problem]:
    """The editorial files against each other and the catalogue: what a check kind needs,
    model pages that exist, and the ownership defaults naming listed entries."""
    problems: list[Problem] = []

    def at(filename: str, path: YamlPath, message: str) -> None:
        problems.append(cat.locate(filename, path, message))

    def model_page_exists(model: str, workload: Workload) -> bool:
        m = cat.models.get(model)
        return m is None or m.kind is not ModelKind.diffusion or workload is Workload.inference

    for i, cl in enumerate(cat.claims.claims):
        c = cl.check
        missing = c.missing()
        if missing:
            at(
                DataFile.claims,
                ("claims", i, "check"),
                f"check kind {c.kind.value} needs {', '.join(missing)}; add them",
            )
        if c.kind.value in ("fit_share", "scaling") and c.stated is not None and c.stated > 1:
            at(
                DataFile.claims,
                ("claims", i, "check", "stated"),
                f"a share is at most 1 (0.9 for 90%), got {c.stated:g}",
            )
        pairs = [(c.model, c.workload)] if c.model and c.workload else []
        pairs += [(m, w) for m in c.models for w in c.workloads]
        for m, w in pairs:
            if not model_page_exists(m, w):
                at(DataFile.claims, ("claims", i, "check"), f"{m} is an image model: only inference is sized for it")
    for i, b in enumerate(cat.buyers.buyers):
        for j, bw in enumerate(b.workloads):
            if bw.model and bw.workload and not model_page_exists(bw.model, bw.workload):
                at(
                    DataFile.buyers,
                    ("buyers", i, "workloads", j),
                    f"{bw.model} is an image model: use workload: inference",
                )
    own = cat.ownership
    if own is not None:
        for key, entries in (("electricity", own.electricity), ("pue", own.pue)):
            ids = [e.id for e in entries]
            for j, dup in _duplicates(ids):
                at(DataFile.ownership, (key, j, "id"), f'duplicate id "{dup}"; ids must be unique')
            chosen = getattr(own.defaults, key)
            if chosen not in ids:
                close = difflib.get_close_matches(chosen, ids, n=1, cutoff=0.6)
                hint = f'; did you mean "{close[0]}"?' if close else f"; choose one of {', '.join(ids)}"
                at(DataFile.ownership, ("defaults", key), f'no {key} entry has id "{chosen}"{hint}')
    return problems


def _diffusion_model_problems(cat: Catalogue, i: int, m: Any) -> list[Problem]:
    """An image model needs its parts (one denoiser, one VAE) adding up to params_b, and its dtype."""
    here = ("models", i)
    if m.kind.value == "video":
        shape = [
            name
            for name in ("layers", "hidden", "heads", "intermediate", "video_fps", "video_size")
            if getattr(m, name) is None
        ]
        roles = sorted(c.role.value for c in m.components)
        out = []
        if shape:
            out.append(cat.locate(DataFile.models, here, f"a video model needs {', '.join(shape)} (the DiT's "
                                  "num_layers, dim, num_heads, ffn_dim from wan/configs, and the video's fps and size)"))  # fmt: skip
        if roles != ["text_encoder", "transformer", "vae"]:
            out.append(cat.locate(DataFile.models, (*here, "components"), "a video model lists exactly one "
                                  f"transformer, one text_encoder and one vae; found {', '.join(roles) or 'none'}"))  # fmt: skip
        if m.denoiser_passes is None:
            out.append(cat.locate(DataFile.models, here, "a video model needs denoiser_passes (2 with guidance)"))
        total = sum(c.params for c in m.components) / 1e9
        if m.components and abs(total - m.params_b) > 0.01 * m.params_b + 0.005:
            out.append(cat.locate(DataFile.models, (*here, "params_b"), f"params_b {m.params_b:g} does not match its "
                                  f"components, which add up to {total:.3f}B; correct one of them"))  # fmt: skip
        return out
    for name in ("video_fps", "video_size"):
        if getattr(m, name) is not None:
            return [cat.locate(DataFile.models, (*here, name), f"{name} is for video models (kind: video)")]
    if m.kind.value != "diffusion":
        if m.components or m.denoiser_passes is not None or m.pipeline_precision is not None:
            return [cat.locate(DataFile.models, here, "components, denoiser_passes and pipeline_precision are for "
                               "image models (kind: diffusion); remove them")]  # fmt: skip
        return []
    out = []
    missing = [name for name in ("components", "denoiser_passes", "pipeline_precision") if not getattr(m, name)]
    if missing:
        out.append(cat.locate(DataFile.models, here, f"an image model needs {', '.join(missing)} for the memory "
                              "estimate (see the sdxl entry)"))  # fmt: skip
    if m.components:
        denoisers = [c for c in m.components if c.role.denoiser]
        vaes = [c for c in m.components if c.role.value == "vae"]
        if len(denoisers) != 1 or len(vaes) != 1:
            out.append(cat.locate(DataFile.models, (*here, "components"), "list exactly one denoiser (role unet or "
                                  f"transformer) and one vae; found {len(denoisers)} and {len(vaes)}"))  # fmt: skip
        total = sum(c.params for c in m.components) / 1e9
        if abs(total - m.params_b) > 0.01 * m.params_b + 0.005:
            out.append(cat.locate(DataFile.models, (*here, "params_b"), f"params_b {m.params_b:g} does not match its "
                                  f"components, which add up to {total:.3f}B; correct one of them"))  # fmt: skip
    return out


def _duplicates(ids: list[Any]) -> list[tuple[int, Any]]:
    seen: set[Any] = set()
    out = []
    for i, v in enumerate(ids):
        if v in seen:
            out.append((i, v))
        seen.add(v)
    return out
