"""The step-through players (ui/kit/player.py) of the loop, flash and cost pages, on a clock
the test moves (conftest.py's ``player_clock``) instead of waiting for the timer."""

import pytest

from tests.support.app import player_button, run_app, slider
from ui.kit.player import INTERVAL_S, advance

PLAYERS = {  # page -> (the player's session key, its first position): counts, from 1 whatever
    "loop-vs-matrix": ("loop_rows", 1),  # the base (rows done, steps taken; "第 0 步" reads wrong)
    "flash": ("fl_step", 1),
    "cost": ("co_step", 1),
}


def test_advance_moves_one_step_a_tick_and_stops_at_the_end():
    assert advance(0, 0, 3, elapsed=INTERVAL_S) == (1, True)
    assert advance(1, 0, 3, elapsed=0.1 * INTERVAL_S) == (1, True)  # another rerun: no step
    assert advance(2, 0, 3, elapsed=INTERVAL_S) == (3, False)  # reaches the end: stops
    assert advance(3, 0, 3, elapsed=INTERVAL_S) == (3, False)
    assert advance(4, 4, 9, elapsed=2 * INTERVAL_S) == (5, True)  # one step, however late


@pytest.mark.parametrize("page", list(PLAYERS))
def test_players_open_at_the_first_position_and_play_in_both_languages(page, player_clock):
    key, first = PLAYERS[page]
    for lang, play, pause in (("en", "Play", "Pause"), ("zh", "播放", "暂停")):
        at = run_app(page, lang=lang)
        assert not at.exception
        assert slider(at, key).value == first and slider(at, key).min == first
        assert play in player_button(at, key).label
        player_button(at, key).click().run()
        assert pause in player_button(at, key).label and slider(at, key).value == first
        player_clock.now += 0.5 * INTERVAL_S
        at.run()  # a rerun before the interval is up: no step
        assert slider(at, key).value == first
        player_clock.now += 0.5 * INTERVAL_S
        at.run()  # what the fragment's timer does once a second
        assert not at.exception
        assert slider(at, key).value == first + 1
        player_clock.now += INTERVAL_S
        at.run()
        assert slider(at, key).value == first + 2
        player_button(at, key).click().run()  # pause
        assert play in player_button(at, key).label
        player_clock.now += 5 * INTERVAL_S
        at.run()
        assert slider(at, key).value == first + 2
