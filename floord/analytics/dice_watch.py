"""The running fairness tests of a table's dice: faces per die, totals, shooter signature.

A loaded or shaved die shows as some faces coming up more often than 1/6; a pair of
dice that favours some totals shows in the totals against the fair 2d6 distribution
(total t has (6 - |t - 7|) / 36); a shooter who can set and throw the dice to avoid the
7 ("dice control") shows as that shooter's totals leaning away from it. `DiceWatch`
runs three Pearson chi-square tests, each over a sliding window, raised once per
excursion below `level` (`floord.analytics.sliding_chi_square`):

- `dice_faces`: per die (by the id the tracker reads, the same physical die always with
  the same id), its last `window` faces against uniform;
- `dice_totals`: per dice set (the dice at the table, § 537.7(a), named by their sorted
  ids: a die replaced starts a new set and a fresh window), the last `window` totals
  against 2d6;
- `shooter_signature`: per shooter (the seat the shooter plays from: floord knows no
  player's name), the last `shooter_window` totals grouped into `shooter_bins` runs of
  neighbouring totals (cut as the wheel's sectors are), against 2d6.

Statistics, not regulations: no rule requires these tests, so an alert cites nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from floord.analytics.saved_state import field
from floord.analytics.sliding_chi_square import Category, RunningTest, check_level, check_window
from floord.analytics.wheel_watch import sector_arcs

FACES = tuple(range(1, 7))
TOTALS = tuple(range(2, 13))


def total_probability(total: int) -> Fraction:
    """The chance of a total of two fair dice: (6 - |total - 7|) / 36."""
    return Fraction(6 - abs(total - 7), 36)


FACE_CELLS = tuple(Category(str(f), (str(f),), 1 / 6) for f in FACES)
TOTAL_CELLS = tuple(Category(str(t), (str(t),), float(total_probability(t))) for t in TOTALS)


def shooter_cells(bins: int) -> tuple[Category, ...]:
    """`bins` runs of neighbouring totals 2..12, sizes differing by at most one."""
    labels = [str(t) for t in TOTALS]
    cells = []
    for arc in sector_arcs(labels, bins):
        members = tuple(labels[i] for i in arc)
        p = float(sum(total_probability(TOTALS[i]) for i in arc))
        cells.append(Category(f"{members[0]}..{members[-1]}", members, p))
    return tuple(cells)


def set_name(dice: Sequence[str]) -> str:
    """A dice set's name: its ids, sorted, joined by commas ("" for no known set)."""
    return ",".join(sorted(dice))


class DiceWatch:
    """The dice tests of one table; fed each roll called, it returns the alerts raised."""

    def __init__(self, window: int, level: float, shooter_window: int, shooter_bins: int) -> None:
        self.level = check_level(level)
        self.window = check_window(window, TOTAL_CELLS, "dice_totals")
        self.shooter_bins = shooter_bins
        self.shooter_window = shooter_window
        self._shooter_cells: tuple[Category, ...] = ()
        self._shooter_bin: dict[int, int] = {}
        if shooter_bins:
            if isinstance(shooter_bins, bool) or shooter_bins not in range(2, len(TOTALS) + 1):
                raise ValueError(
                    f"shooter_bins must be 0 (off) or from 2 to {len(TOTALS)} runs "
                    f"of totals, not {shooter_bins!r}"
                )
            self._shooter_cells = shooter_cells(shooter_bins)
            check_window(shooter_window, self._shooter_cells, "shooter_signature")
            for b, cell in enumerate(self._shooter_cells):
                for member in cell.members:
                    self._shooter_bin[int(member)] = b
        self.dice_set = ""
        self.faces: dict[str, RunningTest] = {}
        self.totals: dict[str, RunningTest] = {}
        self.shooters: dict[int, RunningTest] = {}
        self.rolls = 0

    @property
    def shooter_categories(self) -> tuple[Category, ...]:
        return self._shooter_cells

    def shooter_bin(self, total: int) -> int:
        """The index of the run of totals the shooter test counts `total` in."""
        return self._shooter_bin[total]

    def state(self) -> dict[str, Any]:
        """Each die's, dice set's and shooter's test, the dice at the table, the rolls."""
        return {
            "dice_set": self.dice_set,
            "faces": {die: test.state() for die, test in self.faces.items()},
            "totals": {name: test.state() for name, test in self.totals.items()},
            "shooters": [[seat, test.state()] for seat, test in self.shooters.items()],
            "rolls": self.rolls,
        }

    def load(self, state: Any) -> None:
        """Go on from a `state()`; ValueError (nothing changed) when it does not fit."""
        dice_set, rolls = field(state, "dice_set", str), field(state, "rolls", int)
        faces = {
            die: self._loaded("dice_faces", FACE_CELLS, self.window, saved)
            for die, saved in field(state, "faces", dict).items()
        }
        totals = {
            name: self._loaded("dice_totals", TOTAL_CELLS, self.window, saved)
            for name, saved in field(state, "totals", dict).items()
        }
        shooters: dict[int, RunningTest] = {}
        for pair in field(state, "shooters", list):
            if not self.shooter_bins or not isinstance(pair, list) or len(pair) != 2:
                raise ValueError("a saved shooter test does not fit the shooter signature")
            seat = pair[0]
            if type(seat) is not int:
                raise ValueError("a saved shooter test needs its seat")
            cells, window = self._shooter_cells, self.shooter_window
            shooters[seat] = self._loaded("shooter_signature", cells, window, pair[1])
        if rolls < 0:
            raise ValueError("a saved dice watch counts fewer than no rolls")
        self.dice_set, self.rolls = dice_set, rolls
        self.faces, self.totals, self.shooters = faces, totals, shooters

    def _loaded(self, test: str, cells: Sequence[Category], window: int, saved: Any) -> RunningTest:
        running = RunningTest(test, cells, window, self.level)
        running.load(saved)
        return running

    def set_dice(self, dice: Sequence[str]) -> None:
        """The dice at the table now (`craps.dice` action `set`)."""
        self.dice_set = set_name(dice)

    def add(
        self, faces: Sequence[int], dice: Sequence[str | None], shooter: int | None
    ) -> list[dict[str, Any]]:
        """Count one roll called: its faces, the id of each die (None: not read), and
        its shooter (None: none known). Returns the alerts it raises."""
        if len(faces) != 2 or any(f not in FACES for f in faces):
            raise ValueError(f"two faces 1 to 6 expected, found {list(faces)!r}")
        self.rolls += 1
        total = sum(faces)
        alerts: list[dict[str, Any]] = []
        for face, die in zip(faces, dice, strict=False):
            if die is None:
                continue
            test = self.faces.setdefault(
                die, RunningTest("dice_faces", FACE_CELLS, self.window, self.level)
            )
            found = test.push(face - 1)
            if found is not None:
                alerts.append({**found, "die": die})
        test = self.totals.setdefault(
            self.dice_set, RunningTest("dice_totals", TOTAL_CELLS, self.window, self.level)
        )
        found = test.push(total - 2)
        if found is not None:
            alerts.append(found)
        if self.shooter_bins and shooter is not None:
            test = self.shooters.setdefault(
                shooter,
                RunningTest(
                    "shooter_signature", self._shooter_cells, self.shooter_window, self.level
                ),
            )
            found = test.push(self._shooter_bin[total])
            if found is not None:
                alerts.append({**found, "shooter": shooter})
        return [{**a, "dice_set": self.dice_set, "rolls": self.rolls} for a in alerts]
