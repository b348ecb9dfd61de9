"""Query heads grouped by the K/V head they read: one query's weights in every query head, a row
per head, the rows in a band per K/V head (a dark line between bands, the K/V head named once at
its band's right). One figure, so that a band stays a band on a phone, where Streamlit's columns
would stack."""

import math

import plotly.graph_objects as go

from ui.figures.heatmaps import beside_cells, heatmap, text_em
from ui.figures.palette import BLACK, TICK_PX, SharedFigure
from ui.kit.escape import plotly_text
from ui.kit.shared_cache import shared

BRACKET_PX = 14  # px right of the cells: the bracket (at 4) and the gap before its name


@shared(max_entries=32)
def kv_groups(
    weights,
    n_kv_heads: int,
    labels: tuple,
    *,
    title: str,
    decimals: int,
    titles: tuple,
    phone_px: int,
    label_px: int,
) -> go.Figure:
    """``weights`` [query heads, keys], each row one query head's weights for the same query,
    head j in the band of K/V head j // (heads / ``n_kv_heads``). ``labels`` = (the rows' short
    labels, the keys' labels, each band's name, each row's full name for the text alternative:
    "query head 1 · K/V head 1"); ``titles`` = (row title, column title). ``phone_px``: the chart's
    width on a phone, which the upright column labels fit beside the row labels and the bands'
    names; ``label_px``: the names' and the row title's font size (a projector's is larger),
    which sizes the margins. Shared between sessions: never change it."""
    rows, keys, names, row_names = labels
    row_title, col_title = titles
    right = math.ceil(max(text_em(name) for name in names) * label_px) + BRACKET_PX + 4
    room = phone_px - beside_cells(rows, row_title) - right
    base = heatmap(weights, list(rows), list(keys), title=title, scale="unit", decimals=decimals,
                   row_title=row_title, col_title=col_title, narrowest=room)  # fmt: skip
    fig = SharedFigure(base)  # a copy: the heatmap is shared too
    group = len(rows) // n_kv_heads
    shapes, notes = list(fig.layout.shapes), list(fig.layout.annotations)
    for kv in range(n_kv_heads):
        top, bottom = kv * group - 0.5, (kv + 1) * group - 0.5
        if kv:  # the line between two bands, over the cells' white gap
            shapes.append(dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=top,
                               y1=top, line={"color": BLACK, "width": 3}))  # fmt: skip
        shapes.append(dict(type="line", xref="x domain", xsizemode="pixel", xanchor=1, x0=4,
                           x1=4, yref="y", y0=top + 0.15, y1=bottom - 0.15,
                           line={"color": BLACK, "width": 2}))  # fmt: skip
        notes.append(dict(text=plotly_text(names[kv]), xref="x domain", x=1, xanchor="left",
                          xshift=BRACKET_PX, yref="y", y=(top + bottom) / 2, showarrow=False,
                          font={"size": label_px, "color": BLACK}))  # fmt: skip
    margin = fig.layout.margin.to_plotly_json()  # the row title's, at a projector's size too
    margin |= {"l": math.ceil(margin["l"] * label_px / TICK_PX), "r": right + 6}
    meta = {"labels": [list(row_names), list(keys)]}  # every row's full name in its table
    fig.update_layout(shapes=shapes, annotations=notes, margin=margin, meta=meta)
    return fig
