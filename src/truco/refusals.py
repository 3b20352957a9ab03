"""Refusals: why something is not allowed, as a stable code and its parameters.

Every "no" the project gives a person (an illegal action in the engine, a table's, the
socket's, an HTTP route's, quick match's) is a :class:`Refusal`: a ``code`` from
:data:`CODES` and the ``params`` that fill its words. Clients word it in the player's
language from the code, never from prose: the page with ``refusal.<code>`` of its
catalogs (``server/static/i18n/{es,en}.json``), the terminal through the gettext
catalog (``locale/``), whose message id is the code's English template. The English
sentence (:attr:`Refusal.reason`) is for scripts, logs and ``str()``.

>>> refusal = Refusal.of("not_your_turn", player=2)
>>> refusal.code, refusal.params, refusal.reason
('not_your_turn', {'player': 2}, 'it is not your turn: seat 2 plays')
>>> refusal.to_json()["code"], str(refusal) == refusal.reason
('not_your_turn', True)

Parameters by name, which clients word before filling the template:

- ``player``: a seat number (0-based); clients show the name of whoever sits there;
- ``seat``: a seat number (0-based) as a place at the table; clients show it 1-based;
- ``card``: a card in the record notation (``"1e"``); clients show its name;
- ``action``: an action token (``"real-envido"``); ``call``: a call kind's token
  (``"truco"``, ``"contraflor-al-resto"``); clients show their names;
- anything else (a count, a name, a limit): shown as it is.

**A new code** is one line of :data:`CODES` (under its origin: where it is raised), with
its English template. Then word it for the clients: ``"refusal.<code>"`` in both page
catalogs, and its template as a message id of ``locale/es/LC_MESSAGES/truco.po``
(recompile the ``.mo``). ``tests/test_refusals.py`` fails until every code is worded in
both languages of both clients. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

Param = int | str
"""A refusal's parameter: a number or a short string (a token, a card, a name)."""


class Code(NamedTuple):
    """A refusal code's entry in the registry."""

    origin: str
    """Where it is raised: ``engine``, ``table``, ``socket``, ``http``, ``queue``..."""
    template: str
    """Its English sentence, with ``{param}`` placeholders (the terminal's message id)."""


def _codes(origin: str, entries: Mapping[str, str]) -> dict[str, Code]:
    return {code: Code(origin, template) for code, template in entries.items()}


#: Every refusal code of the project: code -> (origin, English template). One registry:
#: the clients' words and the tests are checked against it.
CODES: Final[dict[str, Code]] = {
    # ---- the engine's rules (truco.game: why_illegal and the legality predicates)
    **_codes(
        "engine",
        {
            "match_over": "the match is over",
            "hand_over": "the hand is over; the next one has not been dealt",
            "pica_pica_other_pair": "this pica-pica round is played by another pair",
            "gone_to_mazo": "you have gone to the mazo in this hand",
            "megaphone_teams_only": "the megaphone is only for 2v2 and 3v3 tables",
            "megaphone_pica_pica": "there is no team talk in a pica-pica hand",
            "waiting_for_rivals": "the {call} call is waiting for the other team's answer",
            "must_sing_flor": "you hold a flor: sing it (or go to the mazo) before anything else",
            "flor_holders_answer": "only a player holding flor answers a flor",
            "no_card_while_call": "nobody plays a card while the {call} call waits for its answer",
            "sin_flor": "this table is played sin flor",
            "flor_was_sung": "no envido is played in a hand where flor was sung",
            "falta_envido_ends_chain": "falta envido ends the chain",
            "real_envido_once": "real envido comes once",
            "envido_repeats_once": "the envido repeats only once, straight after a single envido",
            "envido_once": "the envido is played only once a hand",
            "envido_primero_only": (
                "the envido can only answer a first truco call, in the first baza"
            ),
            "not_an_answer": "{action} is not an answer to the {call} call here",
            "not_your_turn": "it is not your turn: {player} plays",
            "card_not_held": "you do not hold the {card}",
            "no_call_to_answer": "there is no call to answer",
            "envido_first_baza_only": "the envido is called only in the first baza",
            "envido_after_truco_accepted": "the envido is closed once the truco has been accepted",
            "envido_dealer_played": "the envido is closed once the dealer has played a card",
            "envido_pie_only": (
                "in teams only the pie (the last player of each team) opens the envido"
            ),
            "vale_cuatro_is_top": "vale cuatro is the highest call",
            "raise_by_acceptors": "only the team that accepted the last call may raise",
            "truco_first": "no truco has been called yet: the first call is truco",
            "next_truco_call": "the next call is {action}",
            "no_flor_held": "you do not hold a flor",
            "flor_already_sung": "you have already sung your flor",
            "no_flor_waiting": "{action} answers a flor, and no flor is waiting for an answer",
            "not_now": "not allowed now",
            "no_such_seat": "there is no seat {given} at a {players}-player table",
            "no_such_action": "there is no action {given} (0 to {last})",
        },
    ),
    # ---- the terminal game (truco.tui)
    **_codes(
        "terminal",
        {
            "watching_bots": "you are watching: the bots play this match",
            "record_only": "this is a record: → and ← step through it",
        },
    ),
    # ---- the table's socket: messages it cannot read (server/protocol.py, server/live.py)
    **_codes(
        "socket",
        {
            "bad_json": "the message is not JSON text",
            "not_an_object": "a message must be a JSON object",
            "unknown_type": "unknown message type {type}",
            "bad_message": "bad {type} message: {field}",
            "hello_once": "hello comes once, as the first message",
            "bad_action": "{given} is not an action of the game as the notation writes it",
            "too_large": "message of {size} bytes: the limit is {limit}",
            "rate_limited": "too many messages: at most {rate} a second",
            "moving": "the table is moving to another server: send that again",
            "bad_table_code": "not a table code: 1 to 32 letters, digits, - or _",
            "token_in_url": "tokens never travel in the URL: send them in the hello message",
            "bad_since": "since must be a version number (a whole number >= 0)",
            "no_hello": "no hello: send {{type: hello}} first",
            "hello_first": "the first message must be {{type: hello}} (with your token)",
            "bad_session": "your session is not valid or has expired: start a new one",
            "bad_token": "the guest token is not valid or has expired: ask for a new one",
            "match_over_replay": "the match is over: its replay is at /replay/{table}",
        },
    ),
    # ---- a table: seats, bots, the match (server/table/)
    **_codes(
        "table",
        {
            "not_seated": "you have no seat at this table",
            "started": "the match has started: seats cannot change now",
            "not_playing": "the match is not being played",
            "stale": "the table changed since version {given} (it is at {version}): look again",
            "card_committed": (
                "the {card} is already committed: a card released cannot be taken back"
            ),
            "no_seat": "there is no seat {seat} at a {players}-player table",
            "seat_taken": "seat {seat} is taken",
            "no_player": "sitting needs a guest session (POST /api/guest)",
            "account_needed": "a rated table seats accounts only: log in first",
            "not_creator": "only the table's creator seats and removes bots",
            "rated_no_bots": "a rated table has no bots: people only",
            "rated_queue_only": "rated matches are made by quick match: join a rated queue",
            "bad_bot": "there is no bot {level}",
            "no_bot": "there is no bot in seat {seat}",
        },
    ),
    # ---- the lobby: making tables (server/lobby.py, server/api.py)
    **_codes(
        "lobby",
        {
            "full": "the server holds as many tables as it can: try later",
            "too_many_tables": "you have {count} open tables: at most {limit} a guest",
            "too_many_from_address": "{count} open tables come from your address: at most {limit}",
            "no_seat_left": "leave at least one seat for people, or sit in one",
            "too_many_players": "too many players for a {players}-player table",
            "two_seats": "a player cannot take two seats",
            "rated_accounts_only": "a rated table seats accounts only, no bots",
            "bad_rules": "those are not rules of a table: {problem}",
            "short_turn": "turn_seconds: 0 (no clock) or at least {seconds} seconds a turn",
            "no_database": "the database does not answer: try again later",
            "no_site": "this server cannot reach the rest of the site: try again in a moment",
            "stopping": "the server is stopping: try again in a moment",
            "not_over": "a rematch is offered once the match is over",
            "rematch_closed": "the rematch is off: someone declined or left",
            "rematch_failed": "the rematch's table could not be made: try again",
        },
    ),
    # ---- the HTTP routes of sessions, tables and matches (server/api.py, server/deps.py)
    **_codes(
        "http",
        {
            "no_table": "there is no table {table}",
            "no_match": "there is no match {table}",
            "match_not_over": "the match is still being played: its record is shown when it ends",
            "session_needed": "a guest session is needed: POST /api/guest first",
            "logged_in": "you are logged in to an account: rename it in your profile, or log out",
            "bot_name": "names whose first word is Bot are the bots'",
            "account_name": "the name {name} is an account's: log in, or choose another",
        },
    ),
    # ---- quick match (server/queue_api.py)
    **_codes(
        "queue",
        {
            "no_queue": "there is no queue {queue}",
            "bad_bots_after": "bots_after: seconds from 0 to {limit}",
            "rated_no_bots_after": "rated queues have no bots: bots_after is for casual ones",
            "queue_needs_session": "a session is needed to queue: POST /api/guest first",
            "queue_needs_account": "rated queues are for accounts: sign up or log in",
            "already_queued": "you are already waiting in the {queue} queue",
            "table_not_made": "the table could not be made: try again",
            "rated_pair_limit": (
                "you met these players in rated play as often as a day allows: play a casual match"
            ),
            "rated_same_address": (
                "accounts from one address are not rated against each other: play a casual match"
            ),
            "queue_takes_leave": 'this socket takes only {{"type": "leave"}}',
        },
    ),
    # ---- playing together (server/friends.py, challenges.py, tournaments/)
    **_codes(
        "together",
        {
            "follow_self": "you cannot follow yourself",
            "follow_blocked": "you cannot follow that player",
            "block_self": "you cannot block yourself",
            "too_many_follows": "you follow {max} players already: unfollow one first",
            "too_many_blocks": "you blocked {max} players already",
            "challenge_1v1_only": (
                "a 1v1 challenge names one rival; a 2v2 or 3v3 one names partners and rivals"
            ),
            "challenge_seats": (
                "a challenge invites at most {partners} partners and {rivals} rivals"
            ),
            "challenge_self": "you cannot challenge yourself",
            "challenge_blocked": "you cannot challenge that player",
            "too_many_challenges": "you have {max} open challenges: cancel one first",
            "challenge_not_found": "there is no such challenge",
            "challenge_not_yours": "that challenge is someone else's",
            "challenge_closed": "that challenge is no longer open ({status})",
            "tournament_not_found": "there is no such tournament",
            "tournament_closed": "the tournament has already started",
            "tournament_full": "the tournament is full ({max} players)",
            "tournament_not_organiser": "only the tournament's organiser can do that",
            "tournament_official": "only moderators make official tournaments",
            "tournament_name": "a tournament needs a name",
            "tournament_too_few": "a tournament needs at least {min} players to start",
            "tournament_team": "this tournament is for teams: name your {partners} partners",
            "tournament_in_team": "{name} already plays in a team of this tournament",
            "tournament_1v1_only": "tournaments are 1v1 for now",
            "tournament_bad_start": "the start must be within {days} days",
            "too_many_tournaments": "you organise {max} open tournaments already",
        },
    ),
    # ---- accounts, sessions, logins, names and passwords (server/accounts.py, accounts_api.py)
    **_codes(
        "accounts",
        {
            "account_gone": "the account of this session no longer exists: log in again",
            "account_only": "that is for accounts only",
            "logged_in_account": (
                "you are logged in to your account: rename it from your account, or log out"
            ),
            "name_bot": "names starting with “Bot” belong to the bots",
            "name_confusable": (
                "“{name}” could be taken for the account “{other}”: choose another name"
            ),
            "name_control": "the name may only have letters, digits, spaces and signs",
            "name_invalid": "the name is not valid text",
            "name_is_account": (
                "“{name}” is (or looks like) the name of the account “{other}”: "
                "log in, or choose another"
            ),
            "name_length": "the name needs {min} to {max} characters",
            "name_reserved": "the name “{name}” is reserved",
            "name_taken": "the name “{name}” is taken",
            "no_session": "your session has ended: log in again",
            "no_session_id": "that session was already closed",
            "password_blank": "the password cannot be only spaces",
            "password_common": (
                "that password is among the first ones attackers try: choose one harder to guess"
            ),
            "password_has_name": "the password cannot contain your name",
            "password_invalid": "the password has characters that are not text",
            "password_too_long": "the password may have at most {max} characters",
            "password_too_short": "the password needs at least {min} characters",
            "player_not_found": "there is no player “{name}”",
            "wrong_credentials": "wrong name or password",
            "wrong_password": "that is not your current password",
            "login_busy": "the server is busy with many logins: try again in a moment",
            "login_rate": "too many logins in a row: try again in a minute",
            "login_throttled": "too many failed attempts: try again in {retry_after} s",
            "report_rate": "you sent many reports: try again later",
            "no_report_target": "nobody to report there: only a person's seat or profile",
            "no_report": "there is no report {id}",
            "report_self": "you cannot report yourself",
            "bad_address_ban": (
                "an address ban needs an address and lasts from 1 second to {days} days"
            ),
            "no_role": "there is no role {role}: player, moderator or admin",
            "reason_needed": "a moderator's action needs a reason",
            "admins_only": "that is for admins only",
            "moderators_only": "that is for moderators only",
            "signup_limit": (
                "too many accounts signed up from your address today (at most {limit}): "
                "try tomorrow"
            ),
            "address_banned": "new guests from your address are barred for now",
            "account_banned": "this account is banned",
        },
    ),
    # ---- the per-address and per-player limits (server/limits.py, body_cap.py, socket_caps.py)
    **_codes(
        "limits",
        {
            "analysis_quota": "you asked for too many analyses (at most {rate}): try later",
            "body_too_large": "the request is too large (at most {max_bytes} bytes)",
            "body_too_slow": "the request took too long to arrive (at most {seconds} seconds)",
            "too_many_requests": (
                "too many requests from your address (at most {rate}): wait a moment"
            ),
            "too_many_sockets": "you have too many open connections: close a tab. Reconnecting…",
            "too_many_writes": (
                "too many new guests or tables from your address (at most {rate}): wait a moment"
            ),
        },
    ),
}

_FORMAT: Final = {"player": "seat {}"}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why something is not allowed: a registered ``code`` and its parameters (kept as
    sorted ``(name, value)`` pairs: a refusal is immutable and hashable)."""

    code: str
    args: tuple[tuple[str, Param], ...] = ()

    @classmethod
    def of(cls, code: str, **params: Param) -> Refusal:
        """The refusal ``code`` (one of :data:`CODES`) with its ``params``."""
        if code not in CODES:
            raise KeyError(f"no refusal code {code!r}: add it to truco.refusals.CODES")
        return cls(code, tuple(sorted(params.items())))

    @property
    def params(self) -> dict[str, Param]:
        """The parameters, by name (a new dict)."""
        return dict(self.args)

    @property
    def reason(self) -> str:
        """The English sentence (for scripts and logs; people read the clients' words)."""
        plain = {
            name: _FORMAT[name].format(value) if name in _FORMAT else value
            for name, value in self.args
        }
        return CODES[self.code].template.format(**plain)

    def __str__(self) -> str:
        return self.reason

    def to_json(self) -> dict[str, object]:
        """``{"code", "params", "reason"}``: the refusal's fields of the wire shapes."""
        return {"code": self.code, "params": self.params, "reason": self.reason}
