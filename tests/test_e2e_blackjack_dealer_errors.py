"""End to end: the dealer's errors in a Blackjack deal (58 Pa. Code § 549.16(e), (g), (i)).

A simulated card reader and a card-recognition shoe on real ptys, the daemon
(`floord run`), a real Mosquitto. The shoe deals each card when the test asks it to on
the simulator's live control channel (`docs/rigs.md`), as a dealer draws them; the
dealer's and the floorperson's signed commands, `card_to` and `hand_option` among them,
go through the broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    Collector,
    collecting,
    new_decks_inspected,
    stack_cut,
    start_daemon,
    start_device_sim,
)
from test_e2e_blackjack import CHECKLIST, dealer, floorperson, start_card_sim, write_card_config
from test_sim_control import control_socket

pytestmark = pytest.mark.system

E = "58 Pa. Code § 549.16(e)"
G = "58 Pa. Code § 549.16(g)"
I_ = "58 Pa. Code § 549.16(i)"
Ask = Callable[[str], Awaitable[str]]


class Dealing:
    """The table as the test deals it: the shoe's control channel and the record."""

    def __init__(self, url: str, c: Collector, ask: Ask) -> None:
        self.url, self.c, self.ask = url, c, ask
        self.seq = 0

    async def draw(self, *cards: str) -> None:
        """Draw each card from the shoe and wait until floord has recorded it."""
        for card in cards:
            reply = await self.ask(f"draw {{cards: [{card}]}}")
            assert reply.startswith("ok draw"), reply
            drawn = await self.c.event(
                "shoe.card_drawn", lambda b, x=card: b["data"]["card"] == x and b["seq"] > self.seq
            )
            self.seq = drawn["seq"]

    async def dealer(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        reply = await dealer(self.url, name, args)
        assert reply["ok"], (name, args, reply)
        return reply

    async def after(self, kind: str, where: Callable[[dict[str, Any]], bool] | None = None):
        """The first `kind` event recorded after the last card drawn."""
        seq = self.seq
        return await self.c.event(kind, lambda b: b["seq"] > seq and (where is None or where(b)))


@contextlib.asynccontextmanager
async def ready_table(url: str, sock: str) -> AsyncIterator[Dealing]:
    """The table inspected, open, its decks recorded, the shoe loaded and burned."""
    async with collecting(url, "BJ-01") as c, control_socket(sock) as ask:
        await c.event("reader.self_test", lambda b: b["data"]["passed"])
        await c.event("device.identified", lambda b: b["source"] == "shoe")
        assert (await floorperson(url, "inspect", {"checklist": CHECKLIST, "note": "e2e"}))["ok"]
        for name in ("open", "change_decks"):
            assert (await floorperson(url, name, {}))["ok"], name
        await new_decks_inspected(url, "BJ-01")  # the receipt (§ 549.5(a))
        await stack_cut(url, "BJ-01")  # § 549.6(b)-(d), before the shoe
        assert (await ask('load {side: "-"}')).startswith("ok load")
        await c.event("shoe.loaded")
        table = Dealing(url, c, ask)
        await table.draw("2C")  # the burn card
        yield table


def run_table(tmp_path: Path, broker_url: str, play: Callable[[Dealing], Awaitable[None]]):
    """The simulators and the daemon around `play`, always reaped."""
    short = tempfile.mkdtemp(prefix="floord-bj-")  # a unix socket path is short
    sock = f"{short}/shoe.sock"
    reader_sim, reader_pty = start_card_sim(
        tmp_path, "ref-card-reader", {"steps": [{"idle": 6000}]}
    )
    shoe_sim, shoe_pty = start_device_sim(
        tmp_path, "ref-shoe-recognition", {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    daemon = start_daemon(write_card_config(tmp_path, broker_url, reader_pty, shoe_pty))

    async def run() -> None:
        async with ready_table(broker_url, sock) as table:
            await play(table)

    try:
        asyncio.run(asyncio.wait_for(run(), 150))
    finally:
        assert daemon.terminate() == 0
        reader_sim.kill()
        shoe_sim.kill()
        shutil.rmtree(short, ignore_errors=True)


def test_the_dealer_misses_his_up_card_through_floord_run_549_16_e(broker, tmp_path) -> None:
    """§ 549.16(e): "If the dealer misses dealing his first or second card to himself, the
    dealer shall continue dealing the first two cards to each player, and then deal the
    appropriate number of cards to himself." The dealer deals box 1 its second card in
    place of his up card and says so (`card_to`); box 2's second card follows, then the
    dealer's two cards, and the round is settled on them."""

    async def play(t: Dealing) -> None:
        await t.dealer("round_start", {"boxes": [1, 2]})
        await t.draw("TS", "7H", "9C")  # the 9C went to box 1, not to the dealer
        await t.dealer("card_to", {"box": 1, "hand": 0})
        moved = await t.after("blackjack.card_corrected")
        assert moved["data"]["missed"] == [{"dealer": True}]
        assert moved["data"]["next"] == {"box": 2, "hand": 0}
        assert moved["data"]["by"] == "DL-2001"
        missed = await t.after(
            "procedure.violation", lambda b: b["data"]["what"] == "dealer_missed_own_card"
        )
        assert missed["rule"] == E
        await t.draw("8D")
        box2 = await t.after("blackjack.hand", lambda b: b["data"]["box"] == 2)
        assert box2["data"]["cards"] == ["7H", "8D"]
        await t.draw("6S")
        up = await t.after("blackjack.dealer_hand")
        assert up["data"]["cards"] == ["6S"] and up["data"]["hole_card"] == "down"
        await t.draw("TD")  # the hole card
        for box in (1, 2):
            await t.dealer("decision", {"box": box, "hand": 0, "action": "stand"})
        await t.dealer("dealer_turn", {})
        await t.draw("5C")  # the dealer's 16 draws: 21
        await t.dealer("round_end", {})
        result = await t.after("blackjack.result")
        hands = {h["box"]: h for h in result["data"]["hands"]}
        assert hands[1]["cards"] == ["TS", "9C"] and hands[1]["outcome"] == "lose"
        assert hands[2]["outcome"] == "lose"
        assert result["data"]["dealer"]["cards"] == ["6S", "TD", "5C"]
        await t.after("round.ended")

    run_table(tmp_path, broker.url, play)


def test_a_hand_dealt_no_card_and_a_requested_card_not_dealt_through_floord_run_549_16_g_i(
    broker, tmp_path
) -> None:
    """§ 549.16(g): "If no cards are dealt to a player's hand, the hand is dead and the
    player shall be included in the next deal." § 549.16(i): the player whose requested
    card the dealer did not deal chooses to have it "after all other players have
    received their additional cards but prior to the dealer revealing his hole card".
    The dealer passes box 2 over twice, then deals box 1's hit card to box 3."""

    async def play(t: Dealing) -> None:
        await t.dealer("round_start", {"boxes": [1, 2, 3]})
        await t.draw("TS", "9H")
        await t.dealer("card_to", {"box": 3, "hand": 0})  # box 2 passed over
        await t.draw("6D", "4C", "7S")
        await t.dealer("card_to", {"box": 3, "hand": 0})  # and again
        await t.draw("9S")  # the hole card
        dead = await t.after("blackjack.hand_dead")
        assert dead["rule"] == G and dead["data"]["box"] == 2
        assert dead["data"]["next_deal"] is True and dead["data"]["wager"] is None
        await t.dealer("decision", {"box": 1, "hand": 0, "action": "hit"})
        await t.draw("5H")  # box 1's card, dealt to box 3
        await t.dealer("card_to", {"box": 3, "hand": 0})
        missed = await t.after(
            "procedure.violation", lambda b: b["data"]["what"] == "requested_card_not_dealt"
        )
        assert missed["rule"] == I_ and missed["data"]["box"] == 1
        turn = await dealer(t.url, "dealer_turn", {})
        assert not turn["ok"] and "option" in turn["error"]
        reply = await floorperson(t.url, "hand_option", {"box": 1, "hand": 0, "option": "deal"})
        assert reply["ok"], reply
        option = await t.after("blackjack.hand_option")
        assert option["rule"] == I_ and option["data"]["role"] == "floorperson"
        await t.dealer("decision", {"box": 3, "hand": 0, "action": "hit"})  # takes the 5H
        turn = await dealer(t.url, "dealer_turn", {})
        assert not turn["ok"] and "box 1 hand 0 waits for its card" in turn["error"]
        await t.draw("6C")  # box 1's card, before the hole card is revealed
        box1 = await t.after("blackjack.hand", lambda b: b["data"]["box"] == 1)
        assert box1["data"]["cards"] == ["TS", "4C", "6C"]
        await t.dealer("dealer_turn", {})
        await t.draw("7D")  # the dealer's 15 draws: 22
        await t.dealer("round_end", {})
        result = await t.after("blackjack.result")
        hands = {h["box"]: h for h in result["data"]["hands"]}
        assert hands[2]["outcome"] == "dead" and hands[2]["rule"] == G
        assert hands[2]["wager"] is None
        assert hands[1]["outcome"] == "win" and hands[1]["total"] == 20
        assert hands[3]["outcome"] == "win" and hands[3]["cards"] == ["9H", "7S", "5H"]

    run_table(tmp_path, broker.url, play)
