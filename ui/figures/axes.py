"""The two kinds of heatmap axes, named once in the learner's language: token × dimension (E, X,
Q, K, V, O, the block's arrays) and query × key (S, A and their relatives)."""

from ui.kit.i18n import t


def token_axes(decimals: int, **more) -> dict:
    """Rows are tokens, columns are dimensions; with the printed decimals and ``more`` options."""
    return {
        "decimals": decimals,
        "row_title": t("walkthrough.axis_token"),
        "col_title": t("walkthrough.axis_dim"),
        **more,
    }


def pair_axes(decimals: int, **more) -> dict:
    """Rows are queries, columns are keys (one cell per pair of tokens)."""
    return {
        "decimals": decimals,
        "row_title": t("walkthrough.axis_query"),
        "col_title": t("walkthrough.axis_key"),
        **more,
    }
