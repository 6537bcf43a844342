"""Scenario tests: small ASCII boards, the robots' programs in; positions, facings, damage and lives out.

Cards (classic numbering): 1-6 U-turn, odd 7-41 right, even 8-42 left, 43-48 back up,
49-66 move 1, 67-78 move 2, 79-84 move 3; a higher number moves first.
"""

import numpy as np
import pytest

from envs.roborally.rules import Config, RoboRallyGame, Robot

N, E, S, W = 0, 1, 2, 3
UTURN, RIGHT, LEFT, BACK, M1, M2, M3 = 1, 7, 8, 43, 50, 70, 80


@pytest.fixture
def make(tmp_path):
    counter = iter(range(1000))

    def build(grid: str, **options) -> RoboRallyGame:
        rows = [r.split() for r in grid.strip().splitlines()]
        text = f"name: scenario\nsize: {len(rows[0])} {len(rows)}\ngrid:\n" + "\n".join(" ".join(r) for r in rows)
        path = tmp_path / f"s{next(counter)}.rrb"
        path.write_text(text)
        starts = sum(tok.startswith("S") for r in rows for tok in r)
        options.setdefault("num_robots", starts)
        options.setdefault("max_turns", None)
        return RoboRallyGame(Config(board=str(path), **options))

    return build


def run(game, robots, programs=None, registers=None, seed=0):
    """Set up the robots, execute one turn, return the state after it."""
    state = game.setup(robots, seed=seed, registers=registers)
    programs = programs if programs is not None else [()] * len(robots)
    return game.execute_turn(state, programs)


def where(state):
    return [(r.x, r.y, r.facing) if r.on_board else None for r in state.robots]


def frame_xy(state, register):
    return [(r.x, r.y) for r in state.frames[register - 1].robots]


# ------------------------------------------------------------------ belts


def test_belt_train_moves_together_then_blocks_behind_a_stopped_robot(make):
    game = make("""
        cE  cE  cE  cE  .   .
        S1N S2N S3N .   .   .
    """)
    after = run(game, [Robot(0, 0, N), Robot(1, 0, N), Robot(2, 0, N)])
    assert frame_xy(after, 1) == [(1, 0), (2, 0), (3, 0)]
    assert frame_xy(after, 2) == [(2, 0), (3, 0), (4, 0)]
    # (4, 0) is floor: the front robot stops, the ones behind are blocked by it.
    assert frame_xy(after, 5) == [(2, 0), (3, 0), (4, 0)]


def test_merge_deadlock_nobody_moves(make):
    game = make("""
        .   cS  .
        cE  .   cW
        S1N S2N S3N
    """)
    robots = [Robot(1, 0, N), Robot(0, 1, W), Robot(2, 1, E)]
    after = run(game, robots)
    assert where(after) == [(1, 0, N), (0, 1, W), (2, 1, E)]


def test_swap_nobody_moves(make):
    game = make("""
        cE  cW
        S1N S2N
    """)
    after = run(game, [Robot(0, 0, N), Robot(1, 0, N)])
    assert where(after) == [(0, 0, N), (1, 0, N)]


def test_full_cycle_nobody_moves_open_cycle_turns(make):
    game = make("""
        cE  cS  .
        cN  cW  .
        S1N S2N S3N
        S4N .   .
    """)
    full = [Robot(0, 0, N), Robot(1, 0, E), Robot(1, 1, S), Robot(0, 1, W)]
    after = run(game, full)
    assert [(r.x, r.y) for r in after.robots] == [(0, 0), (1, 0), (1, 1), (0, 1)]
    game3 = make("""
        cE  cS  .
        cN  cW  .
        S1N S2N S3N
    """)
    after = run(game3, [Robot(0, 0, N), Robot(1, 0, E), Robot(1, 1, S)])
    assert frame_xy(after, 1) == [(1, 0), (1, 1), (0, 1)]


def test_blocked_by_a_robot_that_does_not_move(make):
    game = make("""
        cE  .   .
        S1N S2N .
    """)
    after = run(game, [Robot(0, 0, N), Robot(1, 0, N)])
    assert [(r.x, r.y) for r in after.robots] == [(0, 0), (1, 0)]


def test_carried_robots_never_push(make):
    game = make("""
        cE  cE  .
        S1N S2N .
    """)
    # Both ride east; robot 1 leaves the belt onto floor at (2, 0) and stops there; robot 0, still on a belt,
    # then waits behind it instead of pushing it.
    after = run(game, [Robot(0, 0, N), Robot(1, 0, N)])
    assert frame_xy(after, 1) == [(1, 0), (2, 0)]
    assert frame_xy(after, 2) == [(1, 0), (2, 0)]


def test_express_then_normal(make):
    game = make("""
        eE  eE  cE  .   .   .
        .   .   cE  cE  .   .
        S1N S2N .   .   .   .
    """)
    after = run(game, [Robot(0, 0, N), Robot(2, 1, S)])
    # Register 1: the express step moves robot 0 to the express square (1, 0), the belt step onto (2, 0);
    # robot 1 (normal belt) moves once.
    assert frame_xy(after, 1) == [(2, 0), (3, 1)]
    assert frame_xy(after, 2) == [(3, 0), (4, 1)]


def test_rotating_belts_turn_carried_robots(make):
    game = make("""
        cE  cS:T .    .
        .   .    .    .
        .   .    cS:T cW
        S1N S2N  .    .
    """)
    after = run(game, [Robot(0, 0, N), Robot(3, 2, N)])
    # E -> S is a right turn (N -> E); W -> S is a left turn (N -> W).
    assert [(r.x, r.y, r.facing) for r in after.frames[0].robots] == [(1, 0, E), (2, 2, W)]
    assert where(after) == [(1, 1, E), (2, 3, W)]


def test_own_move_onto_a_rotating_belt_does_not_turn(make):
    game = make("""
        .   .    .
        cS  cS:T .
        S1N .    S2N
    """)
    # Robot 0 drives west onto the rotating square (1, 1); the belt then carries it south without turning it
    # (it leaves the rotating square onto floor).
    after = run(game, [Robot(2, 1, W), Robot(2, 2, N)], [(M1,), ()])
    assert (after.frames[0].robots[0].x, after.frames[0].robots[0].y, after.frames[0].robots[0].facing) == (1, 2, W)


# ------------------------------------------------------------------ other elements


def test_gears_turn_every_register(make):
    game = make("""
        gR  .   gL
        S1N .   S2N
    """)
    after = run(game, [Robot(0, 0, N), Robot(2, 0, N)])
    assert [r.facing for r in after.frames[0].robots] == [E, W]
    assert [r.facing for r in after.frames[1].robots] == [S, S]
    assert [r.facing for r in after.robots] == [E, W]  # 5 quarter turns


def test_pushers_push_in_their_registers_only(make):
    game = make("""
        .:PE24  .   .   .
        S1N     S2N .   .
    """)
    after = run(game, [Robot(0, 0, N), Robot(3, 1, N)])
    assert [frame_xy(after, r)[0] for r in (1, 2, 3)] == [(0, 0), (1, 0), (1, 0)]


def test_pusher_into_a_pit_destroys(make):
    game = make("""
        .:PS1   .
        X       .
        S1N     S2N
    """)
    after = run(game, [Robot(0, 0, N), Robot(1, 2, N)])
    assert after.frames[0].robots[0].on_board is False
    assert after.robots[0].lives == 2


@pytest.mark.parametrize("enabled", [True, False])
def test_crushers_when_enabled(make, enabled):
    game = make("""
        .:K2  .
        S1N   S2N
    """, crushers=enabled)
    after = run(game, [Robot(0, 0, N), Robot(1, 1, N)])
    assert after.frames[0].robots[0].on_board is True
    assert after.frames[1].robots[0].on_board is (not enabled)


def test_lasers_blocked_by_walls_and_robots(make):
    game = make("""
        .:LE1 .    .   .   .
        .:LE1 .:wE .   .   .
        .     .    .   .   .
        S1N   S2N  S3N S4N S5N
    """)
    robots = [Robot(2, 0, N), Robot(2, 1, S), Robot(0, 2, E), Robot(3, 2, N), Robot(4, 2, N)]
    after = run(game, robots)
    # Robot 0 in the first beam; robot 1 behind the wall; robot 3 hit by robot 2, robot 4 shielded by robot 3.
    assert [r.damage for r in after.robots] == [5, 0, 0, 5, 0]
    shooters = {s.robot for s in after.frames[0].shots}
    assert shooters == {None, 1, 2, 3, 4}  # robot 0 faces the edge: its beam leaves the board at once


def test_board_laser_hits_robot_on_its_mount_square_with_every_beam(make):
    game = make("""
        .:LE2 .
        S1N   S2N
    """)
    after = run(game, [Robot(0, 0, N), Robot(1, 1, N)])
    assert after.frames[0].robots[0].damage == 2


def test_powered_down_robot_does_not_fire(make):
    game = make("""
        .   .   .
        S1N S2N .
    """)
    robots = [Robot(0, 0, E, damage=1, powered_down=True, stay_down=True), Robot(2, 0, N)]
    state = game.setup(robots)
    assert state.robots[0].damage == 0 and state.hands[0] == ()  # damage discarded at the turn's start
    after = game.execute_turn(state, [(), ()])
    assert after.robots[1].damage == 0
    assert after.robots[0].powered_down  # stayed down


# ------------------------------------------------------------------ moves and pushing


def test_moves_turns_and_back_up(make):
    game = make("""
        .   .   .   .
        .   .   .   .
        S1N S2N .   .
    """)
    after = run(game, [Robot(0, 1, E), Robot(3, 2, N)], [(M2, RIGHT, BACK, UTURN, LEFT), ()])
    # M2 east to (2, 1); right -> S; back up north to (2, 0); U-turn -> N; left -> W.
    assert where(after)[0] == (2, 0, W)


def test_walls_stop_a_move(make):
    game = make("""
        .   .:wE .
        S1N S2N  .
    """)
    after = run(game, [Robot(0, 0, E), Robot(2, 1, N)], [(M3,), ()])
    assert where(after)[0] == (1, 0, E)


def test_push_chain_into_a_wall_nobody_moves(make):
    game = make("""
        .   .   .   .:wE .
        S1N S2N S3N .    .
    """)
    after = run(game, [Robot(0, 0, E), Robot(1, 0, N), Robot(2, 0, N)], [(M3,), (), ()])
    assert [(r.x, r.y) for r in after.robots] == [(1, 0), (2, 0), (3, 0)]


def test_push_into_a_pit(make):
    game = make("""
        .   .   X   .
        S1N S2N .   .
    """)
    after = run(game, [Robot(0, 0, E), Robot(1, 0, N)], [(M1,), ()])
    assert after.frames[0].robots[1].on_board is False
    assert (after.frames[0].robots[0].x, after.frames[0].robots[0].y) == (1, 0)
    assert after.robots[1].lives == 2 and after.robots[1].damage == 2  # re-entered on its archive
    # Its archive (1, 0) is taken by robot 0; north is off the board, east a pit: it re-enters south.
    assert (after.robots[1].x, after.robots[1].y) == (1, 1)


def test_mover_continues_after_pushing_a_robot_off_the_board(make):
    game = make("""
        .   .
        .   S2N
        S1N .
    """)
    after = run(game, [Robot(0, 2, N), Robot(0, 1, N, archive_x=1, archive_y=1)], [(M2,), ()])
    first = after.frames[0].robots
    assert (first[0].x, first[0].y) == (0, 0) and first[0].on_board
    assert first[1].on_board is False


def test_falling_off_the_edge_voids_the_rest(make):
    game = make("""
        .   .
        S1N S2N
    """)
    after = run(game, [Robot(0, 0, N), Robot(1, 1, N)], [(M1, M1 + 1, M1 + 2), ()])
    assert after.frames[0].robots[0].on_board is False
    assert after.robots[0].lives == 2 and (after.robots[0].x, after.robots[0].y) == (0, 0)


def test_priority_order_higher_card_first(make):
    game = make("""
        .   .   .
        S1N .   S2N
    """)
    # Both drive into (1, 0); robot 1's card is higher: it arrives first, robot 0 then pushes it west->east.
    after = run(game, [Robot(0, 0, E), Robot(2, 0, W)], [(M1 + 1,), (M1 + 2,)])
    r0, r1 = after.frames[0].robots
    assert (r1.x, r1.y) == (2, 0) and (r0.x, r0.y) == (1, 0)


# ------------------------------------------------------------------ damage, locking, repairs


def test_register_locking_keeps_cards(make):
    game = make("""
        .:LE1 .   .
        S1N   S2N .
    """)
    robots = [Robot(0, 0, N, damage=4), Robot(2, 1, N)]
    after = run(game, robots, [(UTURN, UTURN + 1, UTURN + 2, UTURN + 3, UTURN + 4), ()])
    assert after.robots[0].damage == 9
    assert after.registers[0] == (1, 2, 3, 4, 5)  # all five locked with their cards
    assert after.hands[0] == ()
    assert game.legal_actions(after) == [9]  # NOOP only


def test_repair_unlocks_from_the_lowest_locked_register(make):
    game = make("""
        r1:wN .
        S1N   S2N
    """)
    robots = [Robot(0, 0, N, damage=6), Robot(1, 1, N)]
    after = run(game, robots, [(), ()], registers=[(0, 0, 0, 70, 50), (0,) * 5])
    assert after.robots[0].damage == 5
    assert after.registers[0] == (0, 0, 0, 0, 50)  # register 4 unlocked, its card back in the deck
    assert 70 in after.deck or any(70 in h for h in after.hands)
    assert len(after.hands[0]) == 4


def test_wrench_repairs_flags_do_not_by_default(make):
    grid = """
        r1  F1  .
        S1N S2N F2
    """
    for flags_repair, expected in ((False, [2, 3]), (True, [2, 2])):
        game = make(grid, flags_repair=flags_repair)
        after = run(game, [Robot(0, 0, S, damage=3), Robot(1, 0, S, damage=3)])
        assert [r.damage for r in after.robots] == expected
        assert [(r.archive_x, r.archive_y) for r in after.robots] == [(0, 0), (1, 0)]


def test_double_wrench_option(make):
    for heals, expected in ((1, 3), (2, 2)):
        game = make("""
            r2  .
            S1N S2N
        """, double_repair_heals=heals)
        after = run(game, [Robot(0, 0, N, damage=4), Robot(1, 1, N)])
        assert after.robots[0].damage == expected


def test_ten_damage_destroys_and_last_life_eliminates(make):
    game = make("""
        .:LE3 .
        S1N   S2N
    """)
    after = run(game, [Robot(0, 0, N, damage=8, lives=1), Robot(1, 1, N)])
    assert after.robots[0].eliminated and not after.robots[0].on_board
    assert after.registers[0] == (0,) * 5


# ------------------------------------------------------------------ re-entry


def test_reentry_onto_a_taken_archive_uses_the_neighbour_order(make):
    game = make("""
        .   .   .
        .   .   .
        .   .   .
        .   .   X
        S1N S2N S3N
    """)
    robots = [
        Robot(1, 3, E, archive_x=1, archive_y=1, archive_facing=S),
        Robot(1, 1, W),  # sits on the archive
        Robot(1, 0, N),  # and on its north neighbour
    ]
    after = run(game, robots, [(M1,), (), ()])
    a = after.robots[0]
    assert (a.x, a.y, a.facing, a.damage, a.lives) == (2, 1, S, 2, 2)  # east neighbour, archive facing


def test_reentry_in_destruction_order(make):
    game = make("""
        .   .   .   .
        .   .   .   .
        .   X   X   .
        S1N S2N .   .
    """)
    robots = [
        Robot(1, 3, N, archive_x=1, archive_y=1),  # destroyed in register 2
        Robot(2, 3, N, archive_x=1, archive_y=1),  # destroyed in register 1
    ]
    after = run(game, robots, [(0, M1), (M1 + 1,)])
    assert [(r.x, r.y) for r in after.robots] == [(1, 0), (1, 1)]


# ------------------------------------------------------------------ power down


def test_power_down_announced_then_down_next_turn(make):
    game = make("""
        .:LE1 cE  .   .
        .     .   .   .
        S1N   S2N .   .
    """)
    robots = [Robot(1, 0, W, damage=3), Robot(3, 2, N)]
    state = game.setup(robots)
    # Register mode: 5 register rounds then the power round; robot 0 announces.
    while state.step < 10:
        state = game.apply(state, game.legal_actions(state)[0])
    assert game.legal_actions(state) == [9, 10]
    state = game.apply(state, 10)  # robot 0: POWER_DOWN
    state = game.apply(state, 9)  # robot 1: NOOP -> the turn executes
    r0 = state.robots[0]
    assert r0.powered_down and r0.damage == 0 and state.hands[0] == ()
    assert game.legal_actions(state) == [9]  # no card to place while down
    # While down it is still carried and damaged but does not fire: the belt takes it to (2, 0), into the
    # board laser's beam; robot 1 in its line of fire takes nothing.
    state = game.setup([Robot(1, 0, E, powered_down=True), Robot(3, 0, N)])
    after = game.execute_turn(state, [(), ()])
    first = after.frames[0].robots
    assert (first[0].x, first[0].y, first[0].damage) == (2, 0, 1)
    assert after.robots[1].damage == 0
    assert not after.robots[0].powered_down  # it did not choose to stay down


def test_powered_down_robot_locked_register_takes_the_top_card(make):
    game = make("""
        .:LE1 .
        S1N   S2N
    """)
    state = game.setup([Robot(0, 0, N, powered_down=True), Robot(1, 1, N)])
    top = state.deck[0]
    after = game.execute_turn(state, [(), ()])
    assert after.robots[0].damage == 5
    assert after.registers[0] == (0, 0, 0, 0, top)


def test_undamaged_robot_may_not_announce(make):
    game = make("""
        .   .
        S1N S2N
    """)
    state = game.setup([Robot(0, 0, N), Robot(1, 0, N, damage=1)])
    while state.step < 10:
        state = game.apply(state, game.legal_actions(state)[0])
    assert game.legal_actions(state) == [9]
    state = game.apply(state, 9)
    assert game.legal_actions(state) == [9, 10]


# ------------------------------------------------------------------ flags and winning


def test_flags_in_order_and_first_on_the_last_flag_wins_at_once(make):
    game = make("""
        F2  .   F1
        S1N S2N .
    """)
    robots = [Robot(0, 1, N), Robot(1, 1, E, next_flag=1)]
    # Robot 0 reaches F2 first but has not claimed F1: no claim.
    after = run(game, robots, [(M1,), (RIGHT + 2, UTURN)])
    assert after.robots[0].next_flag == 0
    robots = [Robot(2, 1, N), Robot(0, 1, N, next_flag=1)]
    after = run(game, robots, [(M1, UTURN, M1 + 1), (M1 + 2,)])
    assert after.winner == 1 and game.is_terminal(after) and len(after.frames) == 1
    assert after.robots[0].next_flag == 1  # robot 0 claimed F1 in the same register
    assert game.winners(after) == (1,) and game.legal_actions(after) == []


def test_all_eliminated_no_winner(make):
    game = make("""
        X   X
        S1N S2N
    """)
    after = run(game, [Robot(0, 1, N, lives=1), Robot(1, 1, N, lives=1)], [(M1,), (M1 + 1,)])
    assert game.is_terminal(after) and game.over_reason(after) == "eliminated" and game.winners(after) == ()


def test_execute_turn_matches_sub_steps(make):
    game = make("""
        cE  .   .   .
        .   gR  .   .
        .   .   .   .
        S1E S2S .   .
    """, max_turns=5)  # a game dealt on a board without flags needs a move cap
    state = game.initial_state(np.random.default_rng(4))
    rng = np.random.default_rng(5)
    while state.step < game.steps_per_turn - 1:
        legal = game.legal_actions(state)
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
    via_steps = game.apply(state, game.legal_actions(state)[0])
    via_helper = game.execute_turn(state._replace(step=0), state.registers)
    assert via_steps.robots == via_helper.robots and via_steps.frames == via_helper.frames
