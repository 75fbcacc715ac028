"""Read one gpuhunt catalog file (dstack's per-provider CSV) into candidate offers.

The columns are gpuhunt's (``CATALOG_V2_FIELDS`` in ``src/gpuhunt/_internal/storage.py``): one row per
instance type, location and spot/on-demand, ``price`` in US dollars per instance-hour, ``cpu`` vCPUs,
``memory`` and ``disk_size`` in GB, ``gpu_count`` cards of ``gpu_name`` with ``gpu_memory`` GB each,
``spot`` True/False. Only these columns are read (``disk_size`` where the layout has it: gpuhunt's first
layout, 2023, has nine columns); the rest (vendor, flags, CPU architecture,
provider data) stay in the row's text, which becomes the offer's ``quote``.

Every problem names the catalog file, the line and the column. Nothing here reads the clock: the
catalog's date and address are arguments.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from generator.data.import_map import ImportMap
from generator.data.problems import Problem

#: the columns an import needs, in gpuhunt's order: its first layout's nine (``InstanceOffer`` in
#: ``src/dstack/pricing/models.py`` at gpuhunt's commit 60ec4fc6, 2023-08-16), which every later layout keeps
COLUMNS = (
    "instance_name",
    "location",
    "price",
    "cpu",
    "memory",
    "gpu_count",
    "gpu_name",
    "gpu_memory",
    "spot",
)
#: read where present: added by later layouts (gpuhunt's own reader, ``item_from_row``, treats it as optional)
OPTIONAL_COLUMNS = ("disk_size",)
#: every imported offer's id starts with this and the source's name
ID_PREFIX = "gpuhunt-"
_MAX_ID = 63  # records.Slug
_MAX_QUOTE = 500  # records.Quote


@dataclass(frozen=True)
class CatalogRow:
    """One catalog line with the columns an import reads, typed."""

    line: int
    text: str  #: the line as written (the offer's quote)
    instance_name: str
    location: str
    price: float
    cpu: int
    memory: float
    gpu_count: int
    gpu_name: str
    gpu_memory: float | None
    spot: bool
    disk_size: float | None
    flags: tuple[str, ...] = ()  #: gpuhunt's flags (e.g. runpod-cluster), empty when the column is absent
    #: the GPU's form factor where the source has a column for it (OpenComputePrices' gpu_variant: SXM, PCIe,
    #: NVL); gpuhunt has none (its instance names say it, read by a rule's instance_contains)
    variant: str = ""
    #: column name -> its 1-based position in this catalog (for problems at a column)
    col: dict[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Candidate:
    """An offer built from one catalog row, not yet merged or validated."""

    line: int
    key: str  #: the product's id without its date: provider, instance, location, spot
    entry: dict[str, Any]  #: the offer's fields in offers.yaml order


@dataclass
class Read:
    """What one catalog gave: candidates, rows left out and why, problems."""

    candidates: list[Candidate] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)


def slug(text: str) -> str:
    """Lower-case letters and digits joined by '-' (an id part)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def product_key(catalog: str, row: CatalogRow, prefix: str = ID_PREFIX) -> str:
    """The id of a product (same instance, card count, location and spot) without the date, at most 54
    characters. The card count is added unless the instance name already says it (Lambda's gpu_8x_…):
    RunPod lists one pod type under one name for every card count."""
    name = slug(row.instance_name)
    cards = "" if f"-{row.gpu_count}x-" in f"-{name}-" else f"-{row.gpu_count}x"
    key = f"{prefix}{slug(catalog)}-{name}{cards}-{slug(row.location)}" + ("-spot" if row.spot else "")
    limit = _MAX_ID - 9  # room for "-YYYYMMDD"
    if len(key) <= limit:
        return key
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    return f"{key[: limit - 9].rstrip('-')}-{digest}"


def read_rows(text: str, name: str) -> tuple[list[CatalogRow], list[Problem]]:
    """The catalog's rows, typed; a malformed value is a problem at its line and column name."""
    lines = text.splitlines()
    if not lines:
        return [], [Problem(name, 1, 1, "", "the catalog is empty; expected a header line of gpuhunt's columns")]
    header = next(csv.reader([lines[0]]))
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        return [], [
            Problem(
                name,
                1,
                1,
                "",
                f"not a gpuhunt catalog: the header lacks {', '.join(missing)} (expected {','.join(COLUMNS)},…)",
            )
        ]
    where = {c: header.index(c) for c in COLUMNS + OPTIONAL_COLUMNS if c in header}
    flags_at = header.index("flags") if "flags" in header else None
    rows: list[CatalogRow] = []
    problems: list[Problem] = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        values = next(csv.reader([line]))
        if len(values) != len(header):
            problems.append(Problem(name, n, 1, "", f"{len(values)} values, but the header has {len(header)} columns"))
            continue
        row, found = _typed(values, where, n, line, name, values[flags_at] if flags_at is not None else "")
        problems += found
        if row is not None:
            rows.append(row)
    return rows, problems


def cell_number(
    text: str, bad: Callable[[str], None], *, whole: bool = False, empty: str | None = "is empty"
) -> float | None:
    """A catalog cell read as a finite number of at least 0 (and whole if asked), or None after telling
    ``bad`` why not. An empty cell is None, reported with ``empty`` unless it is None (optional columns).
    Shared by the gpuhunt and OpenComputePrices readers."""
    if not text:
        if empty is not None:
            bad(empty)
        return None
    try:
        value = float(text)
    except ValueError:
        bad(f"expected a number, got {text!r}")
        return None
    if not math.isfinite(value) or value < 0:
        bad(f"expected a finite number of at least 0, got {text!r}")
        return None
    if whole and value != int(value):
        bad(f"expected a whole number, got {text!r}")
        return None
    return value


def _typed(
    values: list[str], where: dict[str, int], n: int, line: str, name: str, raw_flags: str
) -> tuple[CatalogRow | None, list[Problem]]:
    problems: list[Problem] = []
    raw = {c: "" for c in OPTIONAL_COLUMNS} | {c: values[i].strip() for c, i in where.items()}

    def bad(column: str, message: str) -> None:
        problems.append(Problem(name, n, where[column] + 1, column, message))

    def number(column: str, whole: bool = False, optional: bool = False) -> float | None:
        empty = None if optional else "is empty; gpuhunt always writes it"
        return cell_number(raw[column], lambda message: bad(column, message), whole=whole, empty=empty)

    for column in ("instance_name", "location"):
        if not raw[column]:
            bad(column, "is empty; every gpuhunt row names its instance and location")
    price, cpu, memory = number("price"), number("cpu", whole=True), number("memory")
    gpu_count, gpu_memory, disk = (
        number("gpu_count", whole=True),
        number("gpu_memory", optional=True),
        number("disk_size", optional=True),
    )
    spot = raw["spot"].lower()
    if spot not in ("true", "false"):
        bad("spot", f"expected True or False, got {raw['spot']!r}")
    if price is not None and price <= 0:
        bad("price", f"must be above 0, got {raw['price']}")
    if problems or price is None or cpu is None or memory is None or gpu_count is None:
        return None, problems
    row = CatalogRow(
        line=n,
        text=line,
        instance_name=raw["instance_name"],
        location=raw["location"],
        price=price,
        cpu=int(cpu),
        memory=memory,
        gpu_count=int(gpu_count),
        gpu_name=raw["gpu_name"],
        gpu_memory=gpu_memory,
        spot=spot == "true",
        disk_size=disk,
        flags=tuple(raw_flags.split()),
        col={c: i + 1 for c, i in where.items()},
    )
    return row, []


def read_catalog(text: str, name: str, catalog: str, imap: ImportMap, as_of: dt.date, url: str) -> Read:
    """Candidate offers for every GPU row of the catalog of provider ``catalog`` (gpuhunt's name)."""
    out = Read()
    prov = imap.provider(catalog)
    if prov is None:
        known = ", ".join(p.catalog for p in imap.providers)
        out.problems.append(Problem(name, 1, 1, "", f'provider "{catalog}" is not in data/imports/{imap.source}.yaml '
                                    f"(listed: {known}); add it with the provider id it is in providers.yaml"))  # fmt: skip
        return out
    rows, out.problems = read_rows(text, name)
    return candidates(rows, out, name, catalog, imap, as_of, url)


def candidates(
    rows: list[CatalogRow],
    out: Read,
    name: str,
    catalog: str,
    imap: ImportMap,
    as_of: dt.date,
    url: str,
    prefix: str = ID_PREFIX,
) -> Read:
    """Map typed rows of provider ``catalog`` through the mapping file into ``out``'s candidates (any source
    whose rows were read into :class:`CatalogRow`); rows left out are counted, problems are at their line."""
    prov = imap.provider(catalog)
    assert prov is not None
    seen: dict[str, int] = {}
    for row in rows:
        if row.gpu_count == 0:
            out.skipped["rows without a GPU"] += 1
            continue
        skipped_flag = next((f for f in row.flags if f in prov.skip_flags), None)
        if skipped_flag is not None:
            out.skipped[f"rows flagged {skipped_flag} (skipped: see the mapping's note)"] += 1
            continue
        if prov.locations is not None and row.location not in prov.locations:
            out.skipped[f"locations not imported ({', '.join(prov.locations)} only)"] += 1
            continue
        if not row.gpu_name or row.gpu_memory is None:
            out.problems.append(
                Problem(name, row.line, row.col["gpu_name"], "gpu_name", "a GPU row needs gpu_name and gpu_memory")
            )
            continue
        rule = imap.rule(catalog, row.gpu_name, row.gpu_memory, row.instance_name, row.variant)
        if rule is None:
            out.problems.append(
                Problem(
                    name,
                    row.line,
                    row.col["gpu_name"],
                    "gpu_name",
                    f'unknown GPU "{row.gpu_name}"{f" (variant {row.variant})" if row.variant else ""} with '
                    f"{row.gpu_memory:g} GB (instance {row.instance_name}); "
                    f"add a rule to data/imports/{imap.source}.yaml naming its gpus.yaml id, or a skip with a note",
                )
            )
            continue
        if rule.gpu is None:
            out.skipped[f"{row.gpu_name} {row.gpu_memory:g} GB (skipped: not in gpus.yaml)"] += 1
            continue
        key = product_key(catalog, row, prefix)
        if key in seen:
            out.problems.append(Problem(name, row.line, 1, "instance_name",
                                        f"the same instance, location and spot as line {seen[key]}; a catalog lists "
                                        "each once"))  # fmt: skip
            continue
        seen[key] = row.line
        out.candidates.append(Candidate(row.line, key, _entry(row, key, prov.provider, prov.delivery.value,
                                                                rule.gpu, rule.variant_unstated, imap, as_of, url)))  # fmt: skip
    return out


def _entry(
    row: CatalogRow,
    key: str,
    provider: str,
    delivery: str,
    gpu: str,
    variant_unstated: bool,
    imap: ImportMap,
    as_of: dt.date,
    url: str,
) -> dict[str, Any]:
    quote = row.text if len(row.text) <= _MAX_QUOTE else row.text[:_MAX_QUOTE]
    entry: dict[str, Any] = {
        "id": f"{key}-{as_of:%Y%m%d}",
        "provider": provider,
        "gpu": gpu,
        "cards": row.gpu_count,
        "delivery": delivery,
        "billing": "spot" if row.spot else "on_demand",
        "unit": "hour",
        "price": row.price,
        "currency": imap.currency.value,
        "vcpu": row.cpu if row.cpu > 0 else None,
        "ram_gb": row.memory if row.memory > 0 else None,
        "disk_gb": row.disk_size if row.disk_size else None,
        "region": row.location,
        "as_of": as_of,
        "source": url,
        "source_tier": imap.source_tier.value,
        "quote": quote,
        "variant_unstated": True if variant_unstated else None,
        "note": f"{imap.source} 目录：实例 {row.instance_name}，{row.location}，整机每小时价",
    }
    return {k: v for k, v in entry.items() if v is not None}
