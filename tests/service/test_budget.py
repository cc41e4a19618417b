"""A worker's budget in bytes, shared by its clients: each may hold a share (`referee.http.budget`)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from referee.http.budget import Budget, peer_of
from referee.http.problems import Problem
from referee.http.settings import Settings


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


def test_when_full_the_peer_holding_the_most_pays_never_a_lighter_one() -> None:
    """Max-min fairness: a request that needs bytes of a full budget ends the newest work of the heaviest
    peer, while that peer holds more than the requester would; a requester as heavy is refused."""
    budget = Budget(100, "bytes", peer_limit=60)
    ended: list[tuple[str, str]] = []

    def endable(peer: str, size: int) -> Any:
        hold = budget.hold(peer)
        hold.ender = lambda problem, peer=peer: ended.append((peer, problem.code))
        hold.take(size)
        return hold

    old, new = endable("heavy", 30), endable("heavy", 30)
    middle = endable("middle", 30)
    light = budget.hold("light")
    light.take(10)  # full: 100 of 100
    assert budget.held == 100
    light.take(5)  # the heaviest's newest work pays
    assert ended == [("heavy", "service-busy")] and new.ended is not None and new.bytes == 0 and old.bytes == 30
    with pytest.raises(Problem) as refused:
        new.take(1)  # an ended request takes nothing more
    assert refused.value is new.ended
    assert budget.held_by_peer == {"heavy": 30, "middle": 30, "light": 15}
    light.take(25)  # room enough: 100 of 100, light holding 40
    assert budget.held == 100 and not middle.ended
    with pytest.raises(Problem) as refused:
        light.take(10)  # 50 after, and nobody holds more than 30: the requester is the heavy one
    assert refused.value.code == "service-busy" and len(ended) == 1


def test_work_that_cannot_be_ended_is_passed_over_for_a_lighter_peer_s_that_can() -> None:
    budget = Budget(100, "bytes")
    answer = budget.hold("answers")
    answer.take(60)  # an answer being sent: no `ender`
    body = budget.hold("bodies")
    body.ender = lambda problem: None
    body.take(40)
    budget.hold("light").take(10)
    assert body.ended is not None and answer.bytes == 60


def test_an_ipv6_client_is_its_network_and_an_ipv4_mapped_one_its_address() -> None:
    none: frozenset[str] = frozenset()
    assert peer_of("2001:db8:1:2:aaaa::1", None, none) == peer_of("2001:db8:1:2:bbbb::2", None, none) == "2001:db8:1:2::/64"
    assert peer_of("2001:db8:1:3::1", None, none) != peer_of("2001:db8:1:2::1", None, none)
    assert peer_of("2001:db8:1:2::1", None, none, 128) == "2001:db8:1:2::1/128"
    assert peer_of("::ffff:10.0.0.1", None, none) == "10.0.0.1" and peer_of("10.0.0.1", None, none) == "10.0.0.1"
    assert peer_of("10.0.0.9", "2001:db8::7", frozenset({"10.0.0.9"})) == "2001:db8::/64"


def test_a_hold_of_nothing_is_no_hold() -> None:
    """A request that takes nothing (no body, an answer of no length) leaves no hold behind: the list of
    holds a full budget ends work from stays in step with the bytes held."""
    budget = Budget(100, "bytes")
    for _ in range(3):
        hold = budget.hold("10.0.0.1")
        hold.take(0)
        hold.release()
    taken = budget.hold("10.0.0.1")
    taken.take(10)
    taken.give(10)
    assert budget.holds == {} and budget.held_by_peer == {} and budget.held == 0


def test_an_address_is_known_without_its_port_brackets_or_zone() -> None:
    none: frozenset[str] = frozenset()
    assert peer_of("[2001:db8::1]:443", None, none) == "2001:db8::/64"
    assert peer_of("1.2.3.4:5678", None, none) == "1.2.3.4"
    assert peer_of("fe80::1%eth0", None, none) == "fe80::/64"
    assert peer_of("::ffff:10.0.0.9", "1.2.3.4:80", frozenset({"10.0.0.9"})) == "1.2.3.4"  # a proxy on dual stack


def test_an_answer_to_a_trusted_proxy_earns_credit_for_as_long_as_the_proxy_waits_between_reads(monkeypatch) -> None:
    """A proxy that does not buffer a streamed answer reads it a third of its client's socket buffer at a
    time: at the minimum rate, bursts of 1.4 MB up to 341 s apart. An answer's credit reached 30 s ahead at
    most, so a reader at 5 KB/s behind nginx was let go after 30 s; to a trusted proxy it reaches 360 s
    (what its `send_timeout` waits for a client), to anyone else still the read timeout."""
    from referee.http.worker import PROXY_READ_WINDOW, Pace

    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    direct, proxied = Pace(30, 4096), Pace(30, 4096, PROXY_READ_WINDOW)
    for pace in (direct, proxied):
        pace.advance(1_400_000)  # the proxy's first burst, read at once
    assert direct.deadline() == 1030 and proxied.deadline() == 1360  # each capped at its window
    clock[0] += 300  # the next burst, 300 s later: past the direct answer's deadline, within the proxy's
    assert direct.deadline() < clock[0] < proxied.deadline()
    proxied.advance(2_800_000)
    assert proxied.deadline() == 1660


def test_a_read_from_a_client_takes_a_block_at_most_however_much_its_reader_asks_for() -> None:
    """gunicorn asks for up to 1 MiB of a body at once (it reads ahead): what came was held uncounted, then
    copied whole again at every 64 KiB the app took."""
    import socket

    from referee.http.body import BLOCK
    from referee.http.worker import Paced

    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b"x" * (2 * BLOCK + 1))  # within a socket pair's buffer: all there at once
        paced = Paced(ours, 5.0, 1, 1)
        got = [len(paced.recv(8 * 1024 * 1024)) for _ in range(3)]
    assert got == [BLOCK, BLOCK, 1]


# ------------------------------------------------------------------ the threads that think (referee.http.thinking)


def test_searches_share_the_threads_max_min_and_wait_their_turn_fairly() -> None:
    """The threads that think are a budget of searches, each client's counted: a client thinking less than
    the one thinking the most ends that one's newest search (stopped; its request told `service-busy`); a
    client as heavy as any waits, and a freed thread goes to the waiting client thinking the least, then to
    the one that waited longest; a client has at most as many searches waiting as there are threads (429),
    and waits a bounded time (503)."""
    import gevent

    from referee import _core
    from referee.http.thinking import Thinkers

    thinkers = Thinkers(2)
    stops = {name: _core.Stop() for name in ("heavy 1", "heavy 2", "light", "heavy 3", "third")}
    heavy_1 = thinkers.admit("heavy", stops["heavy 1"], 1)
    heavy_2 = thinkers.admit("heavy", stops["heavy 2"], 1)
    light = thinkers.admit("light", stops["light"], 1)  # all thinking: the heaviest's newest pays
    assert stops["heavy 2"].is_set() and not stops["heavy 1"].is_set() and heavy_1.ended is None
    assert heavy_2.ended is not None and heavy_2.ended.code == "service-busy" and "holds the most" in heavy_2.ended.detail
    assert thinkers.budget.held_by_peer == {"heavy": 1, "light": 1}
    thinkers.release(heavy_2)  # its request ends: nothing more to give back
    # As heavy as anyone now: they wait, the heavy client's first.
    waiting_heavy = gevent.spawn(thinkers.admit, "heavy", stops["heavy 3"], 10)
    waiting_third = gevent.spawn(thinkers.admit, "third", stops["third"], 10)
    given_up = gevent.spawn(thinkers.admit, "heavy", _core.Stop(), 10)
    gevent.sleep(0)
    assert [waiter.peer for waiter in thinkers.waiting] == ["heavy", "third", "heavy"]
    with pytest.raises(Problem) as refused:  # two waiting already: past a client's share of the queue
        thinkers.admit("heavy", _core.Stop(), 10)
    assert refused.value.code == "too-many-requests"
    given_up.kill(Problem("service-unavailable", "the service is stopping"))
    thinkers.release(light)  # to the waiting client thinking the least, though it came second
    assert waiting_third.get(timeout=1).bytes == 1 and not waiting_heavy.ready()
    thinkers.release(heavy_1)
    assert waiting_heavy.get(timeout=1).bytes == 1 and thinkers.waiting == []
    with pytest.raises(Problem) as refused:  # all thinking, none heavier: it waits, and not for ever
        thinkers.admit("fourth", _core.Stop(), 0.01)
    assert refused.value.code == "service-busy" and refused.value.headers == {"Retry-After": "1"}
    assert thinkers.waiting == [] and thinkers.budget.held_by_peer == {"heavy": 1, "third": 1}


def test_a_waiting_search_killed_leaves_the_queue_and_the_turn_goes_to_the_next() -> None:
    """Two clients think on the two threads; two others wait (as heavy as they would be). One waiting is
    killed (its worker stopping, its greenlet ended): it leaves the queue, and the thread freed goes to the
    other. (A turn given is its greenlet's at once: gevent wakes it before a kill lands, and its request
    gives the thread back when it ends, `suggest`'s finally.)"""
    import gevent

    from referee import _core
    from referee.http.thinking import Thinkers

    thinkers = Thinkers(2)
    first = thinkers.admit("a", _core.Stop(), 1)
    thinkers.admit("c", _core.Stop(), 1)
    killed = gevent.spawn(thinkers.admit, "b", _core.Stop(), 10)
    after = gevent.spawn(thinkers.admit, "d", _core.Stop(), 10)
    gevent.sleep(0)
    assert [waiter.peer for waiter in thinkers.waiting] == ["b", "d"]
    killed.kill(Problem("service-unavailable", "the service is stopping"))
    assert [waiter.peer for waiter in thinkers.waiting] == ["d"]
    thinkers.release(first)
    assert after.get(timeout=1).bytes == 1 and thinkers.budget.held_by_peer == {"c": 1, "d": 1}
    assert not thinkers.waiting


def test_a_waiting_search_whose_client_went_away_leaves_the_queue() -> None:
    """A search waiting for a thread whose client closed its connection (its stop raised by the watcher)
    leaves the queue at its next look, and takes no thread: the turn goes to the next."""
    import gevent

    from referee import _core
    from referee.http.thinking import Thinkers

    thinkers = Thinkers(2)
    first = thinkers.admit("a", _core.Stop(), 1)
    thinkers.admit("c", _core.Stop(), 1)
    stop = _core.Stop()
    gone = gevent.spawn(thinkers.admit, "b", stop, 10)
    after = gevent.spawn(thinkers.admit, "d", _core.Stop(), 10)
    gevent.sleep(0)
    assert [waiter.peer for waiter in thinkers.waiting] == ["b", "d"]
    stop.set()  # what the watcher of its connection does when the client closes it
    with pytest.raises(Problem):
        gone.get(timeout=1)
    assert [waiter.peer for waiter in thinkers.waiting] == ["d"]
    thinkers.release(first)
    assert after.get(timeout=1).bytes == 1 and thinkers.budget.held_by_peer == {"c": 1, "d": 1}
