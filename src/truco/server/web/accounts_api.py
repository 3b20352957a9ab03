"""The players' API under ``/api``: accounts (sign up, log in and out, rename, change the
password), sessions (list, end one, end all), who you are, the leaderboards and the
players' profiles.

An account's session is the same HttpOnly, SameSite cookie (or Bearer token) a guest's is,
marked as an account's: its player id is the account's, so it reaches that account's seats
and no other. Sessions are the server's (:mod:`truco.server.people.session_store`): logging out
ends one for every copy of its token.

Passwords are hashed and checked by argon2id in threads, at most
``password_workers`` at once (:class:`~truco.server.people.accounts.PasswordWork`): a flood of
logins, right or wrong, waits its turn instead of taking every core. Logins are limited per
address (all attempts) and per account (successful ones), and failures slow the next try of
the same name from the same address, and of the address (:mod:`.login_throttle`).

Every refusal is ``{"detail", "code", "params"}``
(:class:`~truco.server.people.accounts.AccountError`).
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..guards.limits import MovingWindow, parse_rate
from ..guards.login_throttle import LoginThrottle
from ..metrics import REFUSALS
from ..people import accounts, fair_play, moderation, ratings
from ..people.accounts import AccountError, PasswordWork
from ..people.players import Player
from ..people.sessions import clear_session_cookie
from ..refusals import EVERY_ROUTE, refusals
from .deps import ID_PATTERN, MaybePlayerDep, PlayerDep, ServerDep, TableId
from .tables_api import client_summary, session_answer

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

Mode = Literal["1v1", "2v2", "3v3"]
WRONG = "wrong name or password"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # text is text, not a number


class Credentials(_Body):
    name: str = Field(max_length=100, description="2 to 24 characters, unique")
    password: str = Field(max_length=1000, description="at least 8 characters, not common")


class Rename(_Body):
    name: str = Field(max_length=100, description="2 to 24 characters, unique")


class PasswordChange(_Body):
    old: str = Field(max_length=1000, description="the password now")
    new: str = Field(max_length=1000, description="at least 8 characters, not common")


class LoginGuard:
    """What logging in passes through: the argon2 queue, the per-address and per-account
    windows, and the throttle of failures."""

    def __init__(self, rate: str, workers: int, free_failures: int) -> None:
        self.rate_text = rate
        self.addresses = MovingWindow(parse_rate(rate))
        self.accounts = MovingWindow(parse_rate(rate))
        self.work = PasswordWork(concurrency=workers)
        self.throttle = LoginThrottle(free=free_failures)


def account_refusal(request: Request, exc: Exception) -> JSONResponse:
    """The answer of an :class:`AccountError` (registered on the app)."""
    assert isinstance(exc, AccountError)
    headers = None
    if exc.status == 429:  # login_throttled, login_rate, login_busy
        headers = {"Retry-After": str(int(exc.params.get("retry_after", 60)))}
        REFUSALS.labels(exc.code).inc()
    return JSONResponse(exc.to_json(), status_code=exc.status, headers=headers)


def _guard(request: Request) -> LoginGuard:
    guard: LoginGuard = request.app.state.login_guard
    return guard


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _login(
    request: Request, response: Response, server: ServerDep, account: accounts.Account
) -> dict[str, Any]:
    """A new session of the account, as its cookie; the session as ``POST /api/guest``
    gives it."""
    agent, address = client_summary(request)
    player = await server.sessions.open(
        account.name, account.id, account=True, agent=agent, address=address
    )
    engine, seen = server.store.engine, _address(request)
    await server.store.in_writer(lambda: fair_play.seen_at(engine, account.id, seen, time.time()))
    return session_answer(response, server, player)


# ------------------------------------------------------------------ accounts
@router.post("/accounts", status_code=201, responses=refusals(400, 403, 409))
async def sign_up(
    body: Credentials,
    request: Request,
    response: Response,
    server: ServerDep,
    known: MaybePlayerDep,
) -> dict[str, Any]:
    """A new account, logged in at once. A guest who signs up keeps their history."""
    name = accounts.check_name(body.name)
    accounts.check_password(body.password, name)
    address = _address(request)
    engine = server.store.engine
    if await moderation.address_barred(request.app.state.address_bans, address):
        raise AccountError(403, "new guests from your address are barred for now", "address_banned")
    await asyncio.to_thread(_may_sign_up, engine, address, server.config.signups_per_address_day)
    hashed = await _guard(request).work.run(accounts.hash_password, body.password)
    guest = known.id if known is not None and not known.account else None
    account = await server.store.in_writer(
        lambda: accounts.create(engine, name, hashed, guest, address)
    )
    return await _login(request, response, server, account)


def _may_sign_up(engine: Any, address: str, per_day: int) -> None:
    """:class:`AccountError` for an address past its sign-ups of the day (fair play: fresh
    accounts are what a rating farm needs)."""
    if per_day > 0:
        with engine.connect() as conn:
            made = fair_play.signups_today(conn, address, time.time())
        if made >= per_day:
            raise AccountError(
                429,
                f"too many accounts signed up from your address today (at most {per_day})",
                "signup_limit",
                {"limit": per_day, "retry_after": 3600},
            )


@router.post("/login", responses=refusals(400, 401))
async def login(
    body: Credentials, request: Request, response: Response, server: ServerDep
) -> dict[str, Any]:
    """Log in (the same answer for an unknown name and a wrong password). Failures slow
    the next try of the same name from the same address, and of the address (429 with
    ``retry_after``); an address has ``login_rate`` attempts, an account as many logins."""
    guard = _guard(request)
    address = _address(request)
    key = accounts.name_key(body.name)
    pair, of_address = guard.throttle.keys(key, address)
    wait = guard.throttle.wait(pair, of_address)
    if wait > 0:
        seconds = math.ceil(wait)
        raise AccountError(
            429,
            f"too many failed logins for this name from your address: try again in {seconds} s",
            "login_throttled",
            {"retry_after": seconds},
        )
    if not guard.addresses.hit(address):
        raise AccountError(
            429,
            f"too many logins from your address: at most {guard.rate_text}",
            "login_rate",
            {"rate": guard.rate_text, "retry_after": 60},
        )
    found = await asyncio.to_thread(accounts.find_login, server.store.engine, body.name)
    right = await guard.work.run(accounts.password_matches, found.password_hash, body.password)
    if not right or found.account is None:
        guard.throttle.failed(pair, of_address)
        raise AccountError(401, WRONG, "wrong_credentials")
    if not guard.accounts.hit(found.account.id):
        raise AccountError(
            429,
            f"too many logins to this account: at most {guard.rate_text}",
            "login_rate",
            {"rate": guard.rate_text, "retry_after": 60},
        )
    guard.throttle.succeeded(pair)
    if await asyncio.to_thread(moderation.is_banned, server.store.engine, found.account.id):
        raise AccountError(403, "this account is banned", "account_banned")
    return await _login(request, response, server, found.account)


@router.post("/logout", status_code=204, responses=refusals(403))
async def logout(response: Response, server: ServerDep, player: MaybePlayerDep) -> None:
    """End this session (every copy of its token stops working) and forget the cookie."""
    if player is not None:
        await server.sessions.end(player.session)
    clear_session_cookie(response)


@router.post("/me/password", responses=refusals(400, 401, 403, 404, 409))
async def change_password(
    body: PasswordChange, request: Request, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    """Change an account's password (the old one first); every other session of the
    account ends."""
    if not player.account:
        raise AccountError(403, "only accounts have a password", "account_only")
    guard = _guard(request)
    engine = server.store.engine
    current = await asyncio.to_thread(accounts.password_hash_of, engine, player.id)
    if current is None:
        raise AccountError(401, "the account of this session does not exist", "account_gone")
    pair, of_address = guard.throttle.keys(f"id:{player.id}", _address(request))
    wait = guard.throttle.wait(pair, of_address)
    if wait > 0:
        seconds = math.ceil(wait)
        raise AccountError(
            429,
            f"too many wrong passwords: try again in {seconds} s",
            "login_throttled",
            {"retry_after": seconds},
        )
    if not await guard.work.run(accounts.password_matches, current, body.old):
        guard.throttle.failed(pair, of_address)
        raise AccountError(403, "the password now is not that one", "wrong_password")
    account = await asyncio.to_thread(accounts.get, engine, player.id)
    accounts.check_password(body.new, account.name if account else player.name)
    hashed = await guard.work.run(accounts.hash_password, body.new)
    await server.store.in_writer(lambda: accounts.set_password(engine, player.id, hashed))
    ended = await server.sessions.end_all(player.id, keep=player.session)
    return {"changed": True, "sessions_ended": ended}


# ------------------------------------------------------------------ sessions
@router.get("/sessions", responses=refusals(401, 403))
async def sessions(server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """The live sessions of this session's player (this one marked ``current``)."""
    active = await server.sessions.active(player.id)
    return {"sessions": [s.to_json(player.session) for s in active]}


@router.delete("/sessions/{session_id}", status_code=204, responses=refusals(401, 403, 404))
async def end_session(
    session_id: Annotated[str, Path(pattern=ID_PATTERN, max_length=40)],
    response: Response,
    server: ServerDep,
    player: PlayerDep,
) -> None:
    """End one session of this player (this one too: then like logging out)."""
    if not await server.sessions.end(session_id, player.id):
        raise AccountError(404, "no such session of yours", "no_session_id")
    if session_id == player.session:
        clear_session_cookie(response)


@router.post("/sessions/revoke-all", responses=refusals(401, 403))
async def end_all_sessions(
    response: Response, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    """Log out everywhere: end every session of this player, this one included."""
    ended = await server.sessions.end_all(player.id)
    clear_session_cookie(response)
    return {"sessions_ended": ended}


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

        def read() -> tuple[accounts.Account | None, dict[str, ratings.Skill], str]:
            engine = server.store.engine
            account = accounts.get(engine, player.id)
            with engine.connect() as conn:
                found = moderation.standing(conn, player.id)
                return account, ratings.ratings_of(conn, player.id), found.role if found else ""

        account, skills, role = await asyncio.to_thread(read)
        if account is None:
            raise AccountError(
                401, "the account of this session does not exist: log in again", "account_gone"
            )
        me["name"] = account.name
        me["role"] = role  # player, moderator, admin (moderation.py)
        me["ratings"] = {mode: skill.to_json() for mode, skill in skills.items()}
    return me


@router.get("/me", responses=refusals(401))
async def me(server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """The session's player: a guest, or an account with its ratings."""
    return await _me(server, player)


@router.patch("/me", responses=refusals(400, 401, 403, 404, 409))
async def rename(body: Rename, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Change an account's display name (a guest renames with ``POST /api/guest``)."""
    if not player.account:
        raise AccountError(
            403,
            "only accounts rename here: a guest renames with POST /api/guest",
            "account_only",
        )
    name = accounts.check_name(body.name)
    engine = server.store.engine
    account = await server.store.in_writer(lambda: accounts.rename(engine, player.id, name))
    await server.sessions.rename(player.id, account.name)
    renamed = Player(account.id, account.name, player.expires, True, player.session)
    return {**await _me(server, renamed), "token": server.sessions.token(renamed)}


# ------------------------------------------------------------------ leaderboards, profiles
@router.get("/leaderboard")
async def leaderboard(
    server: ServerDep,
    mode: Mode = "1v1",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """The best rated players of a mode: rating, rated games; provisional accounts (fewer
    rated games than the server's ``leaderboard_min_games``) and banned ones are left out."""

    def read() -> list[dict[str, Any]]:
        with server.store.engine.connect() as conn:
            best = ratings.top(conn, mode, limit, server.config.leaderboard_min_games)
            names = accounts.names(conn, [player_id for player_id, _ in best])
        return [
            {"name": names[player_id], **skill.to_json()}
            for player_id, skill in best
            if player_id in names
        ]

    return {"mode": mode, "players": await asyncio.to_thread(read)}


@router.get("/players/{name}", responses=refusals(404))
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
        raise AccountError(404, f"no player {name[:30]!r}", "player_not_found", {"name": name[:30]})
    return found


@router.get("/matches/{table_id}/result", responses=refusals(404))
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
