"""Pictures (`game.svg`, `POST /v1/games/{game}/render`, `referee render`, the README's gallery): each
picture parsed as XML and held to the engine — every element a move names carries its notation, every
legal move's target is marked, the marks of the last move are exactly its effects, a viewer of Caesar!
sees no token of the other hand, a custom Hypnosia board is drawn as described — and the same bad-input
answers as every other route."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest

import referee
from helpers.hypnosia_boards import CUSTOM_BOARDS
from helpers.inprocess import post
from referee import cli
from referee.pictures import gallery
from referee.pictures.hypnosia import board_description

ROOT = Path(__file__).resolve().parents[2]
SETUPS = {
    "iago": [{}, {"variant": "loose"}, {"variant": "simple"}, {"options": {"penalty": True}}],
    "isaac": [{}, {"options": {"first_player": "white"}}],
    "hypnosia": [{}, {"options": {"players": 3}}, {"options": {"players": 6, "doubles_cross_bridges": False}}],
    "caesar": [{}],
}


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("data-game")
    return root


def with_attribute(root: ET.Element, name: str) -> list[ET.Element]:
    return [element for element in root.iter() if element.get(name) is not None]


def classes(element: ET.Element) -> set[str]:
    return set((element.get("class") or "").split())


def marked(root: ET.Element, name: str, mark: str) -> set[str]:
    """The values of attribute `name` on the elements that carry the class `mark`."""
    return {element.get(name) for element in with_attribute(root, name) if mark in classes(element)}


def played_games(name: str, games: int = 2, plies: int = 400):
    """(game, state before, move, result) along seeded random games of every setup."""
    for setup in SETUPS[name]:
        game = referee.game(name, **setup)
        for number in range(games):
            rng, state = random.Random(number), game.new(seed=number)
            for _ in range(plies):
                moves = game.legal_moves(state)
                if not moves:
                    break
                move = rng.choice(moves)
                result = game.play(state, move)
                yield game, state, move, result
                state = result["state"]


def sampled(name: str, every: int = 7):
    for number, item in enumerate(played_games(name)):
        if number % every == 0:
            yield item


# ------------------------------------------------------------------ what each element names


def test_iago_every_cell_is_named_and_every_legal_cell_marked() -> None:
    cells = {cell["cell"] for cell in referee.game("iago").info()["board"]["cells"]}
    for game, state, move, result in sampled("iago"):
        root = parse(game.svg(result["state"], legal=True))
        assert {element.get("data-cell") for element in with_attribute(root, "data-cell")} == cells
        assert marked(root, "data-cell", "legal") == set(game.legal_moves(result["state"]))


def test_iago_marks_are_the_effects_of_the_move() -> None:
    seen = {"captured": 0, "released": 0}
    for game, state, move, result in played_games("iago", games=1):
        effects = result["effects"]
        root = parse(game.svg(state, move=move))
        assert marked(root, "data-cell", "last") == {move}
        assert marked(root, "data-cell", "captured") == set(effects["captured"])
        assert marked(root, "data-cell", "released") == set(effects["released"])
        seen["captured"] += bool(effects["captured"])
        seen["released"] += bool(effects["released"])
    assert seen["captured"] > 10 and seen["released"] > 3


def test_iago_discs_are_the_board() -> None:
    game = referee.game("iago")
    # e6 b between d6 W and f6 W, e7 w between e6 b and e8 B: as captures leave them.
    state = game.parse_position("...../....../......./.....W../...B.bwB./....W.../......./....../..... b")
    root = parse(game.svg(state))
    discs = {element.get("data-owner") + ":" + element.get("data-face") for element in with_attribute(root, "data-face")}
    assert discs == {"black:up", "white:up", "black:captive", "white:captive"}
    cell_of = {e.get("data-cell"): e for e in with_attribute(root, "data-cell")}
    assert cell_of["e4"].find("{*}circle[@data-face='up']").get("data-owner") == "black"
    assert cell_of["e6"].find("{*}circle[@data-face='captive']").get("data-owner") == "black"


def test_isaac_cells_pieces_markers_and_legal_marks() -> None:
    for game, state, move, result in sampled("isaac", every=5):
        after = result["state"]
        root = parse(game.svg(after, legal=True))
        assert len({e.get("data-cell") for e in with_attribute(root, "data-cell")}) == 100
        pieces = {(e.get("data-player"), e.get("data-piece")) for e in with_attribute(root, "data-piece")}
        assert pieces == {(player, piece) for player, placed in after["pieces"].items() for piece in placed}
        legal = game.legal_moves(after)
        assert marked(root, "data-piece", "legal") == {m[1:].split("+")[0] for m in legal if m.startswith("x")}
        ends = {end for m in legal if not m.startswith("x") and m != "pass" for end in m.split("-")}
        assert marked(root, "data-cell", "legal") == ends
        markers = {e.get("data-marker"): int(e.get("data-score")) for e in with_attribute(root, "data-marker")}
        assert markers == {p: s for p, s in after["scores"].items() if s < 100}


def test_isaac_marks_the_piece_placed_and_the_line_a_removal_scored() -> None:
    kinds = set()
    for game, state, move, result in played_games("isaac", games=1):
        effects = result["effects"]
        root = parse(game.svg(state, move=move))
        kinds.add(effects["kind"])
        placed = marked(root, "data-piece", "last")
        removed = {e.get("data-removed") for e in with_attribute(root, "data-removed")}
        lines = {e.get("data-line") for e in with_attribute(root, "data-line")}
        if effects["kind"] == "place":
            assert placed == {effects["piece"]} and not removed
        elif effects["kind"] == "remove":
            assert removed == {effects["piece"]} and not placed
            assert lines == {effects["line"].split(" ")[1]}
        else:
            assert not placed and not removed
    assert kinds == {"place", "remove", "pass"}


def hypnosia_spaces(state: dict) -> set[tuple[str, str | None]]:
    board = board_description(state, referee.game("hypnosia").info())
    spaces = {(f"{c}.{i}", None) for c, count in enumerate(board["circles"]) for i in range(count)}
    colours = list(state["pawns"])
    homes = {(f"h{d}", colour) for colour in colours for d in range(1, board["home_length"] + 1)}
    return spaces | homes | {("centre", None)}


def test_hypnosia_spaces_units_dice_and_movable_units() -> None:
    for game, state, move, result in sampled("hypnosia", every=9):
        after = result["state"]
        root = parse(game.svg(after, legal=True))
        spaces = {(e.get("data-space"), e.get("data-player")) for e in with_attribute(root, "data-space")}
        assert spaces == hypnosia_spaces(after)
        units = {(e.get("data-unit"), e.get("data-player"), int(e.get("data-pawns"))) for e in with_attribute(root, "data-unit")}
        expected = set()
        for player, locations in after["pawns"].items():
            for location in set(locations) - {"centre", "captured"}:
                expected.add((location, player, 1 if location.startswith("h") else locations.count(location)))
        assert units == expected
        assert sorted(int(e.get("data-die")) for e in with_attribute(root, "data-die")) == sorted(after["dice"] or [])
        starts = {m.split(" ")[0].lstrip("D").replace("^", "+").split("+")[0] for m in game.legal_moves(after) if m != "roll"}
        movable = {(e.get("data-unit"), e.get("data-player")) for e in with_attribute(root, "data-unit") if "legal" in classes(e)}
        assert movable == {(start, after["to_move"]) for start in starts}


def test_hypnosia_marks_the_die_moves_and_their_captures() -> None:
    captures = 0
    for game, state, move, result in played_games("hypnosia", games=1):
        moves = result["effects"]["moves"]
        if not moves:
            continue
        root = parse(game.svg(state, move=move))
        landed = marked(root, "data-space", "last") | marked(root, "data-space", "captured")
        assert landed == {m["to"] for m in moves}
        assert marked(root, "data-space", "captured") == {m["to"] for m in moves if m["captured"]}
        circle_starts = {m["from"] for m in moves if not m["from"].startswith("h")}
        assert circle_starts <= marked(root, "data-space", "from")
        captures += any(m["captured"] for m in moves)
    assert captures > 3


@pytest.mark.parametrize("board", CUSTOM_BOARDS)
def test_a_custom_hypnosia_board_is_drawn_as_described(board: str) -> None:
    description = CUSTOM_BOARDS[board]
    game = referee.game("hypnosia", options={"players": 6, "board": description})
    state = game.new(seed=1)
    root = parse(game.svg(state))
    assert {(e.get("data-space"), e.get("data-player")) for e in with_attribute(root, "data-space")} == hypnosia_spaces(state)
    assert sorted(e.get("data-bridge") for e in with_attribute(root, "data-bridge")) == \
        sorted(f"{b['from'][0]}.{b['from'][1]}" for b in description["bridges"])
    entries = {e.get("data-entry") for e in with_attribute(root, "data-entry")}
    assert entries == set(state["pawns"])
    assert len(with_attribute(root, "data-slot")) == len(description["centre_points"])


def test_a_hypnosia_board_given_by_name_is_the_published_default() -> None:
    info = referee.game("hypnosia").info()
    assert board_description({"options": {"board": "standard"}}, info) == info["board"]["default"]
    custom = CUSTOM_BOARDS["short"]
    assert board_description({"options": {"board": custom}}, info) is custom


def caesar_border_of(move: str, ids: dict[frozenset, str]) -> str:
    first, second = move.split("@")[1].split(" ")[0].split("-")
    return ids[frozenset((first, second))]


def test_caesar_provinces_borders_tokens_and_legal_marks() -> None:
    board = referee.game("caesar").info()["board"]
    ids = {frozenset(b["provinces"]): b["id"] for b in board["borders"]}
    for game, state, move, result in sampled("caesar", every=3):
        after = result["state"]
        root = parse(game.svg(after, legal=True))
        assert {e.get("data-province") for e in with_attribute(root, "data-province")} == {p["code"] for p in board["provinces"]}
        assert {e.get("data-border") for e in with_attribute(root, "data-border")} == set(ids.values())
        tokens = sorted((e.get("data-player"), e.get("data-token")) for e in with_attribute(root, "data-token"))
        assert tokens == sorted((p, t) for p, hand in after["hands"].items() for t in hand)
        on_board = {}
        for border in with_attribute(root, "data-border"):
            token = border.find("{*}rect[@data-token-on]")
            if token is not None:
                on_board[border.get("data-border")] = (token.get("data-player"), token.get("data-token-on"))
        assert on_board == {i: (b["player"], b["token"]) for i, b in after["borders"].items() if b}
        legal = game.legal_moves(after)
        assert marked(root, "data-border", "legal") == {caesar_border_of(m, ids) for m in legal}
        assert marked(root, "data-token", "legal") == {m.split("@")[0] for m in legal}
        bonuses = sorted(e.get("data-bonus") for e in with_attribute(root, "data-bonus"))
        assert bonuses == sorted(p["bonus"] for p in after["provinces"].values() if p["bonus"])


def test_caesar_marks_the_border_played_closures_markers_and_might() -> None:
    seen = {"closures": 0, "might": 0}
    for game, state, move, result in played_games("caesar"):
        effects = result["effects"]
        root = parse(game.svg(state, move=move))
        assert marked(root, "data-border", "last") == {effects["border"]}
        assert marked(root, "data-province", "closed") == {c["province"] for c in effects["closures"]}
        border_markers = {s for c in effects["closures"] for s in c["markers"] if "-" in s}
        assert marked(root, "data-border", "marker") == border_markers
        might = {c["choice"][2:] for c in effects["closures"] if (c["choice"] or "").startswith("M:")}
        assert marked(root, "data-border", "might") | marked(root, "data-province", "might") == might
        seen["closures"] += bool(effects["closures"])
        seen["might"] += bool(might)
    assert seen["closures"] > 10 and seen["might"] > 0


def test_a_caesar_viewer_never_sees_the_other_hand() -> None:
    game = referee.game("caesar")
    for _, state, move, result in sampled("caesar", every=5):
        after = result["state"]
        to_move = after["to_move"]
        if to_move is None:
            continue
        for viewer in ("caesar", "pompey"):
            other = "pompey" if viewer == "caesar" else "caesar"
            root = parse(game.svg(state, move=move, player=viewer, legal=True))
            hand = [e for e in root.iter() if e.get("data-hand") == other][0]
            faces = [e for e in hand.iter() if "hand-token" in classes(e)]
            assert len(faces) == len(after["hands"][other]) and all(e.get("data-token") is None for e in faces)
            assert not [e for e in with_attribute(root, "data-token") if e.get("data-player") == other]
            assert sorted(e.get("data-token") for e in with_attribute(root, "data-token")) == sorted(after["hands"][viewer])
            legal_marks = marked(root, "data-border", "legal") | marked(root, "data-token", "legal")
            assert bool(legal_marks) == (viewer == to_move)


# ------------------------------------------------------------------ options and bad input


def test_the_viewer_is_at_the_bottom_and_the_size_is_the_width() -> None:
    game = referee.game("iago")
    state = game.new()

    def y_of(svg: str, cell: str) -> float:
        element = next(e for e in with_attribute(parse(svg), "data-cell") if e.get("data-cell") == cell)
        return float(element.find("{*}polygon").get("points").split()[0].split(",")[1])

    assert y_of(game.svg(state), "a1") > y_of(game.svg(state), "i9")
    assert y_of(game.svg(state, player="white"), "a1") < y_of(game.svg(state, player="white"), "i9")
    root = parse(game.svg(state, size=200))
    assert root.get("width") == "200" and 150 < int(root.get("height")) < 250
    assert game.svg(state, legal=True) == game.svg(state, legal=True)  # the same bytes every time
    assert game.svg(game.position(state)) == game.svg(state)  # a position string is a state too


@pytest.mark.parametrize("name", referee.games())
def test_bad_input_is_the_engines_errors(name: str) -> None:
    game = referee.game(name)
    state = game.new(seed=1)
    with pytest.raises(referee.InvalidState):
        game.svg({**state, "rules": f"{name}@99"})
    with pytest.raises(referee.MalformedMove):
        game.svg(state, move="zz?")
    with pytest.raises(referee.UnknownPlayer):
        game.svg(state, player="nobody")
    with pytest.raises(ValueError):
        game.svg(state, size=10)


@pytest.mark.parametrize("name", referee.games())
def test_the_render_route_answers_the_embedding_apis_picture(client, name: str) -> None:
    game = referee.game(name)
    state = game.new(seed=3)
    move = game.legal_moves(state)[0]
    player = game.info()["players"][1]
    response = post(client, f"/v1/games/{name}/render", {"state": state, "move": move, "legal": True, "player": player, "size": 300})
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True) == game.svg(state, move=move, legal=True, player=player, size=300)
    assert post(client, f"/v1/games/{name}/render", {"state": state}).get_data(as_text=True) == game.svg(state)


@pytest.mark.parametrize("name", referee.games())
@pytest.mark.parametrize(("change", "status", "code"), [
    ({"state": {"rules": "nope@1"}}, 422, "invalid-state"),
    ({"move": "zz?"}, 422, "malformed-move"),
    ({"player": "nobody"}, 422, "unknown-player"),
    ({"size": 10}, 400, "malformed-request"),
    ({"size": 300.5}, 400, "malformed-request"),
    ({"legal": "yes"}, 400, "malformed-request"),
    ({"state": []}, 400, "malformed-request"),
    ({"extra": 1}, 400, "malformed-request"),
])
def test_the_render_route_refuses_bad_input_as_every_route(client, name: str, change: dict, status: int, code: str) -> None:
    body = {"state": referee.game(name).new(seed=1)} | change
    response = post(client, f"/v1/games/{name}/render", body)
    assert response.status_code == status and response.mimetype == "application/problem+json"
    assert response.json["code"] == code and "Traceback" not in response.get_data(as_text=True)


def test_the_render_route_of_no_game_and_without_json(client) -> None:
    assert post(client, "/v1/games/chess/render", {"state": {}}).json["code"] == "unknown-game"
    assert client.post("/v1/games/iago/render", data=b"{}", content_type="text/plain").status_code == 415
    assert client.get("/v1/games/iago/render").status_code == 405


# ------------------------------------------------------------------ the playground page


@pytest.mark.parametrize("name", referee.games())
def test_the_playground_page_is_self_contained(client, name: str) -> None:
    page = client.get(f"/play/{name}")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html and "<link" not in html and " src=" not in html
    config = json.loads(html.split('<script id="config" type="application/json">')[1].split("</script>")[0])
    assert config["game"] == name and config["players"] == referee.game(name).info()["players"]
    # Every route the page calls is a route of the contract.
    spec_paths = set(__import__("yaml").safe_load((ROOT / "openapi.yaml").read_text())["paths"])
    for route in ("new", "legal-moves", "play", "render"):
        assert f"/v1/games/{name}/{route}" in spec_paths and f"api(\"{route}\"" in html
    assert f"/play/{name}" in spec_paths


def test_the_playground_of_no_game_is_a_problem(client) -> None:
    response = client.get("/play/chess")
    assert response.status_code == 404 and response.json["code"] == "unknown-game"


def test_the_page_is_in_the_installed_package() -> None:
    assert resources.files("referee.http").joinpath("templates/play.html").is_file()


# ------------------------------------------------------------------ the command line and the README's pictures


def test_referee_render_draws_a_state_and_a_records_position(tmp_path) -> None:
    game = referee.game("iago")
    state = game.play(game.new(), "e4")["state"]
    (tmp_path / "state.json").write_text(json.dumps(state))
    assert cli.main(["render", str(tmp_path / "state.json"), "-o", str(tmp_path / "a.svg"), "--legal"]) == 0
    assert (tmp_path / "a.svg").read_text() == game.svg(state, legal=True) + "\n"
    record = {"game": "iago", "moves": ["e4", "e6", "e5", "a1"]}
    (tmp_path / "record.json").write_text(json.dumps(record))
    assert cli.main(["render", str(tmp_path / "record.json"), "-o", str(tmp_path / "b.svg")]) == 0
    after_e4 = game.play(game.new(), "e4")["state"]
    assert (tmp_path / "b.svg").read_text() == game.svg(after_e4, move="e6") + "\n"  # e5 is illegal: stops at e6
    assert cli.main(["render", str(tmp_path / "record.json"), "--ply", "1", "-o", str(tmp_path / "c.svg")]) == 0
    assert (tmp_path / "c.svg").read_text() == game.svg(game.new(), move="e4") + "\n"


def test_referee_render_refuses_what_is_no_state(tmp_path, capsys) -> None:
    assert cli.main(["render", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "bad.json").write_text(json.dumps({"rules": "iago@1", "board": []}))
    assert cli.main(["render", str(tmp_path / "bad.json")]) == 1
    assert "invalid-state" in capsys.readouterr().err
    (tmp_path / "list.json").write_text("[1]")
    assert cli.main(["render", str(tmp_path / "list.json")]) == 1


def test_referee_render_as_a_command(tmp_path) -> None:
    game = referee.game("caesar")
    state = game.new(seed=2)
    (tmp_path / "state.json").write_text(json.dumps({"state": state}))
    run = subprocess.run([sys.executable, "-m", "referee.cli", "render", str(tmp_path / "state.json"), "--player", "pompey"],
                         capture_output=True, text=True, check=True)
    assert run.stdout == game.svg(state, player="pompey") + "\n"


def test_the_readme_pictures_are_what_the_code_draws(tmp_path) -> None:
    """`python -m referee.pictures.gallery docs/pictures` regenerates them."""
    gallery.main(str(tmp_path))
    committed = ROOT / "docs" / "pictures"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in tmp_path.iterdir())
    for picture in tmp_path.iterdir():
        assert (committed / picture.name).read_text() == picture.read_text(), f"{picture.name}: run the gallery"
    readme = (ROOT / "README.md").read_text()
    for picture in tmp_path.iterdir():
        assert f"docs/pictures/{picture.name}" in readme
