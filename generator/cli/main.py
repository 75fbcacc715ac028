"""``gpu-guide`` — the command line. Exit status: 0 ok, 1 data problems or stale pages, 2 usage,
3 internal error (a bug: please report it), 130 interrupted (Ctrl-C).

No Python traceback reaches an editor: data problems print as
``file:line:col: yaml.path: message`` lines, and anything unexpected prints one line
asking for a bug report.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.arguments import Parser, iso_date, whole
from generator.data.problems import DataError, OutputFormat, Severity, render

if TYPE_CHECKING:
    from generator.data.catalogue import Catalogue
    from generator.pipeline import Project


def _add_format(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--format", dest="problem_format", type=OutputFormat, choices=list(OutputFormat),
                     default=OutputFormat.plain,
                     help="how data problems print: plain lines, or github (the same lines, then GitHub "
                          "Actions annotations for a pull request; default: plain)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (the calculator's and the workflows' tests parse with it too)."""
    p = Parser(prog="gpu-guide", description="GPU 租赁选型指南：校验数据、计算选型、生成站点。")
    p.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: current folder)")
    p.add_argument("--data", type=Path, default=None, help="data folder (default: ROOT/data)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    b = sub.add_parser("build", help="validate, evaluate, render docs/ and build site/ with mkdocs --strict")
    b.add_argument("--no-site", action="store_true", help="regenerate docs/ only")
    b.add_argument("--production", action="store_true",
                   help="the build to publish: refuses the placeholder domain and bad site settings")  # fmt: skip
    _add_format(b)

    c = sub.add_parser("check", help="validate, lint, and fail if committed generated pages are stale")
    c.add_argument("--strict", action="store_true", help="treat warnings as errors")
    c.add_argument("--max-price-age", type=whole(1, 3650), default=None, metavar="DAYS",
                   help="warn about prices older than this (default: rules.yaml prices.fresh_days)")  # fmt: skip
    c.add_argument("--as-of", type=iso_date, default=None, metavar="YYYY-MM-DD",
                   help="the date to judge price age against (default: the build date: SOURCE_DATE_EPOCH if "
                        "set, else the commit date of data/, else the newest price; never the clock)")  # fmt: skip
    _add_format(c)

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

    from generator.cli.prices import add_prices_arguments

    add_prices_arguments(sub)

    s = sub.add_parser("serve", help="live preview; regenerates when data/ or templates/ change")
    s.add_argument("--dev-addr", default="127.0.0.1:8000")
    return p


class _Stderr(logging.Handler):
    """The library's messages (``gpu-guide`` logger) as ``gpu-guide: [warning: ]message`` lines on
    the stderr of the moment (tests swap it), each on one line."""

    def emit(self, record: logging.LogRecord) -> None:
        from generator.data.problems import one_line

        kind = "warning: " if record.levelno >= logging.WARNING else ""
        print(f"gpu-guide: {kind}{one_line(record.getMessage())}", file=sys.stderr)


def _log_to_stderr() -> None:
    logger = logging.getLogger("gpu-guide")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr())
    logger.setLevel(logging.INFO)
    logger.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    _log_to_stderr()
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:
        # Commands that write say what the interruption left (generator.publish.swap.Interrupted);
        # anything else was interrupted before it wrote a byte.
        print(f"Interrupted; {getattr(exc, 'message', 'nothing was written.')}", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    from generator.publish.safe_files import OutputError

    try:
        code = _run(args)
        sys.stdout.flush()  # a full disk or `> /dev/full` fails here, inside the handlers below
        return code
    except DataError as exc:
        print(render(exc.problems, getattr(args, "problem_format", OutputFormat.plain)), file=sys.stderr)
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
        _discard_stdout()
        return 0
    except KeyboardInterrupt:
        raise
    except OSError as exc:
        # A full disk, `> /dev/full`, a quota: the output could not be written.
        _discard_stdout()
        where = f" {exc.filename}" if exc.filename else " the output"
        print(f"gpu-guide: cannot write{where}: {exc.strerror or exc}.", file=sys.stderr)
        return 1
    except Exception as exc:
        print(
            f"gpu-guide: internal error ({type(exc).__name__}: {_short(str(exc))}); nothing was written. "
            "Please report this with the command you ran.",
            file=sys.stderr,
        )
        return 3


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _short(text: str, limit: int = 300) -> str:
    """An exception's text as one line of at most ``limit`` characters."""
    from generator.data.problems import one_line

    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Commands that take the write lock, and so read its wait setting.
WRITERS = ("build", "edition", "serve")
#: The operator's setting for how long a writer waits for another (seconds, 0 to 3600).
LOCK_WAIT_VARIABLE = "GPU_GUIDE_LOCK_WAIT"


def lock_wait_setting(environ: Mapping[str, str]) -> float:
    """The write lock's wait from ``GPU_GUIDE_LOCK_WAIT``, else the default (publish.lock.DEFAULT_WAIT);
    an :class:`~generator.publish.safe_files.OutputError` for a value that is not 0 to 3600 seconds."""
    from generator.publish.lock import DEFAULT_WAIT
    from generator.publish.safe_files import OutputError

    raw = environ.get(LOCK_WAIT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_WAIT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (0 <= value <= 3600):
        raise OutputError(f"{LOCK_WAIT_VARIABLE} must be a number of seconds from 0 to 3600, got {raw!r}")
    return value


def _run(args: argparse.Namespace) -> int:
    from generator.cli.build_date import BuildDateError, resolve_build_date
    from generator.pipeline import Project
    from generator.publish.lock import DEFAULT_WAIT

    project = Project.at(args.root, args.data)
    try:
        when = resolve_build_date(project.data)
    except BuildDateError as exc:
        print(f"gpu-guide: {exc}", file=sys.stderr)
        return 2
    # only the commands that write read the setting: a bad value stops them, nothing else
    wait = lock_wait_setting(os.environ) if args.command in WRITERS else DEFAULT_WAIT
    project = Project.at(args.root, args.data, build_date=when.date, lock_wait=wait)
    if args.command == "build":
        return _build(project, site=not args.no_site, production=args.production, fmt=args.problem_format,
                      origin=when.origin)  # fmt: skip
    if args.command == "check":
        return _check(project, strict=args.strict, max_price_age=args.max_price_age, as_of=args.as_of,
                      fmt=args.problem_format, origin=when.origin)  # fmt: skip
    if args.command == "diff":
        from generator.cli.review import run_diff

        return run_diff(project, args.base, args.format)
    if args.command == "edition":
        from generator.cli.review import run_edition

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
    if args.command == "prices":
        from generator.cli.prices import run_prices

        return run_prices(project, args)
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
        deploy((args.site or project.site).resolve(), target, client, dry_run=args.dry_run, say=print)
    except DeployError as exc:
        print(f"gpu-guide deploy: {exc}", file=sys.stderr)
        return 1
    return 0


def _build(project: Project, site: bool, production: bool, fmt: OutputFormat, origin: str) -> int:
    from generator.pipeline import build
    from generator.publish.mkdocs_build import SiteBuildError

    try:
        gen = build(project, site=site, production=production)
    except SiteBuildError as exc:
        print("\n".join(exc.messages), file=sys.stderr)
        print("Aborted: mkdocs build --strict failed; docs/ and site/ are unchanged.", file=sys.stderr)
        return 1
    if gen.warnings:
        print(render(gen.warnings, fmt), file=sys.stderr)
    if gen.settings.is_placeholder:
        print(f"note: site_url {gen.settings.site_url} is a placeholder; set the real domain in "
              f"{project.config.name} before publishing (`--production` refuses it).", file=sys.stderr)  # fmt: skip
    where = f"{project.docs.name}/ and {project.site.name}/" if site else f"{project.docs.name}/"
    _say_stale(gen.catalogue, origin)
    print(f"Built {len(gen.files)} generated files into {where} (data as of {gen.catalogue.as_of}).")
    return 0


def _check(
    project: Project, strict: bool, max_price_age: int | None, as_of: dt.date | None, fmt: OutputFormat, origin: str
) -> int:
    from generator.data.schemas import stale_schemas
    from generator.pipeline import readme_table_stale, stale_files
    from generator.publish.vanishing import vanishing_comparisons
    from generator.results.lint import lint

    gen, stale = stale_files(project)
    # Projects without committed schemas (fixture sites) have nothing to keep current.
    schemas = stale_schemas(project.root) if (project.data / "schemas").is_dir() else []
    today = as_of or gen.catalogue.today
    problems = gen.warnings + lint(gen.catalogue, gen.results, today=today, max_price_age_days=max_price_age)
    problems += vanishing_comparisons(project.docs, gen.files, gen.catalogue)
    if problems:
        print(render(problems, fmt), file=sys.stderr)
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
    if readme_table_stale(project, gen.catalogue):
        print(f"Stale market table in {project.readme.name} (run `gpu-guide prices table --write` and commit).",
              file=sys.stderr)  # fmt: skip
        failed = True
    if any(p.severity is Severity.error for p in problems) or (
        strict and any(p.severity is Severity.warning for p in problems)
    ):
        failed = True
    from generator.results.freshness import report_lines

    if not failed:
        print(f"OK: data valid, {len(gen.files)} generated files current.")
    print("\n".join(report_lines(gen.catalogue, origin)))
    return 1 if failed else 0


def _say_stale(cat: Catalogue, origin: str) -> None:
    """Name the offers past the freshness window on the build date (they no longer rank), and the API
    prices past theirs (no page compares them with renting)."""
    from generator.results.freshness import stale_api_prices, stale_offers

    old = stale_offers(cat)
    if old:
        ids = ", ".join(o.id for o in old[:10]) + (f" and {len(old) - 10} more" if len(old) > 10 else "")
        print(f"note: {len(old)} price(s) older than {cat.rules.prices.fresh_days} days on {cat.today} ({origin}) "
              f"are history and no longer rank: {ids}", file=sys.stderr)  # fmt: skip
    api = stale_api_prices(cat)
    if api:
        ids = ", ".join(p.id for p in api[:10]) + (f" and {len(api) - 10} more" if len(api) > 10 else "")
        print(f"note: {len(api)} API price(s) older than {cat.rules.prices.api_fresh_days} days on {cat.today} "
              f"({origin}) are history and no page compares them with renting: {ids}", file=sys.stderr)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
