"""``gpu-guide diff --base REF``: what a change does to the generated results, for a PR comment.

Both editions are generated in memory with :func:`generator.build.generate` by this
generator: the working tree as it is, and REF's ``data/``, ``templates/`` and
``mkdocs.yml`` read from git objects into a temporary folder (the working tree and the
index are never touched). REF's templates are laid over the working tree's, so templates
added since REF are found; if REF's templates do not render with this generator, or REF
has none, the working tree's are used and the report says so in a note. The report
compares the two editions:

* offer prices (per card-month, and the raw price with its unit), offers added/removed;
* GPU spec figures, GPUs added/removed, ladder rank moves;
* each scenario's computed pick (GPU, cards, delivery, monthly total, job cost), and
  the card count every GPU needs for it;
* generated files added, removed and changed.

Markdown (default) or JSON with sorted keys. Exit status: 0 report printed, 1 data (or
templates) at REF or in the working tree do not build, 2 unknown ref or not a git
repository.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2

from generator import cost as costs
from generator import tables
from generator.build import Generated, Project, generate
from generator.problems import DataError, Severity, render
from generator.recommend import Option, Recommendation
from generator.records import Offer
from generator.validate import DATA_FILES, OPTIONAL_FILES

NO_CHANGE = "This data change alters no generated output."
UNIT_WORDS = {"hour": "hour", "day": "day", "month": "month"}
#: GPU fields compared for "spec changes" (the open-data columns, minus the id and links).
SPEC_FIELDS = [c for c in tables.GPU_COLUMNS if c not in ("id", "sources")]


class DiffError(Exception):
    """A one-line reason the diff cannot be made, with its exit status."""

    def __init__(self, message: str, status: int, details: str | None = None):
        super().__init__(message)
        self.status = status
        self.details = details

    def report(self, command: str) -> int:
        """Print the details (e.g. data problems at REF) and the reason; return the exit status."""
        if self.details:
            print(self.details, file=sys.stderr)
        print(f"{command}: {self}", file=sys.stderr)
        return self.status


# --------------------------------------------------------------------------- entry point


def run_diff(project: Project, base: str, fmt: str = "markdown") -> int:
    """Print the change report between ``base`` and the working tree; return the exit status."""
    try:
        report = diff_report(project, base)
    except DiffError as exc:
        return exc.report("gpu-guide diff")
    if fmt == "json":
        print(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(markdown(report), end="")
    return 0


def diff_report(project: Project, base: str) -> dict[str, Any]:
    """The report as plain JSON-ready values. Raises :class:`DiffError`."""
    commit = resolve_ref(project.root, base)
    new = _generate(project, "in the working tree")
    with tempfile.TemporaryDirectory(prefix="gpu-guide-diff-") as tmp:
        old_project, notes = checkout_inputs(project, commit, base, Path(tmp))
        try:
            old = _generate(old_project, f"at {base}", prefix=f"{base}:", templates_may_fail=True)
        except jinja2.TemplateError as exc:
            # Templates written for an older generator: render REF's data with today's templates.
            notes.append(
                f"The templates at {base} do not render with this generator ({_template_error(exc)}); "
                "both editions use the working tree's templates, so the report shows data changes only."
            )
            old = _generate(dataclasses.replace(old_project, templates=project.templates), f"at {base}", prefix=f"{base}:")
    return compare(old, new, base=base, commit=commit, notes=notes)


def _generate(project: Project, where: str, prefix: str = "", templates_may_fail: bool = False) -> Generated:
    """Generate one edition; its problems (file names prefixed with ``REF:``) become a DiffError."""
    try:
        return generate(project)
    except DataError as exc:
        problems = [dataclasses.replace(p, file=prefix + p.file) for p in exc.problems]
        n = sum(1 for p in problems if p.severity is Severity.error)
        raise DiffError(
            f"the data {where} has {n} problem(s) for this generator; nothing to compare.", 1, render(problems)
        ) from None
    except jinja2.TemplateError as exc:
        if templates_may_fail:
            raise
        raise DiffError(f"the templates {where} do not render: {_template_error(exc)}", 1) from None


def _template_error(exc: jinja2.TemplateError) -> str:
    """The error without the temporary folder's path."""
    if isinstance(exc, jinja2.TemplateNotFound):
        return f"TemplateNotFound: {exc.name}"
    where = f" in {exc.name}:{exc.lineno}" if isinstance(exc, jinja2.TemplateSyntaxError) else ""
    return f"{type(exc).__name__}: {exc.message}{where}"


# --------------------------------------------------------------------------- git


def _git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise DiffError(f"cannot run git ({exc.strerror or exc})", 2) from None


def resolve_ref(root: Path, ref: str) -> str:
    """The full commit id REF names; DiffError (status 2) if it names none."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise DiffError(f"{root} is not inside a git repository; diff compares with a git ref.", 2)
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n"):
        raise DiffError(f"unknown git ref {ref!r}", 2)
    got = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if got.returncode != 0:
        raise DiffError(f"unknown git ref {ref!r}: no commit of that name in {root}", 2)
    return got.stdout.decode().strip()


def checkout_inputs(project: Project, commit: str, ref: str, dest: Path) -> tuple[Project, list[str]]:
    """Write REF's data, templates and mkdocs.yml under ``dest`` (from git objects); return that project.

    REF's templates are laid over a copy of the working tree's, so a template added since
    REF (for a page the generator now plans) still exists; where REF has no templates or
    no mkdocs.yml, the working tree's are used, with a note. A missing data file is an
    error (status 1).
    """
    top_out = _git(project.root, "rev-parse", "--show-toplevel")
    top = Path(top_out.stdout.decode().strip()).resolve()

    def rel(path: Path, what: str) -> str:
        try:
            return path.resolve().relative_to(top).as_posix()
        except ValueError:
            raise DiffError(f"the {what} {path} is outside the git repository {top}", 2) from None

    root_rel = rel(project.root, "project folder")
    data_rel = rel(project.data, "data folder")
    templates_rel = rel(project.templates, "templates folder")
    config_rel = rel(project.config, "MkDocs config")
    listing = _git(top, "ls-tree", "-r", "-z", commit, "--", data_rel, templates_rel, config_rel)
    if listing.returncode != 0:
        raise DiffError(f"cannot list files at {ref}: {listing.stderr.decode(errors='replace').strip()}", 2)
    blobs: list[tuple[str, str]] = []  # (object id, path from the top)
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, obj = meta.decode().split()
        if kind == "blob" and mode in ("100644", "100755"):
            blobs.append((obj, name.decode("utf-8", errors="surrogateescape")))
    paths = {p for _, p in blobs}
    missing = [_join(data_rel, f) for f in DATA_FILES if _join(data_rel, f) not in paths and f not in OPTIONAL_FILES]
    if missing:
        raise DiffError(f"{ref} lacks {', '.join(missing)}; a build needs every data file, so there is nothing to compare.", 1)
    tree = dest / "tree"

    def at_ref(rel_path: str) -> Path:
        return tree.joinpath(*PurePosixPath(rel_path).parts)

    ref_root, ref_templates, ref_config = at_ref(root_rel), at_ref(templates_rel), at_ref(config_rel)
    if project.templates.is_dir():
        shutil.copytree(project.templates, ref_templates)
    for (_, path), data in zip(blobs, _cat_blobs(top, [o for o, _ in blobs]), strict=True):
        target = tree.joinpath(*PurePosixPath(path).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    ref_root.mkdir(parents=True, exist_ok=True)
    notes = []
    if not any(p.startswith(templates_rel + "/") for p in paths):
        notes.append(f"{ref} has no {templates_rel}/; its edition uses the working tree's templates.")
    if config_rel not in paths and project.config.is_file():
        ref_config.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(project.config, ref_config)
    base = Project.at(ref_root, data=at_ref(data_rel))
    # Project.at derives templates/ and mkdocs.yml from the root; keep the working tree's layout.
    return dataclasses.replace(base, templates=ref_templates.resolve(), config=ref_config.resolve()), notes


def _join(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"


def _cat_blobs(root: Path, objects: list[str]) -> list[bytes]:
    """Contents of the blobs, via one ``git cat-file --batch``."""
    if not objects:
        return []
    got = _git(root, "cat-file", "--batch", stdin="".join(f"{o}\n" for o in objects).encode())
    if got.returncode != 0:
        raise DiffError(f"cannot read files from git: {got.stderr.decode(errors='replace').strip()}", 2)
    out, pos, raw = [], 0, got.stdout
    for _ in objects:
        eol = raw.index(b"\n", pos)
        size = int(raw[pos:eol].split()[2])
        out.append(raw[eol + 1 : eol + 1 + size])
        pos = eol + 1 + size + 1
    return out


# --------------------------------------------------------------------------- comparison


def compare(old: Generated, new: Generated, *, base: str, commit: str, notes: list[str] | None = None) -> dict[str, Any]:
    """Everything the report says, as plain values in a deterministic order."""
    prices = _prices(old, new)
    gpus = _gpus(old, new)
    ladder = _ladder(old, new)
    scenarios = _scenarios(old, new)
    files = _files(old, new)
    counts = {
        "prices_changed": len(prices["changed"]),
        "offers_added": len(prices["added"]),
        "offers_removed": len(prices["removed"]),
        "gpus_added": len(gpus["added"]),
        "gpus_removed": len(gpus["removed"]),
        "spec_figures_changed": len(gpus["specs"]),
        "ladder_ranks_moved": len(ladder),
        "scenario_picks_changed": sum(1 for s in scenarios["changed"] if s["pick_changed"]),
        "scenario_costs_changed": sum(1 for s in scenarios["changed"] if not s["pick_changed"]),
        "scenarios_added": len(scenarios["added"]),
        "scenarios_removed": len(scenarios["removed"]),
        "card_counts_changed": len(scenarios["cards"]),
        "pages_added": len(files["added"]),
        "pages_removed": len(files["removed"]),
        "files_changed": len(files["changed"]),
    }
    unchanged = not files["added"] and not files["removed"] and not files["changed"]
    return {
        "base": base,
        "base_commit": commit,
        "summary": summary_line(counts),
        "unchanged": unchanged,
        "counts": counts,
        "prices": prices,
        "gpus": gpus,
        "ladder": ladder,
        "scenarios": scenarios,
        "files": files,
        "notes": list(notes or []),
    }


_SUMMARY_PARTS = [
    ("prices_changed", "price changed", "prices changed"),
    ("offers_added", "offer added", "offers added"),
    ("offers_removed", "offer removed", "offers removed"),
    ("gpus_added", "GPU added", "GPUs added"),
    ("gpus_removed", "GPU removed", "GPUs removed"),
    ("spec_figures_changed", "spec figure changed", "spec figures changed"),
    ("ladder_ranks_moved", "ladder rank moved", "ladder ranks moved"),
    ("scenario_picks_changed", "scenario pick changed", "scenario picks changed"),
    ("scenario_costs_changed", "scenario cost changed", "scenario costs changed"),
    ("scenarios_added", "scenario added", "scenarios added"),
    ("scenarios_removed", "scenario removed", "scenarios removed"),
    ("card_counts_changed", "card count changed", "card counts changed"),
]


def summary_line(counts: dict[str, int]) -> str:
    """'1 price changed, 1 GPU added, …, 2 pages added, 0 removed, 9 files changed' (no zero data items)."""
    parts = [f"{counts[k]} {one if counts[k] == 1 else many}" for k, one, many in _SUMMARY_PARTS if counts[k]]
    pages = counts["pages_added"]
    parts.append(f"{pages} {'page' if pages == 1 else 'pages'} added")
    parts.append(f"{counts['pages_removed']} removed")
    changed = counts["files_changed"]
    parts.append(f"{changed} {'file' if changed == 1 else 'files'} changed")
    return ", ".join(parts)


def _offer_record(o: Offer, gen: Generated) -> dict[str, Any]:
    return {
        "offer": o.id,
        "gpu": o.gpu,
        "card_month_cny": round(costs.card_month_cny(o, gen.catalogue.rules.cost), 2),
        "price": raw_price(o),
        "price_cny": o.price_cny,
        "price_low_cny": o.price_low_cny,
        "price_high_cny": o.price_high_cny,
        "unit": o.unit.value,
        "cards": o.cards,
    }


def raw_price(o: Offer) -> str:
    """'¥2.00/hour', '¥80,000–90,000/month for 8 cards' (the price as quoted, per instance)."""
    digits = 2 if o.unit.value == "hour" else 0
    if o.price_cny is not None:
        text = yuan(o.price_cny, digits)
    else:
        text = f"{yuan(o.price_low_cny, digits)}–{o.price_high_cny:,.{digits}f}"
    text += f"/{UNIT_WORDS[o.unit.value]}"
    return text + (f" for {o.cards} cards" if o.cards > 1 else "")


def _prices(old: Generated, new: Generated) -> dict[str, list[dict[str, Any]]]:
    olds = {o.id: o for o in old.catalogue.offers}
    news = {o.id: o for o in new.catalogue.offers}
    changed = []
    for o in new.catalogue.offers:
        if o.id not in olds:
            continue
        a, b = _offer_record(olds[o.id], old), _offer_record(o, new)
        keys = ("card_month_cny", "price_cny", "price_low_cny", "price_high_cny", "unit", "cards")
        if any(a[k] != b[k] for k in keys):
            pct = (b["card_month_cny"] - a["card_month_cny"]) / a["card_month_cny"] * 100
            changed.append({"offer": o.id, "gpu": o.gpu, "old": a, "new": b, "change_pct": round(pct, 1) + 0.0})
    return {
        "changed": changed,
        "added": [_offer_record(o, new) for o in new.catalogue.offers if o.id not in olds],
        "removed": [_offer_record(o, old) for o in old.catalogue.offers if o.id not in news],
    }


def _ranks(gen: Generated) -> dict[str, int]:
    return {str(r["id"]): int(r["rank"]) for r in gen.results.ladder[["id", "rank"]].to_dict("records")}


def _spec_value(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _gpus(old: Generated, new: Generated) -> dict[str, list[dict[str, Any]]]:
    og, ng = old.catalogue.gpus, new.catalogue.gpus
    ranks = _ranks(new)
    specs = []
    for gid, gpu in ng.items():
        if gid not in og:
            continue
        a, b = tables.gpu_record(og[gid]), tables.gpu_record(gpu)
        for f in SPEC_FIELDS:
            if a[f] != b[f]:
                specs.append({"gpu": gid, "field": f, "old": _spec_value(a[f]), "new": _spec_value(b[f])})
    return {
        "added": [{"gpu": g, "name": ng[g].name, "rank": ranks[g]} for g in ng if g not in og],
        "removed": [{"gpu": g, "name": og[g].name} for g in og if g not in ng],
        "specs": specs,
    }


def _ladder(old: Generated, new: Generated) -> list[dict[str, Any]]:
    a, b = _ranks(old), _ranks(new)
    moves = [{"gpu": g, "old": a[g], "new": r} for g, r in b.items() if g in a and a[g] != r]
    return sorted(moves, key=lambda m: (m["new"], m["gpu"]))


def _pick(rec: Recommendation) -> dict[str, Any]:
    p: Option | None = rec.pick
    if p is None:
        return {"gpu": None, "cards": None, "delivery": None, "monthly_cny": None, "job_cost_cny": None}
    return {
        "gpu": p.gpu.id,
        "cards": p.cards,
        "delivery": p.delivery.value,
        "monthly_cny": round(p.monthly.total) if p.monthly else None,
        "job_cost_cny": round(p.job_cost_cny) if p.job_cost_cny is not None else None,
    }


def _scenarios(old: Generated, new: Generated) -> dict[str, list[dict[str, Any]]]:
    os_, ns = old.results.scenarios, new.results.scenarios
    changed, cards = [], []
    for sid, r in ns.items():
        if sid not in os_:
            continue
        a, b = _pick(os_[sid].rec), _pick(r.rec)
        if a != b:
            moved = any(a[k] != b[k] for k in ("gpu", "cards", "delivery"))
            changed.append({"scenario": sid, "old": a, "new": b, "pick_changed": moved})
        for opt in r.rec.options:
            was = os_[sid].rec.option_for(opt.gpu.id)
            if was is not None and was.cards != opt.cards:
                cards.append({"scenario": sid, "gpu": opt.gpu.id, "old": was.cards, "new": opt.cards})
    order = {g: i for i, g in enumerate(new.catalogue.gpus)}
    cards.sort(key=lambda c: (list(ns).index(c["scenario"]), order[c["gpu"]]))
    return {
        "changed": changed,
        "added": [{"scenario": s, "new": _pick(ns[s].rec)} for s in ns if s not in os_],
        "removed": [{"scenario": s, "old": _pick(os_[s].rec)} for s in os_ if s not in ns],
        "cards": cards,
    }


def _files(old: Generated, new: Generated) -> dict[str, list[str]]:
    a, b = old.files, new.files
    return {
        "added": sorted(set(b) - set(a)),
        "removed": sorted(set(a) - set(b)),
        "changed": sorted(k for k in set(a) & set(b) if a[k] != b[k]),
    }


# --------------------------------------------------------------------------- Markdown


def yuan(value: float | None, digits: int = 0) -> str:
    """'¥84,480'; None -> '—'."""
    return "—" if value is None else f"¥{value:,.{digits}f}"


def _code(text: str) -> str:
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def _cell(value: Any) -> str:
    """A data value in a table cell: pipes escaped, one line."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "—"
    if isinstance(value, float):
        return repr(value)
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _arrow(a: str, b: str) -> str:
    return a if a == b else f"{a} → {b}"


def _cards(n: int | None) -> str:
    return "does not fit" if n is None else str(n)


def markdown(report: dict[str, Any]) -> str:
    """The report as Markdown for a pull-request comment."""
    out = [
        f"## Generated output: {_code(report['base'])} ({report['base_commit'][:12]}) → working tree",
        "",
        f"**{report['summary']}**",
        "",
    ]
    out += [line for note in report["notes"] for line in (f"> {note}", "")]
    if report["unchanged"]:
        out += [NO_CHANGE, ""]
    out += _md_prices(report["prices"])
    out += _md_gpus(report["gpus"], report["ladder"])
    out += _md_scenarios(report["scenarios"])
    out += _md_files(report["files"])
    return "\n".join(out).rstrip("\n") + "\n"


def _offer_line(o: dict[str, Any]) -> str:
    return f"- {_code(o['offer'])} ({_code(o['gpu'])}): {yuan(o['card_month_cny'])} per card-month ({o['price']})"


def _md_prices(p: dict[str, list[dict[str, Any]]]) -> list[str]:
    if not (p["changed"] or p["added"] or p["removed"]):
        return []
    out = ["### Prices", ""]
    if p["changed"]:
        out += ["| offer | GPU | per card-month | price | change |", "| --- | --- | --- | --- | --- |"]
        for c in p["changed"]:
            a, b = c["old"], c["new"]
            month = _arrow(yuan(a["card_month_cny"]), yuan(b["card_month_cny"]))
            out.append(
                f"| {_code(c['offer'])} | {_code(c['gpu'])} | {month} | {_arrow(a['price'], b['price'])} "
                f"| {c['change_pct']:+.1f}% |"
            )
        out.append("")
    for title, key in (("Offers added:", "added"), ("Offers removed:", "removed")):
        if p[key]:
            out += [title, "", *(_offer_line(o) for o in p[key]), ""]
    return out


def _md_gpus(g: dict[str, list[dict[str, Any]]], ladder: list[dict[str, Any]]) -> list[str]:
    if not (g["added"] or g["removed"] or g["specs"] or ladder):
        return []
    out = ["### GPUs", ""]
    if g["added"]:
        out += ["GPUs added:", ""]
        out += [f"- {_code(a['gpu'])} {_cell(a['name'])} (ladder rank {a['rank']})" for a in g["added"]]
        out.append("")
    if g["removed"]:
        out += ["GPUs removed:", "", *(f"- {_code(r['gpu'])} {_cell(r['name'])}" for r in g["removed"]), ""]
    if g["specs"]:
        out += ["Spec changes:", "", "| GPU | figure | old | new |", "| --- | --- | --- | --- |"]
        out += [f"| {_code(s['gpu'])} | {_code(s['field'])} | {_cell(s['old'])} | {_cell(s['new'])} |" for s in g["specs"]]
        out.append("")
    if ladder:
        out += ["Ladder rank moves:", "", "| GPU | old rank | new rank |", "| --- | --- | --- |"]
        out += [f"| {_code(m['gpu'])} | {m['old']} | {m['new']} |" for m in ladder]
        out.append("")
    return out


def _pick_text(p: dict[str, Any]) -> str:
    if p["gpu"] is None:
        return "no GPU qualifies"
    text = f"{_code(p['gpu'])} × {p['cards']}, {p['delivery']}, {yuan(p['monthly_cny'])}/month"
    return text + (f", job {yuan(p['job_cost_cny'])}" if p["job_cost_cny"] is not None else "")


def _md_scenarios(s: dict[str, list[dict[str, Any]]]) -> list[str]:
    if not (s["changed"] or s["added"] or s["removed"] or s["cards"]):
        return []
    out = ["### Scenarios", ""]
    if s["changed"]:
        out += ["| scenario | pick | cards | delivery | monthly | job cost |", "| --- | --- | --- | --- | --- | --- |"]
        for c in s["changed"]:
            a, b = c["old"], c["new"]
            gpu = _arrow(_code(a["gpu"]) if a["gpu"] else "none", _code(b["gpu"]) if b["gpu"] else "none")
            cards = _arrow(_cell(a["cards"]), _cell(b["cards"]))
            delivery = _arrow(_cell(a["delivery"]), _cell(b["delivery"]))
            monthly = _arrow(yuan(a["monthly_cny"]), yuan(b["monthly_cny"]))
            job = _arrow(yuan(a["job_cost_cny"]), yuan(b["job_cost_cny"]))
            out.append(f"| {_code(c['scenario'])} | {gpu} | {cards} | {delivery} | {monthly} | {job} |")
        out.append("")
    if s["added"]:
        out += ["Scenarios added:", "", *(f"- {_code(a['scenario'])}: {_pick_text(a['new'])}" for a in s["added"]), ""]
    if s["removed"]:
        out += ["Scenarios removed:", "", *(f"- {_code(r['scenario'])}: {_pick_text(r['old'])}" for r in s["removed"]), ""]
    if s["cards"]:
        out += ["Cards needed:", "", "| scenario | GPU | old | new |", "| --- | --- | --- | --- |"]
        out += [
            f"| {_code(c['scenario'])} | {_code(c['gpu'])} | {_cards(c['old'])} | {_cards(c['new'])} |"
            for c in s["cards"]
        ]
        out.append("")
    return out


def _md_files(f: dict[str, list[str]]) -> list[str]:
    if not (f["added"] or f["removed"] or f["changed"]):
        return []

    def names(items: list[str]) -> str:
        return ", ".join(_code(i) for i in items) if items else "none"

    return [
        "### Generated files",
        "",
        f"- Added: {names(f['added'])}",
        f"- Removed: {names(f['removed'])}",
        f"- Changed ({len(f['changed'])}): {names(f['changed'])}",
        "",
    ]
