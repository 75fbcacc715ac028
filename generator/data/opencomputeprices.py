"""Read one CSV in OpenComputePrices' column layout into candidate offers.

The columns are OpenComputePrices' (``COLUMNS`` in ``schema.py`` of github.com/thatkavish/OpenComputePrices,
33 of them; its README's "Data Schema" table says what each holds): one row per snapshot, provider, instance
type, region and pricing type, ``price_per_hour`` in ``currency`` per instance-hour, ``gpu_count`` cards of
``gpu_name`` (its canonical name, e.g. H100, RTX 4090) in ``gpu_variant`` (SXM, PCIe, NVL, or empty) with
``gpu_memory_gb`` each. One file holds many providers and, in ``_master.csv``, many snapshot dates: an
import takes one provider (``--provider``, OpenComputePrices' name) on one date (``--as-of``, matched
against ``snapshot_date``, the date the row was collected) and, where a day has two snapshots of the same
product, the later one. Rows left out (other providers and dates, reserved and per-token prices, an OS other
than Linux, no region) are counted in the report. The rows then go through the same mapping as gpuhunt's
(:func:`generator.data.gpuhunt.candidates`).

Every problem names the file, the line and the column. Nothing here reads the clock.
"""

from __future__ import annotations

import csv
import datetime as dt

from generator.data.gpuhunt import CatalogRow, Read, candidates, cell_number, product_key
from generator.data.import_map import ImportMap
from generator.data.problems import Problem

#: the columns an import reads (a subset of OpenComputePrices' 33, any order)
COLUMNS = (
    "snapshot_date",
    "snapshot_ts",
    "provider",
    "instance_type",
    "gpu_name",
    "gpu_variant",
    "gpu_memory_gb",
    "gpu_count",
    "vcpus",
    "ram_gb",
    "region",
    "pricing_type",
    "price_per_hour",
    "currency",
    "os",
)
#: every imported offer's id starts with this
ID_PREFIX = "ocp-"
#: pricing_type values that are rents by the hour (reserved and inference are not imported)
_BILLING = {"on_demand": False, "spot": True}
_LINUX = ("", "linux")


def read_catalog(text: str, name: str, provider: str, imap: ImportMap, as_of: dt.date, url: str) -> Read:
    """Candidate offers for provider ``provider``'s GPU rows of snapshot date ``as_of``."""
    out = Read()
    if imap.provider(provider) is None:
        known = ", ".join(p.catalog for p in imap.providers)
        out.problems.append(Problem(name, 1, 1, "", f'provider "{provider}" is not in data/imports/{imap.source}.yaml '
                                    f"(listed: {known}); add it with the provider id it is in providers.yaml"))  # fmt: skip
        return out
    lines = text.splitlines()
    if not lines:
        out.problems.append(Problem(name, 1, 1, "", "the file is empty; expected OpenComputePrices' header line"))
        return out
    header = next(csv.reader([lines[0]]))
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        out.problems.append(Problem(name, 1, 1, "", "not in OpenComputePrices' layout: the header lacks "
                                    f"{', '.join(missing)}"))  # fmt: skip
        return out
    at = {c: header.index(c) for c in COLUMNS}
    # the product (as gpuhunt's key: instance, cards, region, spot) -> its row and snapshot time
    kept: dict[str, tuple[str, CatalogRow]] = {}
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        values = next(csv.reader([line]))
        if len(values) != len(header):
            out.problems.append(
                Problem(name, n, 1, "", f"{len(values)} values, but the header has {len(header)} columns")
            )
            continue
        raw = {c: values[i].strip() for c, i in at.items()}
        if raw["provider"] != provider:
            out.skipped["rows of other providers"] += 1
            continue
        if raw["snapshot_date"] != as_of.isoformat():
            out.skipped[f"rows of other snapshot dates (only {as_of.isoformat()})"] += 1
            continue
        if raw["pricing_type"] not in _BILLING:
            out.skipped[f"{raw['pricing_type'] or 'unstated'} prices (only on_demand and spot)"] += 1
            continue
        if not raw["region"]:
            out.skipped["rows without a region"] += 1
            continue
        if raw["os"].lower() not in _LINUX:
            out.skipped[f"{raw['os']} rates (Linux only)"] += 1
            continue
        row, problems = _typed(raw, at, n, line, name, imap)
        out.problems += problems
        if row is None:
            continue
        key = product_key(provider, row, ID_PREFIX)
        earlier = kept.get(key)
        if earlier is not None:
            if earlier[0] == raw["snapshot_ts"]:
                out.problems.append(Problem(name, n, 1, "instance_type", f"the same instance, region and pricing "
                                            f"type as line {earlier[1].line} in the same snapshot"))  # fmt: skip
                continue
            out.skipped["rows of an earlier snapshot the same day"] += 1
            if earlier[0] > raw["snapshot_ts"]:
                continue
        kept[key] = (raw["snapshot_ts"], row)
    rows = sorted((row for _, row in kept.values()), key=lambda r: r.line)
    return candidates(rows, out, name, provider, imap, as_of, url, ID_PREFIX)


def _typed(
    raw: dict[str, str], at: dict[str, int], n: int, line: str, name: str, imap: ImportMap
) -> tuple[CatalogRow | None, list[Problem]]:
    problems: list[Problem] = []

    def bad(column: str, message: str) -> None:
        problems.append(Problem(name, n, at[column] + 1, column, message))

    def number(column: str, whole: bool = False, optional: bool = False) -> float | None:
        return cell_number(
            raw[column], lambda message: bad(column, message), whole=whole, empty=None if optional else "is empty"
        )

    if not raw["instance_type"]:
        bad("instance_type", "is empty; every row names its instance or offer")
    if raw["currency"] != imap.currency.value:
        bad("currency", f"expected {imap.currency.value} (data/imports/{imap.source}.yaml), got {raw['currency']!r}")
    price = number("price_per_hour")
    if price is not None and price <= 0:
        bad("price_per_hour", f"must be above 0, got {raw['price_per_hour']}")
    gpu_count = number("gpu_count", whole=True)
    gpu_memory = number("gpu_memory_gb", optional=True)
    cpu = number("vcpus", whole=True, optional=True)
    memory = number("ram_gb", optional=True)
    if problems or price is None or gpu_count is None:
        return None, problems
    return CatalogRow(
        line=n,
        text=line,
        instance_name=raw["instance_type"],
        location=raw["region"],
        price=price,
        cpu=int(cpu or 0),
        memory=memory or 0.0,
        gpu_count=int(gpu_count),
        gpu_name=raw["gpu_name"],
        gpu_memory=gpu_memory,
        spot=_BILLING[raw["pricing_type"]],
        disk_size=None,
        variant=raw["gpu_variant"],
        col={c: i + 1 for c, i in at.items()} | {"gpu_name": at["gpu_name"] + 1},
    ), []
