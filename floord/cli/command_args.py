"""What `floord cmd --help` says of each operator command: its arguments as `floord cmd`
takes them (`key=value`, JSON values, dotted keys nest) and who may send it.

Who may send each command is the contract's (`floord.contract.COMMAND_ROLES`); the
argument lines are the command line's help, kept beside it. docs/contract.md gives each
command's payload in full; `tests/test_docs_commands.py` keeps the three in step.
"""

from __future__ import annotations

from floord.contract import COMMAND_ROLES, Role

COMMAND_ARGS: dict[str, str] = {
    "inspect": "checklist.ITEM=true|false ... [note=TEXT]",
    "open": "",
    "close": "",
    "resume": "reason=TEXT",
    "replay": "from_seq=N to_seq=M",
    "dealer_in": "",
    "round_start": "boxes=[1,3] [players={...}] (Baccarat, Poker: none)",
    "decision": "box=N hand=N action=hit|stand|double|split|surrender|insurance",
    "dealer_turn": "",
    "round_end": "[cover_card_at=BOX|dealer] (War) [cutting_card_at=BOX|dealer] (Blackjack)",
    "card_to": "box=N hand=N | dealer=true",
    "hand_option": "box=N hand=N option=deal|decline",
    "no_more_bets": "",
    "vigorish_collected": "",
    "reveal": "card=N",
    "stub_count": "cards=N misdealt=true|false",
    "shuffle": "[deck=BACK]",
    "cut": (
        "cards=N by=WHO [box=N] (War) [deck=BACK] (Poker) [box=N] [declined=[N,...]] "
        "[side=left|right] (Blackjack, Baccarat; Mississippi Stud: cards=N)"
    ),
    "reshuffle": "reason=TEXT",
    "change_decks": (
        "[preinspected_preshuffled=true|false] [decks=N] [note=TEXT] "
        "(a receipt; carnival games also [preshuffled=true|false])"
    ),
    "cover_shuffler": "",
    "cover_shoe": "deal_by=hand|manual_shoe reason=TEXT [marked=covered|sign]",
    "uncover_shoe": "reason=TEXT",
    "remove_deck": "reason=TEXT",
    "recut": "reason=TEXT [side=left|right] (Blackjack double shoe)",
    "shuffle_verified": "even=true|false [note=TEXT] (Mini-, Midibaccarat)",
    "spin": "",
    "deal": "from=1..6|dealer|dead_hand (Pai Gow)",
    "ack_alert": "alert=ID [note=TEXT]",
    "call_result": "value=RESULT",
    "rule_result": (
        "round=ID (value=RESULT | section=N (Big Six) | faces=[A,B] (Craps) | void=true) note=TEXT"
    ),
    "shooter": "seat=N",
    "pass_dice": "reason=voluntary|ordered [detail=TEXT]",
    "fire_bet": "seat=N amount=DOLLARS",
    "call_roll": "",
    "no_roll": "reason=not_together|far_end|bank|cup_or_rail|cheating|improper [detail=TEXT]",
    "face_ruling": "faces=[A,B] | void=true",
    "decks_received": "preinspected_preshuffled=true|false [decks=N] [note=TEXT]",
    "decks_inspected": "defects_found=true|false [decks=N] [note=TEXT]",
    "decks_spread": (
        "defects_found=true|false washed=true|false [side=left|right] [batch=BACK] "
        "(Blackjack) [deck=BACK] (Mississippi Stud) [note=TEXT]"
    ),
    "wheel_adjusted": (
        "part=TEXT description=TEXT licence=ID security_witness=NAME [security_licence=ID]"
    ),
    "wheel_part_replaced": (
        "part=TEXT description=TEXT licence=ID [security_witness=NAME] [security_licence=ID]"
    ),
    "ball_replaced": (
        "nonmetallic=true|false diameter_sixteenths=N nonmagnetic=true|false licence=ID [note=TEXT]"
    ),
}


def commands_help() -> str:
    """Every operator command, its arguments and who may issue it, one line each."""
    width = max(map(len, COMMAND_ROLES))
    lines = []
    for name, roles in COMMAND_ROLES.items():
        who = ", ".join(r for r in Role if r in roles)
        args = COMMAND_ARGS.get(name, "")
        lines.append(f"  {name:<{width}}  {args + '  ' if args else ''}({who})")
    return "\n".join(lines)
