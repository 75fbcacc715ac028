"""``gpu-guide`` — the command line. Exit status: 0 ok, 1 data problems or stale pages, 2 usage.

No Python traceback reaches an editor: data problems print as
``file:line:col: yaml.path: message`` lines, and anything unexpected prints one line
asking for a bug report.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from generator.problems import DataError, Severity, render


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gpu-guide", description="GPU 租赁选型指南：校验数据、计算选型、生成站点。")
    p.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: current folder)")
    p.add_argument("--data", type=Path, default=None, help="data folder (default: ROOT/data)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    b = sub.add_parser("build", help="validate, evaluate, render docs/ and build site/ with mkdocs --strict")
    b.add_argument("--no-site", action="store_true", help="regenerate docs/ only")

    c = sub.add_parser("check", help="validate, lint, and fail if committed generated pages are stale")
    c.add_argument("--strict", action="store_true", help="treat warnings as errors")
    c.add_argument("--max-price-age", type=int, default=180, metavar="DAYS",
                   help="warn about prices older than this (default 180)")  # fmt: skip

    d = sub.add_parser("diff", help="Markdown report of what changed in generated results since a git ref")
    d.add_argument("--base", required=True, help="git ref to compare with, e.g. origin/main")
    d.add_argument("--format", choices=["markdown", "json"], default="markdown")

    ed = sub.add_parser("edition", help="append this data update to data/editions.yaml (the 本期变化 page)")
    ed.add_argument("--base", required=True, help="git ref of the last published edition, e.g. origin/main")
    ed.add_argument("--date", type=_iso_date, help="publication date YYYY-MM-DD (default: the data's as-of date)")
    ed.add_argument("--title", help="headline (default: '<date> 数据更新')")

    from generator.workload_cli import add_workload_arguments

    e = sub.add_parser("estimate", help="memory per card for a workload, with the breakdown")
    add_workload_arguments(e, recommend=False)
    r = sub.add_parser("recommend", help="ranked GPUs for a workload: cards, delivery form, cost")
    add_workload_arguments(r, recommend=True)

    s = sub.add_parser("serve", help="live preview; regenerates when data/ or templates/ change")
    s.add_argument("--dev-addr", default="127.0.0.1:8000")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return _run(args)
    except DataError as exc:
        print(render(exc.problems), file=sys.stderr)
        n = sum(1 for p in exc.problems if p.severity is Severity.error)
        print(f"Aborted: {n} problem(s) in the data; nothing was written.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Interrupted; docs/ and site/ are unchanged.", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 — the promise is: no traceback for editors
        print(
            f"gpu-guide: internal error ({type(exc).__name__}: {exc}); nothing was written. "
            "Please report this with the command you ran.",
            file=sys.stderr,
        )
        return 3


def _run(args: argparse.Namespace) -> int:
    from generator.build import Project

    project = Project.at(args.root, args.data)
    if args.command == "build":
        return _build(project, site=not args.no_site)
    if args.command == "check":
        return _check(project, strict=args.strict, max_price_age=args.max_price_age)
    if args.command == "diff":
        from generator.diff import run_diff

        return run_diff(project, args.base, args.format)
    if args.command == "edition":
        from generator.edition import run_edition

        return run_edition(project, args.base, args.date, args.title)
    if args.command in ("estimate", "recommend"):
        from generator.workload_cli import run_estimate, run_recommend

        run = run_estimate if args.command == "estimate" else run_recommend
        return run(project, args)
    if args.command == "serve":
        from generator.serve import serve

        return serve(project, args.dev_addr)
    raise AssertionError(args.command)


def _build(project, site: bool) -> int:  # type: ignore[no-untyped-def]
    from generator.build import build
    from generator.site import SiteBuildError

    try:
        gen = build(project, site=site)
    except SiteBuildError as exc:
        print("\n".join(exc.messages), file=sys.stderr)
        print("Aborted: mkdocs build --strict failed; docs/ and site/ are unchanged.", file=sys.stderr)
        return 1
    except FileExistsError as exc:
        print(str(exc), file=sys.stderr)
        print("Aborted: nothing was written.", file=sys.stderr)
        return 1
    if gen.warnings:
        print(render(gen.warnings), file=sys.stderr)
    where = f"{project.docs.name}/ and {project.site.name}/" if site else f"{project.docs.name}/"
    print(f"Built {len(gen.files)} generated files into {where} (data as of {gen.catalogue.as_of}).")
    return 0


def _check(project, strict: bool, max_price_age: int = 180) -> int:  # type: ignore[no-untyped-def]
    from generator.build import stale_files
    from generator.lint import lint

    from generator.schemas import stale_schemas

    gen, stale = stale_files(project)
    # Projects without committed schemas (fixture sites) have nothing to keep current.
    schemas = stale_schemas(project.root) if (project.data / "schemas").is_dir() else []
    problems = gen.warnings + lint(gen.catalogue, gen.results, max_price_age_days=max_price_age)
    if problems:
        print(render(problems), file=sys.stderr)
    failed = False
    if stale:
        print("Stale generated files (run `make site` or `gpu-guide build` and commit):", file=sys.stderr)
        for rel in stale:
            print(f"  docs/{rel}", file=sys.stderr)
        failed = True
    if schemas:
        print("Stale JSON Schemas (run `make schemas` and commit):", file=sys.stderr)
        for rel in schemas:
            print(f"  {rel}", file=sys.stderr)
        failed = True
    if any(p.severity is Severity.error for p in problems) or (strict and problems):
        failed = True
    if not failed:
        print(f"OK: data valid, {len(gen.files)} generated files current.")
    return 1 if failed else 0


def _iso_date(text: str) -> str:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None


if __name__ == "__main__":
    sys.exit(main())
