"""``make bench``: time each stage of a full build of the bundled data.

Runs the pipeline on a temporary copy of the project (docs/ and site/ of the checkout
are not touched) several times and prints the median of each stage and its share of
the total. Speed is reported here, never asserted in tests.

    python -m generator.cli.bench [--runs N] [--scale K]

``--scale K`` also builds a synthetic site with K copies of every model (each copy gets
its own model pages) and compares it with the bundled one: pages, mkdocs seconds per
page and mean HTML size per page. Flat ratios mean the build grows linearly with the
page count, which is why programmatic pages stay out of Material's sidebar.

Both also report the reader's side (:mod:`generator.cli.reader_bench`): the bytes of a first
view per page kind and the bytes a search query fetches.

``--serve`` instead times a one-price edit in ``gpu-guide serve`` against a full build
(:mod:`generator.cli.serve_bench`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from generator.cli import serve_bench
from generator.cli.reader_bench import report
from generator.data.datafiles import DataFile
from generator.data.validate import load_catalogue
from generator.pages.files import generated_files
from generator.pipeline import Project
from generator.publish.mkdocs_build import build_site
from generator.publish.site_config import read_site_settings
from generator.results.evaluate import evaluate

REPO = Path(__file__).resolve().parents[2]


def _copy(dest: Path) -> Project:
    for name in ("data", "templates", "docs"):
        shutil.copytree(REPO / name, dest / name)
    shutil.copy(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    return Project.at(dest)


def run_once(project: Project) -> dict[str, float]:
    """One build, stage by stage; seconds per stage."""
    times: dict[str, float] = {}
    t = time.perf_counter()
    cat, problems = load_catalogue(project.data, project.root)
    assert cat is not None, problems
    times["load + validate"] = time.perf_counter() - t
    t = time.perf_counter()
    results = evaluate(cat)
    times["evaluate"] = time.perf_counter() - t
    t = time.perf_counter()
    settings, _ = read_site_settings(project.config, production=False)
    assert settings is not None
    files = generated_files(cat, results, project.templates, settings.site_url)
    times["render"] = time.perf_counter() - t
    for rel, data in files.items():
        (project.docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (project.docs / rel).write_bytes(data)
    out = project.root / "site-bench"
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    build_site(project.config, project.docs, out, cat.as_of)
    times["mkdocs build"] = time.perf_counter() - t
    return times


def page_counts(docs: Path) -> dict[str, int]:
    """Markdown pages by kind (top-level folder)."""
    counts: dict[str, int] = {}
    for p in docs.rglob("*.md"):
        kind = p.relative_to(docs).parts[0] if len(p.relative_to(docs).parts) > 1 else "top-level"
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def html_weight(site: Path) -> tuple[int, float, float]:
    """Number of HTML pages, their mean and largest size in KB (Material repeats the nav in each)."""
    sizes = [p.stat().st_size for p in site.rglob("*.html")]
    return len(sizes), statistics.mean(sizes) / 1024, max(sizes) / 1024


def scale_models(project: Project, copies: int) -> None:
    """Append ``copies - 1`` renamed copies of every model entry to models.yaml."""
    path = project.data / DataFile.models
    text = path.read_text(encoding="utf-8")
    head, _, body = text.partition("models:\n")
    extra = []
    for k in range(2, copies + 1):
        extra.append(body.replace("  - id: ", f"  - id: copy{k}-").replace("    name: ", f"    name: 副本{k} "))
    path.write_text(head + "models:\n" + body + "".join(extra), encoding="utf-8")


def scaled_run(project: Project, runs: int) -> tuple[int, dict[str, float]]:
    """(HTML pages, median seconds per stage) of ``runs`` builds after a warm-up."""
    run_once(project)
    results = [run_once(project) for _ in range(runs)]
    medians = {stage: statistics.median(r[stage] for r in results) for stage in results[0]}
    n_html, _mean_kb, _ = html_weight(project.root / "site-bench")
    return n_html, medians


def generator_share(medians: dict[str, float]) -> float:
    """Share of the generator's own stages (everything but MkDocs) in the whole build."""
    return 1 - medians["mkdocs build"] / sum(medians.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=int, default=0, help="also compare with K copies of every model")
    parser.add_argument("--serve", action="store_true", help="time a one-price edit in `gpu-guide serve` instead")
    args = parser.parse_args()
    if args.serve:
        for line in serve_bench.report(args.runs if args.runs != 5 else 2):
            print(f"serve: {line}")
        return 0
    if args.scale > 1:
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            base, big = _copy(Path(a)), _copy(Path(b))
            scale_models(big, args.scale)
            sites = [("bundled", *scaled_run(base, args.runs)), (f"models x{args.scale}", *scaled_run(big, args.runs))]
            kbs = [html_weight(p.root / "site-bench")[1] for p in (base, big)]
            readers = [report(p.root / "site-bench") for p in (base, big)]
        stages = list(sites[0][2])
        print(f"{'site':<16}{'HTML pages':>11}" + "".join(f"{s:>18}" for s in stages) + f"{'ms/page':>9}{'KB/page':>9}")
        for (name, n, med), kb in zip(sites, kbs, strict=True):
            cells = "".join(f"{med[s]:>17.2f}s" for s in stages)
            print(f"{name:<16}{n:>11}{cells}{med['mkdocs build'] / n * 1000:>9.1f}{kb:>9.1f}")
        for name, n, med in sites:
            print(f"{name}: generator stages take {generator_share(med):.1%} of the build ({n} HTML pages)")
        (n1, m1), (n2, m2) = (s[1:] for s in sites)
        per1, per2 = m1["mkdocs build"] / n1, m2["mkdocs build"] / n2
        print(
            f"ratio {n2 / n1:.2f}x pages: {per2 / per1:.2f}x mkdocs time per page, {kbs[1] / kbs[0]:.2f}x HTML per page"
        )
        for (name, _n, _med), lines in zip(sites, readers, strict=True):
            for line in lines:
                print(f"{name}: reader: {line}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        project = _copy(Path(tmp))
        run_once(project)  # warm-up: imports
        runs = [run_once(project) for _ in range(args.runs)]
        pages = sum(1 for p in (project.docs).rglob("*.md"))
        kinds = page_counts(project.docs)
        n_html, mean_kb, max_kb = html_weight(project.root / "site-bench")
        reader = report(project.root / "site-bench")
    medians = {stage: statistics.median(r[stage] for r in runs) for stage in runs[0]}
    total = sum(medians.values())
    print(f"Full build of the bundled data: {pages} Markdown pages, median of {args.runs} runs after a warm-up")
    print(f"{'stage':<18}{'median s':>10}{'share':>8}")
    for stage, sec in medians.items():
        print(f"{stage:<18}{sec:>10.3f}{sec / total:>8.1%}")
    print(f"{'total':<18}{total:>10.3f}{1:>8.0%}")
    print(f"generator stages take {generator_share(medians):.1%} of the build; mkdocs takes the rest")
    print("pages by kind: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
    print(f"HTML pages: {n_html}, mean {mean_kb:.0f} KB, largest {max_kb:.0f} KB")
    for line in reader:
        print(f"reader: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
