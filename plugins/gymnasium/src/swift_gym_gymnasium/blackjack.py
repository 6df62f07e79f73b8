"""`gymnasium.Blackjack-v1`: beat the dealer without going over 21.

Gymnasium's Blackjack has no text render at all; the view here names your cards, their total
(soft when an ace counts 11) and the dealer's face-up card, read from the env's own hands. The
rules are Gymnasium's: an infinite deck, the dealer draws to 17 (standing on soft 17), +1 a
win, 0 a draw, -1 a loss; `sab` (Sutton and Barto's rules, Gymnasium's default for this id)
makes a natural that the dealer does not match a win. The oracle plays basic strategy for hit
or stick, the best play for these rules (checked against an exact computation in the tests):
it maximises the expected reward, and still loses about half its games.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from swift_gym import Deployment, EnvConfig

from .base import GymnasiumEnv, Transition
from .config import GymnasiumConfig, reward_field

ACTIONS = ("stick", "hit")
"""In Gymnasium's order: action 0 is stick."""
STICK, HIT = 0, 1


class BlackjackConfig(GymnasiumConfig):
    """Config of `gymnasium.Blackjack-v1`."""

    sab: bool = Field(
        True,
        description=(
            "Sutton and Barto's rules (Gymnasium's default for this id): a natural the dealer "
            "does not match wins +1; natural is then ignored."
        ),
    )
    natural: bool = Field(
        False, description="Without sab: a winning natural (ace and ten) pays +1.5."
    )
    invalid_action_reward: float = reward_field(
        -1.0,
        "Reward of a reply without a valid action (as much as a loss, so that never answering "
        "does not pay better than playing). Gymnasium is not stepped and the episode goes on.",
    )

    @model_validator(mode="after")
    def _natural_needs_no_sab(self) -> BlackjackConfig:
        if self.natural and self.sab:
            raise ValueError("natural only applies when sab is false; set sab false or drop it")
        return self


def card(value: int) -> str:
    """A card value as shown: 1 is an ace; 10 stands for a ten, jack, queen or king."""
    return "A" if value == 1 else str(value)


def total(hand: list[int]) -> tuple[int, bool]:
    """(the hand's best total, whether an ace counts 11 in it: a soft total)."""
    hard = sum(hand)
    if 1 in hand and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def hand_text(hand: list[int]) -> str:
    value, soft = total(hand)
    kind = "soft: an ace counts 11" if soft else "hard"
    return f"{', '.join(card(v) for v in hand)} (total {value}, {kind})"


def basic_strategy(player_sum: int, dealer_card: int, usable_ace: bool) -> int:
    """Hit or stick by basic strategy (infinite deck, the dealer stands on soft 17).

    `dealer_card` is 1 for an ace, else 2..10, as in Gymnasium's observation.
    """
    if usable_ace:
        if player_sum >= 19:
            return STICK
        if player_sum == 18:
            return STICK if 2 <= dealer_card <= 8 else HIT
        return HIT
    if player_sum >= 17:
        return STICK
    if 13 <= player_sum <= 16:
        return STICK if 2 <= dealer_card <= 6 else HIT
    if player_sum == 12:
        return STICK if 4 <= dealer_card <= 6 else HIT
    return HIT


class BlackjackEnv(GymnasiumEnv):
    """Gymnasium's Blackjack: hit for another card, or stick and let the dealer play."""

    gym_id: ClassVar[str] = "Blackjack-v1"
    gym_defaults: ClassVar[dict[str, Any]] = {"sab": True, "natural": False}
    actions: ClassVar[tuple[str, ...]] = ACTIONS
    tool: ClassVar[tuple[str, str, str]] = (
        "play",
        "action",
        "Hit (take another card) or stick (end your turn).",
    )
    config_model: ClassVar[type[EnvConfig]] = BlackjackConfig
    deployment = Deployment(never_blocks=True)  # a card game: pure computing (conformance-checked)
    config: BlackjackConfig
    _stuck = False

    def gym_kwargs(self) -> dict[str, Any]:
        return {"sab": self.config.sab, "natural": self.config.natural}

    def rules(self) -> list[str]:
        lines = [
            "You are playing Blackjack (Gymnasium Blackjack-v1) against a dealer, from an "
            "infinite deck. Cards 2-10 count their value, jacks, queens and kings count 10 "
            "(shown as 10), an ace (A) counts 11 unless that takes the total over 21, then 1.",
            "Each turn, hit (take another card) or stick (stop). Over 21 you bust and lose.",
            "When you stick, the dealer reveals the face-down card and draws until reaching 17 "
            "or more. Closer to 21 than the dealer wins; the dealer busting wins too.",
            "A win earns +1 (success), a draw 0, a loss -1.",
        ]
        if self.config.sab:
            lines.append(
                "A natural (an ace and a ten-card as your first two cards) wins +1 unless the "
                "dealer also has one (a draw)."
            )
        elif self.config.natural:
            lines.append("A winning natural (an ace and a ten-card as your first two) pays +1.5.")
        return lines

    def view(self, state: Any) -> str:
        player, dealer = self.unwrapped.player, self.unwrapped.dealer
        if self._done and self._stuck:
            shown = f"The dealer's cards: {hand_text(dealer)}."
        else:
            shown = f"The dealer shows: {card(dealer[0])} (the other card is face down)."
        return f"Your cards: {hand_text(player)}.\n{shown}"

    def _start(self) -> None:
        super()._start()
        self._stuck = False

    def transition(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        if action == HIT:
            drawn = card(self.unwrapped.player[-1])
            if terminated:
                text = (
                    f"You hit and drew {drawn}: bust. You lose ({reward:+g}). The episode is over."
                )
                return "bust", False, text, {}
            return "ok", False, f"You hit and drew {drawn}.", {}
        self._stuck = True
        status = "win" if reward > 0 else "draw" if reward == 0 else "loss"
        outcome = {"win": "You win", "draw": "It is a draw", "loss": "You lose"}[status]
        value, _ = total(self.unwrapped.player)
        text = f"You stick on {value}. {outcome} ({reward:+g}). The episode is over."
        return status, status == "win", text, {}

    def state_info(self, state: Any) -> dict[str, Any]:
        player, dealer = self.unwrapped.player, self.unwrapped.dealer
        value, soft = total(player)
        info: dict[str, Any] = {
            "player_cards": [int(v) for v in player],
            "player_sum": value,
            "usable_ace": soft,
            "dealer_card": int(dealer[0]),
        }
        if self._done and self._stuck:
            info["dealer_cards"] = [int(v) for v in dealer]
        return info

    def oracle_action(self) -> int:
        """Basic strategy for the current hand (see `basic_strategy`)."""
        value, soft = total(self.unwrapped.player)
        return basic_strategy(value, int(self.unwrapped.dealer[0]), soft)
