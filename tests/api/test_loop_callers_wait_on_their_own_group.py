"""Group commit on the event loop (``Commits.outcome_on_loop``): one task per partition writes
the open groups one after another, and each caller waits only for its own group's outcome.
A caller that is cancelled stops its own wait, never the write nor the others' answers."""

from __future__ import annotations

import asyncio
import threading

import pytest

from quotaweb.engine.commits import Commits, LoopSides


class Ledger:
    """Sides whose writes the test releases one at a time, recording each group written."""

    def __init__(self, *, fail: set[str] | None = None) -> None:
        self.written: list[list[str]] = []
        self.undone: list[list[str]] = []
        self.committed: list[list[str]] = []
        self.fail = fail or set()
        self.gate = asyncio.Event()

    async def write(self, rows: list[str], due: float | None) -> None:
        await self.gate.wait()
        self.gate.clear()
        self.written.append(list(rows))
        if self.fail & set(rows):
            raise RuntimeError("write failed")

    async def undo(self, rows: list[str]) -> None:
        self.undone.append(list(rows))

    def sides(self) -> LoopSides[str]:
        return LoopSides(self.write, self.undo, lambda rows: self.committed.append(list(rows)))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_groups_are_written_in_order_and_each_caller_answers_with_its_own():
    async def scenario() -> None:
        commits: Commits[str] = Commits()
        ledger = Ledger()
        first = commits.add("a", "a")
        waits = {"a": asyncio.ensure_future(commits.outcome_on_loop(first, ledger.sides()))}
        await _settle()  # "a" is being written; these join the next group
        for key in ("b", "c"):
            group = commits.add(key, key)
            waits[key] = asyncio.ensure_future(commits.outcome_on_loop(group, ledger.sides()))
        await _settle()
        assert not any(wait.done() for wait in waits.values())
        ledger.gate.set()
        await waits["a"]
        await _settle()
        assert ledger.written == [["a"]]
        assert not waits["b"].done()
        assert not waits["c"].done()
        ledger.gate.set()
        await asyncio.gather(waits["b"], waits["c"])
        assert ledger.written == [["a"], ["b", "c"]]
        assert ledger.committed == [["a"], ["b", "c"]]
        assert commits.idle()

    asyncio.run(scenario())


def test_a_cancelled_caller_stops_neither_the_write_nor_the_others():
    async def scenario() -> None:
        commits: Commits[str] = Commits()
        ledger = Ledger()
        group = commits.add("a", "a")
        commits.add("b", "b")
        leaving = asyncio.ensure_future(commits.outcome_on_loop(group, ledger.sides()))
        staying = asyncio.ensure_future(commits.outcome_on_loop(group, ledger.sides()))
        await _settle()
        leaving.cancel()
        await _settle()
        ledger.gate.set()
        await staying
        assert leaving.cancelled()
        assert ledger.written == [["a", "b"]]
        assert group.done
        assert group.error is None

    asyncio.run(scenario())


def test_a_failed_group_is_undone_and_its_error_reaches_its_callers_only():
    async def scenario() -> None:
        commits: Commits[str] = Commits()
        ledger = Ledger(fail={"a"})
        bad = commits.add("a", "a")
        bad_wait = asyncio.ensure_future(commits.outcome_on_loop(bad, ledger.sides()))
        await _settle()
        good = commits.add("b", "b")
        good_wait = asyncio.ensure_future(commits.outcome_on_loop(good, ledger.sides()))
        ledger.gate.set()
        await bad_wait
        ledger.gate.set()
        await good_wait
        assert isinstance(bad.error, RuntimeError)
        assert good.error is None
        assert ledger.undone == [["a"]]
        assert ledger.committed == [["b"]]

    asyncio.run(scenario())


def test_the_drive_waits_for_a_write_under_way_in_a_thread():
    async def scenario() -> None:
        commits: Commits[str] = Commits()
        ledger = Ledger()
        in_thread = commits.add("t", "t")
        assert commits.lead() is in_thread  # a thread's write is under way
        mine = commits.add("a", "a")
        wait = asyncio.ensure_future(commits.outcome_on_loop(mine, ledger.sides()))
        await _settle()
        ledger.gate.set()
        await _settle()
        assert ledger.written == []
        assert not wait.done()
        finisher = threading.Thread(target=commits.finish, args=(in_thread, None))
        finisher.start()
        finisher.join()
        await asyncio.wait_for(wait, timeout=5)
        assert ledger.written == [["a"]]
        assert mine.done

    asyncio.run(scenario())


@pytest.mark.parametrize("done_first", [True, False])
def test_a_group_done_before_the_caller_asks_answers_at_once(done_first):
    async def scenario() -> None:
        commits: Commits[str] = Commits()
        ledger = Ledger()
        group = commits.add("a", "a")
        if done_first:
            assert commits.lead() is group
            commits.finish(group, None)
            await asyncio.wait_for(commits.outcome_on_loop(group, ledger.sides()), timeout=1)
            assert ledger.written == []
        else:
            ledger.gate.set()
            await asyncio.wait_for(commits.outcome_on_loop(group, ledger.sides()), timeout=1)
            assert ledger.written == [["a"]]

    asyncio.run(scenario())


def test_a_ledger_with_a_thread_of_its_own_writes_every_open_group_there_in_order():
    """``LoopSides.drain``: the loop hands the open groups to the ledger's thread, which writes
    each as soon as the last has committed; the loop's callers are answered from that thread."""
    from concurrent.futures import ThreadPoolExecutor

    from quotaweb.engine.commits import Sides

    written: list[list[str]] = []
    threads: set[str] = set()
    first_write = threading.Event()
    go_on = threading.Event()

    def write(rows: list[str], due: float | None) -> None:
        threads.add(threading.current_thread().name)
        written.append(list(rows))
        first_write.set()
        assert go_on.wait(timeout=5)

    async def not_on_the_loop(rows: list[str], due: float | None) -> None:
        raise AssertionError("written on the loop")

    async def scenario() -> None:
        commits: Commits[str] = Commits()
        writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="writer")
        loop = asyncio.get_running_loop()
        thread_sides = Sides(write, lambda rows: None, lambda rows: None)

        def drain():
            return loop.run_in_executor(writer, commits.drain, thread_sides)

        sides = LoopSides(not_on_the_loop, not_on_the_loop, lambda rows: None, drain)
        waits = [asyncio.ensure_future(commits.outcome_on_loop(commits.add("a", "a"), sides))]
        await loop.run_in_executor(None, first_write.wait, 5)
        # While "a" is being written in the thread, two more join the next group.
        waits.extend(
            asyncio.ensure_future(commits.outcome_on_loop(commits.add(key, key), sides))
            for key in ("b", "c")
        )
        go_on.set()
        await asyncio.wait_for(asyncio.gather(*waits), timeout=5)
        writer.shutdown(wait=True)
        assert written == [["a"], ["b", "c"]]
        assert threads == {"writer_0"}
        assert commits.idle()

    asyncio.run(scenario())
