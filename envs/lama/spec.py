"""L.A.M.A. as the engine layer knows it (`envs.core.spec.GameSpec`): options, engine, encoder, its kind of game and
its deal as chance draws for exports (`LamaChance`)."""

from __future__ import annotations

from typing import Any

from envs.core.chance import ChanceModel, Phase
from envs.core.spec import GameSpec
from envs.lama import rules
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import Config, LamaGame


class LamaChance(ChanceModel):
    """L.A.M.A.: chance inside the game. Each round's deal is a phase of 56 draws by value (`Phase`: 7 outcomes a
    draw, the law of a uniform shuffle) then `LamaGame.deal_from`; a draw from the empty pile (the reshuffle
    variants) is a phase over the discard pile below its top, then `LamaGame.reshuffle_from` and the draw. The
    information state is the seat's own history (the deals as it saw them, every move, the cards it drew): perfect
    recall, as a string; a tensor of it would need a bound on the game's length, which L.A.M.A. lacks."""

    history_info_state = True
    utility = "general_sum"  # "win": 1 to each tied winner; "dense": minus the penalty points
    players = (2, 8)
    players_option = "num_players"

    def __init__(self, game: Any):
        super().__init__(game)
        self._values, self._draw, self._names = rules.VALUES, rules.DRAW, rules.ACTION_NAMES
        self._deck = [v for v in range(rules.VALUES) for _ in range(rules.COPIES)]
        self.max_outcomes = rules.VALUES
        # No bound exists (rounds repeat until a total reaches the target, and returned chips lower totals; the
        # reshuffle variants can draw forever): OpenSpiel's `max_game_length` gets a generous one, never reached
        # by the random games of the tests (whose lengths they check), and no algorithm here relies on it.
        self.max_moves = 100_000
        c = game.config
        # a round's most points: every distinct value and a llama, or (sum_all) 10 for each card of the round, all
        # llamas at worst (the seed's reshuffle quirk turns top cards into llamas)
        worst_round = 31 if c.scoring == "distinct" else 10 * rules.DECK_SIZE
        self.utility_bounds = (0.0, 1.0) if c.reward == "win" else (-float(c.target_points - 1 + worst_round), 0.0)

    def _deal_phase(self, after: Any) -> Phase:
        return Phase(self._deck, range(self._values), self._deal_as, "Deal", returns_of=after, args=(after,))

    def _deal_as(self, order: list[int], after: Any) -> Any:
        """`deal_from(order)` for the round of `after` (its round, starter, totals and scores)."""
        return self._game.deal_from(order, seed=after.seed, round=after.round, starter=after.starter,
                                    totals=after.totals, rounds_won=after.rounds_won, last_scores=after.last_scores)

    def _reshuffle_and_draw(self, pile: list[int], state: Any) -> Any:
        """`reshuffle_from(state, pile)`, then the draw that found the pile empty."""
        return self._game.apply(self._game.reshuffle_from(state, pile), self._draw)

    def start(self) -> Phase:
        """The first round's deal (a new game: its totals are zeros)."""
        return self._deal_phase(self._game.deal(0))

    def move(self, state: Any, action: int) -> Any:
        """`apply`, with chance first where the pile is reshuffled and a new round dealt."""
        g = self._game
        if action == self._draw and not state.draw_pile and action in g.legal_actions(state):
            return Phase(state.discard[:-1], range(self._values), self._reshuffle_and_draw, "Reshuffle",
                         returns_of=state, view_of=state, args=(state,))
        after = g.apply(state, action)
        if after.round != state.round and not after.game_over:
            return self._deal_phase(after)
        return after

    def tokens(self, before: Any, action: Any, after: Any) -> list[str]:
        """A deal: the round, the top card, the seat's hand and the last round's public scores; a move: the seat and
        the action, and for the drawer the card drawn (after a reshuffle, said so)."""
        name = "L123456"
        n = self._game.num_players
        if before is None:
            return [f"deal r{after.round} top {name[after.discard[-1]]} hand "
                    f"{''.join(name[v] * after.hands[p][v] for v in range(len(name)))} scores {list(after.last_scores)}"
                    for p in range(n)]
        seat = before.current
        said = f"p{seat} {self._names[action]}"
        out = [said] * n
        if action == self._draw:
            card = next(v for v in range(self._values) if after.hands[seat][v] > before.hands[seat][v])
            if after.reshuffles != before.reshuffles:
                said = out[seat] = f"p{seat} draw after reshuffle"
                out = [said] * n
            out[seat] = f"{said} {name[card]}"
        return out


SPEC = GameSpec(
    id="lama",
    title="L.A.M.A.",
    config_class=Config,
    game_class=LamaGame,
    encoder_class=LamaEncoder,
    env_module="envs.lama_v0",
    vector=True,
    preset_keys=("rules",),
    reward_options=("reward",),
    fuzz_variants=({"target_points": 10},),
    chance_model=LamaChance,
)
