"""The Blackjack oracle's table against an exact computation of the best play for these rules."""

from __future__ import annotations

from functools import cache

import pytest

from swift_gym_gymnasium import basic_strategy

CARDS = {value: (4 if value == 10 else 1) / 13 for value in range(1, 11)}
"""Gymnasium's infinite deck: 1 (ace) to 9 once, 10 four times (ten, jack, queen, king)."""


def best_total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


@cache
def dealer_final(hard: int, ace: bool) -> dict[int, float]:
    """Distribution of the dealer's final total (22 = bust), drawing while below 17."""
    total = best_total(hard, ace)
    if total >= 17:
        return {min(total, 22) if total <= 21 else 22: 1.0}
    outcome: dict[int, float] = {}
    for value, p in CARDS.items():
        for final, q in dealer_final(hard + value, ace or value == 1).items():
            outcome[final] = outcome.get(final, 0.0) + p * q
    return outcome


@cache
def dealer_from_up_card(up: int) -> dict[int, float]:
    outcome: dict[int, float] = {}
    for hole, p in CARDS.items():
        for final, q in dealer_final(up + hole, up == 1 or hole == 1).items():
            outcome[final] = outcome.get(final, 0.0) + p * q
    return outcome


def stick_value(total: int, up: int) -> float:
    return sum(
        p * (1.0 if final == 22 or total > final else 0.0 if total == final else -1.0)
        for final, p in dealer_from_up_card(up).items()
    )


@cache
def hit_value(hard: int, ace: bool, up: int) -> float:
    value = 0.0
    for card, p in CARDS.items():
        new_hard, new_ace = hard + card, ace or card == 1
        if best_total(new_hard, new_ace) > 21:
            value -= p
        else:
            total = best_total(new_hard, new_ace)
            value += p * max(stick_value(total, up), hit_value(new_hard, new_ace, up))
    return value


STATES = [(total, up, False) for total in range(4, 22) for up in range(1, 11)] + [
    (total, up, True) for total in range(12, 22) for up in range(1, 11)
]


@pytest.mark.parametrize("usable", [False, True], ids=["hard", "soft"])
def test_basic_strategy_is_the_best_play_in_every_state(usable):
    wrong = []
    for total, up, soft in STATES:
        if soft != usable:
            continue
        hard = total - 10 if soft else total
        stick, hit = stick_value(total, up), hit_value(hard, soft, up)
        if abs(stick - hit) < 1e-9:
            continue  # a tie: either play is best
        best = 1 if hit > stick else 0
        if basic_strategy(total, up, soft) != best:
            wrong.append((total, up, soft, round(stick, 4), round(hit, 4)))
    assert not wrong, f"(total, dealer card, soft, E[stick], E[hit]) where the table errs: {wrong}"


def test_the_exact_computation_is_sane():
    assert sum(dealer_from_up_card(6).values()) == pytest.approx(1.0)
    assert dealer_from_up_card(6)[22] == pytest.approx(0.42, abs=0.02)  # a 6 busts often
    assert stick_value(20, 10) > 0.4 > stick_value(16, 10) + 0.9
