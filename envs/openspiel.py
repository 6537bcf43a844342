"""OpenSpiel export: our rules engines as OpenSpiel Python games (optional extra `openspiel`).

    import pyspiel
    import envs.openspiel                      # registers the games below
    game = pyspiel.load_game("tabletop_simple_poker(n=3)")

Each exported game is registered as `tabletop_<game>` with the game's `Config`
fields as parameters (their defaults are OpenSpiel's). The OpenSpiel state wraps
the engine's own state: chance nodes deal the cards one draw at a time (each
game's `ChanceModel` says which draws and builds the engine's start from them,
so every deal OpenSpiel can reach is one our engine plays), then every move is
`Game.apply`, and `returns()` are `Game.returns`. Strings and tensors come from
the seat's view: the information-state string is `repr(view)` (our views keep
the seat's whole history, so it is perfect recall) and the tensor is the env's
observation encoding of that view (the same for "observation" and "information
state").

Exported: simple poker (`tabletop_simple_poker`: two card draws; perfect recall, so
information states for CFR and exploitability), The Game (`tabletop_the_game`) and
Primi Composti (`tabletop_primi_composti`): the shuffled deck as card-by-card draws,
then the engine's deal from that order; their views hold what a seat knows now, not
its history, so they provide observations only. Not exported: L.A.M.A. (chance
inside the game: each round's shuffle and the reshuffles of the discard pile) and
RoboRally (simultaneous programming and a new hand dealt every turn).

`load(name)` is `pyspiel.load_game` that first says, in one line, which names
exist when `name` is not ours; `policy_table(policy)` reads an OpenSpiel tabular
policy into a `{information-state string: probabilities}` table that
`agents.openspiel.PolicyTableAgent` plays in our tournaments.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("envs.openspiel needs OpenSpiel: pip install 'tabletop-rl[openspiel]' (open-spiel)") from e

import envs
from envs.core.game import info_state_string
from envs.simple_poker.rules import State as SimplePokerState

PREFIX = "tabletop_"


class SimplePokerChance:
    """Simple poker's deal as chance draws: seat 0's card, then seat 1's, each uniform over 1..n
    (cards are dealt independently, equal cards possible)."""

    perfect_recall = True  # a view holds the seat's card and every action so far
    utility = "zero_sum"
    terminal_rewards = True  # the returns are 0 until the hand ends

    def __init__(self, game: Any):
        self.n = game.n
        self.max_outcomes = game.n
        self.max_moves = 2
        self.utility_bounds = (-(game.ante + game.bet), game.ante + game.bet)

    def outcomes(self, drawn: list[int]) -> list[tuple[int, float]] | None:
        """The next draw's outcomes and probabilities, or None once the deal is complete."""
        if len(drawn) == 2:
            return None
        return [(c, 1.0 / self.n) for c in range(self.n)]

    def deal(self, drawn: list[int]) -> SimplePokerState:
        """The engine's start from the draws (outcome c is card c + 1)."""
        return SimplePokerState((drawn[0] + 1, drawn[1] + 1))

    def outcome_string(self, index: int, outcome: int) -> str:
        """`Deal:P<seat>=<card>`."""
        return f"Deal:P{index}={outcome + 1}"


class DeckChance:
    """A shuffled deck as chance draws: the deck's order card after card, each uniform over the cards
    left (outcome i is the i-th smallest card), then the engine's deal from that order. Subclasses say
    which cards, which deal, and the game's bounds."""

    perfect_recall = False  # a view is what the seat knows now, not its whole history: observations only
    terminal_rewards = False  # the returns grow as cards are placed or scored: rewards() is each move's change

    def __init__(self, cards: list[int]):
        self.cards = list(cards)
        self.max_outcomes = len(self.cards)

    def outcomes(self, drawn: list[int]) -> list[tuple[int, float]] | None:
        """The cards still in the deck, equally likely, or None once the whole order is drawn."""
        left = len(self.cards) - len(drawn)
        if left == 0:
            return None
        taken = set(drawn)
        return [(i, 1.0 / left) for i in range(len(self.cards)) if i not in taken]

    def order(self, drawn: list[int]) -> list[int]:
        """The deck order the draws make."""
        return [self.cards[i] for i in drawn]

    def outcome_string(self, index: int, outcome: int) -> str:
        """`Deck[<position>]=<card>`."""
        return f"Deck[{index}]={self.cards[outcome]}"


class TheGameChance(DeckChance):
    """The Game's shuffle of the cards 2..99 (`TheGame.deal_from`). Cooperative: every seat's return is the
    team's (0 .. 98 + win_bonus); a move places one card or ends a turn (at most 2 · 98 + 1 moves)."""

    utility = "identical"

    def __init__(self, game: Any):
        from envs.the_game.rules import HIGHEST, LOWEST

        super().__init__(list(range(LOWEST, HIGHEST + 1)))
        self._game = game
        self.max_moves = 2 * len(self.cards) + 1
        self.utility_bounds = (0.0, len(self.cards) + game.win_bonus)

    def deal(self, drawn: list[int]) -> Any:
        """`TheGame.deal_from` the drawn order."""
        return self._game.deal_from(self.order(drawn))


class PrimiCompostiChance(DeckChance):
    """Primi Composti's shuffle (`PrimiCompostiGame.deal_from`). Zero-sum: a seat's return is its x minus the
    others' mean, with x = score (at most the cards' total value) plus 1 for a win; one card a move."""

    utility = "zero_sum"

    def __init__(self, game: Any):
        super().__init__(list(game.cards))
        self._game = game
        self.max_moves = game.num_cards
        bound = float(game.total_value + 1)
        self.utility_bounds = (-bound, bound)

    def deal(self, drawn: list[int]) -> Any:
        """`PrimiCompostiGame.deal_from` the drawn order."""
        return self._game.deal_from(self.order(drawn))


#: The exported games and their chance models.
CHANCE_MODELS: dict[str, type] = {"simple_poker": SimplePokerChance, "the_game": TheGameChance,
                                  "primi_composti": PrimiCompostiChance}
_UTILITY = {"zero_sum": pyspiel.GameType.Utility.ZERO_SUM, "identical": pyspiel.GameType.Utility.IDENTICAL}


def _defaults(game_id: str) -> dict[str, Any]:
    """The game's `Config` fields and defaults, as OpenSpiel parameters (int, float, bool or str only)."""
    out = {}
    for f in dataclasses.fields(envs.config_class(game_id)):
        if f.init and isinstance(f.default, (bool, int, float, str)):
            out[f.name] = f.default
    return out


def _make_game_class(game_id: str) -> tuple[Any, type]:
    """The OpenSpiel game type and `pyspiel.Game` subclass of `game_id`."""
    chance_cls = CHANCE_MODELS[game_id]
    defaults = _defaults(game_id)
    players = [f.default for f in dataclasses.fields(envs.config_class(game_id)) if f.name == "num_players"]
    probe = envs.make_game(game_id)
    game_type = pyspiel.GameType(
        short_name=PREFIX + game_id,
        long_name=f"tabletop-rl {game_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITY[chance_cls.utility],
        reward_model=(pyspiel.GameType.RewardModel.TERMINAL if chance_cls.terminal_rewards
                      else pyspiel.GameType.RewardModel.REWARDS),
        # a game whose player count is an option is registered for the engine's range, checked by its Config
        max_num_players=10 if players else probe.num_players,
        min_num_players=1 if players else probe.num_players,
        provides_information_state_string=chance_cls.perfect_recall,
        provides_information_state_tensor=chance_cls.perfect_recall,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )

    class ExportedGame(pyspiel.Game):
        """An engine of ours as an OpenSpiel game (see the module docstring)."""

        def __init__(self, params: dict[str, Any] | None = None):
            options = {**defaults, **(params or {})}
            self.engine = envs.make_game(game_id, **options)  # ValueError on a bad option, from our Config
            self.encoder = envs.make_encoder(game_id, self.engine)
            self.chance = chance_cls(self.engine)
            low, high = self.chance.utility_bounds
            info = pyspiel.GameInfo(
                num_distinct_actions=self.engine.num_actions,
                max_chance_outcomes=self.chance.max_outcomes,
                num_players=self.engine.num_players,
                min_utility=float(low),
                max_utility=float(high),
                utility_sum=0.0 if chance_cls.utility == "zero_sum" else None,
                max_game_length=self.chance.max_moves,
            )
            super().__init__(game_type, info, options)

        def new_initial_state(self) -> ExportedState:
            """The state before the deal."""
            return ExportedState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
            """Strings and tensors of a seat's view (the same for observation and information state)."""
            if params:
                raise ValueError(f"observation parameters are not supported; got {params}")
            return ViewObserver(self)

    ExportedGame.__name__ = ExportedGame.__qualname__ = f"{''.join(w.title() for w in game_id.split('_'))}Game"
    return game_type, ExportedGame


class ExportedState(pyspiel.State):
    """An OpenSpiel state holding the chance draws so far and, once dealt, the engine's state."""

    def __init__(self, game: Any):
        super().__init__(game)
        self._engine = game.engine
        self._chance = game.chance
        self.drawn: list[int] = []
        self.engine_state: Any = None
        self._rewards = [0.0] * game.engine.num_players

    def current_player(self) -> int:
        """Chance while dealing, the engine's seat to act, or terminal."""
        if self.engine_state is None:
            return pyspiel.PlayerId.CHANCE
        if self._engine.is_terminal(self.engine_state):
            return pyspiel.PlayerId.TERMINAL
        return int(self._engine.current_player(self.engine_state))

    def _legal_actions(self, player: int) -> list[int]:
        return [int(a) for a in self._engine.legal_actions(self.engine_state)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next draw's outcomes with their probabilities."""
        return self._chance.outcomes(self.drawn)

    def _apply_action(self, action: int) -> None:
        if self.engine_state is None:
            self.drawn.append(int(action))
            if self._chance.outcomes(self.drawn) is None:
                self.engine_state = self._chance.deal(self.drawn)
        else:
            before = self.returns()
            self.engine_state = self._engine.apply(self.engine_state, int(action))
            self._rewards = [a - b for a, b in zip(self.returns(), before)]
            return
        self._rewards = [0.0] * len(self._rewards)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self._chance.outcome_string(len(self.drawn), action)
        return self._engine.action_to_string(self.engine_state, int(action))

    def is_terminal(self) -> bool:
        """The engine's game is over."""
        return self.engine_state is not None and self._engine.is_terminal(self.engine_state)

    def returns(self) -> list[float]:
        """The engine's returns (zero before the deal)."""
        if self.engine_state is None:
            return [0.0] * self._engine.num_players
        return [float(r) for r in self._engine.returns(self.engine_state)]

    def rewards(self) -> list[float]:
        """What the last move changed the returns by (they add up to `returns()`)."""
        return list(self._rewards)

    def view(self, player: int) -> Any:
        """`player`'s view (None before the deal)."""
        return None if self.engine_state is None else self._engine.view(self.engine_state, player)

    def __str__(self) -> str:
        if self.engine_state is None:
            return f"dealing {self.drawn}"
        return self._engine.render(self.engine_state)


class ViewObserver:
    """OpenSpiel's observer interface over our views: `repr(view)` and the env's encoding of it."""

    def __init__(self, game: Any):
        self._encoder = game.encoder
        self.tensor = np.zeros(int(np.prod(game.encoder.observation_space.shape)), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ExportedState, player: int) -> None:
        """The tensor of `player`'s view of `state` (zeros before the deal)."""
        view = state.view(player)
        if view is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = np.asarray(self._encoder.encode(view), dtype=np.float32).ravel()

    def string_from(self, state: ExportedState, player: int) -> str:
        """`repr` of `player`'s view of `state`."""
        return info_state_string(state.view(player), player)


def policy_table(policy: Any) -> dict[str, np.ndarray]:
    """An OpenSpiel `TabularPolicy` (e.g. CFR's average policy as `.to_tabular()`) as
    `{information-state string: action probabilities}`."""
    return {key: np.array(policy.action_probability_array[i], dtype=float) for key, i in policy.state_lookup.items()}


def tabular_policy(game: Any, action_probs: Any) -> Any:
    """An OpenSpiel `TabularPolicy` of `game` that plays `action_probs(view, mask) -> probabilities` (an agent of
    ours with exact probabilities, e.g. `agents.make("simple_poker/nash", ...).action_probs`) at every
    information state, found by walking the whole game tree (small games only)."""
    from open_spiel.python import policy as os_policy

    table = os_policy.TabularPolicy(game)
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
        mask[state.legal_actions()] = 1
        probs = np.asarray(action_probs(state.view(player), mask), dtype=float)
        table.policy_for_key(state.information_state_string(player))[:] = probs
        stack.extend(state.child(a) for a in state.legal_actions())
    return table


def load(name: str) -> Any:
    """`pyspiel.load_game(name)`; a `tabletop_` name that is not exported raises a one-line `ValueError`
    naming the exported ones."""
    short = name.split("(", 1)[0]
    if short.startswith(PREFIX) and short not in REGISTERED:
        raise ValueError(f"no OpenSpiel game {short!r}; exported: {', '.join(sorted(REGISTERED))}")
    return pyspiel.load_game(name)


def _register() -> dict[str, type]:
    out = {}
    known = set(pyspiel.registered_names())
    for game_id in CHANCE_MODELS:
        if game_id not in envs.available_games():
            continue
        game_type, cls = _make_game_class(game_id)
        if game_type.short_name not in known:
            pyspiel.register_game(game_type, cls)
        out[game_type.short_name] = cls
    return out


#: The registered OpenSpiel names and their game classes.
REGISTERED = _register()
