"""``gpu-guide prices import CATALOG``: a machine-readable price source into ``data/offers.yaml``.

Reads one catalog file (a gpuhunt per-provider CSV, or a CSV in OpenComputePrices' layout), maps its names through
``data/imports/<source>.yaml``, merges the rows into the source's marked block of offers.yaml
(hand-edited offers are never touched: they sit outside the block and may not use the source's id
prefix), validates the whole updated data folder exactly as ``build`` does (the ``Offer`` record,
the cross-file checks, the market checks) and only then writes offers.yaml. A problem in an
imported offer is reported at the catalog line it came from. Prints a Markdown change report;
``--dry-run`` writes nothing. The catalog's date and address are arguments, never the clock.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from generator.data import gpuhunt, opencomputeprices
from generator.data.datafiles import DataFile
from generator.data.import_map import load_import_map, map_path
from generator.data.offer_block import Changes, entries, merge, render, rewrite, split
from generator.data.problems import DataError, Problem, Severity
from generator.data.problems import render as render_problems
from generator.data.validate import load_catalogue
from generator.formats import num
from generator.pipeline import Project

#: each source's reader and the prefix of its offers' ids
SOURCES = {
    "gpuhunt": (gpuhunt.read_catalog, gpuhunt.ID_PREFIX),
    "opencomputeprices": (opencomputeprices.read_catalog, opencomputeprices.ID_PREFIX),
}


def add_prices_arguments(sub: argparse._SubParsersAction[Any]) -> None:
    """``prices import …`` on the command line."""
    from generator.cli.arguments import iso_date

    pr = sub.add_parser("prices", help="import machine-readable price sources into data/offers.yaml")
    verbs = pr.add_subparsers(dest="prices_command", required=True, metavar="ACTION")
    im = verbs.add_parser("import", help="merge one catalog file into the source's block of data/offers.yaml")
    im.add_argument("catalog", type=Path,
                    help="the catalog file, e.g. lambdalabs.csv (gpuhunt: one CSV per provider; "
                         "opencomputeprices: a source CSV or _master.csv)")  # fmt: skip
    im.add_argument(
        "--source", choices=sorted(SOURCES), default="gpuhunt", help="the catalog's format (default: gpuhunt)"
    )
    im.add_argument("--provider", default=None,
                    help="the source's provider name (gpuhunt: default the file name without .csv, as gpuhunt names "
                         "them; opencomputeprices: required, its provider column)")  # fmt: skip
    im.add_argument("--as-of", dest="catalog_date", type=iso_date, required=True, metavar="YYYY-MM-DD",
                    help="the catalog's date (gpuhunt: its version, YYYYMMDD-N; opencomputeprices: the snapshot_date "
                         "imported); never read from the clock")  # fmt: skip
    im.add_argument("--url", required=True, metavar="URL",
                    help="where a reader can get this catalog (the offers' source), e.g. the versioned catalog.zip")  # fmt: skip
    im.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    tb = verbs.add_parser("table", help="print the README's table of offers per source tier and provider")
    tb.add_argument("--write", action="store_true", help="rewrite the table between its markers in README.md")


def run_prices(project: Project, args: argparse.Namespace) -> int:
    """The ``prices`` command."""
    if args.prices_command == "table":
        return run_table(project, write=args.write)
    if not args.url.startswith(("https://", "http://")):
        print(f"gpu-guide prices import: argument --url: must be an http(s) address, got {args.url!r}", file=sys.stderr)
        return 2
    catalog_path: Path = args.catalog
    if args.source != "gpuhunt" and args.provider is None:
        print(f"gpu-guide prices import: --provider is required with --source {args.source} (one file holds many "
              "providers)", file=sys.stderr)  # fmt: skip
        return 2
    provider = args.provider or catalog_path.stem
    read_catalog, id_prefix = SOURCES[args.source]
    shown = _display(catalog_path, project.root)
    imap_path = map_path(project.data, args.source)
    imap, problems = load_import_map(imap_path, _display(imap_path, project.root))
    if imap is None:
        raise DataError(problems)
    try:
        text = catalog_path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise DataError([Problem(shown, 1, 1, "", f"cannot read the catalog ({exc.strerror or exc})")]) from None
    except UnicodeDecodeError as exc:
        raise DataError([Problem(shown, 1, 1, "", f"the catalog is not UTF-8 text ({exc.reason})")]) from None
    read = read_catalog(text, shown, provider, imap, args.catalog_date, args.url)
    if read.problems:
        raise DataError(read.problems)
    offers_path = project.data / DataFile.offers
    offers_name = _display(offers_path, project.root)
    old_text = offers_path.read_text(encoding="utf-8")
    parts, problems = split(old_text, args.source, offers_name, id_prefix)
    if parts is None:
        raise DataError(problems)
    offers, changes = merge(entries(parts.block), read.candidates, imap.provider(provider).provider, args.catalog_date)  # type: ignore[union-attr]
    block, first = render(args.source, offers)
    new_text = rewrite(parts, block)
    warnings = _validate(project, new_text, parts.before.count("\n"), first, changes, shown)
    if warnings:
        print(render_problems(warnings), file=sys.stderr)
    if new_text != old_text and not args.dry_run:
        _write(offers_path, new_text)
    print(report(args.source, provider, args.catalog_date, len(read.candidates), read.skipped, changes,
                 written=None if args.dry_run else offers_name))  # fmt: skip
    return 0


def run_table(project: Project, write: bool) -> int:
    """Print the README's market table for the build date; with ``write``, put it into README.md."""
    from generator.pages.readme_market import market_table_markdown, splice
    from generator.results.market_counts import market_counts

    cat, problems = load_catalogue(project.data, display_root=project.root, build_date=project.build_date)
    if cat is None:
        raise DataError(problems)
    block = market_table_markdown(market_counts(cat))
    if not write:
        print(block, end="")
        return 0
    readme = project.readme
    try:
        text = splice(readme.read_text(encoding="utf-8"), block)
    except (OSError, ValueError) as exc:
        print(f"gpu-guide prices table: {_display(readme, project.root)}: {exc}", file=sys.stderr)
        return 1
    _write(readme, text)
    print(f"Wrote the market table into {_display(readme, project.root)}.")
    return 0


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _validate(
    project: Project, new_text: str, before_lines: int, first: dict[str, int], changes: Changes, catalog: str
) -> list[Problem]:
    """Validate a copy of data/ holding the new offers.yaml; errors raise, warnings are returned.

    A problem inside an offer this import wrote is reported at its catalog line."""
    starts = sorted((before_lines + line, oid) for oid, line in first.items())
    with tempfile.TemporaryDirectory(prefix="gpu-guide-import-") as tmp:
        copy = (
            Path(tmp) / project.data.relative_to(project.root)
            if project.data.is_relative_to(project.root)
            else (Path(tmp) / "data")
        )
        shutil.copytree(project.data, copy, ignore=shutil.ignore_patterns("schemas"))
        (copy / DataFile.offers).write_text(new_text, encoding="utf-8")
        _cat, problems = load_catalogue(copy, display_root=Path(tmp))
    out: list[Problem] = []
    for p in problems:
        if p.file.endswith(DataFile.offers) and starts:
            i = bisect.bisect_right([s for s, _ in starts], p.line) - 1
            oid = starts[i][1] if i >= 0 else None
            if oid is not None and oid in changes.lines:
                p = Problem(catalog, changes.lines[oid], 1, p.path, f"{p.message} (imported as {oid})", p.severity)
        out.append(p)
    errors = [p for p in out if p.severity is Severity.error]
    if errors:
        raise DataError(errors)
    return out


def _write(path: Path, text: str) -> None:
    """Replace a file (offers.yaml, README.md) in one step (a reader never sees half a file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _price(e: dict[str, Any]) -> str:
    return f"{e['currency']} {num(float(e['price']), 2)}/时"


def _row(e: dict[str, Any]) -> str:
    return f"| `{e['id']}` | {e['gpu']} | {e['cards']} | {e.get('region', '')} | {_price(e)} |"


def report(
    source: str,
    provider: str,
    as_of: dt.date,
    rows: int,
    skipped: dict[str, int],
    changes: Changes,
    written: str | None,
) -> str:
    """The change report (Markdown), for the terminal and the pull request's body."""
    lines = [
        f"## {source} import: {provider} catalog of {as_of.isoformat()}",
        "",
        f"{rows} GPU rows imported: {len(changes.added)} new, {len(changes.changed)} new prices, "
        f"{len(changes.reconfirmed)} reconfirmed (date moved to {as_of.isoformat()}), {changes.unchanged} unchanged.",
    ]
    if skipped:
        lines.append("Left out: " + "; ".join(f"{n} {why}" for why, n in sorted(skipped.items())) + ".")
    if not changes.empty:
        lines.append(f"Written: {written}." if written else "Dry run: nothing written.")
    else:
        lines.append("Nothing to change.")
    if changes.added:
        lines += [
            "",
            "### New offers",
            "",
            "| offer | GPU | cards | region | price |",
            "| --- | --- | ---: | --- | ---: |",
        ]
        lines += [_row(e) for e in changes.added]
    if changes.changed:
        lines += ["", "### New prices (the old offer stays as history)", "", "| offer | GPU | cards | old | new |",
                  "| --- | --- | ---: | ---: | ---: |"]  # fmt: skip
        lines += [f"| `{new['id']}` | {new['gpu']} | {new['cards']} | {_price(old)} | {_price(new)} |"
                  for old, new in changes.changed]  # fmt: skip
    if changes.older:
        lines += ["", "### Not imported: the kept price is newer than this catalog", ""]
        lines += [f"- `{e['id']}` (as of {e['as_of']})" for e in changes.older]
    if changes.missing:
        lines += ["", "### No longer in this catalog (kept; they age out by the freshness window)", ""]
        lines += [f"- `{e['id']}` (as of {e['as_of']})" for e in changes.missing]
    return "\n".join(lines)
