"""Caesar! property tests beyond the generic ones of test_robustness.py (which also cover its positions
and moves): states reached by play, then one field changed at one of the paths a client could get wrong,
are playable or refused naming a field of the state."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import referee
from helpers.properties import Branches, assert_playable, examples, get, played, put

game = referee.game("caesar")
PATHS = [("to_move",), ("italia_dashed",), ("hands", "caesar"), ("bags", "pompey"), ("markers", "caesar"),
         ("senate", "pompey"), ("hand_limits", "caesar"), ("provinces", "HU", "control"), ("provinces", "HC", "bonus"),
         ("provinces", "HU", "flipped"), ("borders", "HU-HC"), ("borders", "SD-IT"), ("borders", "IT-GC"), ("rng", "word_pos")]
LEAF = st.none() | st.booleans() | st.integers(-3, 20) | st.sampled_from(["caesar", "pompey", "S60", "L22", "senate", "HU-HC"])
FIELDS = {"to_move", "italia_dashed", "hands", "bags", "markers", "senate", "hand_limits", "provinces", "borders", "rng", "state"}


@st.composite
def changed_states(draw) -> tuple[dict, str]:
    """A reachable state; or one field given its value a few plies earlier or later in the same game, or
    in another game, or a hostile value."""
    seed, plies = draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 40))
    state = played("caesar", 0, seed, plies)
    kind = draw(st.sampled_from(["nearby", "nearby", "other game", "hostile", "unchanged"]))
    if kind == "unchanged":
        return state, kind
    if kind == "hostile":
        path = draw(st.sampled_from(PATHS))
        value = draw(LEAF | st.lists(LEAF, max_size=4) | st.dictionaries(st.sampled_from(["HU", "HC", "MT"]), LEAF, max_size=2))
    else:
        donor = played("caesar", 0, seed, max(0, plies + draw(st.sampled_from([-2, -1, 1, 2])))) if kind == "nearby" \
            else played("caesar", 0, draw(st.integers(0, 2**32 - 1)), plies)
        differing = [path for path in PATHS if get(donor, path) != get(state, path)]
        if not differing:
            return state, "unchanged"
        path = draw(st.sampled_from(differing))
        value = get(donor, path)
    if value == get(state, path):
        return state, "unchanged"
    return put(state, path, value), kind


def test_any_changed_state_is_playable_or_refused_naming_its_field() -> None:
    branches = Branches()

    @examples(200)
    @given(drawn=changed_states())
    def check(drawn) -> None:
        state, kind = drawn
        try:
            accepted = game.check(state)
        except referee.InvalidState as error:
            assert error.detail and error.data["field"].split(".")[0] in FIELDS, error.data
            branches(f"refused:{kind}")
            return
        branches(f"accepted:{kind}")
        assert game.parse_position(game.position(accepted)) == accepted
        assert_playable(game, accepted, sample=20)

    check()
    branches.assert_share("accepted", 0.3)
