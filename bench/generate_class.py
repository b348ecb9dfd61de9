"""A class writing with Gemma on /generate, over Streamlit's websocket on one server (loopback):
run from bench/classroom.py (``generate``).

60 students open /generate once the model has loaded (the teacher opened it first), each sampling
with a seed of their own. 20 press Play (32 tokens, one a second as the player plays, its
fragment rerun as the browser's timer does) in the same second that the other 40 press Next; the
40 press Next again every 3-6 s (reading the step between presses) until every Play is done.

Measured: each Play's time from the press to its 32nd token, the Next reruns, and the server's
passes (serve.py's /model/work) against the distinct steps the class asked for. Checked: each
Play's text equals what the same seed writes alone (ui/work/decoding.py in this process, after the
server is gone), and each Next showed as many tokens as that student had pressed: nothing lost,
nothing duplicated. (A Play's text may differ from the seed's alone where a batch's float32 sums
moved a sampled token: said apart, with where it starts.)
"""

import asyncio
import random
import re
import time
from contextlib import AsyncExitStack

from tests.support.model_work import steps_shown, until_loaded, when_settled, work
from tests.support.session import connect, open_room
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.room.pulse import HERE_KEY
from ui.work import decoding, model_load

TOKENS = 32
LABELS = ("**Text so far:**", "**目前的文字**")  # the text written, in either language
TAGS = re.compile(r"</?b[^>]*>")  # the newest token's highlight


def text_shown(texts: list[str]) -> str:
    body = next((text for text in texts if text.startswith("**Text so far:**")), "")
    return TAGS.sub("", body.removeprefix("**Text so far:**").strip())


TICKER = "gen_written_tick_timer"  # the timer inside a playing player (ui/kit/ticker.py tick_key)


async def play(learner) -> tuple[float, str, int]:
    """Press Play, then rerun the player's fragment as the browser's timer does until the 32nd
    token shows: (seconds from the press, the text shown, fragment reruns). This code's timer is
    drawn inside the fragment and fires a second after each run; the code before it had the
    fragment's own timer (``run_every``), a second from one start to the next."""
    start = time.perf_counter()
    await learner.run(learner.press("gen_written_button"), timeout=300)
    ticks = 0
    if TICKER in learner.widgets:
        while steps_shown(learner.texts) < TOKENS:
            await asyncio.sleep(1.0)
            await learner.run(learner.trigger(TICKER, "tick", ticks), timeout=300)
            ticks += 1
        return time.perf_counter() - start, text_shown(learner.texts), ticks
    if not learner.fragments:
        raise RuntimeError(f"Play started no timer: {learner.exceptions} {learner.texts[-8:]}")
    fragment, interval = next(iter(learner.fragments.items()))
    while steps_shown(learner.texts) < TOKENS:
        took = await learner.run(fragment=fragment, timeout=300)
        ticks += 1
        await asyncio.sleep(max(0.0, interval - took))
    return time.perf_counter() - start, text_shown(learner.texts), ticks


async def keep_pressing_next(learner, done: asyncio.Event, seed: int) -> list[tuple]:
    """Next now, then every 3-6 s until ``done``: (seconds, tokens shown, presses) each time."""
    rng, out, presses = random.Random(seed), [], 0
    while True:
        presses += 1
        took = await learner.run(learner.press("gen_next"), timeout=300)
        out.append((took, steps_shown(learner.texts), presses))
        if done.is_set() or presses >= TOKENS:
            return out
        try:
            await asyncio.wait_for(done.wait(), rng.uniform(3, 6))
        except TimeoutError:
            pass


async def scenario(base: str, pid: int, rss_mb, cpu_seconds, players=20, pressers=40) -> dict:
    loaded = await until_loaded(base)
    async with AsyncExitStack() as stack:
        seeds = list(range(players + pressers))

        async def opened(seed):
            query = f"lang=en&gen_mode=sample&gen_seed={seed}"
            start = time.perf_counter()
            return await connect(base, "generate", query, None, stack), time.perf_counter() - start

        before = await work(base)
        class_ = await asyncio.gather(*(opened(seed) for seed in seeds))
        learners = [learner for learner, _ in class_]
        cpu = cpu_seconds(pid)
        done = asyncio.Event()
        nexts = [
            asyncio.create_task(keep_pressing_next(learner, done, seed))
            for learner, seed in zip(learners[players:], seeds[players:], strict=True)
        ]
        plays = await asyncio.gather(*(play(learner) for learner in learners[:players]))
        done.set()
        pressed = await asyncio.gather(*nexts)
        after = await when_settled(base)
        return {
            "load_s": loaded.get("load_s"),
            "first": [seconds for _, seconds in class_],
            "plays": plays,
            "nexts": pressed,
            "passes": after["passes"] - before["passes"] if after else None,
            "batches": after["batches"] - before["batches"]
            if after and "batches" in after
            else None,
            "batched": after["batched_tokens"] - before["batched_tokens"]
            if after and "batches" in after
            else None,
            "longest_line": after.get("longest_line"),
            "steps_kept": after.get("steps_kept"),
            "steps_bound": after.get("steps_bound"),
            "cpu": cpu_seconds(pid) - cpu,
            "rss": rss_mb(pid),
            "seeds": seeds,
            "players": players,
        }


def expected(seeds: list[int], counts: list[int]) -> tuple[list[str], int]:
    """What each seed writes alone, in this process (the server gone): the text shown after
    ``count`` tokens, and the passes the class needed: the prompt's, and one per distinct
    sequence a step was asked after (the prompt's own step comes with its pass), the one read
    ahead after each student's last token included (ui/work/decoding.py ``read_ahead``)."""
    model = decoding.decoder(model_load.first())
    prompt = tuple(model.encode(t("generate.example", "en")))
    texts, steps = [], set()
    for seed, count in zip(seeds, counts, strict=True):
        rules = decoding.Rules(1.0, 0, 1.0, True, seed)
        ahead = min(count + 1, TOKENS) if hasattr(decoding, "read_ahead") else count
        chosen = decoding.written(model, prompt, rules, ahead)
        chosen = getattr(chosen, "tokens", None) or [token for _, token in chosen]  # (or before)
        steps.update((*prompt, *chosen[:j]) for j in range(1, ahead + 1))
        words = [markdown_text(model.decode([token])) for token in chosen[:count]]
        texts.append(markdown_text(model.decode(list(prompt[1:]))) + "".join(words))
    return texts, 1 + len(steps)


def _first_difference(shown: str, text: str) -> int | None:
    if shown == text:
        return None
    pairs = enumerate(zip(shown, text))
    return next((i for i, (x, y) in pairs if x != y), min(len(shown), len(text)))


def report(results: dict, percentile, verdict) -> None:
    players, seeds = results["players"], results["seeds"]
    plays, nexts = results["plays"], results["nexts"]
    counts = [TOKENS] * players + [presses[-1][2] for presses in nexts]
    texts, needed = expected(seeds, counts)
    seconds = [took for took, _, _ in plays]
    same = sum(shown == text for (_, shown, _), text in zip(plays, texts, strict=False))
    reruns = [took for presses in nexts for took, _, _ in presses]
    exact = sum(shown == presses for presses_ in nexts for _, shown, presses in presses_)
    students = players + len(nexts)
    print(f"\n== a class on /generate: {students} students, {players} press Play ({TOKENS}"
          f" tokens) in the same second as {len(nexts)} press Next (then every 3-6 s)")  # fmt: skip
    load = results["load_s"]
    print(("model loaded on the class's first visit;" if load is None else
           f"model loaded in the background at the server's start: {load:.1f} s;") +
          f" first renders of the class: max {max(results['first']):.2f} s")  # fmt: skip
    print(f"Play: {len(seconds)} of {players} done, slowest {max(seconds):.1f} s, median"
          f" {percentile(seconds, 0.5):.1f} s -> every Play within 60 s"
          f" {verdict(max(seconds) <= 60)}")  # fmt: skip
    p95 = percentile(reruns, 0.95)
    print(f"Next reruns ({len(reruns)} presses): p95 {p95:.2f} s, max {max(reruns):.2f} s"
          f" -> p95 within 2 s {verdict(p95 <= 2)}")  # fmt: skip
    print(f"nothing lost or duplicated: {len(seconds)} of {players} Plays reached token"
          f" {TOKENS}; {exact} of {len(reruns)} Next presses showed as many tokens as pressed ->"
          f" {verdict(len(seconds) == players and exact == len(reruns))}")  # fmt: skip
    apart = [_first_difference(shown, text) for (_, shown, _), text in zip(plays, texts)]
    apart = [f"from character {k} on" for k in apart if k is not None]
    print(f"the same text as the seed alone: {same} of {players} Plays"
          + (f" (the others differ {', '.join(apart)}: a batch's rows sum in another order than"
             " one row alone, logits within 2e-4, which moves a sampled token whose draw falls"
             " that close to a boundary)" if apart else ""))  # fmt: skip
    if results["passes"] is None:
        print(f"passes not counted (no /model/work); distinct steps asked for: {needed}")
    else:
        print(f"passes run by the server: {results['passes']}, distinct steps asked for:"
              f" {needed} -> each once {verdict(results['passes'] == needed)}; longest line"
              f" {results['longest_line']}; written steps kept {results['steps_kept']} of at"
              f" most {results['steps_bound']}")  # fmt: skip
    if results.get("batches"):
        print(f"batched steps: {results['batched']} tokens in {results['batches']} batches"
              f" ({results['batched'] / results['batches']:.1f} a batch)")  # fmt: skip
    print(f"server CPU {results['cpu']:.1f} s, RSS {results['rss']:.0f} MB")


HERE = HERE_KEY  # the listener inside /generate's player (ui/room/follow_here.py)


async def changed(pupil, press: int) -> float:
    """What a student's browser does when the room's pulse changes: trigger the listener inside
    the player's fragment where the page drew one (a rerun of that fragment), else rerun the page
    (the code before it)."""
    if HERE in pupil.widgets:
        return await pupil.run(pupil.trigger(HERE, "changed", f"press {press}"))
    return await pupil.run()


async def scenario_room(base: str, pid: int, rss_mb, cpu_seconds, students=60, presses=8) -> dict:
    """A teacher and ``students`` (half in Chinese) in one room; the teacher opens /generate,
    samples with seed 7 at T = 0.8 and presses Next ``presses`` times, 4 s apart. After each
    press every student's page reruns at once, its player's fragment or the whole page, as the
    room's pulse makes it (the pulse's own delay is the room scenario's), and is timed until it
    shows the teacher's new token. The
    server's passes are counted from before the teacher opened the page."""
    await until_loaded(base)
    async with AsyncExitStack() as stack:
        _, code, key = await open_room(base, "en", None, stack)
        before = await work(base)
        query = f"room={code}&key={key}&lang=en&gen_mode=sample&gen_seed=7&gen_t=0.8"
        teacher = await connect(base, "generate", query, None, stack)
        pupils = await asyncio.gather(
            *(connect(base, "", f"room={code}&lang={'zh' if i % 2 else 'en'}", None, stack)
              for i in range(students))
        )  # fmt: skip
        opened = sum(any(text.startswith(LABELS) for text in p.texts) for p in pupils)
        cpu, views, shown = cpu_seconds(pid), [], []
        for press in range(1, presses + 1):
            await teacher.run(teacher.press("gen_next"))
            views += await asyncio.gather(*(changed(pupil, press) for pupil in pupils))
            shown.append(sum(steps_shown(p.texts) == press or f"第 {press} 步选了" in
                             " ".join(p.texts) for p in pupils))  # fmt: skip
            await asyncio.sleep(4)
        after = await when_settled(base)
        return {
            "students": students, "presses": presses, "opened": opened, "views": views,
            "shown": shown, "passes": after["passes"] - before["passes"] if after else None,
            "cpu": cpu_seconds(pid) - cpu, "rss": rss_mb(pid),
            **({"read_ahead": after["read_ahead"]} if "read_ahead" in after else {}),
        }  # fmt: skip


def report_room(results: dict, percentile, verdict) -> None:
    n, presses, views = results["students"], results["presses"], results["views"]
    print(f"\n== a room of {n} following the teacher onto /generate (half in Chinese): the"
          f" teacher samples (seed 7, T = 0.8) and presses Next {presses} times")  # fmt: skip
    print(f"students on the teacher's /generate when they arrived: {results['opened']} of {n}")
    print(f"after each press, students showing the teacher's new token: {results['shown']}")
    p95 = percentile(views, 0.95)
    print(f"students' views after a press: p95 {p95:.2f} s, max {max(views):.2f} s -> within 2 s"
          f" {verdict(p95 <= 2 and all(s == n for s in results['shown']))}")  # fmt: skip
    ahead = int("read_ahead" in results)  # the token after the last, read ahead (this code's)
    expected = 1 + presses + ahead  # the prompt's pass, then one per token written
    if results["passes"] is None:
        print("passes not counted (no /model/work in this code)")
    else:
        one = verdict(results["passes"] == expected)
        print(f"passes run by the server for the whole room: {results['passes']} (the prompt's,"
              f" then one per token{', and the one read ahead' if ahead else ''}: {expected}) ->"
              f" one generation {one}")  # fmt: skip
    print(f"server CPU {results['cpu']:.1f} s over the presses, RSS {results['rss']:.0f} MB")
