"""nginx's configuration syntax read as data, enough for deploy/nginx.conf: each directive with its
arguments (quotes removed) and, for a block, the directives inside it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TOKEN = re.compile(r"""#[^\n]*|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|([^\s{};"'#]+)""")


@dataclass
class Directive:
    name: str
    args: list[str]
    block: list[Directive] = field(default_factory=list)


def parse(text: str) -> list[Directive]:
    """The top-level directives of ``text``."""
    stack: list[list[Directive]] = [[]]
    words: list[str] = []
    for match in TOKEN.finditer(text):
        double, single, punctuation, bare = match.groups()
        if punctuation == ";":
            stack[-1].append(Directive(words[0], words[1:]))
            words = []
        elif punctuation == "{":
            directive = Directive(words[0], words[1:])
            stack[-1].append(directive)
            stack.append(directive.block)
            words = []
        elif punctuation == "}":
            assert not words, f"unterminated directive {words}"
            stack.pop()
        elif double is not None or single is not None or bare is not None:
            words.append(next(w for w in (double, single, bare) if w is not None))
    assert len(stack) == 1 and not words, "unbalanced braces"
    return stack[0]


def find(directives: list[Directive], name: str, *args: str) -> Directive:
    """The one directive called ``name`` whose arguments start with ``args``."""
    found = [d for d in directives if d.name == name and d.args[: len(args)] == list(args)]
    assert len(found) == 1, f"{len(found)} directives {name} {' '.join(args)}"
    return found[0]


def value(directives: list[Directive], name: str) -> list[str]:
    """The arguments of the one directive called ``name``."""
    return find(directives, name).args


def seconds(text: str) -> float:
    """An nginx time (``150s``, ``2m``, ``500ms``, ``60``) in seconds."""
    match = re.fullmatch(r"(\d+)(ms|s|m|h)?", text)
    assert match, text
    return int(match[1]) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[match[2]]
