"""The import-owned part of ``offers.yaml``: one marked block per source, rewritten whole; every
byte outside it (the hand-edited offers, their comments) stays as it was.

Merging a new catalog into the block keeps history append-only: a product (provider, instance,
location, spot) seen again at the same price and shape only moves its ``as_of`` to the newer
catalog's date (and its source to that catalog); a new price is a new offer, dated in its id, that
``replaces`` the last one, which stays as history. Products the catalog no longer lists are left
as they are (they age out by the freshness window) and reported.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from generator.data.gpuhunt import Candidate
from generator.data.problems import Problem

#: the fields that make two prices of one product the same price (as_of, source and quote may move)
_SAME = ("gpu", "cards", "delivery", "billing", "unit", "price", "currency", "vcpu", "ram_gb", "disk_gb",
         "variant_unstated")  # fmt: skip
_DATED_ID = re.compile(r"^(?P<key>.+)-(?P<date>\d{8})$")


def markers(source: str) -> tuple[str, str]:
    """The block's first and last line."""
    return (
        f"  # >>> {source} import: written by `gpu-guide prices import --source {source}`; do not edit by hand",
        f"  # <<< {source} import",
    )


@dataclass(frozen=True)
class Split:
    """offers.yaml cut around the block (``block`` is the text between the markers)."""

    before: str
    block: str
    after: str


def split(text: str, source: str, name: str, prefix: str) -> tuple[Split | None, list[Problem]]:
    """Find the block; an offer with the source's id prefix outside it is a problem (ids are reserved)."""
    begin, end = markers(source)
    lines = text.splitlines(keepends=True)
    starts = [i for i, ln in enumerate(lines) if ln.rstrip("\n") == begin]
    ends = [i for i, ln in enumerate(lines) if ln.rstrip("\n") == end]
    problems: list[Problem] = []
    if len(starts) > 1 or len(ends) > 1 or len(starts) != len(ends) or (starts and ends[0] < starts[0]):
        at = (starts or ends or [0])[0] + 1
        return None, [Problem(name, at, 1, "", f"the {source} import block is broken: it needs one line "
                              f"{begin.strip()!r} and, after it, one line {end.strip()!r}")]  # fmt: skip
    inside = range(starts[0], ends[0] + 1) if starts else range(0)
    reserved = re.compile(rf"^\s*-?\s*id:\s*['\"]?{re.escape(prefix)}")
    for i, ln in enumerate(lines):
        if i not in inside and reserved.match(ln):
            problems.append(Problem(name, i + 1, 1, "", f'ids starting "{prefix}" belong to the {source} import; '
                                    "rename this hand-edited offer (the import rewrites its block only)"))  # fmt: skip
    if problems:
        return None, problems
    if not starts:
        body = text if text.endswith("\n") or not text else text + "\n"
        return Split(body, "", ""), []
    return Split(
        "".join(lines[: starts[0]]), "".join(lines[starts[0] + 1 : ends[0]]), "".join(lines[ends[0] + 1 :])
    ), []


def entries(block: str) -> list[dict[str, Any]]:
    """The offers the block holds now."""
    value = yaml.safe_load("offers:\n" + block) if block.strip() else None
    found = (value or {}).get("offers") or []
    return [dict(e) for e in found if isinstance(e, dict)]


@dataclass
class Changes:
    """What one import changes, for the report."""

    added: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)  #: (old, new)
    reconfirmed: list[dict[str, Any]] = field(default_factory=list)
    unchanged: int = 0
    older: list[dict[str, Any]] = field(default_factory=list)  #: the catalog is older than the price kept
    missing: list[dict[str, Any]] = field(default_factory=list)  #: kept products this catalog no longer lists
    #: new entry id -> the catalog line it came from
    lines: dict[str, int] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.reconfirmed)


def _key(entry: dict[str, Any]) -> str:
    m = _DATED_ID.match(str(entry.get("id", "")))
    return m.group("key") if m else str(entry.get("id", ""))


def _latest(kept: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The newest offer of each product."""
    out: dict[str, dict[str, Any]] = {}
    for e in kept:
        k = _key(e)
        if k not in out or str(e["id"]) > str(out[k]["id"]):
            out[k] = e
    return out


def merge(
    kept: list[dict[str, Any]], fresh: list[Candidate], provider: str, as_of: dt.date
) -> tuple[list[dict[str, Any]], Changes]:
    """The block's offers after importing ``fresh`` (one provider's catalog dated ``as_of``)."""
    changes = Changes()
    result = [dict(e) for e in kept]
    by_id = {str(e["id"]): e for e in result}
    latest = {k: by_id[str(e["id"])] for k, e in _latest(result).items()}
    listed = set()
    for c in fresh:
        listed.add(c.key)
        old = latest.get(c.key)
        if old is None:
            result.append(dict(c.entry))
            changes.added.append(c.entry)
            changes.lines[str(c.entry["id"])] = c.line
            continue
        if old["as_of"] > as_of:
            changes.older.append(old)
            continue
        if old["as_of"] == as_of and any(old.get(f) != c.entry.get(f) for f in _SAME):
            if old["id"] != c.entry["id"]:  # reconfirmed today, changed today: not one price
                changes.older.append(old)
                continue
            before = dict(old)  # a second catalog of the same day: that day's price, corrected
            old.update({k: v for k, v in c.entry.items()})
            for f in _SAME:
                if f not in c.entry:
                    old.pop(f, None)
            changes.changed.append((before, old))
            changes.lines[str(old["id"])] = c.line
            continue
        if all(old.get(f) == c.entry.get(f) for f in _SAME):
            if old["as_of"] == as_of:
                changes.unchanged += 1
                continue
            for f in ("as_of", "source", "quote", "region", "note"):
                old[f] = c.entry[f]
            changes.reconfirmed.append(old)
            changes.lines[str(old["id"])] = c.line
            continue
        new = dict(c.entry)
        new["replaces"] = old["id"]
        result.append(new)
        changes.changed.append((old, new))
        changes.lines[str(new["id"])] = c.line
    changes.missing = [e for k, e in latest.items() if e.get("provider") == provider and k not in listed]
    return sorted(result, key=lambda e: str(e["id"])), changes


#: the order fields are written in (offers.yaml's)
_ORDER = ("id", "provider", "gpu", "cards", "per", "delivery", "billing", "unit", "price", "currency", "vcpu",
          "ram_gb", "disk_gb", "region", "as_of", "source", "source_tier", "quote", "variant_unstated", "replaces",
          "note")  # fmt: skip


def render(source: str, offers: list[dict[str, Any]]) -> tuple[str, dict[str, int]]:
    """The block's text (markers included) and, per offer id, its first line within that text (1-based)."""
    begin, end = markers(source)
    out = [begin + "\n"]
    first: dict[str, int] = {}
    for e in offers:
        ordered = {k: e[k] for k in _ORDER if k in e} | {k: v for k, v in e.items() if k not in _ORDER}
        dumped = yaml.safe_dump([ordered], allow_unicode=True, sort_keys=False, width=1_000_000)
        first[str(e["id"])] = len(out) + 1
        out += ["  " + ln + "\n" for ln in dumped.splitlines()]
    out.append(end + "\n")
    return "".join(out), first


def rewrite(parts: Split, block_text: str) -> str:
    """offers.yaml with the block replaced (or appended at the end of the list)."""
    return parts.before + block_text + parts.after
