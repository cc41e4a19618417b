"""Isaac's perft from the empty board counted over cell sets, without the model or the engine: the second
independent count of Isaac's perft table (tests/rules/perft.json, checked in test_perft.py)."""

from __future__ import annotations

import functools


def all_placements() -> list[tuple[int, frozenset[tuple[int, int]]]]:
    """(length, cells) of every placement on the empty board, built without the model's generator."""
    out = []
    for length in range(3, 8):
        for row in range(10):
            for col in range(10):
                if col + length <= 10:
                    out.append((length, frozenset((col + k, row) for k in range(length))))
                if row + length <= 10:
                    out.append((length, frozenset((col, row + k) for k in range(length))))
    return out


@functools.cache
def independent_perft() -> dict[int, int]:
    """Perft 1-3 from the empty board.
    Depth 2: ordered pairs of disjoint placements.  Depth 3: for each such pair (P1 Black, P2 White), the
    placements of Black disjoint from both, except a second length 7 when P1 was Black's only 7."""
    placements = all_placements()
    assert len(placements) == 600
    n = len(placements)
    overlapping = [{j for j in range(n) if placements[i][1] & placements[j][1]} for i in range(n)]
    sevens = {j for j in range(n) if placements[j][0] == 7}
    depth2 = depth3 = 0
    for i in range(n):
        for j in range(n):
            if j in overlapping[i]:
                continue
            depth2 += 1
            blocked = overlapping[i] | overlapping[j]
            if placements[i][0] == 7:
                blocked = blocked | sevens
            depth3 += n - len(blocked)
    return {1: n, 2: depth2, 3: depth3}
