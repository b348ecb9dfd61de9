"""The train page's settings: the task (with its chance line) and the model's sizes, kept in the
URL; sizes that the heads do not divide, or too much training for the page, said in the learner's
language with every setting kept."""

import streamlit as st

from core import InputError, tiny
from scheduling.training import Settings
from ui.kit.errors import show_input_error
from ui.kit.i18n import labeller, t
from ui.kit.number_box import number_box
from ui.kit.number_text import num
from ui.kit.url import url_choice

WORK_LIMIT = 128_000  # steps × layers × d_model: 1000 × 2 × 64, about 20 s on two cores
BIND = {"bind": "query-params"}
SIZES = (  # (key, string, lowest, highest, step, the task's default)
    ("tr_d_model", "train.d_model", 8, 128, 8, "d_model"),
    ("tr_heads", "train.n_heads", 1, 8, 1, "n_heads"),
    ("tr_layers", "train.n_layers", 1, 3, 1, "n_layers"),
    ("tr_steps", "train.steps", 25, 1000, 25, "steps"),
)


def _sizes(task) -> dict:
    """The four sizes and the seed, side by side."""
    columns = st.columns(len(SIZES) + 1)
    values = {}
    for column, (key, label, low, high, step, field) in zip(columns, SIZES, strict=False):
        values[field] = number_box(column, t(label), low, high, getattr(task, field), key, step,
                                   **BIND)  # fmt: skip
    values["seed"] = number_box(columns[-1], t("train.seed"), 0, 999, 0, "tr_seed", **BIND)
    return values


def settings(projector: bool = False) -> Settings | None:
    """The run the learner set up, or None (the reason said) when it cannot train. On a
    projector the task's description and the sizes fold into an expander: Train and the loss
    come within the first screen."""
    name = url_choice(
        st.segmented_control,
        t("train.task"),
        tuple(tiny.TASKS),
        "tr_task",
        "repeat",
        format_func=labeller("train.task"),
    )
    task = tiny.TASKS[name]
    with st.expander(t("train.sizes_fold")) if projector else st.container():
        st.caption(t(f"train.about_{name}"))
        st.caption(t("train.chance", symbols=task.symbols, chance=num(task.chance, 2)))
        sizes = _sizes(task)
    if sizes["d_model"] % sizes["n_heads"]:
        show_input_error(
            InputError("heads_do_not_divide", d_model=sizes["d_model"], n_heads=sizes["n_heads"])
        )
        return None
    work = sizes["steps"] * sizes["n_layers"] * sizes["d_model"]
    if work > WORK_LIMIT:
        limits = {"work": f"{work:,}", "limit": f"{WORK_LIMIT:,}"}
        st.error(t("train.too_big", **limits), icon=":material/error:")
        return None
    return Settings(name, **sizes)
