"""PostgreSQL group commits as one statement (``truco.server.storage.store_pg``): what the generic
path writes, and the fence refusing the whole statement."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from databases import postgres_schema, postgres_unreachable, service_missing
from truco.server.storage.journal import TableWrite
from truco.server.storage.rows import FenceError, MatchRow
from truco.server.storage.store import Store
from truco.server.storage.store_pg import FENCE_REFUSED, batch_statement


@pytest.fixture
def pg_url() -> Iterator[str]:
    reason = postgres_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema("truco_storepg") as url:
        yield url


def row(match_id: str, version: int, name: str, status: str = "playing") -> MatchRow:
    now = time.time()
    return MatchRow(match_id, name, status, now, now, version, None, {"seats": [], "n": name})


def test_the_migration_and_the_writer_agree_on_the_refusal_code() -> None:
    from truco.server.storage.migrations.versions import v0004_fence_function

    assert v0004_fence_function.FENCE_REFUSED == FENCE_REFUSED


def test_a_batch_states_only_the_parts_it_needs() -> None:
    entry = TableWrite("a", 3, entry={"events": []})
    sql, params = batch_statement([entry], {}, 1.0)
    assert "entries AS" in sql and "rows AS" not in sql and "fences" not in sql
    assert params == [["a"], [3], ['{"events":[]}']]
    sql, params = batch_statement([entry], {"a": 7}, 1.0)
    assert "truco_raise_fences" in sql and params[-2:] == [["a"], [7]]


def test_one_statement_writes_what_the_generic_path_writes(pg_url: str) -> None:
    async def scenario() -> None:
        store = Store(pg_url)
        await store.start()
        try:
            assert store._pg is not None  # the one-statement path is the one taken
            # new rows (checkpoints) and their first entries, in one batch
            await asyncio.gather(
                store.commit(TableWrite("t1", 1, checkpoint=row("t1", 1, "one"))),
                store.commit(TableWrite("t2", 1, checkpoint=row("t2", 1, "two"))),
            )
            await asyncio.gather(
                store.commit(TableWrite("t1", 2, entry={"events": [["all", None, {"v": 2}]]})),
                store.commit(
                    TableWrite(
                        "t2", 2, entry={"events": [["all", None, {"v": 2}]]}, table={"n": "new"}
                    )
                ),
            )
            await store.commit(
                TableWrite("t1", 3, entry={"events": [["all", None, {"v": 3}]]}, drop_before=3)
            )
            loaded = {r.id: r for r in store.load(match_id=None)}
            assert loaded["t1"].version == 3 and loaded["t2"].version == 2
            assert [e[2]["v"] for e in loaded["t1"].events] == [3]  # entry 2 dropped
            assert [e[2]["v"] for e in loaded["t2"].events] == [2]
            assert loaded["t2"].table == {"n": "new"} and loaded["t1"].table["n"] == "one"
            # a checkpoint of an existing row replaces it
            await store.commit(TableWrite("t2", 3, checkpoint=row("t2", 3, "two'", "finished")))
            t2 = store.load(match_id="t2")[0]
            assert (t2.status, t2.name, t2.version) == ("finished", "two'", 3)
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_fence_refuses_the_whole_statement_and_the_table_is_reported_lost(pg_url: str) -> None:
    async def scenario() -> None:
        old, new = Store(pg_url), Store(pg_url)
        lost: list[str] = []
        old.on_fence_lost = lost.append
        await old.start()
        try:
            old.fences.update({"kept": 5, "taken": 5})
            await asyncio.gather(
                old.commit(TableWrite("kept", 1, checkpoint=row("kept", 1, "k"))),
                old.commit(TableWrite("taken", 1, checkpoint=row("taken", 1, "t"))),
            )
            assert new.claim("taken", 6)  # another node takes "taken" over
            assert old._pg is not None
            # the writer alone: nothing of a batch with a refused table is written
            both = [
                TableWrite("kept", 2, entry={"events": [["all", None, {"v": 2}]]}),
                TableWrite("taken", 2, entry={"events": [["all", None, {"v": 2}]]}),
            ]
            with pytest.raises(FenceError) as refused:
                await old._pg.write(both, dict(old.fences), time.time())
            assert refused.value.match_id == "taken"
            assert {r.id: r.version for r in new.load()} == {"kept": 1, "taken": 1}
            # through the group commit: the refused write fails alone, the other is written
            results = await asyncio.gather(*(old.commit(w) for w in both), return_exceptions=True)
            assert results[0] is None and isinstance(results[1], FenceError)
            assert lost == ["taken"]
            assert {r.id: r.version for r in new.load()} == {"kept": 2, "taken": 1}
            assert not new.claim("taken", 5)  # the fence stays at the new owner's token
        finally:
            await old.close()
            new.engine.dispose()

    asyncio.run(scenario())


def test_awkward_text_goes_through_the_writer_and_reads_back_the_same(pg_url: str) -> None:
    """Names, tables and entries with quotes, backslashes, braces, commas, "NULL" and
    non-ASCII text come back as they were written (psycopg adapts the arrays)."""
    awkward = ['{"a":"b\\"c"}', "back\\slash", "{,}", "NULL", "", "ñandú ☃", 'x"y']

    async def scenario() -> None:
        store = Store(pg_url)
        await store.start()
        try:
            assert store._pg is not None
            await asyncio.gather(
                *(
                    store.commit(TableWrite(f"w{i}", 1, checkpoint=row(f"w{i}", 1, text)))
                    for i, text in enumerate(awkward)
                )
            )
            await asyncio.gather(
                *(
                    store.commit(
                        TableWrite(f"w{i}", 2, entry={"events": [["all", None, {"t": text}]]})
                    )
                    for i, text in enumerate(awkward)
                )
            )
            loaded = {r.id: r for r in store.load(match_id=None)}
            for i, text in enumerate(awkward):
                assert loaded[f"w{i}"].name == text
                assert loaded[f"w{i}"].table["n"] == text
                assert loaded[f"w{i}"].events[-1][2] == {"t": text}
        finally:
            await store.close()

    asyncio.run(scenario())
