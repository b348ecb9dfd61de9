"""A room following the teacher on /generate (serve.py, whose pulse a student's browser asks):
the teacher's Next reaches a following student's page through the listener inside the player's
fragment, which reruns that fragment alone (the page's pieces table is not sent again), while a
change of more than the tokens written (the prompt) reruns the student's whole page."""

import asyncio
from contextlib import AsyncExitStack

from tests.support.model_work import steps_shown, until_loaded
from tests.support.servers import serving
from tests.support.session import connect, open_room
from ui.kit.i18n import t
from ui.room.pulse import HERE_KEY

HERE = HERE_KEY  # the listener inside the player's fragment


async def _follow(port: int) -> dict:
    base = f"http://127.0.0.1:{port}"
    await until_loaded(base)
    seen = {}
    async with AsyncExitStack() as stack:
        _, code, key = await open_room(base, "en", None, stack)
        query = f"room={code}&key={key}&lang=en&gen_mode=sample&gen_seed=7&gen_t=0.8"
        teacher = await connect(base, "generate", query, None, stack)
        pupil = await connect(base, "", f"room={code}&lang=zh", None, stack)
        pieces = t("generate.pieces_title", "zh")
        seen["arrived"] = pieces in pupil.texts and HERE in pupil.widgets
        await teacher.run(teacher.press("gen_next"))
        await teacher.run(teacher.press("gen_next"))
        await pupil.run(pupil.trigger(HERE, "changed", "the room's new pulse"))
        seen["after_next"] = (pieces in pupil.texts, " ".join(pupil.texts))
        await teacher.run(teacher.type_into("gen_prompt", "Once upon a time"))
        await pupil.run(pupil.trigger(HERE, "changed", "the room's newer pulse"))
        seen["after_prompt"] = (pieces in pupil.texts, " ".join(pupil.texts), pupil.exceptions)
        seen["teacher_steps"] = steps_shown(teacher.texts)
    return seen


def test_a_following_students_player_takes_the_teachers_next_alone_and_a_new_prompt_redraws():
    with serving(script="serve.py") as (port, _server):
        seen = asyncio.run(_follow(port))
    assert seen["arrived"], "the student is not on the teacher's /generate with its listener"
    whole, text = seen["after_next"]
    assert not whole, "the teacher's Next redrew the student's whole page"
    assert "第 2 步选了" in text  # the teacher's two tokens, in the student's language
    whole, text, errors = seen["after_prompt"]
    assert whole and not errors, "a new prompt did not redraw the student's page"
    assert "Once upon a time" in text
