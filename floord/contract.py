"""The public contract, in one place: MQTT topics, event types, the envelope, commands.

Everything a subscriber or an operator's client can see is named here and nowhere
else, and `docs/contract.md` describes the same things. Changing a name here is a
breaking change for every surveillance console on the floor: add, never rename.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from floord.instants import format_ts as format_ts
from floord.instants import parse_ts as parse_ts

CONTRACT_VERSION = 1
# The wire's JSON form (compact, UTF-8 text as it is): an envelope's, the journal's stored
# bodies' and the retained bodies'. One encoder, made once: `json.dumps` with options
# builds one per call.
WIRE_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
DEFAULT_TOPIC_PREFIX = "floor/v1"


class EventType(StrEnum):
    """Every event type floord publishes. Values are the wire names; never rename one."""

    # Driver adapters: a device's own normalised events.
    DEVICE_ONLINE = "device.online"
    DEVICE_OFFLINE = "device.offline"
    DEVICE_IDENTIFIED = "device.identified"
    DEVICE_FAULT = "device.fault"
    DEVICE_PROTOCOL_ERROR = "device.protocol_error"
    # The protocol errors a noisy line's adapter counted instead of recording each.
    DEVICE_PROTOCOL_ERRORS = "device.protocol_errors"
    DEVICE_COMMAND_RESULT = "device.command_result"
    WHEEL_GAME_STARTED = "wheel.game_started"
    WHEEL_BALL_LAUNCHED = "wheel.ball_launched"
    WHEEL_NO_MORE_BETS = "wheel.no_more_bets"
    WHEEL_NUMBER = "wheel.number"
    WHEEL_WARNING = "wheel.warning"
    WHEEL_IDLE = "wheel.idle"
    # A sensor kit on a manual wheel (docs/protocols/wheel-sensor.md, § 531.6, § 531.7).
    WHEEL_BALL_REVOLUTIONS = "wheel.ball_revolutions"
    WHEEL_BALL_OFF = "wheel.ball_off_wheel"
    WHEEL_FOREIGN_OBJECT = "wheel.foreign_object"
    DEVICE_TAMPER = "device.tamper"
    DEVICE_HEARTBEAT_LOST = "device.heartbeat_lost"
    # Card reader device (58 Pa. Code § 549.2(e), § 549.7(f), § 549.16(j), (k)).
    READER_PEEK = "reader.peek"
    READER_SELF_TEST = "reader.self_test"
    # Dealing shoes (manual with a card-out sensor, card recognition, double).
    SHOE_LOADED = "shoe.loaded"
    SHOE_CARD_DRAWN = "shoe.card_drawn"
    SHOE_CARD_FACE_UP = "shoe.card_face_up"
    SHOE_CUTTING_CARD = "shoe.cutting_card"
    SHOE_EMPTY = "shoe.empty"
    # A shoe that malfunctions and cannot be used says so (code 0: back in service).
    SHOE_OUT_OF_ORDER = "shoe.out_of_order"
    # Automated card shufflers (batch and continuous).
    SHUFFLER_SHUFFLE_STARTED = "shuffler.shuffle_started"
    SHUFFLER_SHUFFLE_COMPLETED = "shuffler.shuffle_completed"
    SHUFFLER_BATCH_READY = "shuffler.batch_ready"
    SHUFFLER_BATCH_REMOVED = "shuffler.batch_removed"
    SHUFFLER_JAM = "shuffler.jam"
    SHUFFLER_DOOR = "shuffler.door"
    SHUFFLER_OUT_OF_ORDER = "shuffler.out_of_order"
    SHUFFLER_MODE = "shuffler.mode"
    # Big Six wheel with a clapper sensor (58 Pa. Code ch. 533).
    BIGSIX_SPIN_STARTED = "bigsix.spin_started"
    BIGSIX_REVOLUTION = "bigsix.revolution"
    BIGSIX_AT_REST = "bigsix.at_rest"
    BIGSIX_BETWEEN_SECTIONS = "bigsix.between_sections"
    # Dice trackers and dice shakers (docs/protocols/dice-tracker.md; 58 Pa. Code
    # § 537.7-537.10, § 535.2(d)): what the device saw, never a judgement of the throw.
    DICE_SET = "dice.set"
    DICE_SELECTED = "dice.selected"
    DICE_THROW = "dice.throw"
    # The engine's decisions.
    TABLE_OPENED = "table.opened"
    TABLE_CLOSED = "table.closed"
    TABLE_HALTED = "table.halted"
    TABLE_RESUMED = "table.resumed"
    # A device's fault no longer stands (it identified on a newer connection).
    TABLE_FAULT_CLEARED = "table.fault_cleared"
    # A floorperson covered an out-of-order device (or put a sign on it) so that the table
    # deals another way (58 Pa. Code § 571.13(g)), and later took the cover off.
    TABLE_DEVICE_COVERED = "table.device_covered"
    TABLE_DEVICE_UNCOVERED = "table.device_uncovered"
    ROUND_STARTED = "round.started"
    ROUND_ENDED = "round.ended"
    ROUND_VOIDED = "round.voided"
    ROULETTE_RESULT = "roulette.result"
    ROULETTE_NO_SPIN = "roulette.no_spin"
    ROULETTE_WHEEL_SERVICE = "roulette.wheel_service"
    ROULETTE_BALL_REPLACED = "roulette.ball_replaced"
    PROCEDURE_VIOLATION = "procedure.violation"
    TABLE_WARNING = "table.warning"
    BLACKJACK_HAND = "blackjack.hand"
    BLACKJACK_DEALER_HAND = "blackjack.dealer_hand"
    BLACKJACK_PEEK = "blackjack.peek"
    BLACKJACK_RESULT = "blackjack.result"
    # The dealer's errors in a Blackjack deal (58 Pa. Code § 549.16(e), (g), (i)).
    BLACKJACK_CARD_CORRECTED = "blackjack.card_corrected"
    BLACKJACK_HAND_OPTION = "blackjack.hand_option"
    BLACKJACK_HAND_DEAD = "blackjack.hand_dead"
    CARDS_SHUFFLE_REQUIRED = "cards.shuffle_required"
    CARDS_BATCH_REFUSED = "cards.batch_refused"
    CARDS_DECKS_CHANGED = "cards.decks_changed"
    CARDS_BURN = "cards.burn"
    CARDS_LAST_HAND = "cards.last_hand"
    CARDS_DECK_REMOVED = "cards.deck_removed"
    CARDS_DECKS_RECEIVED = "cards.decks_received"
    CARDS_DECKS_INSPECTED = "cards.decks_inspected"
    # The decks received spread for the first player, then washed and stacked
    # (58 Pa. Code § 549.5(b)-(e), § 551.4(b), (c), § 54x.4(b), (c), § 571.4(b)-(d)).
    CARDS_DECKS_SPREAD = "cards.decks_spread"
    # The cut of a War stack: who was offered it and who cut (58 Pa. Code § 567.5(b)-(d)).
    CARDS_CUT = "cards.cut"
    # A floorperson's verification of a feathered stack (58 Pa. Code § 541.5(b), § 543.5(b)).
    CARDS_SHUFFLE_VERIFIED = "cards.shuffle_verified"
    BACCARAT_HAND = "baccarat.hand"
    BACCARAT_RESULT = "baccarat.result"
    STUD_HAND = "stud.hand"
    STUD_RESULT = "stud.result"
    BIGSIX_RESULT = "bigsix.result"
    BIGSIX_NO_SPIN = "bigsix.no_spin"
    # Pai Gow (58 Pa. Code § 535.2(d)): the starting position the shaker's dice named,
    # and where the dealer dealt the tiles from.
    PAIGOW_DEAL_POSITION = "paigow.deal_position"
    PAIGOW_DEALT = "paigow.dealt"
    # Craps and Mini-Craps (58 Pa. Code ch. 537): the engine's call of each throw.
    CRAPS_ROLL = "craps.roll"
    CRAPS_NO_ROLL = "craps.no_roll"
    CRAPS_THROW_HELD = "craps.throw_held"
    CRAPS_SHOOTER = "craps.shooter"
    CRAPS_FIRE_BET = "craps.fire_bet"
    CRAPS_DICE = "craps.dice"
    # A second source for every result (floord policy): both sources agreed, they
    # disagreed (the round is held), the second was silent past the window, a
    # floorperson's ruling decided a held result.
    RESULT_CONFIRMED = "result.confirmed"
    RESULT_DISPUTED = "result.disputed"
    RESULT_SILENT = "result.silent"
    RESULT_RULED = "result.ruled"
    SURVEILLANCE_ALERT = "surveillance.alert"
    SURVEILLANCE_ALERT_ACKNOWLEDGED = "surveillance.alert_acknowledged"
    # The surveillance department notified of what a rule says it must confirm (the
    # Fire Bet's four unique points, 58 Pa. Code § 537.12(a)(6)); not an alert to acknowledge.
    SURVEILLANCE_NOTICE = "surveillance.notice"
    # Operators.
    OPERATOR_INSPECTION = "operator.inspection"
    OPERATOR_COMMAND = "operator.command"
    OPERATOR_COMMAND_REFUSED = "operator.command_refused"
    # Unverified refusals past a window's first few, counted, not recorded one by one.
    OPERATOR_COMMANDS_REFUSED = "operator.commands_refused"
    # The daemon itself.
    DAEMON_STARTED = "daemon.started"
    DAEMON_STOPPED = "daemon.stopped"
    # The record itself: the check `run` makes of each table's journal on start.
    JOURNAL_INTEGRITY = "journal.integrity"
    # A table's state set aside on the record (`floord journal retire`): its snapshot no
    # longer fitted the table's config (another game or wheel).
    TABLE_RETIRED = "table.retired"
    # The journal put back from a backup (`floord journal restore`): the stream goes on
    # from the backup's head, so `seq` goes back for a subscriber that saw more.
    JOURNAL_RESTORED = "journal.restored"


EVENT_TYPES: frozenset[str] = frozenset(t.value for t in EventType)


class Role(StrEnum):
    """Who an operator is on the floor. Only these roles exist in a config."""

    DEALER = "dealer"
    FLOORPERSON = "floorperson"
    SUPERVISOR = "supervisor"
    SECURITY = "security"
    MAINTENANCE = "maintenance"
    # Craps (58 Pa. Code § 537.1): the boxperson supervises the game at one table, the
    # stickperson controls the selection and use of the dice.
    BOXPERSON = "boxperson"
    STICKPERSON = "stickperson"


ANY_ROLE: frozenset[str] = frozenset(r.value for r in Role)
FLOORPERSON_OR_ABOVE: frozenset[str] = frozenset({Role.FLOORPERSON, Role.SUPERVISOR})

# Which roles may issue which operator command. A name not listed is refused.
# `inspect` follows 58 Pa. Code § 531.3(a): a floorperson or a member of security.
COMMAND_ROLES: dict[str, frozenset[str]] = {
    "inspect": frozenset({Role.FLOORPERSON, Role.SECURITY}),
    "open": FLOORPERSON_OR_ABOVE,
    "close": FLOORPERSON_OR_ABOVE,
    "resume": FLOORPERSON_OR_ABOVE,
    "replay": ANY_ROLE,
    # Card tables: what the dealer does that no device sees (58 Pa. Code ch. 549, 551).
    "dealer_in": frozenset({Role.DEALER}),
    "round_start": frozenset({Role.DEALER}),
    "decision": frozenset({Role.DEALER}),
    "dealer_turn": frozenset({Role.DEALER}),
    "round_end": frozenset({Role.DEALER}),
    # Blackjack: where the last card drawn was really dealt, and a player's option
    # after a dealer's error (58 Pa. Code § 549.16(e), (g), (i)).
    "card_to": frozenset({Role.DEALER, Role.FLOORPERSON, Role.SUPERVISOR}),
    "hand_option": frozenset({Role.DEALER, Role.FLOORPERSON, Role.SUPERVISOR}),
    "no_more_bets": frozenset({Role.DEALER}),
    # Baccarat: deferred vigorish collected (58 Pa. Code § 545.13(f)).
    "vigorish_collected": frozenset({Role.DEALER}),
    "reveal": frozenset({Role.DEALER}),
    "stub_count": frozenset({Role.DEALER}),
    "shuffle": frozenset({Role.DEALER}),
    "cut": frozenset({Role.DEALER}),
    # A floorperson's calls on a card table.
    "reshuffle": FLOORPERSON_OR_ABOVE,
    "change_decks": FLOORPERSON_OR_ABOVE,
    "cover_shuffler": FLOORPERSON_OR_ABOVE,
    # Mississippi Stud: the automated dealing shoe covered as out of order, the table
    # dealing another way (58 Pa. Code § 571.13(g)), and the cover taken off.
    "cover_shoe": FLOORPERSON_OR_ABOVE,
    "uncover_shoe": FLOORPERSON_OR_ABOVE,
    "remove_deck": FLOORPERSON_OR_ABOVE,
    "recut": FLOORPERSON_OR_ABOVE,
    # Mini- and Midibaccarat: the floorperson verifies the feathered stack's shuffle
    # (58 Pa. Code § 541.5(b), § 543.5(b)).
    "shuffle_verified": FLOORPERSON_OR_ABOVE,
    # Decks received at a card table: the dealer inspects them, a floorperson verifies
    # (58 Pa. Code § 549.5(a), § 551.4(a), (b), § 571.4(a), (b), § 545.4(a)); either
    # records their arrival.
    "decks_received": frozenset({Role.DEALER, Role.FLOORPERSON, Role.SUPERVISOR}),
    "decks_inspected": frozenset({Role.DEALER, Role.FLOORPERSON, Role.SUPERVISOR}),
    # The dealer spreads them for the first player, washes and stacks them (§ 549.5(b)-(e)).
    "decks_spread": frozenset({Role.DEALER}),
    # Roulette: a wheel's movable parts adjusted or replaced (58 Pa. Code § 531.3(b), (d)).
    "wheel_adjusted": frozenset({Role.FLOORPERSON, Role.MAINTENANCE}),
    "wheel_part_replaced": frozenset({Role.FLOORPERSON, Role.MAINTENANCE}),
    # Roulette: a ball put into play during the day (58 Pa. Code § 531.2).
    "ball_replaced": frozenset({Role.FLOORPERSON, Role.MAINTENANCE}),
    # Big Six: the dealer's call before the spin (58 Pa. Code § 533.2(a)).
    "spin": frozenset({Role.DEALER}),
    # Pai Gow: where the dealer began dealing the tiles (58 Pa. Code § 535.2(d)).
    "deal": frozenset({Role.DEALER}),
    # Craps and Mini-Craps (58 Pa. Code ch. 537): the engine checks the game's own roles
    # (§ 537.9(d), § 537.10(c), § 537.11(a)(2)); these are every role either game allows.
    "shooter": frozenset({Role.STICKPERSON, Role.DEALER}),
    "pass_dice": frozenset({Role.STICKPERSON, Role.DEALER, Role.BOXPERSON}),
    "fire_bet": frozenset({Role.DEALER}),
    "call_roll": frozenset({Role.STICKPERSON, Role.DEALER}),
    "no_roll": frozenset({Role.BOXPERSON, Role.STICKPERSON, Role.DEALER, Role.FLOORPERSON}),
    "face_ruling": frozenset({Role.BOXPERSON, Role.FLOORPERSON}),
    # A second source for every result: the dealer's call of the result (58 Pa. Code
    # § 531.6(c): the dealer announces the number), and a floorperson's ruling on a
    # result held because the sources disagreed or the second was silent.
    # Craps: the stickperson calls (§ 537.10(a)), the boxperson decides a dispute
    # (§ 537.10(c)(1)); each engine checks its own game's persons.
    "call_result": frozenset({Role.DEALER, Role.STICKPERSON}),
    "rule_result": FLOORPERSON_OR_ABOVE | {Role.BOXPERSON},
    # Surveillance: a supervisor acknowledges a wheel-integrity alert.
    "ack_alert": frozenset({Role.SUPERVISOR, Role.SECURITY}),
}

COMMAND_MAX_SKEW_S = 30.0
# A command's payload (`P/cmd`, `P/replay/request`) over this is refused unread (`malformed`).
COMMAND_MAX_BYTES = 64 * 1024
REPLAY_MAX_EVENTS = 10_000
# The largest `seq` a stream can have: the journal's (SQLite's) 64-bit integer. A seq
# from outside above it is refused where it is read: no stream holds it.
SEQ_MAX = 2**63 - 1
# A device replay answer carries at most this many events; the daemon asks again for more.
DEVICE_REPLAY_BATCH = 500


@dataclass(frozen=True)
class Topics:
    """The MQTT topics of one table: P = `<prefix>/<site>/<table>`."""

    prefix: str
    site: str
    table: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.site}/{self.table}"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def status(self) -> str:
        """Retained: the daemon's link is up (`STATUS_FIELDS`); its last will, or its
        own word on a clean stop, says `online: false`."""
        return f"{self.base}/status"

    @property
    def cmd(self) -> str:
        return f"{self.base}/cmd"

    @property
    def cmd_result(self) -> str:
        return f"{self.base}/cmd/result"

    @property
    def replay(self) -> str:
        return f"{self.base}/replay"

    @property
    def replay_request(self) -> str:
        """Signed `replay` commands only: a surveillance login may publish here and
        nowhere else (the broker's ACL), so it can fill a gap but command nothing."""
        return f"{self.base}/replay/request"

    def device(self, device_id: str) -> str:
        return f"{self.base}/devices/{device_id}"

    def device_events(self, device_id: str) -> str:
        return f"{self.base}/devices/{device_id}/events"

    # A driver adapter in its own process (`floord adapter`, docs/architecture.md).

    def device_status(self, device_id: str) -> str:
        """Retained: the adapter process is up (`DEVICE_STATUS_FIELDS`; its last will says
        `online: false`)."""
        return f"{self.base}/devices/{device_id}/status"

    def device_cmd(self, device_id: str) -> str:
        """The daemon's device commands (a re-spin) to the adapter process."""
        return f"{self.base}/devices/{device_id}/cmd"

    def device_replay_request(self, device_id: str) -> str:
        """The daemon asks the adapter process for a range of the device's stream."""
        return f"{self.base}/devices/{device_id}/replay/request"

    def device_replay(self, device_id: str) -> str:
        """The adapter process answers a device replay request here."""
        return f"{self.base}/devices/{device_id}/replay"


# `P/status` (docs/contract.md): every body's fields, and the one added since, `lost`:
# on the first `online: true` after a connection the daemon lost (its node died, taking
# the connection's last will with it, or the link broke), that connection, as
# `STATUS_LOST_FIELDS`: its node, when it was made, when the daemon saw it go, and when
# the daemon was back (the body's own `ts`).
STATUS_FIELDS = ("v", "online", "site", "table", "reason", "broker", "ts", "instance")
STATUS_LOST = "lost"
STATUS_LOST_FIELDS = ("broker", "since", "lost_ts", "back_ts")
# Added to every `P/status` body: the process that published it, `{"id", "pid", "host",
# "started"}` (`id` a random token made once per process): a link that reconnects reads
# it in its own retained status to tell another connection with its client id.
STATUS_INSTANCE = "instance"
STATUS_INSTANCE_FIELDS = ("id", "pid", "host", "started")
# `P/devices/<device>/status`, an adapter process's (docs/contract.md): every body's
# fields (`instance` as in `P/status`), and the same `lost` (`STATUS_LOST_FIELDS`, the
# adapter's connection) added since, on its first `online: true` after a connection it
# lost.
DEVICE_STATUS_FIELDS = (
    "v",
    "online",
    "site",
    "table",
    "device",
    "reason",
    "broker",
    "device_online",
    "last_seq",
    "first_ts",
    "ts",
    "instance",
)


@dataclass(frozen=True)
class Envelope:
    """One event as published: the same bytes go to the journal and to MQTT."""

    site: str
    table: str
    seq: int
    ts: str
    type: str
    source: str
    data: dict[str, Any] = field(default_factory=dict)
    rule: str | None = None
    round: str | None = None
    v: int = CONTRACT_VERSION
    # The tamper-evident chain (docs/journal.md): the hash of the previous event of the
    # same stream, and this event's own hash. The journal fills both in; an envelope
    # that has not been journaled carries neither, and its body omits them.
    prev: str | None = None
    hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        body = asdict(self)
        out = {
            "v": body["v"],
            "site": body["site"],
            "table": body["table"],
            "seq": body["seq"],
            "ts": body["ts"],
            "type": body["type"],
            "source": body["source"],
            "data": body["data"],
            "rule": body["rule"],
            "round": body["round"],
        }
        if self.prev is not None:
            out["prev"] = self.prev
        if self.hash is not None:
            out["hash"] = self.hash
        return out

    def to_json(self) -> str:
        return WIRE_JSON.encode(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes) -> Envelope:
        body = json.loads(text)
        return cls(
            v=body["v"],
            site=body["site"],
            table=body["table"],
            seq=body["seq"],
            ts=body["ts"],
            type=body["type"],
            source=body["source"],
            data=body.get("data") or {},
            rule=body.get("rule"),
            round=body.get("round"),
            prev=body.get("prev"),
            hash=body.get("hash"),
        )


def cite(section: str) -> str:
    """The citation form of a rule: `cite("531.7(a)")` -> `58 Pa. Code § 531.7(a)`."""
    return f"58 Pa. Code § {section}"
