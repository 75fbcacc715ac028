"""JavaScript without its comments, code kept byte for byte and on the same lines.

The calculator's bundle (:mod:`generator.publish.bundle`) is the engine's modules as written,
and a quarter of their bytes are maintainers' notes: JSDoc blocks and ``//`` lines, about 12 KB
of the calculator page's first view after gzip. :func:`without_comments` drops them and nothing
else: every other character stays where it was, a comment that spanned lines leaves its line
breaks behind (so an error's line number in the bundle still points at the same line of
code), and one on a single line inside code becomes one space (``a/**/b`` must not become
``ab``). No renaming, no minifying: the code that runs is still the code the parity tests run.

It is a small lexer, not a parser. It knows the places where ``//`` and ``/*`` do not start a
comment: strings, template literals (with ``${…}`` nested to any depth) and regular-expression
literals. Whether a ``/`` starts a regular expression or divides is decided as JavaScript's own
grammar mostly does it, by the token before it: after a value (a name, a number, a string, ``)``
or ``]``) it divides, after an operator, an opening bracket or a keyword such as ``return`` it
starts a pattern. The engine's code keeps to that reading; anything it cannot close (a string
or template left open at the end) is an error rather than a guess.
"""

from __future__ import annotations

import re

#: keywords after which a ``/`` starts a regular expression rather than dividing
_EXPRESSION_KEYWORDS = frozenset(
    [
        "return",
        "typeof",
        "instanceof",
        "in",
        "of",
        "new",
        "delete",
        "void",
        "throw",
        "case",
        "do",
        "else",
        "yield",
        "await",
    ]
)
_WORD = re.compile(r"[\w$#\u0080-\uffff]+(?:\.\d+)?")


class JsLexError(ValueError):
    """The text ends inside a string, template literal, comment or regular expression."""


def without_comments(text: str) -> str:
    """``text`` with every comment removed as the module docstring says."""
    out: list[str] = []
    i, n = 0, len(text)
    # What each open brace belongs to: True for a template literal's ${, False for code.
    braces: list[bool] = []
    value_before = False  # the last token was a value, so a "/" divides

    def trim() -> None:
        # spaces and tabs before a removed comment are code's, never a string's
        while out and out[-1] in (" ", "\t"):  # whole items: out holds tokens, not only characters
            out.pop()

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            trim()
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise JsLexError(f"line {_line(text, i)}: a comment is never closed")
            breaks = text.count("\n", i, end)
            trim()
            i = end + 2
            if breaks:
                out.append("\n" * breaks)
            elif out and not out[-1][-1:].isspace() and i < n and not text[i].isspace():
                out.append(" ")
        elif c in "'\"":
            end = _string_end(text, i)
            out.append(text[i:end])
            i, value_before = end, True
        elif c == "`" or (c == "}" and braces and braces[-1]):
            # a template literal's text: from its opening backtick, or from the } that closes a ${
            if c == "}":
                braces.pop()
            end, closed = _template_part(text, i + 1)
            out.append(text[i:end])
            i = end
            if closed:
                value_before = True
            else:
                braces.append(True)
                value_before = False
        elif c == "/" and not value_before:
            end = _regex_end(text, i)
            out.append(text[i:end])
            i, value_before = end, True
        else:
            word = _WORD.match(text, i)
            if word:
                out.append(word.group(0))
                i = word.end()
                value_before = word.group(0) not in _EXPRESSION_KEYWORDS
                continue
            out.append(c)
            i += 1
            if c == "{":
                braces.append(False)
            elif c == "}" and braces:
                braces.pop()
            value_before = c in ")]"
    return "".join(out)


def _line(text: str, at: int) -> int:
    """The 1-based line of character ``at``, for messages."""
    return text.count("\n", 0, at) + 1


def _string_end(text: str, start: int) -> int:
    quote, i = text[start], start + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == quote:
            return i + 1
        elif c == "\n":
            break
        else:
            i += 1
    raise JsLexError(f"line {_line(text, start)}: a string is not closed on its line")


def _template_part(text: str, start: int) -> tuple[int, bool]:
    """The end of a template literal's text from ``start``: after its closing backtick (True)
    or after a ``${`` that opens a substitution (False)."""
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1, True
        elif text.startswith("${", i):
            return i + 2, False
        else:
            i += 1
    raise JsLexError(f"line {_line(text, start - 1)}: a template literal is never closed")


def _regex_end(text: str, start: int) -> int:
    i, in_class = start + 1, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            break
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "/":
            i += 1
            while i < len(text) and (text[i].isalnum() or text[i] in "_$"):
                i += 1
            return i
        i += 1
    raise JsLexError(f"line {_line(text, start)}: a regular expression is not closed on its line")
