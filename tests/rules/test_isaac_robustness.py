"""Isaac property tests beyond the generic ones of test_robustness.py: every state the engine accepts,
reached by play and then changed once (a field, or one piece taken off), lists its moves in the compact
form exactly as in full, and plays them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import referee
from helpers.properties import Branches, assert_playable, changed, examples, game_of, setup_game

FIELDS = ("pieces", "phase", "to_move", "scores", "first_to_pass", "passed", "removed", "rules", "variant", "options", "state")


def expand(entry: str) -> list[str]:
    if "+0.." not in entry:
        return [entry]
    head, span = entry.split("+0..")
    top, _, forbidden = span.partition("!")
    return [f"{head}+{a}" for a in range(int(top) + 1) if str(a) != forbidden]


@st.composite
def near_reachable(draw) -> tuple[int, dict, str]:
    """A played state with one field changed (properties.changed), or with one of its pieces taken off."""
    index, state, kind = draw(changed("isaac"))
    placed = [color for color in ("black", "white") if isinstance(state.get("pieces"), dict)
              and isinstance(state["pieces"].get(color), list) and state["pieces"][color]]
    if kind == "unchanged" and placed and draw(st.booleans()):
        color = draw(st.sampled_from(placed))
        kept = list(state["pieces"][color])
        del kept[draw(st.integers(0, len(kept) - 1))]
        state, kind = state | {"pieces": state["pieces"] | {color: kept}}, "piece-removed"
    return index, state, kind


def test_every_accepted_state_is_playable_and_lists_its_moves_compactly() -> None:
    branches = Branches()

    @examples(200)
    @given(drawn=near_reachable())
    def check(drawn) -> None:
        index, state, kind = drawn
        try:
            state = setup_game("isaac", index).check(state)
        except referee.InvalidState as error:
            assert error.data["field"].split(".")[0].split("[")[0] in FIELDS, error.data
            branches(f"refused:{kind}")
            return
        branches(f"accepted:{kind}")
        game = game_of("isaac", state)
        moves = game.legal_moves(state)
        assert [m for entry in game.legal_moves(state, compact=True) for m in expand(entry)] == moves
        assert_playable(game, state, sample=40)

    check()
    branches.assert_share("accepted", 0.25)
    branches.assert_share("accepted:piece-removed", 0.01)  # a changed position accepted too, not only reachable ones
