"""The second source's events as sentences: a result confirmed, disputed, silent, ruled.

A table with a second source checks each result against it (docs/contract.md, Config);
the console says what each source reported and what the table does now, in a
floorperson's words: held, waiting for a ruling, or settled.
"""

from __future__ import annotations

from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.device_sentences import Sentence
from floord.watch.wording import get, optional, round_number, value_text, words


def _report(report: Any) -> str:
    """`{source, value, by?}` -> `dealer call 17 (DL-7)`, `wheel 17`."""
    if not isinstance(report, dict):
        return "nothing"
    text = f"{words(report.get('source'))} {get(report, 'value')}"
    return text + optional(report, "by", " ({})")


def _round(e: Envelope) -> str:
    number = round_number(e.round)
    return f"round {number}" if number else "the round"


def _confirmed(d: dict[str, Any], e: Envelope) -> str:
    return f"{_round(e)}: {get(d, 'value')} confirmed ({_report(d.get('primary'))}, " + (
        f"{_report(d.get('second'))})"
    )


def _disputed(d: dict[str, Any], e: Envelope) -> str:
    return (
        f"{_round(e)} held: the sources disagree ({_report(d.get('primary'))}, "
        f"{_report(d.get('second'))}); a floorperson rules"
    )


def _silent(d: dict[str, Any], e: Envelope) -> str:
    held = d.get("held") is True
    then = "held for a floorperson's ruling" if held else "the result stands"
    return (
        f"{_round(e)}: {words(d.get('second_source'))} silent for {get(d, 'window_s')} s "
        f"after {_report(d.get('primary'))}: {then}"
    )


def _ruled(d: dict[str, Any], e: Envelope) -> str:
    decided = "void" if d.get("void") is True else value_text(d.get("value"))
    text = f"{_round(e)} ruled {decided} by {get(d, 'by')} ({get(d, 'role')})"
    return text + optional(d, "note", ": {}")


RESULT_SENTENCES: dict[str, Sentence] = {
    EventType.RESULT_CONFIRMED: _confirmed,
    EventType.RESULT_DISPUTED: _disputed,
    EventType.RESULT_SILENT: _silent,
    EventType.RESULT_RULED: _ruled,
}
