"""The demo floor's operators: who may sign commands, with their keys beside the config.

The virtual floorperson (`FP-DEMO`) and dealer (`DL-DEMO`) sign the demo's own commands;
at the Craps table the stickperson (`ST-DEMO`) offers the dice and the boxperson (`BX-DEMO`)
calls "no roll", each call signed by the person chapter 537 names (`dice_dealer`).
The supervisor (`SV-DEMO`) and the security officer (`SEC-DEMO`) are there for the person
trying the demo: with them (and the two above) every command of `docs/contract.md` can be
sent from another terminal with `floord cmd -c <the demo's config> --as <id> ...`,
`ack_alert` on RL-03's alert included (supervisor or security). Each key is a file of its
own beside the config (`key_file` is read relative to the config), so `floord cmd` and
`floord watch --as` find it from the config alone. The secrets are the demo's, in the
clear, in a throwaway folder: a demo floor, not a table box.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class DemoOperator:
    id: str
    role: str
    key_file: str  # beside the config

    @property
    def secret(self) -> str:
        return f"demo-{self.role}-secret"


FLOORPERSON = DemoOperator("FP-DEMO", "floorperson", "fp-demo.key")
DEALER = DemoOperator("DL-DEMO", "dealer", "dl-demo.key")
SUPERVISOR = DemoOperator("SV-DEMO", "supervisor", "sv-demo.key")
SECURITY = DemoOperator("SEC-DEMO", "security", "sec-demo.key")
STICKPERSON = DemoOperator("ST-DEMO", "stickperson", "st-demo.key")
BOXPERSON = DemoOperator("BX-DEMO", "boxperson", "bx-demo.key")
OPERATORS = (FLOORPERSON, DEALER, SUPERVISOR, SECURITY, STICKPERSON, BOXPERSON)
# Beside the dealer: the Craps table's stickperson and boxperson, and the floorperson who
# records and verifies the War table's decks.
CREW = (STICKPERSON, BOXPERSON, FLOORPERSON)


def write_operators(directory: Path) -> list[dict[str, Any]]:
    """Write each operator's key file in `directory`; their entries of the config."""
    entries = []
    for operator in OPERATORS:
        (directory / operator.key_file).write_text(operator.secret + "\n")
        entries.append({"id": operator.id, "role": operator.role, "key_file": operator.key_file})
    return entries
