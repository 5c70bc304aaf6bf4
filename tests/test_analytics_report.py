"""`floord report wheel` over a journal written with `floord.journal.store.Journal`."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from scipy import stats

from floord.analytics.report import WheelSetup, read_results, wheel_report
from floord.cli.main import main
from floord.contract import Envelope, EventType, format_ts
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

START = datetime(2024, 5, 31, 12, 0, tzinfo=UTC)


def _config(tmp: Path) -> Path:
    body = {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _append(journal: Journal, stream: str, type_: str, data: dict, when: datetime) -> None:
    journal.append(
        stream,
        lambda seq: Envelope("casino-1", "RL-01", seq, format_ts(when), type_, "engine", data),
    )


def _journal(tmp: Path, numbers: list[str]) -> None:
    journal = Journal(tmp / "journal.db")
    try:
        for i, number in enumerate(numbers):
            when = START + timedelta(minutes=i)
            _append(journal, "RL-01", EventType.ROUND_STARTED, {}, when)
            _append(journal, "RL-01", EventType.ROULETTE_RESULT, {"number": number}, when)
            _append(journal, "RL-02", EventType.ROULETTE_RESULT, {"number": "17"}, when)
    finally:
        journal.close()


def test_report_prints_scipys_statistics_for_the_journaled_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(8)
    numbers = [rng.choice(SINGLE_ZERO_ORDER) for _ in range(740)]
    _journal(tmp_path, numbers)
    png = tmp_path / "chart.png"
    code = main(["report", "wheel", "-c", str(_config(tmp_path)), "--table", "RL-01",
                 "--png", str(png), "--window", "370", "--sectors", "4"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "single_zero wheel, 740 results" in out
    counts = [numbers.count(p) for p in SINGLE_ZERO_ORDER]
    pocket = stats.chisquare(counts)
    assert f"pocket test over all 740 results: chi-square {pocket.statistic:.3f}, dof 36" in out
    assert f"p {pocket.pvalue:.4g}" in out
    assert f"{'17':>6}  {numbers.count('17'):>8}  {20.0:>8.1f}" in out
    assert "sector test over all 740 results" in out and "dof 3" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_since_filters_and_a_biased_run_shows_replayed_alerts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(9)
    hot = SINGLE_ZERO_ORDER[10:17]
    fair = [rng.choice(SINGLE_ZERO_ORDER) for _ in range(400)]
    biased = [rng.choice(hot) if rng.random() < 0.5 else rng.choice(SINGLE_ZERO_ORDER)
              for _ in range(400)]  # fmt: skip
    _journal(tmp_path, fair + biased)
    since = format_ts(START + timedelta(minutes=400))
    code = main(["report", "wheel", "-c", str(_config(tmp_path)), "--table", "RL-01",
                 "--since", since, "--window", "370", "--level", "0.001"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "400 results from " + since in out
    assert "BELOW LEVEL" in out
    assert "running watch (window 370, level 0.001, sectors 8): 2 alert(s)" in out
    assert "pocket p" in out and "sector p" in out


def test_too_few_results_are_said_and_bad_requests_fail_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _journal(tmp_path, ["0", "32", "15"])
    config = str(_config(tmp_path))
    assert main(["report", "wheel", "-c", config, "--table", "RL-01"]) == 0
    out = capsys.readouterr().out
    assert "too few results for the pocket: 3 results, 185 needed" in out
    assert main(["report", "wheel", "-c", config, "--table", "RL-09"]) == 1
    assert "no table 'RL-09'" in capsys.readouterr().err
    assert main(["report", "wheel", "-c", config, "--table", "RL-01", "--since", "x"]) == 1
    assert "floord report wheel:" in capsys.readouterr().err
    (tmp_path / "journal.db").unlink()
    assert main(["report", "wheel", "-c", config, "--table", "RL-01"]) == 1
    assert "no journal at" in capsys.readouterr().err
    assert not (tmp_path / "journal.db").exists()  # read-only: never creates a journal


def test_big_six_results_use_section_frequencies_and_section_indexes(tmp_path: Path) -> None:
    layout = (  # 58 Pa. Code § 533.1(b)
        "joker $1 $2 $1 $5 $2 $1 $10 $1 $5 $1 $2 $1 $20 $1 $2 $1 $5 $2 $1 $10 $1 $2 $5 $1 $2 $1 "
        "flag $2 $5 $2 $1 $2 $1 $10 $1 $5 $1 $2 $1 $20 $1 $2 $1 $5 $2 $1 $10 $1 $2 $5 $1 $2 $1"
    )
    order = layout.split()
    counts = {s: order.count(s) for s in set(order)}
    journal = Journal(tmp_path / "journal.db")
    rng = random.Random(6)
    sections = [rng.randrange(54) for _ in range(600)]
    for i, section in enumerate(sections):
        data = {"section": section, "symbol": order[section]}
        _append(journal, "B6-01", EventType.BIGSIX_RESULT, data, START + timedelta(minutes=i))
    journal.close()
    results = read_results(tmp_path / "journal.db", "B6-01", None)
    assert [r.position for r in results] == sections
    report = wheel_report(WheelSetup("big_six", tuple(order), 540, 0.01, 6, counts), results)
    [pocket, sector] = report["tests"]
    labels = [p["label"] for p in report["pockets"]]
    theirs = stats.chisquare(
        [sum(1 for s in sections if order[s] == label) for label in labels],
        [counts[label] / 54 * 600 for label in labels],
    )
    assert pocket["statistic"] == pytest.approx(theirs.statistic, rel=1e-12)
    assert pocket["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
    assert sector["dof"] == 5 and sum(p["observed"] for p in report["pockets"]) == 600
    # The sector test counts each result in the arc of its section (a symbol shows in
    # every arc): six arcs of nine sections, each 9/54 of a fair wheel.
    arcs = [sum(1 for s in sections if lo <= s < lo + 9) for lo in range(0, 54, 9)]
    by_position = stats.chisquare(arcs, [600 / 6] * 6)
    assert sector["statistic"] == pytest.approx(by_position.statistic, rel=1e-12)
    assert sector["p_value"] == pytest.approx(by_position.pvalue, rel=1e-9)


def test_the_report_gives_each_dealers_signature_test_with_scipys_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(21)
    order = SINGLE_ZERO_ORDER
    journal = Journal(tmp_path / "journal.db")
    arcs = {"DL-AIM": Counter(), "DL-FAIR": Counter()}
    try:
        for i in range(600):
            dealer = "DL-AIM" if i % 2 else "DL-FAIR"
            release = rng.randrange(37)
            aimed = dealer == "DL-AIM" and rng.random() < 0.4
            distance = rng.randrange(18, 22) if aimed else rng.randrange(37)
            arcs[dealer][next(a for a, (lo, hi) in enumerate(ARCS_8) if lo <= distance <= hi)] += 1
            data = {"number": order[(release + distance) % 37], "dealer": dealer,
                    "release_pocket": order[release]}  # fmt: skip
            _append(journal, "RL-01", EventType.ROULETTE_RESULT, data, START)
        # A result from a wheel without an encoder: not a dealer signature spin.
        _append(journal, "RL-01", EventType.ROULETTE_RESULT, {"number": "4"}, START)
    finally:
        journal.close()
    code = main(["report", "wheel", "-c", str(_config(tmp_path)), "--table", "RL-01"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "dealer signature (8 arcs of release-to-result distance; 1 result(s) without" in out
    for dealer in ("DL-AIM", "DL-FAIR"):
        expected = [300 * (hi - lo + 1) / 37 for lo, hi in ARCS_8]
        scipy_says = stats.chisquare([arcs[dealer][a] for a in range(8)], expected)
        line = next(x for x in out.splitlines() if x.startswith(f"  {dealer}: 300 spins"))
        assert f"chi-square {scipy_says.statistic:.3f}, dof 7, p {scipy_says.pvalue:.4g}" in line
        assert ("BELOW LEVEL" in line) is (dealer == "DL-AIM")
    assert "alert" in out and ": DL-AIM p " in out and ": DL-FAIR p " not in out


# The 8 arcs of the 37 distances 0..36 (sector_arcs: bounds i * 37 // 8).
ARCS_8 = [(0, 3), (4, 8), (9, 12), (13, 17), (18, 22), (23, 26), (27, 31), (32, 36)]
