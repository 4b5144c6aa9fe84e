"""The rules pages' diagrams, proved with the rules engines.

Each rules page is rendered by the application, as a visitor's browser gets it, and its figures are
read back from the HTML: every ``<figure class="diagram">`` holds one board (a position) or two (before
and after a move, the move in the caption's ``<span class="move">``), each board being the JSON view
that the browser draws. For every figure with a move, the "before" board is built as an engine
state, the move is played with ``parse_move`` and ``apply``, and the engine's view of the result must
show the "after" board: the board's kind and side, every cell's stack (on Exxit's field also its tile,
or that it holds prisoners off the field), the last move's text and highlighted cells, and the move
written as the site writes it (``format_move``).

Whose turn it is: a diagram does not say, and the "before" board alone cannot always tell (a
Valaturna placement or an Exxit liberation can be either colour's). So each figure's position is
built once for each colour, and exactly one of them must make the move legal and give the "after"
board; that colour is the figure's mover. Everything else a diagram cannot show (seats, pie, passes,
history, reserves, stock) takes the ordinary mid-game values of ``games.positions``.

The templates describe each figure as a position and a move, and the template global ``diagram``
has the engine compute the "after" board and the move's text; the templates are read too, so that
a board written by hand in one of them fails here. A figure of a position alone is checked to be a
position the engine builds back.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest
from jinja2 import nodes

import games
from app.config import Settings
from app.main import create_app
from app.templating import TEMPLATES_DIR, diagram, templates
from games import harmijan
from games.base import token_order
from games.errors import IllegalMoveError
from games.hexgrid import direction_between, distance
from games.positions import LETTERS, position

View = dict[str, Any]

# --- the figures, as the pages show them ------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One ``<figure class="diagram">`` of a rules page: its boards, move text and caption."""

    slug: str
    number: int  # 1 for the page's first figure
    boards: tuple[View, ...]
    move: str | None
    caption: str


class _FigureReader(HTMLParser):
    """Collects the diagram figures of a page (the parser unescapes the ``data-view`` JSON)."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None
        self._in_caption = False
        self._in_move = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "figure" and "diagram" in classes:
            self._open = {"boards": [], "move": None, "caption": ""}
        elif self._open is None:
            return
        elif tag == "div" and "d-board" in classes:
            self._open["boards"].append(json.loads(dict(attrs)["data-view"] or "null"))
        elif tag == "figcaption":
            self._in_caption = True
        elif tag == "span" and "move" in classes and self._in_caption:
            self._in_move = True
            self._open["move"] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "figure" and self._open is not None:
            self.figures.append(self._open)
            self._open = None
        elif tag == "figcaption":
            self._in_caption = False
        elif tag == "span":
            self._in_move = False

    def handle_data(self, data: str) -> None:
        if self._open is None or not self._in_caption:
            return
        self._open["move" if self._in_move else "caption"] += data


def read_figures(slug: str, page: str) -> list[Figure]:
    """The diagram figures of one rendered rules page, in page order."""
    reader = _FigureReader()
    reader.feed(page)
    reader.close()
    return [
        Figure(slug, i, tuple(f["boards"]), f["move"], " ".join(f["caption"].split()).lstrip(": "))
        for i, f in enumerate(reader.figures, start=1)
    ]


def render_rules_pages() -> dict[str, str]:
    """Every rules page as the application serves it (no database is needed for them)."""
    settings = Settings(
        database_url="sqlite+aiosqlite:///:memory:",
        secret_key="rules-diagrams-test-secret-32-bytes",
    )
    app = create_app(settings)

    async def fetch() -> dict[str, str]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://hexmoot.test") as client:
            pages = {}
            for slug in games.names():
                response = await client.get(f"/rules/{slug}")
                response.raise_for_status()
                pages[slug] = response.text
            return pages

    return asyncio.run(fetch())


def figure_id(figure: Figure, taken: set[str]) -> str:
    """``valaturna-e6``; a second figure of the same move on a page gets ``#2`` and so on."""
    base = f"{figure.slug}-{figure.move or f'figure{figure.number}'}"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}#{n}"
    taken.add(name)
    return name


# Read at collection, so that each figure is a test of its own named after its move.
PAGES = render_rules_pages()
FIGURES = [figure for slug, page in PAGES.items() for figure in read_figures(slug, page)]
_TAKEN: set[str] = set()
MOVE_FIGURES = {figure_id(f, _TAKEN): f for f in FIGURES if f.move is not None}


def test_every_board_of_every_page_is_in_a_figure_of_one_position_or_one_move() -> None:
    for slug, page in PAGES.items():
        figures = [f for f in FIGURES if f.slug == slug]
        assert figures, f"the {slug} rules page shows no diagram"
        assert page.count('class="d-board"') == sum(len(f.boards) for f in figures), slug
        for f in figures:
            shape = (len(f.boards), f.move is not None)
            assert shape in ((1, False), (2, True)), f"{slug} figure {f.number}: {shape}"
            assert all(board["game"] == slug for board in f.boards), f"{slug} figure {f.number}"


# --- the templates ---------------------------------------------------------------------------------

RULES_TEMPLATES = TEMPLATES_DIR / "rules"


def template_tree(name: str) -> nodes.Template:
    """One rules template, parsed."""
    return templates.env.parse((RULES_TEMPLATES / name).read_text(encoding="utf-8"))


def template_calls(name: str, function: str) -> list[nodes.Call]:
    """The calls of ``function`` (a macro or global) in one rules template, in source order."""
    return [
        call
        for call in template_tree(name).find_all(nodes.Call)
        if isinstance(call.node, nodes.Name) and call.node.name == function
    ]


def test_no_template_writes_a_board_by_hand() -> None:
    """Boards reach a page only through ``figure(diagram(...))``: the macro writes the two boards
    that the engine computed, and each page's figures are exactly its calls of ``diagram``."""
    assert templates.env.globals["diagram"] is diagram
    macros = (RULES_TEMPLATES / "_macros.html").read_text(encoding="utf-8")
    assert macros.count("data-view=") == 2, "the figure macro writes a before and an after board"
    assert 'data-view="{{ views.before }}"' in macros
    assert 'data-view="{{ views.after }}"' in macros
    for slug in games.names():
        name = f"{slug}.html"
        source = (RULES_TEMPLATES / name).read_text(encoding="utf-8")
        for markup in ("data-view", "d-board", "<figure"):
            assert markup not in source, f"{name} writes {markup!r} by hand"
        tree = template_tree(name)
        # a figure's caption is its keyword, or the body of the {% call %} block it heads
        in_block = {id(b.call) for b in tree.find_all(nodes.CallBlock) if b.body}
        figures = [
            call
            for call in tree.find_all(nodes.Call)
            if isinstance(call.node, nodes.Name) and call.node.name == "figure"
        ]
        diagrams = template_calls(name, "diagram")
        for call in figures:
            (argument,) = call.args
            assert isinstance(argument, nodes.Call), f"{name}: figure() of no diagram() call"
            assert isinstance(argument.node, nodes.Name) and argument.node.name == "diagram", name
            keys = [kw.key for kw in call.kwargs]
            assert (keys == ["caption"]) != (id(call) in in_block), (
                f"{name}: figure(diagram, caption=...), or a call block of figure(diagram)"
            )
        assert len(diagrams) == len(figures), f"{name}: a diagram() outside figure()"
        assert len(figures) == sum(f.slug == slug for f in FIGURES), name
        for call in diagrams:
            keys = [kw.key for kw in call.kwargs]
            assert "to_move" in keys, f"{name}: a diagram says which colour moves"
        moves = [kw.value for call in diagrams for kw in call.kwargs if kw.key == "move"]
        assert len(moves) == sum(f.slug == slug and f.move is not None for f in FIGURES), name


# --- the engines' positions ---------------------------------------------------------------------

# The board's side is the option ``size`` of every game that has one; Exxit's field has none. Other
# options keep their defaults (Exxit's standard stock, Sgolte's standard variant), as in a game.
SEAT_COLOURS = {"exxit": ("red", "black")}  # every other game: black and white
LETTER = {colour: letter for letter, colour in LETTERS.items()}


def rules_for(board: View) -> games.Rules[Any, Any]:
    """The rules of the game drawn on ``board``, on a board of its side."""
    game, side = board["game"], board["board"]["side"]
    return games.get(game, **({} if side is None else {"size": side}))


def build(rules: games.Rules[Any, Any], board: View, colour: str) -> Any:
    """The engine's position drawn on ``board``, ``colour`` to move, as the rules package builds
    a described position (``games.positions.position``): the drawn stacks as letters, and on
    Exxit's field the drawn tiles."""
    stacks = {
        cell["id"]: "".join(LETTER[piece] for piece in cell["stack"])
        for cell in board["cells"]
        if cell["stack"]
    }
    tiles = None
    if board["board"]["kind"] == "field":
        tiles = {cell["id"]: LETTER[cell["tile"]] for cell in board["cells"] if "tile" in cell}
    return position(rules, stacks, colour, tiles)


# --- what a diagram shows ------------------------------------------------------------------------


def shown(view: Mapping[str, Any]) -> dict[str, Any]:
    """What a diagram shows that the engine decides: the board, each cell's stack and (on a field)
    tile or prisoners, and the last move with the cells it highlights (in any order). Other marks
    (territory, captured points) are display aids that the rules diagrams do not draw."""
    last = view["last_move"]
    if last is not None:
        last = {"text": last["text"], "cells": sorted(last["cells"], key=token_order)}
    return {
        "board": view["board"],
        "cells": {
            c["id"]: {
                "q": c["q"],
                "r": c["r"],
                "stack": c["stack"],
                "tile": c.get("tile"),
                "prisoners": c.get("mark") == "prisoner",
            }
            for c in view["cells"]
        },
        "last_move": last,
    }


def _describe(cell: Mapping[str, Any] | None) -> str:
    if cell is None:
        return "no cell"
    words = ["".join(p[0].upper() for p in cell["stack"]) or "empty"]
    if cell["tile"]:
        words.append(f"on a {cell['tile']} tile")
    if cell["prisoners"]:
        words.append("prisoners off the field")
    return " ".join(words)


def differences(diagram: Mapping[str, Any], engine: Mapping[str, Any]) -> list[str]:
    """Where the engine's result and the diagram disagree, one line each (stacks bottom to top)."""
    lines = [
        f"{key}: diagram {diagram[key]}, engine {engine[key]}"
        for key in ("board", "last_move", "text")
        if diagram[key] != engine[key]
    ]
    for cell in sorted(diagram["cells"].keys() | engine["cells"].keys(), key=token_order):
        d, e = diagram["cells"].get(cell), engine["cells"].get(cell)
        if d != e:
            lines.append(f"{cell}: diagram {_describe(d)}, engine {_describe(e)}")
    return lines


# --- the proof ------------------------------------------------------------------------------------


@pytest.mark.parametrize("figure", MOVE_FIGURES.values(), ids=MOVE_FIGURES.keys())
def test_the_engine_plays_the_figure_s_move_to_its_after_board(figure: Figure) -> None:
    before, after = figure.boards
    assert figure.move is not None
    rules = rules_for(before)
    expected = {**shown(after), "text": figure.move}
    results: dict[str, dict[str, Any] | str] = {}
    for colour in SEAT_COLOURS.get(figure.slug, ("black", "white")):
        state = build(rules, before, colour)
        rules.check_invariants(state)
        assert shown(rules.view(state)) == shown(before), f"{colour}: built a different position"
        try:
            move = rules.parse_move(state, figure.move)
            result = rules.apply(state, move)
        except IllegalMoveError as exc:
            results[colour] = f"illegal: {exc}"
            continue
        results[colour] = {**shown(rules.view(result)), "text": rules.format_move(state, move)}
    movers = [colour for colour, result in results.items() if result == expected]
    report = [f"{figure.slug} figure {figure.number}, {figure.move!r}: {figure.caption}"]
    for colour, result in results.items():
        found = result if isinstance(result, str) else "; ".join(differences(expected, result))
        report.append(f"  {colour} to move: {found or 'the after board'}")
    assert len(movers) == 1, "\n".join(report)


def test_every_figure_shows_first_a_position_that_the_engine_builds_back() -> None:
    for figure in FIGURES:
        before = figure.boards[0]
        rules = rules_for(before)
        for colour in SEAT_COLOURS.get(figure.slug, ("black", "white")):
            state = build(rules, before, colour)
            rules.check_invariants(state)
            where = f"{figure.slug} figure {figure.number}, {colour} to move"
            assert shown(rules.view(state)) == shown(before), where


# --- the rules' anchors -----------------------------------------------------------------------------

GAMES_DIR = Path(games.__file__).resolve().parent


def cited_rules() -> dict[str, set[str]]:
    """The rule numbers each game's refusals cite, read from the rules package's source: every
    ``rule="..."`` of an error, and the second item of every tuple that the functions saying why a
    move is refused (``_why_illegal``, ``turn_fault``) return. The game page links each to
    ``/rules/<game>#<number>``."""
    found: dict[str, set[str]] = {slug: set() for slug in games.names()}
    for path in GAMES_DIR.rglob("*.py"):
        slug = path.relative_to(GAMES_DIR).parts[0].removesuffix(".py")
        if slug not in found:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "rule":
                assert isinstance(node.value, ast.Constant), f"{path}: a rule that is not a literal"
                found[slug].add(node.value.value)
            if isinstance(node, ast.FunctionDef) and node.name in ("_why_illegal", "turn_fault"):
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple):
                        number = ret.value.elts[1]
                        assert isinstance(number, ast.Constant), f"{path}: {node.name}"
                        found[slug].add(number.value)
    return found


RULE_ANCHORS = cited_rules()


class _Ids(HTMLParser):
    """Every ``id`` of a page, and the ``href`` of every ``a.rule-no``."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.rule_links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"] or "")
        if tag == "a" and "rule-no" in (a.get("class") or "").split():
            self.rule_links.append(a.get("href") or "")


def test_every_rule_a_refusal_cites_has_its_anchor_on_the_game_s_rules_page() -> None:
    assert RULE_ANCHORS["jotun"] >= {"A3", "A7", "A12", "4.2"}, "the source scan found no rules"
    for slug, page in PAGES.items():
        ids = _Ids()
        ids.feed(page)
        duplicates = {i for i in ids.ids if ids.ids.count(i) > 1}
        assert not duplicates, f"{slug}: ids used twice: {duplicates}"
        missing = RULE_ANCHORS[slug] - set(ids.ids)
        assert not missing, f"/rules/{slug} has no anchor for rules {sorted(missing)}"
        broken = {href for href in ids.rule_links if href.removeprefix("#") not in ids.ids}
        assert not broken, f"/rules/{slug} links to rules it has not: {broken}"


def test_every_jotun_figure_cites_the_rules_it_shows() -> None:
    for figure in FIGURES:
        if figure.slug == "jotun":
            assert re.search(r"\b(A\d+|4\.\d)\b", figure.caption), figure.caption


# --- Jotun's worked moves -----------------------------------------------------------------------------


def move_kinds(before: View, after: View) -> set[str]:
    """What a Jotun figure shows, as the engine played it: a placement, a straight run (no jump,
    no turn, no other stack changed), a jump, a turn, feeding (a stack off the path one piece higher
    in its colour), eating (an enemy stack one piece lower), being eaten (the mover changed colour).
    The path is the engine's: the after board's last move, origin first."""
    rules = rules_for(before)
    state = build(rules, before, "black")
    move = rules.parse_move(state, after["last_move"]["text"])
    result = rules.apply(state, move)
    old, new = rules.stacks(state), rules.stacks(result)
    last = rules.view(result)["last_move"]
    assert last is not None
    path = list(last["cells"])
    at = [(c["q"], c["r"]) for name in path for c in before["cells"] if c["id"] == name]
    kinds: set[str] = set()
    if len(path) == 1:
        return {"placement"}
    directions = [direction_between(a, b) for a, b in itertools.pairwise(at)]
    jumps = any(distance(a, b) > 1 for a, b in itertools.pairwise(at))
    changed = {c for c in old.keys() | new.keys() if c not in path and old.get(c) != new.get(c)}
    if jumps:
        kinds.add("jump")
    if len(set(directions)) > 1:
        kinds.add("turn")
    if not jumps and len(set(directions)) == 1 and not changed:
        kinds.add("straight run")
    for cell in changed:
        if new.get(cell, "") == old[cell] + old[cell][-1]:
            kinds.add("feeding")
        elif new.get(cell, "") == old[cell][:-1] or new.get(cell, "")[1:] == old[cell]:
            kinds.add("eating" if new.get(cell, "") == old[cell][:-1] else "being eaten")
    return kinds


def test_jotun_teaches_each_kind_of_move_with_a_figure() -> None:
    shown: set[str] = set()
    for figure in FIGURES:
        if figure.slug == "jotun" and figure.move is not None:
            shown |= move_kinds(*figure.boards)
    wanted = {"placement", "straight run", "jump", "turn", "feeding", "eating", "being eaten"}
    assert shown >= wanted, f"no figure of {sorted(wanted - shown)}"


def test_a_jotun_figure_s_before_board_marks_the_engine_s_path() -> None:
    for figure in FIGURES:
        if figure.slug != "jotun" or figure.move is None:
            continue
        before, after = figure.boards
        path = after["last_move"]["cells"]
        marks = {c["id"]: c["mark"] for c in before["cells"] if "mark" in c}
        where = f"jotun figure {figure.number}, {figure.move}"
        assert marks[path[-1]] == "path-to", where
        if len(path) > 1:
            assert marks[path[0]] == "path-from", where
            assert {marks[c] for c in path[1:-1]} <= {"path-step", "path-turn"}, where
        jumped = set(marks) - set(path)
        assert {marks[c] for c in jumped} <= {"path-jump"}, where
        assert all(c["stack"] for c in before["cells"] if c["id"] in jumped), where


# --- Harmijan's scoring examples ------------------------------------------------------------------

#: The shapes the scoring examples name, by the name the page gives a class of them.
SHAPE_NAMES: dict[tuple[tuple[int, int], ...], str] = {
    harmijan.canon(cells): name
    for name, cells in {
        "single stones": [(0, 0)],
        "dominoes": [(0, 0), (1, 0)],
        "triangles": [(0, 0), (1, 0), (0, 1)],
        "straight lines of 3": [(0, 0), (1, 0), (2, 0)],
        "zigzags of 4": [(0, 0), (1, 0), (1, 1), (2, 1)],
        "rhombuses of 4": [(0, 0), (0, 1), (1, 0), (1, 1)],
        "trapezoids of 5": [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)],
    }.items()
}
_CLASS = re.compile(r"^(\d+) ([a-z0-9 ]+): \((\d+) \+ 1\) \u00d7 (\d+) = (\d+)$")


def parse_class(text: str) -> tuple[int, str, int] | None:
    """A table cell of a scoring example, ``2 zigzags of 4: (2 + 1) \u00d7 4 = 12`` (a
    multiplication sign), as (count, shape name, value); ``none: 0`` is None. AssertionError if the
    arithmetic is wrong."""
    text = " ".join(text.split())
    if text == "none: 0":
        return None
    m = _CLASS.match(text)
    assert m, f"not a class: {text!r}"
    count, name, k, size, value = m.groups()
    assert count == k and (int(k) + 1) * int(size) == int(value), text
    shape = next(shape for shape, known in SHAPE_NAMES.items() if known == name)
    assert len(shape) == int(size), text
    return int(count), name, int(value)


def ended(state: harmijan.State) -> harmijan.State:
    """The position as the game ended there (the state the engine scores)."""
    return dataclasses.replace(state, phase="over", reason="no-moves")


class _Scoring(HTMLParser):
    """Each ``div.scoring`` of a page: its figure's board, its table's cells, its verdict."""

    def __init__(self) -> None:
        super().__init__()
        self.examples: list[dict[str, Any]] = []
        self._depth = 0
        self._cell: list[str] | None = None
        self._verdict = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "div" and "scoring" in classes:
            self.examples.append({"boards": [], "rows": [], "verdict": ""})
            self._depth = 1
        elif not self._depth:
            return
        elif tag == "div":
            self._depth += 1
            if "d-board" in classes:
                self.examples[-1]["boards"].append(json.loads(a["data-view"] or "null"))
        elif tag == "tr":
            self.examples[-1]["rows"].append([])
        elif tag == "td":
            self._cell = []
        elif tag == "p" and "score-result" in classes:
            self._verdict = True

    def handle_endtag(self, tag: str) -> None:
        if not self._depth:
            return
        if tag == "div":
            self._depth -= 1
        elif tag == "td" and self._cell is not None:
            self.examples[-1]["rows"][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "p":
            self._verdict = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._verdict:
            self.examples[-1]["verdict"] += data


def test_harmijan_scoring_examples_agree_with_the_engine_s_score() -> None:
    reader = _Scoring()
    reader.feed(PAGES["harmijan"])
    assert len(reader.examples) >= 2
    for n, example in enumerate(reader.examples, start=1):
        (board,) = example["boards"]
        rules = rules_for(board)
        state = build(rules, board, "black")
        classes = {c: rules.classes(state.stones[i]) for i, c in enumerate(("black", "white"))}
        rows = [row for row in example["rows"] if row]
        assert len(rows) == max(len(found) for found in classes.values()), f"example {n}"
        for r, row in enumerate(rows):
            for colour, text in zip(("black", "white"), row, strict=True):
                found = classes[colour]
                expected = None
                if r < len(found):
                    expected = (found[r].count, SHAPE_NAMES[found[r].shape], found[r].value)
                assert parse_class(text) == expected, f"example {n}, {colour}: {text}"
        outcome = rules.outcome(ended(state))
        assert outcome is not None and outcome.scores is not None
        verdict = " ".join(example["verdict"].split())
        black, white = outcome.scores  # Black on seat 1 (games.positions)
        assert verdict.startswith(
            f"Black [{', '.join(map(str, black))}] against White [{', '.join(map(str, white))}]"
        ), verdict
        winner = "draw" if outcome.colour is None else f"{outcome.colour.capitalize()} wins"
        assert winner in verdict, verdict
        scored = {
            cell
            for found in classes.values()
            for k in found
            for creature in k.to_json(rules.board)["creatures"]
            for cell in creature
        }
        marked = {c["id"] for c in board["cells"] if c.get("mark") == "scored"}
        assert marked == scored, f"example {n}: the outlined creatures are not the scoring ones"
