"""Who may make which call at Craps and at Mini-Craps (58 Pa. Code ch. 537).

`COMMAND_ROLES` (floord/contract.py) lists every role either game allows a command; the
game's own persons are checked here, each set with the paragraph that names them.
"""

from __future__ import annotations

from floord.contract import Role
from floord.engine.craps.fire import MINI_CRAPS_POLICY

# command -> game -> (the roles, the paragraph naming them)
CALLERS: dict[str, dict[str, tuple[frozenset[str], str]]] = {
    # § 537.9(d): "no roll" may be called in Craps by a boxperson or stickperson; in
    # Mini-Craps by the dealer, stickperson or floorperson.
    "no_roll": {
        "craps": (frozenset({Role.BOXPERSON, Role.STICKPERSON}), "537.9(d)(1)"),
        "mini_craps": (
            frozenset({Role.DEALER, Role.STICKPERSON, Role.FLOORPERSON}),
            "537.9(d)(2)",
        ),
    },
    # § 537.10(c): a disputed face is the boxperson's (Craps) or floorperson's
    # (Mini-Craps) to decide, or to order the throw void.
    "face_ruling": {
        "craps": (frozenset({Role.BOXPERSON}), "537.10(c)(1)"),
        "mini_craps": (frozenset({Role.FLOORPERSON}), "537.10(c)(2)"),
    },
    # § 537.10(a): the Craps stickperson or the Mini-Craps dealer or stickperson calls
    # out the sum of the faces.
    "call_roll": {
        "craps": (frozenset({Role.STICKPERSON}), "537.10(a)"),
        "mini_craps": (frozenset({Role.DEALER, Role.STICKPERSON}), "537.10(a)"),
    },
    # § 537.7(b), § 537.11(c): the stickperson (Mini-Craps: the dealer or stickperson)
    # offers the dice; the first player to accept becomes the shooter.
    "shooter": {
        "craps": (frozenset({Role.STICKPERSON}), "537.11(c)"),
        "mini_craps": (frozenset({Role.DEALER, Role.STICKPERSON}), "537.11(c)"),
    },
    # § 537.11(a): the shooter's option to pass the dice, recorded by whoever offers them.
    "pass_voluntary": {
        "craps": (frozenset({Role.STICKPERSON}), "537.11(a)"),
        "mini_craps": (frozenset({Role.DEALER, Role.STICKPERSON}), "537.11(a)"),
    },
    # § 537.11(a)(2): the Craps boxperson or the Mini-Craps dealer may order it.
    "pass_ordered": {
        "craps": (frozenset({Role.BOXPERSON}), "537.11(a)(2)"),
        "mini_craps": (frozenset({Role.DEALER}), "537.11(a)(2)"),
    },
    # § 537.12(a)(3): the dealer brings in each Fire Bet.
    "fire_bet": {"craps": (frozenset({Role.DEALER}), "537.12(a)(3)")},
}


def caller_refusal(call: str, game: str, role: str) -> tuple[str, str | None] | None:
    """(why, paragraph or None for floord's policy) `role` may not make `call` at `game`;
    None when it may."""
    allowed = CALLERS[call].get(game)
    if allowed is None:
        # Only the Fire Bet is missing from a game: at Mini-Craps, floord's policy.
        return (
            f"{call.replace('_', ' ')} is not a call of {game.replace('_', '-')} "
            f"({MINI_CRAPS_POLICY})",
            None,
        )
    roles, paragraph = allowed
    if role in roles:
        return None
    who = " or ".join(sorted(roles))
    return (
        f"at {game.replace('_', '-')} only the {who} may make this call, not a {role}",
        paragraph,
    )
