"""Moderation on the database: roles, bans, forced renames, ratings reset or frozen, players'
reports, guests' addresses banned for a time, and the audit log every one of those actions
writes (who, what, on whom, why).

Everything here is a plain function of an :class:`~sqlalchemy.engine.Engine`, so that
``truco admin`` (on the server's database, the server running or not) and the moderators'
routes (:mod:`.moderation_api`) do the same thing. What a running server does on top (close
the banned player's sockets at once, hand their seats to bots, drop their queue tickets) is
:mod:`.moderation_api`'s; a ban made by ``truco admin`` reaches a running server through the
database: its sessions are gone, so within ``session_recheck_seconds`` every node closes
their sockets, finds the player banned (:func:`banned_among`) and gives their seats to bots
and drops their ticket there as the routes do (no reconnect grace for a banned player).

Roles: ``player`` (everyone), ``moderator`` (reports, bans, renames, ratings, address bans,
signals, the audit log), ``admin`` (a moderator who may also give and take roles). The
first admin is made with ``truco admin role NAME admin``.

>>> may("moderator", "ban"), may("player", "ban"), may("moderator", "role"), may("admin", "role")
(True, False, False, True)
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.engine import Connection, Engine

from ..storage.store import (
    accounts_table,
    address_bans_table,
    audit_table,
    rating_history_table,
    ratings_table,
    reports_table,
    sessions_table,
)
from . import accounts
from .accounts import AccountError

log = logging.getLogger("truco.server")

ROLES = ("player", "moderator", "admin")
#: why a player may be reported (the page words each as ``report.reason.<reason>``)
REASONS = ("abuse", "cheating", "farming", "name", "other")
#: where a report is made from
CONTEXTS = ("table", "replay", "profile")
#: the longest comment a report keeps
MAX_COMMENT = 500
#: the longest an address ban lasts (a guest's address changes hands: no ban is for ever)
MAX_ADDRESS_BAN = 90 * 24 * 3600.0


def may(role: str, action: str) -> bool:
    """Whether ``role`` may do ``action`` (``role`` changes are the admins' alone)."""
    if action == "role":
        return role == "admin"
    return role in ("moderator", "admin")


@dataclass(frozen=True, slots=True)
class Standing:
    """An account as moderation sees it."""

    id: str
    name: str
    role: str
    banned: bool
    rating_frozen: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "banned": self.banned,
            "rating_frozen": self.rating_frozen,
        }


_STANDING = (
    accounts_table.c.id,
    accounts_table.c.name,
    accounts_table.c.role,
    accounts_table.c.banned,
    accounts_table.c.rating_frozen,
)


def _standing(row: Any) -> Standing:
    return Standing(row.id, row.name, row.role, bool(row.banned), bool(row.rating_frozen))


def standing(conn: Connection, account_id: str) -> Standing | None:
    """The account ``account_id`` (None: no such account, a guest)."""
    row = conn.execute(select(*_STANDING).where(accounts_table.c.id == account_id)).first()
    return None if row is None else _standing(row)


def role_of(engine: Engine, player_id: str) -> str:
    """``player_id``'s role (a guest, or an account that is gone: ``player``)."""
    with engine.connect() as conn:
        found = standing(conn, player_id)
    return "player" if found is None else found.role


def find(engine: Engine, name: str) -> Standing:
    """The account named ``name`` (any spelling of it); :class:`AccountError` 404 if none."""
    account = accounts.by_name(engine, name)
    found = None
    if account is not None:
        with engine.connect() as conn:
            found = standing(conn, account.id)
    if found is None:
        raise AccountError(404, f"no player {name[:30]!r}", "player_not_found", {"name": name[:30]})
    return found


def any_banned(conn: Connection, player_ids: list[str]) -> bool:
    """Whether any of ``player_ids`` is a banned account."""
    query = select(accounts_table.c.id).where(
        accounts_table.c.id.in_(player_ids), accounts_table.c.banned.is_(True)
    )
    return conn.execute(query.limit(1)).first() is not None


def banned_among(engine: Engine, player_ids: list[str]) -> set[str]:
    """The banned accounts among ``player_ids``."""
    with engine.connect() as conn:
        return {
            r.id
            for r in conn.execute(
                select(accounts_table.c.id).where(
                    accounts_table.c.id.in_(player_ids), accounts_table.c.banned.is_(True)
                )
            )
        }


def is_banned(engine: Engine, account_id: str) -> bool:
    with engine.connect() as conn:
        found = standing(conn, account_id)
    return found is not None and found.banned


# ------------------------------------------------------------------ the audit log
def audit(
    conn: Connection, actor: str, action: str, target: str, reason: str, **details: Any
) -> None:
    """One line of the audit log: ``actor`` did ``action`` to ``target`` because ``reason``
    (and one line of the server's log)."""
    log.warning("moderation: %s by %s on %s: %s", action, actor[:80], target[:100], reason[:200])
    conn.execute(
        audit_table.insert().values(
            at=time.time(),
            actor=actor[:80],
            action=action,
            target=target[:100],
            reason=reason,
            details=json.dumps(details, sort_keys=True),
        )
    )


def audit_log(engine: Engine, target: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """The latest audit entries (of ``target`` only, if given), newest first."""
    query = select(audit_table).order_by(audit_table.c.seq.desc()).limit(limit)
    if target is not None:
        query = query.where(audit_table.c.target == target)
    with engine.connect() as conn:
        return [
            {
                "seq": r.seq,
                "at": r.at,
                "actor": r.actor,
                "action": r.action,
                "target": r.target,
                "reason": r.reason,
                "details": json.loads(r.details),
            }
            for r in conn.execute(query)
        ]


def _need_reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise AccountError(422, "a moderator's action needs a reason", "reason_needed")
    return reason[:500]


# ------------------------------------------------------------------ actions on accounts
def set_role(engine: Engine, actor: str, name: str, role: str, reason: str) -> Standing:
    """Make the account ``name`` a ``role`` (one of :data:`ROLES`)."""
    if role not in ROLES:
        raise AccountError(422, f"no role {role[:20]!r}", "no_role", {"role": role[:20]})
    reason = _need_reason(reason)
    found = find(engine, name)
    with engine.begin() as conn:
        conn.execute(
            update(accounts_table).where(accounts_table.c.id == found.id).values(role=role)
        )
        audit(
            conn, actor, "role", found.name, reason, account=found.id, before=found.role, after=role
        )
    return Standing(found.id, found.name, role, found.banned, found.rating_frozen)


def ban(
    engine: Engine, actor: str, name: str, reason: str, end_sessions: bool = True
) -> tuple[Standing, list[str]]:
    """Ban the account ``name``: it cannot log in, and (``end_sessions``) every session of
    it ends here: their ids, the sockets a running server closes (a running server ends
    them itself, through its session store, to close them at once)."""
    reason = _need_reason(reason)
    found = find(engine, name)
    with engine.begin() as conn:
        conn.execute(
            update(accounts_table).where(accounts_table.c.id == found.id).values(banned=True)
        )
        sessions: list[str] = []
        if end_sessions:
            mine = sessions_table.c.player_id == found.id
            sessions = [r.id for r in conn.execute(select(sessions_table.c.id).where(mine))]
            conn.execute(delete(sessions_table).where(mine))
        audit(conn, actor, "ban", found.name, reason, account=found.id)
    return Standing(found.id, found.name, found.role, True, found.rating_frozen), sessions


def unban(engine: Engine, actor: str, name: str, reason: str) -> Standing:
    reason = _need_reason(reason)
    found = find(engine, name)
    with engine.begin() as conn:
        conn.execute(
            update(accounts_table).where(accounts_table.c.id == found.id).values(banned=False)
        )
        audit(conn, actor, "unban", found.name, reason, account=found.id)
    return Standing(found.id, found.name, found.role, False, found.rating_frozen)


def force_rename(engine: Engine, actor: str, name: str, new_name: str, reason: str) -> Standing:
    """Rename the account ``name`` (an offensive name) to ``new_name`` (checked as a
    player's own rename is); its sessions carry the new name."""
    reason = _need_reason(reason)
    found = find(engine, name)
    shown = accounts.check_name(new_name)
    renamed = accounts.rename(engine, found.id, shown)
    with engine.begin() as conn:
        conn.execute(
            update(sessions_table)
            .where(sessions_table.c.player_id == found.id)
            .values(name=renamed.name)
        )
        audit(conn, actor, "rename", renamed.name, reason, account=found.id, before=found.name)
    return Standing(found.id, renamed.name, found.role, found.banned, found.rating_frozen)


def reset_rating(engine: Engine, actor: str, name: str, mode: str | None, reason: str) -> Standing:
    """Put the account's rating in ``mode`` (every mode: None) back to a new player's,
    its rating history of that mode gone (the results stay)."""
    reason = _need_reason(reason)
    found = find(engine, name)
    with engine.begin() as conn:
        mine = ratings_table.c.player_id == found.id
        history = rating_history_table.c.player_id == found.id
        if mode is not None:
            mine = mine & (ratings_table.c.mode == mode)
            history = history & (rating_history_table.c.mode == mode)
        before = {
            r.mode: {"mu": r.mu, "sigma": r.sigma, "games": r.games}
            for r in conn.execute(select(ratings_table).where(mine))
        }
        conn.execute(delete(ratings_table).where(mine))
        conn.execute(delete(rating_history_table).where(history))
        audit(
            conn, actor, "rating_reset", found.name, reason,
            account=found.id, mode=mode or "all", before=before,
        )  # fmt: skip
    return found


def freeze_rating(engine: Engine, actor: str, name: str, frozen: bool, reason: str) -> Standing:
    """Freeze the account's ratings (rated matches no longer move them; their opponents'
    still move), or thaw them."""
    reason = _need_reason(reason)
    found = find(engine, name)
    with engine.begin() as conn:
        conn.execute(
            update(accounts_table)
            .where(accounts_table.c.id == found.id)
            .values(rating_frozen=frozen)
        )
        action = "rating_freeze" if frozen else "rating_thaw"
        audit(conn, actor, action, found.name, reason, account=found.id)
    return Standing(found.id, found.name, found.role, found.banned, frozen)


# ------------------------------------------------------------------ guests' addresses
def ban_address(
    engine: Engine,
    actor: str,
    address: str,
    seconds: float,
    reason: str,
    end_sessions: bool = True,
) -> tuple[float, list[str]]:
    """Bar new guests from ``address`` for ``seconds`` (at most :data:`MAX_ADDRESS_BAN`) and
    (``end_sessions``) end the guest sessions it opened; until when, and those sessions' ids
    (a running server ends them itself, to close their sockets at once)."""
    reason = _need_reason(reason)
    address = address.strip()[:64]
    if not address or not 0 < seconds <= MAX_ADDRESS_BAN:
        raise AccountError(
            422,
            f"an address ban needs an address and lasts from 1 second to "
            f"{MAX_ADDRESS_BAN / 86400:g} days",
            "bad_address_ban",
            {"days": int(MAX_ADDRESS_BAN / 86400)},
        )
    now = time.time()
    until = now + seconds
    with engine.begin() as conn:
        conn.execute(delete(address_bans_table).where(address_bans_table.c.address == address))
        conn.execute(
            address_bans_table.insert().values(
                address=address, until=until, reason=reason, actor=actor[:80], created_at=now
            )
        )
        guests = (sessions_table.c.address == address) & sessions_table.c.account.is_(False)
        ended = [r.id for r in conn.execute(select(sessions_table.c.id).where(guests))]
        if end_sessions:
            conn.execute(delete(sessions_table).where(guests))
        audit(conn, actor, "ban_address", address, reason, until=until, sessions=len(ended))
    return until, ended


def unban_address(engine: Engine, actor: str, address: str, reason: str) -> bool:
    reason = _need_reason(reason)
    with engine.begin() as conn:
        done = conn.execute(
            delete(address_bans_table).where(address_bans_table.c.address == address)
        ).rowcount
        audit(conn, actor, "unban_address", address, reason, was_banned=bool(done))
    return bool(done)


class AddressBans:
    """The address bans in force as one process sees them: read from the database at most
    every ``recheck`` seconds (a new guest is the server's busiest write: no query each), at
    once after :meth:`forget` (a ban made through this process)."""

    def __init__(self, engine: Engine, recheck: float = 2.0) -> None:
        self.engine = engine
        self.recheck = recheck
        self._until: dict[str, float] = {}
        self._read_at: float | None = None

    def stale(self) -> bool:
        return self._read_at is None or time.monotonic() - self._read_at >= self.recheck

    def refresh(self) -> None:
        """Read the bans in force (in a thread: a query)."""
        now = time.time()
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(address_bans_table.c.address, address_bans_table.c.until).where(
                    address_bans_table.c.until > now
                )
            ).all()
        self._until = {r.address: float(r.until) for r in rows}
        self._read_at = time.monotonic()

    def forget(self) -> None:
        self._read_at = None

    def until(self, address: str | None) -> float | None:
        """Until when ``address`` is barred (None: it is not), as last read."""
        until = self._until.get(address or "")
        return until if until is not None and until > time.time() else None


async def address_barred(bans: AddressBans, address: str | None) -> bool:
    """Whether new guests and sign-ups from ``address`` are refused now."""
    if bans.stale():
        await asyncio.to_thread(bans.refresh)
    return bans.until(address) is not None


def address_bans(engine: Engine) -> list[dict[str, Any]]:
    """The address bans in force, the latest first."""
    query = (
        select(address_bans_table)
        .where(address_bans_table.c.until > time.time())
        .order_by(address_bans_table.c.created_at.desc())
    )
    with engine.connect() as conn:
        return [
            {"address": r.address, "until": r.until, "reason": r.reason, "actor": r.actor}
            for r in conn.execute(query)
        ]


# ------------------------------------------------------------------ reports
@dataclass(frozen=True, slots=True)
class Reported:
    """Whom a report is about, as the server found them (never as the reporter says)."""

    player_id: str
    name: str
    match_id: str | None


def file_report(
    engine: Engine,
    reporter_id: str,
    reporter_name: str,
    reported: Reported,
    context: str,
    reason: str,
    comment: str,
) -> int:
    """A new open report; its id."""
    if reporter_id == reported.player_id:
        raise AccountError(409, "you cannot report yourself", "report_self")
    text = " ".join("".join(ch for ch in comment if ch.isprintable()).split())[:MAX_COMMENT]
    with engine.begin() as conn:
        done = conn.execute(
            reports_table.insert().values(
                created_at=time.time(),
                reporter_id=reporter_id,
                reporter_name=reporter_name[:80],
                player_id=reported.player_id,
                player_name=reported.name[:80],
                context=context,
                match_id=reported.match_id,
                reason=reason,
                comment=text,
                status="open",
            )
        )
        key = done.inserted_primary_key
    assert key is not None
    return int(key[0])


def reports(engine: Engine, status: str | None = "open", limit: int = 100) -> list[dict[str, Any]]:
    """Reports (open ones by default), the latest first, each with its replay's address
    and how many reports its player has."""
    query = select(reports_table).order_by(reports_table.c.id.desc()).limit(limit)
    if status is not None:
        query = query.where(reports_table.c.status == status)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
        ids = list({r.player_id for r in rows})
        counts: dict[str, int] = {}
        for r in conn.execute(
            select(reports_table.c.player_id).where(reports_table.c.player_id.in_(ids))
        ):
            counts[r.player_id] = counts.get(r.player_id, 0) + 1
        known = {
            r.id: r for r in conn.execute(select(*_STANDING).where(accounts_table.c.id.in_(ids)))
        }
    return [
        {
            "id": r.id,
            "at": r.created_at,
            "reporter": r.reporter_name,
            "player": known[r.player_id].name if r.player_id in known else r.player_name,
            "account": r.player_id in known,
            "banned": bool(known[r.player_id].banned) if r.player_id in known else False,
            "context": r.context,
            "match_id": r.match_id,
            "replay_url": None if r.match_id is None else f"/replay/{r.match_id}",
            "reason": r.reason,
            "comment": r.comment,
            "status": r.status,
            "closed_by": r.closed_by,
            "reports_of_player": counts.get(r.player_id, 0),
        }
        for r in rows
    ]


def close_report(engine: Engine, actor: str, report_id: int, reason: str) -> None:
    """Close an open report (handled, or nothing to do) with why."""
    reason = _need_reason(reason)
    with engine.begin() as conn:
        row = conn.execute(select(reports_table).where(reports_table.c.id == report_id)).first()
        if row is None:
            raise AccountError(404, f"no report {report_id}", "no_report", {"id": report_id})
        conn.execute(
            update(reports_table)
            .where(reports_table.c.id == report_id)
            .values(status="closed", closed_by=actor[:80], closed_at=time.time())
        )
        audit(conn, actor, "close_report", row.player_name, reason, report=report_id)
