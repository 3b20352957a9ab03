"""The players' API under ``/api``: accounts (sign up, log in and out, rename), who you are,
the leaderboards and the players' profiles.

An account's session is the same HttpOnly, SameSite cookie (or Bearer token) a guest's is,
marked as an account's: its player id is the account's, so it reaches that account's seats
and no other. Passwords are hashed in a thread (argon2id takes tens of milliseconds).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from . import accounts, ratings
from .accounts import AccountError
from .api import session_answer
from .deps import MaybePlayerDep, PlayerDep, ServerDep, TableId
from .limits import Attempts
from .players import Player
from .sessions import clear_session_cookie

router = APIRouter(prefix="/api")

Mode = Literal["1v1", "2v2", "3v3"]
WRONG = "wrong name or password"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Credentials(_Body):
    name: str = Field(max_length=100, description="2 to 24 characters, unique")
    password: str = Field(max_length=1000, description="at least 8 characters")


class Rename(_Body):
    name: str = Field(max_length=100, description="2 to 24 characters, unique")


def _refuse(error: AccountError) -> HTTPException:
    return HTTPException(error.status, error.reason)


def _attempts(request: Request) -> Attempts:
    attempts: Attempts = request.app.state.login_attempts
    return attempts


def _login(response: Response, server: ServerDep, account: accounts.Account) -> dict[str, Any]:
    """Set the account's session cookie; the session as ``POST /api/guest`` gives it."""
    token = server.signer.issue(account.name, account.id, account=True)
    return session_answer(response, server, token)


# ------------------------------------------------------------------ accounts
@router.post("/accounts", status_code=201)
async def sign_up(
    body: Credentials, response: Response, server: ServerDep, known: MaybePlayerDep
) -> dict[str, Any]:
    """A new account, logged in at once. A guest who signs up keeps their history."""
    try:
        name = accounts.check_name(body.name)
        accounts.check_password(body.password)
    except AccountError as exc:
        raise _refuse(exc) from None
    hashed = await asyncio.to_thread(accounts.hash_password, body.password)
    guest = known.id if known is not None and not known.account else None
    try:
        engine = server.store.engine
        account = await server.store.in_writer(lambda: accounts.create(engine, name, hashed, guest))
    except AccountError as exc:
        raise _refuse(exc) from None
    return _login(response, server, account)


@router.post("/login")
async def login(
    body: Credentials, request: Request, response: Response, server: ServerDep
) -> dict[str, Any]:
    """Log in (the same answer for an unknown name and a wrong password); a name or an
    address that failed too often is refused for a while (429)."""
    keys = (
        f"name:{accounts.name_key(body.name)}",
        f"address:{request.client.host if request.client else 'unknown'}",
    )
    attempts = _attempts(request)
    if attempts.refused(*keys):
        raise HTTPException(
            429,
            f"too many failed logins for this name or from your address: "
            f"at most {attempts.rate_text}; try again later",
            headers={"Retry-After": "60"},
        )
    account = await asyncio.to_thread(
        accounts.authenticate, server.store.engine, body.name, body.password
    )
    if account is None:
        attempts.failed(*keys)
        raise HTTPException(401, WRONG)
    return _login(response, server, account)


@router.post("/logout", status_code=204)
async def logout(response: Response) -> None:
    """Forget the session cookie (a token already given out stays valid until it expires)."""
    clear_session_cookie(response)


# ------------------------------------------------------------------ who you are
async def _me(server: ServerDep, player: Player) -> dict[str, Any]:
    me: dict[str, Any] = {
        "id": player.id,
        "name": player.name,
        "expires": player.expires,
        "account": player.account,
        "ratings": {},
    }
    if player.account:

        def read() -> tuple[accounts.Account | None, dict[str, ratings.Skill]]:
            engine = server.store.engine
            account = accounts.get(engine, player.id)
            with engine.connect() as conn:
                return account, ratings.ratings_of(conn, player.id)

        account, skills = await asyncio.to_thread(read)
        if account is None:
            raise HTTPException(401, "the account of this session does not exist: log in again")
        me["name"] = account.name
        me["ratings"] = {mode: skill.to_json() for mode, skill in skills.items()}
    return me


@router.get("/me")
async def me(server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """The session's player: a guest, or an account with its ratings."""
    return await _me(server, player)


@router.patch("/me")
async def rename(
    body: Rename, response: Response, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    """Change an account's display name (a guest renames with ``POST /api/guest``)."""
    if not player.account:
        raise HTTPException(403, "only accounts rename here: a guest renames with POST /api/guest")
    try:
        name = accounts.check_name(body.name)
        engine = server.store.engine
        account = await server.store.in_writer(lambda: accounts.rename(engine, player.id, name))
    except AccountError as exc:
        raise _refuse(exc) from None
    session = _login(response, server, account)
    renamed = Player(account.id, account.name, session["expires"], account=True)
    return {**await _me(server, renamed), "token": session["token"]}


# ------------------------------------------------------------------ leaderboards, profiles
@router.get("/leaderboard")
async def leaderboard(
    server: ServerDep,
    mode: Mode = "1v1",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """The best rated players of a mode: rating, rated games, provisional or not."""

    def read() -> list[dict[str, Any]]:
        with server.store.engine.connect() as conn:
            best = ratings.top(conn, mode, limit)
            names = accounts.names(conn, [player_id for player_id, _ in best])
        return [
            {"name": names[player_id], **skill.to_json()}
            for player_id, skill in best
            if player_id in names
        ]

    return {"mode": mode, "players": await asyncio.to_thread(read)}


@router.get("/players/{name}")
async def profile(
    name: Annotated[str, Path(max_length=100, description="an account's name")],
    server: ServerDep,
) -> dict[str, Any]:
    """An account's ratings, rating history, record per mode and finished matches."""

    def read() -> dict[str, Any] | None:
        account = accounts.by_name(server.store.engine, name)
        if account is None:
            return None
        with server.store.engine.connect() as conn:
            # a result's rows are committed together but read one query at a time: the
            # ratings last, so that they include every match the other parts show
            matches = ratings.matches_of(conn, account.id)
            record = ratings.record_of(conn, account.id)
            history = ratings.history_of(conn, account.id)
            skills = ratings.ratings_of(conn, account.id)
        return {
            "name": account.name,
            "ratings": {mode: skill.to_json() for mode, skill in skills.items()},
            "history": history,
            "record": record,
            "matches": matches,
        }

    found = await asyncio.to_thread(read)
    if found is None:
        raise HTTPException(404, f"no player {name[:30]!r}")
    return found


@router.get("/matches/{table_id}/result")
async def match_result(table_id: TableId, server: ServerDep) -> Any:
    """A finished match's result as recorded: its winner and, for a rated match, each
    player's rating before and after it; ``"recorded": false`` until it is recorded (a
    moment after the match ends: ask again). 404 (code ``no_match``) for no such match."""

    def read() -> dict[str, Any] | None:
        with server.store.engine.connect() as conn:
            return ratings.match_result(conn, table_id)

    found = await asyncio.to_thread(read)
    if found is None:
        return JSONResponse(
            {"detail": f"no match {table_id!r}", "code": "no_match", "params": {"id": table_id}},
            status_code=404,
        )
    return found
