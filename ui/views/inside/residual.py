"""The residual stream as a sum: the answer's logit split into the embedding's share and each
layer's attention and feed-forward shares, which add up to the logit, and where the answer
comes in."""

import numpy as np
import streamlit as st

from ui.figures.bars import grouped_bars
from ui.figures.place import plot
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import num, power_of_ten
from ui.kit.tables import table
from ui.views.inside.names import layer_numbers, piece, row_names
from ui.work.reading_passes import parts_of

DECIMALS = 3


def section(model, ids: tuple, answer: int, base: int) -> None:
    parts = parts_of(model, ids)
    layers = row_names(model.config.n_layers, base)[1:]
    name = markdown_text(piece(model, answer))
    st.markdown(t("inside.sum_text", answer=name))
    series = {t("inside.attention"): parts.attention, t("inside.feed_forward"): parts.feed_forward}
    numbers = layer_numbers(len(layers), base)  # upright under each pair of bars
    title = t("inside.sum_chart", answer=piece(model, answer))
    plot(grouped_bars(numbers, series, title, t("inside.x_layer_only")), "in_parts")
    _sum_line(parts)
    shares = np.concatenate([parts.attention, parts.feed_forward])
    kinds = [t("inside.attention_of", layer=x) for x in layers]
    kinds += [t("inside.feed_forward_of", layer=x) for x in layers]
    biggest = np.argsort(-shares)[:2]
    st.success(
        t(
            "inside.sum_where",
            answer=name,
            first=kinds[biggest[0]],
            first_share=num(float(shares[biggest[0]]), 2),
            second=kinds[biggest[1]],
            second_share=num(float(shares[biggest[1]]), 2),
        ),
        icon=":material/lightbulb:",
    )
    with st.expander(t("inside.sum_table"), icon=":material/table:"):
        table(
            {
                t("inside.x_layer"): layers,
                t("inside.attention"): [num(float(v), DECIMALS) for v in parts.attention],
                t("inside.feed_forward"): [num(float(v), DECIMALS) for v in parts.feed_forward],
            }
        )


def _sum_line(parts) -> None:
    """The three shares and their total as the sum of the shares as printed, so that the line
    adds up as printed; where that total is not the unrounded one rounded, the line says so."""
    (embedding, attention, feed_forward), total = parts.printed(DECIMALS)
    exact = num(parts.total, DECIMALS)
    rounding = "" if total == exact else t("inside.sum_rounding", decimals=DECIMALS, exact=exact)
    words = {"embedding": embedding, "attention": attention, "feed_forward": feed_forward}
    st.info(
        t(
            "inside.sum_line",
            **words,
            total=total,
            rounding=rounding,
            logit=num(parts.logit, DECIMALS),
            difference=power_of_ten(abs(parts.total - parts.logit)),
        ),
        icon=":material/functions:",
    )
