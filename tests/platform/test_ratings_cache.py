"""Cached ratings figures (``ratings.selectors._cached``): computed once per key even when many
requests miss together, served while their data is unchanged or for a refresh interval."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.core.cache import cache

from ratings import selectors


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    cache.clear()


def counting(value: Any, calls: list[int], pause: float = 0.0) -> Any:
    def compute() -> Any:
        calls.append(1)
        time.sleep(pause)
        return value

    return compute


def test_requests_that_miss_together_share_one_computation() -> None:
    calls: list[int] = []
    compute = counting([1, 2, 3], calls, pause=0.3)  # every thread misses while it runs
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(selectors._cached("k", compute, stamp=1)))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert results == [[1, 2, 3]] * 6
    assert cache.get("ratings:k:computing") is None  # the lock is released
    assert selectors._cached("k", counting([0], calls), stamp=1) == [1, 2, 3]  # and kept


def test_new_data_is_computed_again_unless_the_figures_are_recent() -> None:
    calls: list[int] = []
    assert selectors._cached("k", counting("old", calls), stamp=1) == "old"
    assert selectors._cached("k", counting("new", calls), stamp=2, max_age=60) == "old"
    assert selectors._cached("k", counting("new", calls), stamp=2) == "new"
    assert selectors._cached("k", counting("newer", calls), stamp=2) == "new"
    assert len(calls) == 2


def test_while_one_request_computes_the_others_get_the_previous_figures() -> None:
    selectors._cached("k", lambda: "old", stamp=1)
    cache.add("ratings:k:computing", 1, timeout=60)  # another process is computing stamp 2
    calls: list[int] = []
    assert selectors._cached("k", counting("new", calls), stamp=2) == "old"
    assert calls == []


def test_a_computation_that_never_finishes_does_not_block_the_others(monkeypatch: Any) -> None:
    """A process that died while computing leaves its lock: the others compute after a while."""
    monkeypatch.setattr(selectors, "COMPUTE_WAIT_S", 0.2)
    cache.add("ratings:stuck:computing", 1, timeout=60)
    assert selectors._cached("stuck", lambda: "computed here", stamp=1) == "computed here"
    assert cache.get("ratings:stuck:computing") == 1  # not ours to release


def test_a_failed_computation_releases_its_lock() -> None:
    def fail() -> list[int]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        selectors._cached("failing", fail, stamp=1)
    assert cache.get("ratings:failing:computing") is None
    assert selectors._cached("failing", lambda: [7], stamp=1) == [7]


def test_the_lock_s_winner_uses_figures_another_process_left_meanwhile(monkeypatch: Any) -> None:
    """A request can miss, then take the lock just after another computation stored its figures
    and released it: it must use them, not compute again."""

    class OtherProcessFinishes:
        def __getattr__(self, name: str) -> Any:
            return getattr(cache, name)

        def add(self, key: str, value: Any, timeout: float) -> bool:
            cache.set("ratings:k", (1, time.time(), "theirs"))
            return bool(cache.add(key, value, timeout=timeout))

    monkeypatch.setattr(selectors, "cache", OtherProcessFinishes())
    calls: list[int] = []
    assert selectors._cached("k", counting("mine", calls), stamp=1) == "theirs"
    assert calls == []
    assert cache.get("ratings:k:computing") is None


def test_out_of_date_figures_are_refreshed_by_a_worker_and_served_meanwhile() -> None:
    # issue 35: a 1,000-bot ladder's bootstrap takes far longer than a page may
    selectors._cached("k", lambda: "old", stamp=1)
    queued: list[int] = []
    calls: list[int] = []

    def refresh() -> bool:
        queued.append(1)
        return True  # queued: the worker releases the lock when it has stored the figures

    assert selectors._cached("k", counting("new", calls), stamp=2, refresh=refresh) == "old"
    assert selectors._cached("k", counting("new", calls), stamp=2, refresh=refresh) == "old"
    assert (queued, calls) == ([1], [])  # queued once, computed in no request
    assert cache.get("ratings:k:computing") == 1


def test_a_request_computes_the_figures_when_none_exist_or_no_worker_can_be_asked() -> None:
    calls: list[int] = []
    assert selectors._cached("k", counting("first", calls), stamp=1, refresh=lambda: True) == (
        "first"
    )
    assert selectors._cached("k", counting("new", calls), stamp=2, refresh=lambda: False) == "new"
    assert len(calls) == 2
    assert cache.get("ratings:k:computing") is None


@pytest.mark.django_db
def test_the_refresh_stores_the_figures_and_releases_the_lock() -> None:
    cache.add("ratings:strengths:barbu:computing", 1, timeout=60)
    selectors.figures_refresh(kind="strengths", game="barbu")
    assert cache.get("ratings:strengths:barbu:computing") is None
    assert selectors.ladder_strengths_current(game="barbu") == []  # no results yet
    assert cache.get("ratings:strengths:barbu")[2] == []


@pytest.mark.django_db
def test_the_scheduler_fits_again_after_a_result_unless_fitting_is_slow() -> None:
    # a top-up follows every ladder result; for 1,000 bots reading and fitting took seconds
    key = "ratings:schedule:belote"
    first = selectors.ladder_fit_for_top_up(game="belote")
    assert first.fit is None and cache.get(key)[0] is None  # no result yet
    slow = selectors.LadderFit(None, seconds=60.0)  # as if that fit had taken a minute
    cache.set(key, (-1, time.time(), slow))  # -1: computed before some newer result
    assert selectors.ladder_fit_for_top_up(game="belote") == slow  # not again for 10 minutes
    quick = selectors.LadderFit(None, seconds=0.001)
    cache.set(key, (-1, time.time() - 1.0, quick))
    again = selectors.ladder_fit_for_top_up(game="belote")
    assert again != quick and cache.get(key)[0] is None  # fitted again, with the latest result
