"""Broken data never breaks the tool: random edits of the fixture's data files end in a
clean run or in editor-readable problems, never in a traceback or an internal error.

Each example applies one to three edits an editor could make by accident (a value of
the wrong type, a deleted or duplicated line, stray characters or bytes, two list items
swapped, a key misspelt) to the mini fixture's data, runs ``gpu-guide check`` and looks
only at the exit status and the shape of what it printed.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest
from conftest import make_project
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.cli.main import main
from generator.pipeline import Project, build

FILES = [
    "gpus.yaml", "offers.yaml", "providers.yaml", "fx.yaml", "comparisons.yaml", "models.yaml", "scenarios.yaml",
    "pitfalls.yaml", "rules.yaml",
]  # fmt: skip

#: Every line ``check`` may print on stderr.
PROBLEM = re.compile(r"^data/[a-z]+\.yaml:\d+:\d+: (?:[A-Za-z0-9_\[\].-]+: )?(?:warning: )?\S.*$")
ABORTED = re.compile(r"^Aborted: \d+ problem\(s\) in the data; nothing was written\.$")
STALE_HEAD = "Stale generated files (run `make site` or `gpu-guide build` and commit):"
STALE_FILE = re.compile(r"^  docs/\S+$")

KEY_LINE = re.compile(rb"^(?P<lead>[ \t]*(?:- )?)(?P<key>[A-Za-z_][A-Za-z0-9_]*)(?P<sep>:[ \t]*)(?P<value>.*)$")

#: Values an editor might type where another type belongs, or that YAML reads oddly.
ODD_VALUES = [
    b"",
    b"-1",
    b"0",
    b"1",
    b"12.5",
    b"1e3",
    b"1_000",
    b"08",
    b"0x1F",
    b".inf",
    b".nan",
    b"yes",
    b"no",
    b"on",
    b"true",
    b"null",
    b"~",
    b'""',
    b"''",
    b"[]",
    b"{}",
    b"[1, 2]",
    b"{a: 1}",
    b"2026-13-45",
    b"2026-07-01",
    b"2026-07-01T10:00:00",
    b"12:30",
    b'"12"',
    b"700W",
    b'"\xc2\xa52/\xe6\x97\xb6"',
    b"!!python/object:os.system",
    b"!!binary aGk=",
    b"&a x",
    b"*a",
    b"<< : *a",
    b"|",
    b">",
    b"- x",
    b"a: b: c",
    b"'unterminated",
    b'"bad \\q"',
    b"javascript:alert(1)",
    b"https://",
    b"http://x y",
    b'"\\v"',
    b'"\\ud800"',
    b'"\\x00"',
    b'"a\\nb"',
    b"NVIDIA",
    b"container",
    b"bare_metal",
    b"hour",
    b"h100-sxm-80g",
    b"llama-2-7b",
    b"serve-7b",
    b"figures",
    b"Hopper",
    b"100000000000000000000000",
    b"-0.0",
    b"1.7976931348623157e308",
    b"\t1",
]

byte_value = st.one_of(
    st.sampled_from(ODD_VALUES),
    st.integers(-(10**12), 10**12).map(lambda n: str(n).encode()),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: repr(f).encode()),
    st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=6),
)
where = st.integers(min_value=0, max_value=10**6)
mutation = st.one_of(
    st.tuples(st.just("replace"), st.sampled_from(FILES), where, byte_value),
    st.tuples(st.just("delete"), st.sampled_from(FILES), where),
    st.tuples(st.just("duplicate"), st.sampled_from(FILES), where),
    st.tuples(st.just("insert"), st.sampled_from(FILES), where, st.binary(min_size=1, max_size=6) | byte_value),
    st.tuples(st.just("swap"), st.sampled_from(FILES), where, where),
    st.tuples(
        st.just("rename"), st.sampled_from(FILES), where, where, st.sampled_from(["drop", "double", "case", "typo"])
    ),
)


def apply(files: dict[str, bytes], m: tuple) -> None:  # type: ignore[type-arg]
    kind, name = m[0], m[1]
    data = files[name]
    lines = data.split(b"\n")
    keyed = [i for i, line in enumerate(lines) if KEY_LINE.match(line)]
    if kind == "replace" and keyed:
        i = keyed[m[2] % len(keyed)]
        g = KEY_LINE.match(lines[i])
        assert g
        lines[i] = g["lead"] + g["key"] + b": " + m[3]
    elif kind == "delete":
        del lines[m[2] % len(lines)]
    elif kind == "duplicate":
        i = m[2] % len(lines)
        lines.insert(i, lines[i])
    elif kind == "insert":
        at = m[2] % (len(data) + 1)
        files[name] = data[:at] + m[3] + data[at:]
        return
    elif kind == "swap":
        # Swap two list items (whole "- ..." blocks at the same indent), else two lines.
        starts = [i for i, line in enumerate(lines) if line.startswith(b"  - ")]
        if len(starts) >= 2:
            a, b = sorted((starts[m[2] % len(starts)], starts[m[3] % len(starts)]))
            if a != b:
                ends = {s: next((t for t in starts if t > s), len(lines)) for s in (a, b)}
                block_a, block_b = lines[a : ends[a]], lines[b : ends[b]]
                lines = lines[:a] + block_b + lines[ends[a] : b] + block_a + lines[ends[b] :]
        else:
            i, j = m[2] % len(lines), m[3] % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
    elif kind == "rename" and keyed:
        i = keyed[m[2] % len(keyed)]
        g = KEY_LINE.match(lines[i])
        assert g
        key = g["key"]
        pos = m[3] % len(key)
        how = m[4]
        if how == "drop" and len(key) > 1:
            key = key[:pos] + key[pos + 1 :]
        elif how == "double":
            key = key[: pos + 1] + key[pos:]
        elif how == "case":
            key = key.upper()
        else:
            key = key[:pos] + b"x" + key[pos + 1 :]
        lines[i] = g["lead"] + key + g["sep"] + g["value"]
    files[name] = b"\n".join(lines)


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("fuzz"))
    build(Project.at(root), site=False)  # committed pages current, so `check` passes as is
    return root


def run_check(root: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--root", str(root), "check"])
    return code, out.getvalue(), err.getvalue()


def assert_clean_outcome(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "internal error" not in err, err
    assert code in (0, 1), (code, err)
    lines = err.splitlines()
    if code == 0:
        assert out.startswith("OK: data valid"), out
    for line in lines:
        assert PROBLEM.match(line) or ABORTED.match(line) or line == STALE_HEAD or STALE_FILE.match(line), (
            f"not an editor-readable line: {line!r}\n--- whole stderr:\n{err}"
        )
    if code == 1:
        assert lines, "exit 1 says why"
        assert ABORTED.match(lines[-1]) or STALE_HEAD in lines or any(": warning: " not in ln for ln in lines), err


def test_unmutated_fixture_passes(fuzz_root: Path) -> None:
    code, _out, err = run_check(fuzz_root)
    assert code == 0, err
    assert all(PROBLEM.match(line) and ": warning: " in line for line in err.splitlines()), err  # lint only


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "80")),
    deadline=None,
    derandomize=not os.environ.get("FUZZ_EXAMPLES"),  # fixed examples in the suite; FUZZ_EXAMPLES=2000 to hunt
    suppress_health_check=[HealthCheck.too_slow],
)
@given(mutations=st.lists(mutation, min_size=1, max_size=3))
# Inputs that once ended in an internal error or a message spread over two lines:
@example(mutations=[("replace", "gpus.yaml", 3, b'"A\\v100"')])
@example(mutations=[("replace", "gpus.yaml", 3, b'"\\ud800"')])
@example(mutations=[("replace", "offers.yaml", 5, b'"con\\ntainer"')])
@example(mutations=[("replace", "gpus.yaml", 1, b'"$\\\\frac{$"')])
def test_random_edits_never_crash(fuzz_root: Path, mutations: list[tuple]) -> None:  # type: ignore[type-arg]
    data = fuzz_root / "data"
    original = {name: (data / name).read_bytes() for name in FILES}
    files = dict(original)
    for m in mutations:
        apply(files, m)
    try:
        for name, content in files.items():
            if content != original[name]:
                (data / name).write_bytes(content)
        assert_clean_outcome(*run_check(fuzz_root))
    finally:
        for name, content in original.items():
            (data / name).write_bytes(content)


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "data" / "models.yaml").unlink()
    (root / "data" / "pitfalls.yaml").unlink()
    (root / "data" / "pitfalls.yaml").mkdir()  # a folder where a file belongs
    code, out, err = run_check(root)
    assert_clean_outcome(code, out, err)
    assert code == 1
    assert "data/models.yaml:1:1: file is missing" in err
