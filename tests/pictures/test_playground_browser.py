"""The playground (`GET /play/{game}`) in a real browser: headless Chromium (Debian's `chromium` and its
`chromedriver`, which `make test` installs when missing) driven by Selenium through the page served by
gunicorn, as a person would use it: a whole Iago game by clicks on the board, an Isaac placement by its
end cells, a Hypnosia turn with a roll, a Caesar! placement (token, border, orientation) and the hidden
hand of a viewer, a Caesar! game with opaque states held by their players (a hot seat), an illegal click
and its reason, and a pasted record replayed ply by ply. Screenshots
are saved under `tests/artifacts/playground/` (or `$REFEREE_ARTIFACTS/playground/`).

Without a browser the suite is skipped on a developer's machine and fails under CI (`CI` set): it never
passes by not running."""

from __future__ import annotations

import json

import pytest

import referee
from helpers.browser import artifacts, chromium, require_browser
from helpers.live import serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

require_browser()

from selenium.webdriver.common.by import By  # noqa: E402 - only once a browser is known to be there
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

ARTIFACTS = artifacts("playground")


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


@pytest.fixture(autouse=True)
def within_the_policy(browser):
    """Every test runs under the pages' Content-Security-Policy: the browser reports no violation (a
    script, style or fetch the policy blocked) while it runs."""
    browser.get_log("browser")  # what earlier tests left
    yield
    refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert not refused, refused


class Page:
    """The playground of one game in the browser, with waits on the page's own signals: `data-busy`
    while a request is out, `data-version` counting the positions shown."""

    def __init__(self, driver, base: str, game: str) -> None:
        self.driver, self.game = driver, game
        driver.get(f"{base}/play/{game}")
        self.wait_for(lambda: self.version() >= 1)

    def wait_for(self, condition, timeout: float = 20) -> None:
        WebDriverWait(self.driver, timeout).until(lambda _: condition())

    def version(self) -> int:
        return int(self.driver.find_element(By.TAG_NAME, "body").get_attribute("data-version"))

    def idle(self) -> bool:
        return self.driver.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "0"

    def acting(self, action) -> None:
        """Does `action` and waits until the page shows the next position."""
        before = self.version()
        action()
        self.wait_for(lambda: self.version() > before and self.idle())

    def answered(self, action) -> None:
        """Does `action` and waits until every request it made is answered."""
        action()
        self.wait_for(self.idle)

    def new_game(self, seed: int | None, options: dict | None = None) -> None:
        """A new game; `seed` None where the service draws it (committed, opaque Caesar!: the field is off)."""
        if seed is not None:
            self.fill("seed", str(seed))
        self.fill("options", json.dumps(options or {}))
        self.acting(lambda: self.by_id("new").click())

    def by_id(self, name: str):
        return self.driver.find_element(By.ID, name)

    def fill(self, name: str, text: str) -> None:
        field = self.by_id(name)
        field.clear()
        field.send_keys(text)

    def on_board(self, selector: str):
        return self.driver.find_element(By.CSS_SELECTOR, f"#board svg {selector}")

    def legal(self) -> list[str]:
        return [b.get_attribute("data-move") for b in self.driver.find_elements(By.CSS_SELECTOR, "#legal .legal-move")]

    def choices(self) -> dict[str, object]:
        return {b.get_attribute("data-move"): b for b in self.driver.find_elements(By.CSS_SELECTOR, "#choices button")}

    def text(self, name: str) -> str:
        return self.by_id(name).text

    def ply(self) -> str:
        return self.text("ply")

    def state(self) -> dict:
        return self.driver.execute_script("return view.plies[view.cursor].state")

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def test_a_whole_iago_game_by_clicks_on_the_board(server, browser) -> None:
    page = Page(browser, server.base, "iago")
    page.new_game(seed=1)
    game, state, played = referee.game("iago"), referee.game("iago").new(), []
    while legal := page.legal():
        assert legal == game.legal_moves(state)
        move = legal[(7 * len(played)) % len(legal)]
        page.acting(lambda: page.on_board(f'[data-cell="{move}"]').click())
        played.append(move)
        state = game.play(state, move)["state"]
        assert page.ply().startswith(f"ply {len(played)} / {len(played)}") and page.ply().endswith(move)
        assert "last" in page.on_board(f'[data-cell="{move}"]').get_attribute("class")
    outcome = game.outcome(state)
    assert outcome["status"] == "finished"
    assert page.text("status").startswith(f"Game over: {outcome['winner'].title()} wins")
    assert page.state() == state
    page.by_id("export").click()
    record = json.loads(page.by_id("record-out").get_attribute("value"))
    assert record["game"] == "iago" and record["moves"] == played and record["seed"] == 1
    assert game.replay(record["moves"])["legal"] is True
    page.shot("iago-finished")


def test_an_illegal_click_shows_the_reason(server, browser) -> None:
    page = Page(browser, server.base, "iago")
    page.new_game(seed=1)
    page.answered(lambda: page.on_board('[data-cell="e5"]').click())
    message = page.by_id("message")
    assert "refusal" in message.get_attribute("class")
    reason = referee.game("iago").validate(referee.game("iago").new(), "e5")["reason"]
    assert message.text == f"e5 refused — illegal-move [{reason['rule']}]: {reason['detail']}"
    assert page.ply() == "ply 0 / 0"
    page.shot("iago-illegal-click")


def test_an_isaac_placement_by_its_two_end_cells(server, browser) -> None:
    page = Page(browser, server.base, "isaac")
    page.new_game(seed=1)
    page.answered(lambda: page.on_board('[data-cell="g4"]').click())
    assert "g4 chosen" in page.text("hint")
    page.acting(lambda: page.on_board('[data-cell="c4"]').click())
    assert page.ply() == "ply 1 / 1 — c4-g4"
    assert page.on_board('[data-piece="c4-g4"]').get_attribute("data-player") == "black"
    page.shot("isaac-placement")


def test_a_hypnosia_turn_with_a_roll(server, browser) -> None:
    page = Page(browser, server.base, "hypnosia")
    page.new_game(seed=5, options={"players": 3})
    game = referee.game("hypnosia")
    assert page.legal() == ["roll"]
    mover = page.state()["to_move"]
    page.acting(lambda: browser.find_element(By.CSS_SELECTOR, '#legal [data-move="roll"]').click())
    dice = page.state()["dice"]
    assert sorted(int(d.get_attribute("data-die")) for d in browser.find_elements(By.CSS_SELECTOR, "#board [data-die]")) == sorted(dice)
    turns = page.legal()
    assert turns == game.legal_moves(page.state())
    plies = 1
    while page.state()["to_move"] == mover and page.state()["dice"]:
        first = page.legal()[0].split(" ")[0]
        unit = first.lstrip("D").split("+")[0].split("^")[0]
        element = page.on_board(f'[data-unit="{unit}"][data-player="{mover}"]')
        page.answered(element.click)
        choices = page.choices()
        assert first in choices, choices
        page.acting(choices[first].click)
        plies += 1
        assert page.ply().endswith(first)
    assert page.ply().startswith(f"ply {plies} / {plies}")
    assert page.state()["to_move"] != mover
    page.shot("hypnosia-turn")


def test_a_caesar_placement_and_the_hidden_hand(server, browser) -> None:
    page = Page(browser, server.base, "caesar")
    page.new_game(seed=3)
    game = referee.game("caesar")
    state = page.state()
    move = next(m for m in page.legal() if " " not in m)
    token, border = move.split("@")
    toward, other = border.split("-")
    page.answered(lambda: page.on_board(f'[data-token="{token}"][data-player="caesar"]').click())
    slot = next(e for e in browser.find_elements(By.CSS_SELECTOR, "#board [data-border]")
                if set(e.get_attribute("data-border").split("-")) == {toward, other})
    border_id = slot.get_attribute("data-border")
    page.answered(slot.click)
    page.acting(page.choices()[move].click)
    assert page.ply() == f"ply 1 / 1 — {move}"
    assert page.state() == game.play(state, move)["state"]
    assert "last" in page.on_board(f'[data-border="{border_id}"]').get_attribute("class")
    page.shot("caesar-placement")
    # Seen by Pompey (to move now): Caesar's hand is face down, Pompey's shown.
    page.acting(lambda: Select(page.by_id("viewer")).select_by_value("pompey"))
    hidden = browser.find_elements(By.CSS_SELECTOR, '#board [data-hand="caesar"] .hand-token')
    assert hidden and all(t.get_attribute("data-token") is None for t in hidden)
    shown = browser.find_elements(By.CSS_SELECTOR, '#board [data-hand="pompey"] [data-token]')
    assert sorted(t.get_attribute("data-token") for t in shown) == sorted(page.state()["hands"]["pompey"])
    page.shot("caesar-seen-by-pompey")


def test_a_pasted_record_is_replayed_ply_by_ply_up_to_its_illegal_ply(server, browser) -> None:
    game = referee.game("iago")
    state, moves = game.new(), []
    for _ in range(12):
        moves.append(game.legal_moves(state)[-1])
        state = game.play(state, moves[-1])["state"]
    record = {"game": "iago", "moves": moves + ["a1"], "id": "flagged-17"}
    reason = game.validate(state, "a1")["reason"]
    page = Page(browser, server.base, "iago")
    page.fill("paste", json.dumps(record))
    page.acting(lambda: page.by_id("view-paste").click())
    assert page.text("message") == f"record illegal at ply 12: a1 — illegal-move [{reason['rule']}]: {reason['detail']}"
    assert page.ply() == f"ply 12 / 12 — {moves[-1]}"
    page.shot("replay-flagged")
    page.acting(lambda: page.by_id("first").click())
    assert page.ply() == "ply 0 / 12"
    for ply, move in enumerate(moves, 1):
        page.acting(lambda: page.by_id("next").click())
        assert page.ply() == f"ply {ply} / 12 — {move}"
        assert "last" in page.on_board(f'[data-cell="{move}"]').get_attribute("class")
    page.acting(lambda: page.by_id("prev").click())
    assert page.ply() == f"ply 11 / 12 — {moves[10]}"
    page.acting(lambda: page.by_id("undo").click())
    assert page.ply() == f"ply 10 / 10 — {moves[9]}"
    page.shot("replay-stepped")


def test_a_caesar_game_with_opaque_states_is_a_hot_seat(browser) -> None:
    """One opaque state, both players' secrets drawn and kept in the page: each ply is drawn for its mover
    with the mover's secret, the other hand face down."""
    from helpers.keys import KEYS_ROTATED

    with serve(REFEREE_SEAL_KEYS=KEYS_ROTATED, REFEREE_OPAQUE_STATES="caesar") as opaque:
        page = Page(browser, opaque.base, "caesar")
        assert page.by_id("seed").get_attribute("disabled") is not None, "the service draws the seed"
        page.new_game(seed=None)
        secrets = browser.execute_script("return view.secrets")
        assert set(secrets) == {"caesar", "pompey"} and secrets["caesar"] != secrets["pompey"], secrets
        for ply in range(1, 4):
            assert set(page.state()) == {"opaque"}, page.state()
            mover = browser.execute_script("return view.plies[view.cursor].mover")
            other = "pompey" if mover == "caesar" else "caesar"
            hidden = browser.find_elements(By.CSS_SELECTOR, f'#board [data-hand="{other}"] .hand-token')
            assert hidden and all(t.get_attribute("data-token") is None for t in hidden), "the other hand face down"
            assert browser.find_elements(By.CSS_SELECTOR, f'#board [data-hand="{mover}"] [data-token]')
            move = page.legal()[0]
            button = browser.find_element(By.CSS_SELECTOR, f'#legal .legal-move[data-move="{move}"]')
            page.acting(button.click)
            assert page.ply() == f"ply {ply} / {ply} — {move}", page.text("message")
        page.shot("caesar-opaque-hot-seat")
        # A pasted opaque state of the page's game is shown with the mover's secret the page holds.
        state = page.state()
        page.fill("paste", json.dumps(state))
        page.acting(lambda: page.by_id("view-paste").click())
        assert page.text("message") == "pasted state" and page.legal(), page.text("message")


def seat(page: Page, player: str, level: str) -> None:
    """Gives `player`'s seat to the engine at `level` ("" : back to a person)."""
    Select(page.driver.find_element(By.CSS_SELECTOR, f'#seats select[data-seat="{player}"]')).select_by_value(level)


def test_the_engine_answers_from_its_seat_and_a_hint_is_drawn(server, browser) -> None:
    """Iago: the other seat is the engine's (level 1); each move of the person is answered by the
    engine's own, legal; a hint names the engine's move for the person, lists its candidates (each a legal
    move) and draws it on the board."""
    page = Page(browser, server.base, "iago")
    page.new_game(seed=1)
    game, person = referee.game("iago"), page.state()["to_move"]
    engine = "white" if person == "black" else "black"
    page.acting(lambda: seat(page, engine, "1"))  # the position shown again
    for turn in range(1, 4):
        move = page.legal()[0]
        browser.find_element(By.CSS_SELECTOR, f'#legal .legal-move[data-move="{move}"]').click()
        page.wait_for(lambda: page.idle() and page.ply().startswith(f"ply {2 * turn} / {2 * turn}"))
        assert page.state()["to_move"] == person, page.text("message")
    page.by_id("export").click()
    record = json.loads(page.by_id("record-out").get_attribute("value"))
    assert len(record["moves"]) == 6 and game.replay(record["moves"])["legal"] is True
    before = page.by_id("board").get_attribute("innerHTML")
    page.answered(lambda: page.by_id("hint-button").click())
    suggested = page.by_id("suggestion").get_attribute("data-move")
    assert suggested in page.legal(), page.text("message")
    candidates = [b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "#candidates button")]
    assert candidates[0] == suggested and set(candidates) <= set(page.legal())
    assert "last" in page.on_board(f'[data-cell="{suggested}"]').get_attribute("class")
    assert page.by_id("board").get_attribute("innerHTML") != before
    page.shot("iago-engine-and-hint")


def test_engines_take_any_seats_of_a_hypnosia_game_with_its_rolls(server, browser) -> None:
    """Hypnosia, three players, two of them the engine's: after the person's turn the engines roll and
    play theirs, and the page stops at the person's next turn; every ply replays as legal."""
    page = Page(browser, server.base, "hypnosia")
    page.new_game(seed=5, options={"players": 3})
    person = page.state()["to_move"]
    for player in page.state()["scores"]:
        if player != person:
            page.acting(lambda: seat(page, player, "1"))  # noqa: B023 - called at once
    page.acting(lambda: browser.find_element(By.CSS_SELECTOR, '#legal [data-move="roll"]').click())
    turn = page.legal()[0]
    browser.find_element(By.CSS_SELECTOR, f'#legal .legal-move[data-move="{turn}"]').click()
    page.wait_for(lambda: page.idle() and page.state()["to_move"] == person and not page.state()["dice"], timeout=60)
    page.by_id("export").click()
    record = json.loads(page.by_id("record-out").get_attribute("value"))
    engines_plies = record["moves"][2:]
    assert sum(move == "roll" for move in engines_plies) >= 2, record["moves"]
    game = referee.game("hypnosia", options={"players": 3})
    assert game.replay(record["moves"], seed=record["seed"])["legal"] is True
    page.shot("hypnosia-engines")
