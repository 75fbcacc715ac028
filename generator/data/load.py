"""Read one YAML data file safely, and remember where every value was written.

This is the first stage of the build. It turns the bytes of a file such as
``data/gpus.yaml`` into plain Python values (``dict``, ``list``, ``str``, ``int``,
``float``, ``bool``, ``None`` and ``datetime.date``) plus the line and column of
every key and value, so later stages can point an editor at the exact place to fix.

It never raises: whatever the bytes are, :func:`load_bytes` returns a
:class:`Document` or a non-empty list of :class:`~generator.data.problems.Problem`.

What an editor should know about the YAML it accepts:

* One document per file, and it must be a mapping with the required top-level key
  (``gpus:`` for ``data/gpus.yaml``); other top-level keys are checked later.
* Unquoted values are read by strict rules, not YAML 1.1's: ``true``/``false`` are
  booleans, ``null``/``~``/nothing is empty, ``42`` and ``-3`` are whole numbers,
  ``1.5`` is a decimal, ``2025-03-01`` is a date, anything else is text. Values that
  different YAML tools read differently are refused with a fix: ``yes``/``no``/``on``/
  ``off``/``y``/``n``, numbers with a leading zero (``08``), exponents (``1e3``),
  ``1_000``, ``1:30``, ``0x1F``, ``.inf``/``.nan`` and date-times. Quote a value
  (``"08"``) to keep it as text; quoted values are always text.
* Keys must be text; a key may appear only once in a mapping.
* Tags other than ``!!str !!int !!float !!bool !!null !!seq !!map`` are refused
  (no ``!!python/...``), and so are merge keys (``<<``).
* Anchors and aliases (``&name`` / ``*name``) work: an alias is marked where it is
  written, the values inside the anchored list or mapping where the anchor wrote
  them, and a problem in anchored text is reported once, at the anchor. A file may
  expand to at most 200 000 values, be at most 2 MiB, and nest at most 64 levels.
* The file must be UTF-8. A UTF-8 byte-order mark (BOM) is accepted and stripped
  silently: many Windows editors add one, and it changes nothing about the data.
  Tabs are not allowed for indentation.
"""

from __future__ import annotations

import codecs
import datetime as dt
import difflib
import hashlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, NoReturn

import yaml
from yaml._yaml import CParser as _CParser  # PyYAML's libyaml binding (PyPI's PyYAML wheels carry it)
from yaml.error import Mark as _YamlMark
from yaml.error import MarkedYAMLError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from generator.data.problems import Problem, YamlPath, format_path

MAX_BYTES = 2 * 1024 * 1024  #: larger files are refused before parsing
MAX_DEPTH = 64  #: deepest nesting of lists/mappings accepted
MAX_NODES = 200_000  #: values built, counting every expansion of an alias


@dataclass(frozen=True)
class Mark:
    """A place in the file; both numbers start at 1, columns count characters."""

    line: int
    col: int


@dataclass(frozen=True)
class Scalar:
    """What the editor wrote for one scalar value, for messages such as "you wrote
    ``no`` unquoted". ``text`` is the scalar's content before typing: exactly what was
    written for an unquoted value; for a quoted or ``|``/``>`` block value, its text
    without the quotes, escapes applied. ``plain`` is True only for unquoted values
    (neither quoted nor a block)."""

    text: str
    plain: bool


@dataclass
class Document:
    """One loaded file: its value and where each part of it was written."""

    name: str
    value: Any
    #: Every path (mapping key or list index from the root) -> where its value starts.
    #: ``()`` is the root. An alias is marked at its ``*``; what is inside the anchored
    #: list or mapping, at the anchor's text.
    marks: dict[YamlPath, Mark] = field(default_factory=dict)
    #: Paths whose last part is a mapping key -> where that key starts.
    key_marks: dict[YamlPath, Mark] = field(default_factory=dict)
    #: Paths of scalar values -> the text written there.
    scalars: dict[YamlPath, Scalar] = field(default_factory=dict)

    def mark(self, path: YamlPath) -> Mark:
        """Where ``path`` is; for a path that does not exist (a missing field), the
        place of its nearest existing parent, e.g. the mapping that lacks the field."""
        path = tuple(path)
        while path and path not in self.marks:
            path = path[:-1]
        return self.marks.get(path, Mark(1, 1))


# --------------------------------------------------------------------------- internals

# Untagged plain scalars get this tag from _Loader.resolve, so PyYAML's YAML 1.1
# resolver never sees them and _resolve_plain applies our strict rules instead.
_PLAIN_TAG = "!<plain>"
_Y = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = _Y + "str", _Y + "int", _Y + "float", _Y + "bool", _Y + "null"
_SEQ, _MAP = _Y + "seq", _Y + "map"

_OPENERS = (
    yaml.BlockSequenceStartToken,
    yaml.BlockMappingStartToken,
    yaml.FlowSequenceStartToken,
    yaml.FlowMappingStartToken,
)
_CLOSERS = (yaml.BlockEndToken, yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)

# The characters PyYAML's reader refuses (yaml.reader.Reader.NON_PRINTABLE); we look
# first so the message can say where.
_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # what PyYAML counts as a new line


class _PlainTags:
    """A loader's resolver with implicit typing of plain scalars switched off: an untagged plain
    scalar gets :data:`_PLAIN_TAG`, which ``_resolve_plain``'s strict rules read later."""

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return _PLAIN_TAG if implicit[0] else _STR
        return _SEQ if kind is SequenceNode else _MAP


class _Loader(_PlainTags, yaml.SafeLoader):
    """The pure-Python safe loader, resolving as :class:`_PlainTags` says.

    The pure-Python one (not CSafeLoader) so error texts and marks are the same
    everywhere; input depth is bounded by _check_depth before composing."""

    def __init__(self, stream: str):
        super().__init__(stream)
        # (id(parent node), list index or id(key node)) -> mark of an alias written there;
        # the composer returns the anchored node itself, so the alias's place is kept here.
        self.alias_marks: dict[tuple[int, int], _YamlMark] = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if parent is not None and index is not None and self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            node = super().compose_node(parent, index)
            self.alias_marks[(id(parent), index if isinstance(index, int) else id(index))] = mark
            return node
        return super().compose_node(parent, index)


_FAST_REFUSED = (yaml.AnchorToken, yaml.AliasToken, yaml.TagToken, yaml.DirectiveToken)


class _FastLoader(_PlainTags, _CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """libyaml's parser (PyYAML's C extension), resolving as :class:`_PlainTags` says.

    Only for files without anchors, aliases, tags or directives that libyaml reads without error
    (:func:`_compose_fast`); everything else goes to the pure-Python loader, whose error texts and
    alias marks the editors' messages are written for. libyaml composes a plain data file about 20x
    faster (offers.yaml, 108 KB: 0.012 s against 0.25 s), which is most of what a price edit cost
    ``gpu-guide serve`` before evaluation."""

    def __init__(self, stream: str):
        _CParser.__init__(self, stream)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


def _compose_fast(text: str) -> Node | None:
    """The file's node tree from libyaml, or None when the pure-Python loader must read it: the file
    holds a tab, nests too deep, uses anchors, aliases, tags or directives, or is not valid YAML (the pure loader then says where and why). libyaml's scanner is iterative, so the
    depth is counted before its composer (which recurses) runs. The tree is the pure loader's but for
    a plain scalar's ``style``, which is ``""`` here and None there (the builder reads both as plain)."""
    if "\t" in text:  # libyaml takes a tab after "key:" (YAML 1.2); the pure loader refuses it, as we do
        return None
    try:
        if _first_too_deep(yaml.scan(text, Loader=yaml.CSafeLoader), _FAST_REFUSED) is not None:
            return None
        loader = _FastLoader(text)
        try:
            node: Node | None = loader.get_single_node()
        finally:
            loader.dispose()
        return node
    except yaml.YAMLError:
        return None


class _Stop(Exception):
    """Aborts the walk over the node tree (budget, depth, cycle); carries the reason."""

    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


def _mark_of(mark: _YamlMark | None) -> Mark:
    return Mark(mark.line + 1, mark.column + 1) if mark is not None else Mark(1, 1)


def _mark_at(text: str, index: int) -> Mark:
    """The 1-based line:col of character ``index``, counting line breaks as PyYAML does."""
    line, start = 1, 0
    for m in _LINE_BREAK.finditer(text, 0, index):
        line, start = line + 1, m.end()
    return Mark(line, index - start + 1)


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_Y) :] if tag.startswith(_Y) else tag


def _plain_number(text: str) -> str | None:
    """``1.5e3`` -> ``"1500"``; None when the number is too long to write out
    (guards against ``1e999999999``, which Decimal would happily expand)."""
    exponent = re.split("[eE]", text)[-1].lstrip("+-")
    if len(exponent) > 2 or len(text) > 40:
        return None
    return format(Decimal(text.replace("_", "")).normalize(), "f")


# Plain-scalar patterns, checked in order by _resolve_plain.
_INT_RE = re.compile(r"[-+]?[0-9]+")
_FLOAT_RE = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)")
_EXP_RE = re.compile(r"[-+]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9_]+)[eE][-+]?[0-9]+")
_RADIX_RE = re.compile(r"[-+]?0(?:[xX][0-9a-fA-F_]+|[oO][0-7_]+|[bB][01_]+)")
_UNDERSCORE_RE = re.compile(r"[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?")
_SEXAGESIMAL_RE = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# YAML 1.1's timestamp: a date, optionally followed by a time (group 4).
_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})((?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}"
    r"(?::[0-9]{2}(?:\.[0-9]*)?)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?"
)
_SPECIAL_FLOAT_RE = re.compile(r"[-+]?\.(?:inf|nan)", re.IGNORECASE)
_AMBIGUOUS = {"yes", "no", "on", "off", "y", "n"}
_MAX_DIGITS = 30  # longer numbers are refused rather than turned into huge ints / inf
_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep; flatten the data"


def _resolve_plain(text: str) -> tuple[Any, str | None]:
    """Type an unquoted scalar by the strict rules in the module docstring.

    Returns ``(value, None)`` or ``(None, message)``; messages say the fix."""
    low = text.lower()
    if low in ("", "~", "null"):
        return None, None
    if low in ("true", "false"):
        return low == "true", None
    if low in _AMBIGUOUS:
        return None, f'"{text}" is ambiguous: write true or false, or quote it ("{text}") if it is text'
    if _INT_RE.fullmatch(text):
        digits = text.lstrip("+-")
        if len(digits) > _MAX_DIGITS:
            return None, f"numbers longer than {_MAX_DIGITS} digits are not allowed; quote it if it is text"
        if len(digits) > 1 and digits.startswith("0"):
            return None, f'leading zero: write {int(text)}, or quote it as "{text}" if it is text'
        return int(text), None
    if _FLOAT_RE.fullmatch(text):
        if len(text) > _MAX_DIGITS + 2 or not math.isfinite(float(text)):
            return None, f"numbers longer than {_MAX_DIGITS} digits are not allowed; quote it if it is text"
        return float(text), None
    if _EXP_RE.fullmatch(text):
        plain = _plain_number(text)
        fix = f"write {plain}" if plain is not None else "write the number out in digits"
        return None, f'exponent notation is not allowed: {fix}, or quote it as "{text}" if it is text'
    if _RADIX_RE.fullmatch(text):
        body = text.replace("_", "")
        value = int(body, 0) if len(body) <= _MAX_DIGITS else None
        fix = f"write {value}" if value is not None else "write it as a decimal number"
        return (
            None,
            f'hexadecimal, octal and binary numbers are not allowed: {fix}, or quote it as "{text}" if it is text',
        )
    if "_" in text and _UNDERSCORE_RE.fullmatch(text):
        return (
            None,
            f'"_" in numbers is not allowed: write {text.replace("_", "")}, or quote it as "{text}" if it is text',
        )
    if _SEXAGESIMAL_RE.fullmatch(text):
        return None, f'{text} is read as a base-60 number by some YAML tools; quote it as "{text}"'
    if _SPECIAL_FLOAT_RE.fullmatch(text):
        return None, f'{text} is not allowed; write a real number, or quote it as "{text}" if it is text'
    m = _TIMESTAMP_RE.fullmatch(text)
    if m:
        try:
            date = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None, f"{text} is not a real date; write an existing date as YYYY-MM-DD, or quote it if it is text"
        if m.group(4):
            return None, f"a date with a time is not allowed: write just the date, {date}, or quote it if it is text"
        if _DATE_RE.fullmatch(text):
            return date, None
        return None, f"write dates as YYYY-MM-DD: {date}, or quote it if it is text"
    return text, None


def _describe(value: Any) -> str:
    if value is None:
        return "empty (null), not text"
    if isinstance(value, bool):
        return "true/false, not text"
    if isinstance(value, (int, float)):
        return "a number, not text"
    return "a date, not text"


def _tag_message(tag: str) -> str:
    if tag.startswith(_Y + "python/"):
        return f"Python tags like {_tag_name(tag).split(':')[0]} are never loaded from data files; remove the tag"
    return (
        f"tag {_tag_name(tag)} is not allowed (only !!str, !!int, !!float, !!bool, !!null, !!seq, !!map); "
        "remove it, or quote the value if it is text"
    )


def _syntax_message(err: MarkedYAMLError, text: str) -> tuple[Mark, str]:
    """Turn a PyYAML scanner/parser/composer error into a place and a fix-saying
    sentence. Maintainers: match on PyYAML's ``problem``/``context`` texts; anything
    unmatched falls through to a generic message that still quotes PyYAML."""
    problem, context = err.problem or "", err.context or ""
    mark = _mark_of(err.problem_mark or err.context_mark)
    index = err.problem_mark.index if err.problem_mark is not None else -1
    if 0 <= index < len(text) and text[index] == "\t":
        line_start = text.rfind("\n", 0, index) + 1
        if text[line_start:index].strip(" \t") == "":
            return mark, "tabs are not allowed for indentation; indent with spaces"
        return mark, "a tab is not allowed here; use a space instead"
    m = re.match(r"found character '(.*)' that cannot start any token", problem)
    if m:
        return mark, f'a value cannot start with "{m.group(1)}"; quote the value'
    if "mapping values are not allowed here" in problem:
        return mark, 'unexpected ":" here; quote the value if it contains ": ", or fix the indentation of this line'
    if "quoted scalar" in context and "end of stream" in problem:
        return _mark_of(err.context_mark), "this quoted text is never closed; add the closing quote"
    m = re.match(r"found unknown escape character '(.*)'", problem)
    if m:
        return (
            mark,
            f'unknown escape "\\{m.group(1)}" in double-quoted text; write "\\\\" for a backslash, or use single quotes',
        )
    if "simple key" in context:
        return _mark_of(err.context_mark), 'this key is missing its ":"; add ": " after the key, or quote the text'
    m = re.match(r"found undefined alias '(.*)'", problem)
    if m:
        return (
            mark,
            f"alias *{m.group(1)} has no anchor &{m.group(1)} before it; define the anchor first, or quote the text",
        )
    m = re.match(r"found duplicate anchor '(.*)'", context)
    if m:
        return mark, (
            f"anchor &{m.group(1)} is defined twice (first at line {_mark_of(err.context_mark).line}); "
            "rename one of them"
        )
    if "single document" in context:
        return mark, 'a file may hold only one YAML document; remove this "---" line or move the rest to another file'
    m = re.match(r"expected ',' or '([\]}])'", problem)
    if m:
        opener = "[" if m.group(1) == "]" else "{"
        return mark, (
            f'the "{opener}" opened at line {_mark_of(err.context_mark).line} is not closed here; '
            f'add "{m.group(1)}" at its end, or "," between its items'
        )
    if "expected <block end>" in problem:
        if problem.endswith("'-'"):
            return mark, 'a list item "-" is not allowed here; fix the indentation, and put a space after each "-"'
        return mark, (
            f"this line's indentation does not match the block that starts at line "
            f"{_mark_of(err.context_mark).line}; line it up with the other entries, using spaces"
        )
    if "anchor" in context or "alias" in context:
        return (
            mark,
            'invalid anchor or alias; write "&name" or "*name" with letters, digits, "-" or "_", or quote the value',
        )
    if "tag" in context or "tag handle" in problem:
        return mark, 'invalid tag; remove the "!" part, or quote the value if it is text'
    if "block scalar" in context:
        return mark, 'invalid "|" or ">" block text header; write "|" or ">" alone at the end of the line'
    if "directive" in context or "incompatible YAML document" in problem:
        return mark, 'YAML "%" directives are not supported; remove the line'
    m = re.match(r"expected the node content, but found '(.*)'", problem)
    if m:
        return mark, f'unexpected "{m.group(1)}" here; quote the value if it is text'
    detail = "; ".join(s for s in (context, problem) if s)
    return mark, f"YAML syntax error ({detail}); check quotes, colons and indentation here"


def _check_depth(text: str) -> Mark | None:
    """Refuse nesting deeper than MAX_DEPTH before composing, which recurses once per
    level (PyYAML's C loader segfaults, the pure one overflows the stack, at ~10k).
    The pure-Python scanner is iterative, so counting its tokens is safe. Flow-mapping
    pairs inside ``[...]`` and indentless lists add no token, so real depth can be
    up to 2x this: still far from the recursion limit. Returns the mark of the token
    that went too deep, or None; raises PyYAML's scanner errors."""
    token = _first_too_deep(yaml.scan(text, Loader=yaml.SafeLoader))
    return None if token is None else _mark_of(token.start_mark)


def _first_too_deep(tokens: Iterator[yaml.Token], stop_at: tuple[type, ...] = ()) -> yaml.Token | None:
    """The first of ``tokens`` that opens a level deeper than MAX_DEPTH or is of a kind in
    ``stop_at``; None when there is none (either scanner's tokens: the pure one's or libyaml's)."""
    depth = 0
    for token in tokens:
        if isinstance(token, _OPENERS):
            depth += 1
            if depth > MAX_DEPTH:
                return token
        elif isinstance(token, _CLOSERS):
            depth -= 1
        elif isinstance(token, stop_at):
            return token
    return None


class _Builder:
    """Walks the composed node tree into plain values, recording marks and problems.

    Aliases stay shared in the node tree; every visit (including each repeat of an
    aliased node) counts against MAX_NODES, so alias bombs stop after a bounded
    amount of work. Recursion is bounded by MAX_DEPTH."""

    def __init__(self, name: str, alias_marks: dict[tuple[int, int], _YamlMark]):
        self.name = name
        self.alias_marks = alias_marks
        self.problems: list[Problem] = []
        self.reported: set[tuple[int, str]] = set()  # (node id, message): report a shared node once
        self.marks: dict[YamlPath, Mark] = {}
        self.key_marks: dict[YamlPath, Mark] = {}
        self.scalars: dict[YamlPath, Scalar] = {}
        self.visited = 0
        self.active: set[int] = set()  # ids of collections being built: an alias to one is a cycle

    def error(self, node: Node, path: YamlPath, message: str) -> None:
        """Report a problem with the node's own text; once, even if aliases repeat it."""
        if (id(node), message) not in self.reported:
            self.reported.add((id(node), message))
            m = _mark_of(node.start_mark)
            self.problems.append(Problem(self.name, m.line, m.col, format_path(path), message))

    def stop(self, mark: Mark, path: YamlPath, message: str) -> NoReturn:
        raise _Stop(Problem(self.name, mark.line, mark.col, format_path(path), message))

    def child(self, parent: Node, position: int | Node, node: Node, path: YamlPath, depth: int) -> Any:
        """Build a list item or mapping value; if it was written as an alias, its
        mark is the alias ("*name"), not the anchored text."""
        key = (id(parent), position if isinstance(position, int) else id(position))
        at = self.alias_marks.get(key)
        return self.build(node, path, depth, _mark_of(at) if at is not None else None)

    def build(self, node: Node, path: YamlPath, depth: int, at: Mark | None = None) -> Any:
        here = at if at is not None else _mark_of(node.start_mark)
        self.visited += 1
        if self.visited > MAX_NODES:
            self.stop(
                here,
                path,
                f'the file expands to more than {MAX_NODES} values (each alias "*" '
                "repeats its anchor); use fewer aliases",
            )
        if depth > MAX_DEPTH:
            self.stop(here, path, _TOO_DEEP)
        self.marks[path] = here
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if id(node) in self.active:
            self.stop(here, path, "this alias refers to a list or mapping that contains it; remove the alias")
        kind = "list" if isinstance(node, SequenceNode) else "mapping"
        if node.tag not in (_SEQ, _MAP):
            self.error(node, path, _tag_message(node.tag))
        elif node.tag != (_SEQ if kind == "list" else _MAP):
            self.error(node, path, f"tag {_tag_name(node.tag)} does not fit a {kind}; remove it")
        self.active.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self.mapping(node, path, depth)
            return [self.child(node, i, item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        finally:
            self.active.discard(id(node))

    def scalar(self, node: ScalarNode, path: YamlPath) -> Any:
        text: str = node.value
        self.scalars[path] = Scalar(text, not node.style)  # plain: None, or '' from libyaml
        tag = node.tag
        if tag == _STR:
            return text
        if tag == _PLAIN_TAG or tag in (_INT, _FLOAT, _BOOL, _NULL):
            value, message = _resolve_plain(text)
            if message is None and tag != _PLAIN_TAG:
                # An explicit standard tag only confirms what the strict rules read.
                wanted = {_INT: (int,), _FLOAT: (int, float), _BOOL: (bool,), _NULL: (type(None),)}[tag]
                if not isinstance(value, wanted) or (tag != _BOOL and isinstance(value, bool)):
                    message = f'"{text}" is not a valid {_tag_name(tag)} value; fix the value or remove the tag'
                elif tag == _FLOAT and isinstance(value, int):
                    value = float(value)
            if message is not None:
                self.error(node, path, message)
            return value
        self.error(node, path, _tag_message(tag))
        return text

    def key(self, node: Node, path: YamlPath) -> str | None:
        """The text of a mapping key, or None (after reporting) if it is not text."""
        self.visited += 1  # keys are built too; count them against the budget
        if not isinstance(node, ScalarNode):
            self.error(node, path, 'a key must be text, not a list or mapping; write a plain name before the ":"')
            return None
        text: str = node.value
        if node.tag == _STR:
            return text
        if node.tag == _PLAIN_TAG:
            value, problem = _resolve_plain(text)
            if isinstance(value, str):
                return text
            if text == "":
                self.error(node, path, 'a key is empty; write a name before the ":"')
            else:
                what = f"reads as {_describe(value)}" if problem is None else "would not be read as text"
                self.error(node, path, f'key {text} {what}; quote it as "{text}"')
            return None
        self.error(node, path, f'key "{text}" has tag {_tag_name(node.tag)}; keys must be text, remove the tag')
        return None

    def mapping(self, node: MappingNode, path: YamlPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first: dict[str, Mark] = {}
        for key_node, value_node in node.value:
            key = self.key(key_node, path)
            if key is None:
                continue
            key_mark = _mark_of(key_node.start_mark)
            if key == "<<" and not key_node.style:
                self.error(key_node, path, 'merge keys "<<" are not supported; write the fields out in full')
                continue
            if key in first:
                self.error(
                    key_node,
                    path + (key,),
                    f'duplicate key "{key}" (first at line {first[key].line}); remove one of them',
                )
                continue
            first[key] = key_mark
            self.key_marks[path + (key,)] = key_mark
            result[key] = self.child(node, key_node, value_node, path + (key,), depth + 1)
        return result


def _file_problem(name: str, mark: Mark, message: str) -> Problem:
    return Problem(name, mark.line, mark.col, "", message)


def _decode(data: bytes, name: str) -> str | Problem:
    """Bytes -> text; strips a UTF-8 BOM silently (see module docstring)."""
    offset = 0
    if data.startswith(codecs.BOM_UTF8):
        data, offset = data[len(codecs.BOM_UTF8) :], len(codecs.BOM_UTF8)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _file_problem(name, Mark(1, 1), "the file is saved as UTF-16; save it as UTF-8 instead")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", errors="replace")
        return _file_problem(
            name,
            _mark_at(before, len(before)),
            f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02X} at byte offset {exc.start + offset}); "
            "save it as UTF-8",
        )
    bad = _NON_PRINTABLE.search(text)
    if bad:
        return _file_problem(
            name,
            _mark_at(text, bad.start()),
            f"control character U+{ord(bad.group()):04X} is not allowed in YAML; delete it",
        )
    return text


def _load_text(text: str, name: str, root: str) -> tuple[Document | None, list[Problem]]:
    fast = _compose_fast(text)
    alias_marks: dict[tuple[int, int], _YamlMark] = {}  # none: the fast path takes no aliases
    try:
        if fast is not None:
            node: Node | None = fast
        else:
            too_deep = _check_depth(text)
            if too_deep is not None:
                return None, [_file_problem(name, too_deep, _TOO_DEEP)]
            loader = _Loader(text)
            try:
                node = loader.get_single_node()
            finally:
                loader.dispose()
            alias_marks = loader.alias_marks
    except MarkedYAMLError as exc:
        mark, message = _syntax_message(exc, text)
        return None, [_file_problem(name, mark, message)]
    except yaml.YAMLError as exc:  # ReaderError etc.: not expected after _decode, but never escape
        return None, [_file_problem(name, Mark(1, 1), f"the file cannot be read as YAML ({exc}); fix or re-save it")]

    wanted = f'a mapping with a top-level "{root}:" key'
    # No document (empty, blank or only comments), or a lone "---".
    if node is None or (isinstance(node, ScalarNode) and node.tag == _PLAIN_TAG and node.value == ""):
        return None, [_file_problem(name, Mark(1, 1), f"the file is empty; it must be {wanted}")]
    builder = _Builder(name, alias_marks)
    try:
        value = builder.build(node, (), 0)
    except _Stop as stop:
        return None, builder.problems + [stop.problem]
    problems = builder.problems
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else "a single value"
        problems.append(
            _file_problem(
                name, _mark_of(node.start_mark), f'the file must be {wanted}, not {kind}; start it with "{root}:"'
            )
        )
    elif root not in value:
        close = difflib.get_close_matches(root, [k for k in value if isinstance(k, str)], n=1)
        hint = f'rename "{close[0]}" to "{root}"' if close else f'add "{root}:" at the start of a line'
        problems.append(
            _file_problem(name, _mark_of(node.start_mark), f'the top-level key "{root}" is missing; {hint}')
        )
    if problems:
        return None, problems
    return Document(name, value, builder.marks, builder.key_marks, builder.scalars), []


def load_bytes(data: bytes, name: str, *, root: str) -> tuple[Document | None, list[Problem]]:
    """Load the bytes of one data file shown to editors as ``name``.

    Returns ``(document, [])`` on success, or ``(None, problems)`` with at least one
    error. ``root`` is the top-level key the file must have (e.g. ``"gpus"``).
    Never raises."""
    try:
        if len(data) > MAX_BYTES:
            return None, [
                _file_problem(
                    name,
                    Mark(1, 1),
                    f"the file is larger than {MAX_BYTES // (1024 * 1024)} MiB; split it into smaller files",
                )
            ]
        text = _decode(data, name)
        if isinstance(text, Problem):
            return None, [text]
        return _load_text(text, name, root)
    except (RecursionError, MemoryError):
        return None, [
            _file_problem(name, Mark(1, 1), "the file is nested too deeply or is too large to load; simplify it")
        ]
    except Exception as exc:  # last resort: a bug here must not hide the editor's other problems
        return None, [
            _file_problem(
                name,
                Mark(1, 1),
                f"internal error while loading this file ({type(exc).__name__}: {exc}); please report it",
            )
        ]


class ParseMemo:
    """Loaded files by their name, root key and bytes, so a long-lived process (``gpu-guide serve``)
    parses again only the files whose bytes changed since the last load.

    A file's load is a function of exactly those three, so a remembered result is the result a
    fresh load would give. Callers must not change a remembered :class:`Document` (nothing does:
    validation reads ``Document.value`` and builds new records)."""

    def __init__(self) -> None:
        self._loaded: dict[tuple[str, str, bytes], tuple[Document | None, list[Problem]]] = {}

    def load(self, data: bytes, name: str, root: str) -> tuple[Document | None, list[Problem]]:
        """:func:`load_bytes`, once per distinct (name, root, content); a changed file replaces its entry."""
        key = (name, root, hashlib.sha256(data).digest())
        found = self._loaded.get(key)
        if found is None:
            # one entry per file name and root: the old bytes' entry goes, so the memo does not grow
            for old in [k for k in self._loaded if k[:2] == key[:2]]:
                del self._loaded[old]
            found = self._loaded[key] = load_bytes(data, name, root=root)
        doc, problems = found
        return doc, list(problems)


def load_file(
    path: Path, name: str, *, root: str, memo: ParseMemo | None = None
) -> tuple[Document | None, list[Problem]]:
    """Read ``path`` and load it like :func:`load_bytes`; an unreadable file is a problem,
    not an exception. Reads at most MAX_BYTES + 1 bytes, so huge files cost nothing.
    ``memo``: reuse the load of a file whose bytes did not change (:class:`ParseMemo`)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, [
            _file_problem(
                name, Mark(1, 1), f"cannot read the file ({exc.strerror or exc}); check that it exists and is readable"
            )
        ]
    return memo.load(data, name, root) if memo is not None else load_bytes(data, name, root=root)
