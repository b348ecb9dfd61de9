"""The lessons' table: each tutorial's lesson plan, a sequence of the app's views with the exact
settings of the tutorial's examples (ui/views/lessons.py lists them, ui/shell/lesson_band.py walks
through them).

Each item says what it shows (a walkthrough step, or what its page introduces) and what it uses
without explaining it; ``used_too_early`` holds a lesson to its order: nothing is used before the
item that shows it, and what a lesson never shows comes from an earlier lesson. An item leaves
the numbering alone (the learner's, or the room's), and names the section of its page it is
about (``section``: the anchor of that section's heading), where its link lands.
"""

from dataclasses import dataclass

LIKE = "我 喜欢 学习 语言"  # 第二篇's four positions, looking at 学习
MOVIE = "这 部 电影 很 好看"  # 第三篇's example: 好看 attends to 电影
T4 = "这 部 电影 好看"  # four tokens for 第三篇's T = 4, d_k = 64 derivation
TRANSLATION = "法语：fleur，中文：花。法语：montagne，中文："  # the lens: montagne, then 山

# What each walkthrough step takes from the steps before it (ui/views/walkthrough/steps.py):
# a walkthrough item shows its step and uses these.
NEEDS = {
    "tokens": (),
    "pe": (),
    "x_pe": ("tokens", "pe"),
    "qkv": ("tokens",),
    "scores": ("qkv",),
    "scaled": ("scores",),
    "mask": ("scaled",),
    "softmax": ("scaled",),
    "av": ("softmax", "qkv"),
    "heads": ("av",),
    "block": ("av",),
}


@dataclass(frozen=True)
class Item:
    key: str  # its label: lessons.toml's item_<key>
    page: str  # the page's script (ui/shell/registry.py)
    params: tuple = ()  # (URL name, value) pairs: the view's exact settings
    shows: tuple = ()  # what it introduces: steps' names, or a page's own ideas
    uses: tuple = ()  # what it takes as known
    state: tuple = ()  # (widget key, value): a page's own picker that no URL names
    section: str = ""  # the anchor of the page's section it is about ("": the page's top)


@dataclass(frozen=True)
class Lesson:
    key: str  # lesson_<key>_title / _intro / _source in lessons.toml
    items: tuple


def walk(key: str, shows: tuple | None = None, uses: tuple = (), **params) -> Item:
    """A walkthrough item: it shows its step (unless told otherwise) and uses what the step
    needs."""
    step = params["step"]
    shown = (step,) if shows is None else shows
    return Item(key, "walkthrough", tuple(params.items()), shown, (*NEEDS[step], *uses))


def page(key: str, script: str, *params, shows: tuple = (), uses: tuple = (), state=(),
         section: str = "") -> Item:  # fmt: skip
    return Item(key, script, tuple(params), shows, uses, tuple(state), section)


def lesson(key: str, *items: Item) -> Lesson:
    """A lesson: its items in order. Its links leave the numbering alone (the learner's own, or
    the room's: ui/kit/settings.py's base)."""
    return Lesson(key, tuple(items))


PIPELINE = ("qkv", "scores", "scaled", "softmax", "av")  # a page that runs the whole layer
CAUSAL = ("mask", "softmax")

LESSONS = (
    lesson("matrices",
        walk("x", step="tokens"),
        walk("qkv", step="qkv"),
        walk("shapes", step="scores"),
        walk("scaled", step="scaled"),
        walk("causal", shows=CAUSAL, step="softmax", mask="causal"),
        page("masks", "masks", shows=("padding",), uses=("scaled", *CAUSAL)),
        page("loop", "loop-vs-matrix", shows=("av", "loop"), uses=("qkv", "softmax")),
        page("cost", "cost", shows=("paths", "cache"), uses=("qkv", "mask", "av"), section="paths"),
        page("heads", "multi-head", ("n_heads", "4"), shows=("heads",), uses=PIPELINE),
        page("mistakes", "mistakes", shows=("mistakes",), uses=(*PIPELINE, "mask")),
        page("hand", "hand-check", shows=("by_hand",), uses=PIPELINE),
    ),
    lesson("pipeline",
        walk("like_qkv", sentence=LIKE, step="qkv", focus="2"),
        walk("like_scores", sentence=LIKE, step="scores", focus="2"),
        walk("like_scaled", sentence=LIKE, step="scaled", focus="2"),
        walk("like_softmax", sentence=LIKE, step="softmax", focus="2"),
        page("scaling", "scaling", shows=("variance",), uses=("scores", "scaled", "softmax")),
        walk("like_av", sentence=LIKE, step="av", focus="2"),
        page("projections", "projections", ("sentence", LIKE), shows=("projections", "lookup"),
             uses=PIPELINE, state=(("pj_q", 2),), section="lookup"),
        walk("like_block", sentence=LIKE, step="block", focus="2"),
        page("relative", "trained", ("tr_model", "e5-small-q4"), ("tr_text", MOVIE),
             shows=("trained",), uses=(*PIPELINE, "heads")),
        walk("like_by_hand", shows=("by_hand",), uses=("softmax",), sentence=LIKE, d_model="4",
             n_heads="1", step="softmax", focus="2"),
        page("mistakes", "mistakes", shows=("mistakes",), uses=(*PIPELINE, "mask")),
    ),
    lesson("transformer",
        page("paths", "cost", shows=("paths", "cache"), uses=("qkv", "mask", "av"),
             section="paths"),
        walk("t4_scores", sentence=T4, d_model="64", n_heads="1", step="scores", focus="3"),
        walk("t4_softmax", shows=("scaled", "softmax"), sentence=T4, d_model="64", n_heads="1",
             step="softmax", focus="3"),
        page("variance", "scaling", shows=("variance",), uses=("scores", "scaled", "softmax")),
        page("lookup", "projections", ("sentence", MOVIE), shows=("projections", "lookup"),
             uses=PIPELINE, state=(("pj_q", 4),), section="lookup"),
        walk("movie_heads", sentence=MOVIE, n_heads="4", step="heads", focus="4"),
        page("movie", "trained", ("tr_model", "e5-small-q4"), ("tr_text", MOVIE),
             ("tr_focus", "好看"), ("tr_key", "电影"), shows=("trained",),
             uses=(*PIPELINE, "heads")),
        page("pe_page", "positional-encoding", ("pe_pair", "0"), shows=("pe",), uses=("tokens",),
             section="word-order"),
        walk("love_no_pe", shows=("word_order",), uses=("pe",), sentence="我喜欢你", mode="char",
             pe="false", step="av"),
        walk("love_back_no_pe", shows=(), uses=("pe", "word_order"), sentence="你喜欢我",
             mode="char", pe="false", step="av"),
        walk("love_pe", shows=(), uses=("pe", "word_order"), sentence="我喜欢你", mode="char",
             pe="true", step="av"),
        walk("love_back_pe", shows=(), uses=("pe", "word_order"), sentence="你喜欢我",
             mode="char", pe="true", step="av"),
        page("flash", "flash", shows=("flash",), uses=("scores", "softmax", "av")),
    ),
    lesson("writes",
        walk("causal_train", shows=CAUSAL, step="softmax", mask="causal"),
        page("cost_generation", "cost", shows=("paths", "cache"), uses=("qkv", "mask", "av"),
             section="generation"),
        page("gen_next", "generate", ("gen_prompt", "今天天气很好，我们一起去"),
             shows=("next_token",), uses=(*PIPELINE, "mask"), section="next-token"),
        page("gen_temperature", "generate", ("gen_prompt", "猫坐在"), ("gen_t", "1.5"),
             ("gen_mode", "sample"), ("gen_seed", "7"), shows=("temperature",),
             uses=("next_token",), section="next-token"),
        page("gen_cache", "generate", ("gen_prompt", "The cat sat on the"), ("written", "8"),
             uses=("next_token", "cache"), section="kv-cache"),
        page("gen_sink", "generate", ("gen_prompt", "注意力机制让模型在生成每个词时"),
             ("gen_layer", "5"), ("gen_head", "0"), shows=("sink",),
             uses=("next_token", "softmax", "heads"), section="attention-map"),
    ),
    lesson("inside",
        page("inside_lens", "inside", ("in_prompt", TRANSLATION), shows=("lens",),
             uses=("next_token",), section="lens"),
        page("inside_fact", "inside", ("in_prompt", "太阳系有八大"), shows=("residual_sum",),
             uses=("lens",), section="residual-sum"),
        page("inside_induction", "inside", ("in_on", "repeat"), ("in_sort", "induction"),
             shows=("induction",), uses=("heads", "softmax"), section="heads"),
        page("inside_off", "inside", ("off", "6.2,6.3,12.3"), shows=("heads_off",),
             uses=("induction", "lens"), section="heads-off"),
    ),
    lesson("train",
        page("train_copy", "train", ("tr_task", "copy"), shows=("training",),
             uses=("mask", "softmax", "heads")),
        page("train_repeat", "train", ("tr_task", "repeat"), shows=("induction_forms",),
             uses=("training", "induction")),
        page("train_backward", "train", ("tr_task", "repeat"), shows=("backward",),
             uses=("training", "scaled", "softmax"), state=(("tr_bw_head", 2),),
             section="backward"),
        page("train_scaling", "train", ("tr_task", "copy"), shows=("scaling_gradient",),
             uses=("backward", "scaled"), section="scaling"),
    ),
)  # fmt: skip


def used_too_early(lessons=LESSONS) -> list[tuple[str, int, str]]:
    """(lesson, item number from 1, idea) for every idea an item uses before it is shown: an
    idea its own lesson shows only later, or one that no earlier item or lesson has shown."""
    before, found = set(), []
    for each in lessons:
        later = {idea for item in each.items for idea in item.shows}
        here = set()
        for number, item in enumerate(each.items, start=1):
            here |= set(item.shows)  # an item may use what it shows itself
            for idea in item.uses:
                if idea not in here and (idea in later or idea not in before):
                    found.append((each.key, number, idea))
        before |= here
    return found


def position(lesson_number: str | None, item_number: str | None) -> tuple[Lesson, int] | None:
    """A URL's lesson=2&item=1 (both from 1): the lesson and the item's index, or None."""
    try:
        number, index = int(lesson_number), int(item_number) - 1
    except (TypeError, ValueError):
        return None
    if not 1 <= number <= len(LESSONS) or not 0 <= index < len(LESSONS[number - 1].items):
        return None
    return LESSONS[number - 1], index
