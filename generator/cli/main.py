"""``gpu-guide`` — the command line. Exit status: 0 ok, 1 data problems or stale pages, 2 usage.

No Python traceback reaches an editor: data problems print as
``file:line:col: yaml.path: message`` lines, and anything unexpected prints one line
asking for a bug report.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.arguments import Parser, iso_date, whole
from generator.data.problems import DataError, Severity, render

if TYPE_CHECKING:
    from generator.pipeline import Project


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (the calculator's tests parse its flags with it too)."""
    return _parser()


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="gpu-guide", description="GPU 租赁选型指南：校验数据、计算选型、生成站点。")
    p.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: current folder)")
    p.add_argument("--data", type=Path, default=None, help="data folder (default: ROOT/data)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    b = sub.add_parser("build", help="validate, evaluate, render docs/ and build site/ with mkdocs --strict")
    b.add_argument("--no-site", action="store_true", help="regenerate docs/ only")
    b.add_argument("--production", action="store_true",
                   help="the build to publish: refuses the placeholder domain and bad site settings")  # fmt: skip

    c = sub.add_parser("check", help="validate, lint, and fail if committed generated pages are stale")
    c.add_argument("--strict", action="store_true", help="treat warnings as errors")
    c.add_argument("--max-price-age", type=whole(1, 3650), default=None, metavar="DAYS",
                   help="warn about prices older than this (default: rules.yaml prices.fresh_days)")  # fmt: skip
    c.add_argument("--as-of", type=iso_date, default=None, metavar="YYYY-MM-DD",
                   help="the date to judge price age against (default: SOURCE_DATE_EPOCH if set, "
                        "else the newest price in the data; never the clock)")  # fmt: skip

    d = sub.add_parser("diff", help="Markdown report of what changed in generated results since a git ref")
    d.add_argument("--base", required=True, help="git ref to compare with, e.g. origin/main")
    d.add_argument("--format", choices=["markdown", "json"], default="markdown")

    ed = sub.add_parser("edition", help="append this data update to data/editions.yaml (the 本期变化 page)")
    ed.add_argument("--base", required=True, help="git ref of the last published edition, e.g. origin/main")
    ed.add_argument("--date", type=iso_date, help="publication date YYYY-MM-DD (default: the data's as-of date)")
    ed.add_argument("--title", help="headline (default: '<date> 数据更新')")

    from generator.cli.workload import add_workload_arguments

    e = sub.add_parser("estimate", help="memory per card for a workload, with the breakdown")
    add_workload_arguments(e, recommend=False)
    r = sub.add_parser("recommend", help="ranked GPUs for a workload: cards, delivery form, cost")
    add_workload_arguments(r, recommend=True)

    cal = sub.add_parser(
        "calibrate", help="run docs-dev/calibration/ through the engine: ratio to each published figure"
    )
    cal.add_argument("--dir", type=Path, default=None, help="case folder (default: ROOT/docs-dev/calibration)")
    cal.add_argument("--markdown", action="store_true", help="print only the summary table (for the README)")

    dep = sub.add_parser("deploy", help="upload site/ to S3-compatible storage (OSS, COS, S3): changed files only")
    dep.add_argument("--to", required=True, metavar="s3://BUCKET/PREFIX", help="bucket and key prefix to publish under")
    dep.add_argument("--endpoint", default=None, metavar="URL",
                     help="the storage's S3 endpoint, e.g. https://oss-cn-hangzhou.aliyuncs.com, "
                          "https://cos.ap-shanghai.myqcloud.com (default: AWS)")  # fmt: skip
    dep.add_argument("--region", default=None, help="signing region, e.g. oss-cn-hangzhou, ap-shanghai")
    dep.add_argument("--site", type=Path, default=None, help="folder to upload (default: ROOT/site)")
    dep.add_argument("--path-style", action="store_true", help="path-style addressing (local S3 servers)")
    dep.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")

    s = sub.add_parser("serve", help="live preview; regenerates when data/ or templates/ change")
    s.add_argument("--dev-addr", default="127.0.0.1:8000")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:
        # Commands that write say what the interruption left (generator.publish.staging.Interrupted);
        # anything else was interrupted before it wrote a byte.
        print(f"Interrupted; {getattr(exc, 'message', 'nothing was written.')}", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    from generator.publish.staging import OutputError

    try:
        return _run(args)
    except DataError as exc:
        print(render(exc.problems), file=sys.stderr)
        n = sum(1 for p in exc.problems if p.severity is Severity.error)
        print(f"Aborted: {n} problem(s) in the data; nothing was written.", file=sys.stderr)
        return 1
    except (OutputError, FileExistsError) as exc:
        # A symbolic link, hand-written file or unwritable folder in the way, or another writer.
        print(str(exc), file=sys.stderr)
        print("Aborted: nothing was written.", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`gpu-guide recommend … | head`): end quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        print(
            f"gpu-guide: internal error ({type(exc).__name__}: {exc}); nothing was written. "
            "Please report this with the command you ran.",
            file=sys.stderr,
        )
        return 3


def _run(args: argparse.Namespace) -> int:
    from generator.pipeline import Project

    project = Project.at(args.root, args.data)
    if args.command == "build":
        return _build(project, site=not args.no_site, production=args.production)
    if args.command == "check":
        return _check(project, strict=args.strict, max_price_age=args.max_price_age, as_of=args.as_of)
    if args.command == "diff":
        from generator.review.report import run_diff

        return run_diff(project, args.base, args.format)
    if args.command == "edition":
        from generator.review.edition import run_edition

        return run_edition(project, args.base, args.date, args.title)
    if args.command in ("estimate", "recommend"):
        from generator.cli.workload import run_estimate, run_recommend

        run = run_estimate if args.command == "estimate" else run_recommend
        return run(project, args)
    if args.command == "calibrate":
        from generator.cli.calibrate import run_calibrate

        return run_calibrate(project, args.dir, args.markdown)
    if args.command == "deploy":
        return _deploy(args, project)
    if args.command == "serve":
        from generator.cli.serve import serve

        return serve(project, args.dev_addr)
    raise AssertionError(args.command)


def _deploy(args: argparse.Namespace, project: Project) -> int:
    from generator.publish.deploy import DeployError, deploy, parse_target, s3_client

    try:
        target = parse_target(args.to)
        # The command line is where the environment is read: keys go to the client explicitly.
        client = s3_client(
            args.endpoint or None,  # an empty setting (a CI variable left blank) means the default
            args.region or None,
            os.environ.get("AWS_ACCESS_KEY_ID"),
            os.environ.get("AWS_SECRET_ACCESS_KEY"),
            path_style=args.path_style,
        )
        deploy((args.site or project.site).resolve(), target, client, dry_run=args.dry_run)
    except DeployError as exc:
        print(f"gpu-guide deploy: {exc}", file=sys.stderr)
        return 1
    return 0


def _build(project: Project, site: bool, production: bool) -> int:
    from generator.pipeline import build
    from generator.publish.mkdocs_build import SiteBuildError

    try:
        gen = build(project, site=site, production=production)
    except SiteBuildError as exc:
        print("\n".join(exc.messages), file=sys.stderr)
        print("Aborted: mkdocs build --strict failed; docs/ and site/ are unchanged.", file=sys.stderr)
        return 1
    if gen.warnings:
        print(render(gen.warnings), file=sys.stderr)
    if gen.settings.is_placeholder:
        print(f"note: site_url {gen.settings.site_url} is a placeholder; set the real domain in "
              f"{project.config.name} before publishing (`--production` refuses it).", file=sys.stderr)  # fmt: skip
    where = f"{project.docs.name}/ and {project.site.name}/" if site else f"{project.docs.name}/"
    print(f"Built {len(gen.files)} generated files into {where} (data as of {gen.catalogue.as_of}).")
    return 0


def _check(project: Project, strict: bool, max_price_age: int | None, as_of: dt.date | None) -> int:
    from generator.data.schemas import stale_schemas
    from generator.pipeline import stale_files
    from generator.results.lint import lint

    gen, stale = stale_files(project)
    # Projects without committed schemas (fixture sites) have nothing to keep current.
    schemas = stale_schemas(project.root) if (project.data / "schemas").is_dir() else []
    today = as_of or _source_date() or gen.catalogue.as_of
    problems = gen.warnings + lint(gen.catalogue, gen.results, today=today, max_price_age_days=max_price_age)
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
    if any(p.severity is Severity.error for p in problems) or (
        strict and any(p.severity is Severity.warning for p in problems)
    ):
        failed = True
    if not failed:
        print(f"OK: data valid, {len(gen.files)} generated files current.")
    return 1 if failed else 0


def _source_date() -> dt.date | None:
    """The date of ``SOURCE_DATE_EPOCH`` (reproducible-builds convention), if set and valid."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value.isdigit():
        return None
    return dt.datetime.fromtimestamp(int(value), tz=dt.UTC).date()


if __name__ == "__main__":
    sys.exit(main())
