"""A worker's budget in bytes, shared by its clients: each may hold a share (`referee.budget`)."""

from __future__ import annotations

import pytest

from referee.budget import Budget, peer_of
from referee.problems import Problem
from referee.settings import Settings


def test_a_peer_past_its_share_is_told_too_many_requests_and_others_still_take() -> None:
    budget = Budget(100, "bytes", peer_limit=40)
    first, second = budget.hold("10.0.0.1"), budget.hold("10.0.0.1")
    first.take(30)
    with pytest.raises(Problem) as refused:
        second.take(11)
    assert refused.value.code == "too-many-requests" and refused.value.headers == {"Retry-After": "1"}
    other = budget.hold("10.0.0.2")
    other.take(40)
    assert budget.held == 70 and budget.held_by_peer == {"10.0.0.1": 30, "10.0.0.2": 40}
    first.release()
    second.take(40)  # what the peer gave back, it may take again
    assert budget.held_by_peer == {"10.0.0.1": 40, "10.0.0.2": 40}


def test_a_full_budget_is_service_busy_and_a_peer_that_holds_nothing_is_forgotten() -> None:
    budget = Budget(50, "bytes", peer_limit=40)
    holds = [budget.hold(f"10.0.0.{n}") for n in range(3)]
    holds[0].take(40)
    with pytest.raises(Problem) as refused:
        holds[1].take(11)
    assert refused.value.code == "service-busy"
    holds[1].take(10)
    for hold in holds:
        hold.give(hold.bytes + 5)  # never more than it holds
    assert budget.held == 0 and budget.held_by_peer == {}


def test_the_peer_is_the_socket_unless_a_trusted_proxy_forwards_it() -> None:
    proxies = frozenset({"10.0.0.9"})
    assert peer_of("10.0.0.1", "1.2.3.4", proxies) == "10.0.0.1"  # anyone else's header is its own word
    assert peer_of("10.0.0.9", "6.6.6.6, 1.2.3.4", proxies) == "1.2.3.4"  # the address the proxy wrote
    assert peer_of("10.0.0.9", None, proxies) == "10.0.0.9"


def test_defaults_derived_from_a_setting_follow_it(monkeypatch) -> None:
    """A worker that serves fewer connections than a client's default share gives a client all of them
    (the default of 100 made `REFEREE_WORKER_CONNECTIONS=50` alone stop the service); set, it is checked."""
    monkeypatch.setenv("REFEREE_WORKER_CONNECTIONS", "50")
    assert Settings.from_env().peer_connections == 50
    monkeypatch.setenv("REFEREE_PEER_CONNECTIONS", "60")
    with pytest.raises(SystemExit, match="REFEREE_PEER_CONNECTIONS"):
        Settings.from_env()
