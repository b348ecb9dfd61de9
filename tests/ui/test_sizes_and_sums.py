"""Sizes and sums as a student checks them by hand (issue 65): a size is in binary units and says
so (1,105,920 bytes is "1.05 MiB", never "1.05 MB", which a student would work out as 1.11); no
string of the app names a unit KB, MB or GB; a sum printed with its parts adds up as printed; and
the K/V section's layer is where a group's heads differ, by this test's own arithmetic."""

import re
import tomllib
from decimal import Decimal

import numpy as np
import pytest

from core.lessons.kv_sharing import group_spreads, most_different_layer, spread
from core.lessons.number_text import printed_sum
from tests.support import ROOT
from ui.kit.number_text import byte_size


@pytest.mark.parametrize(
    ("n", "en", "zh"),
    [
        (1_105_920, "1.05 MiB", "1.05 MiB"),  # 1,105,920 / 1,048,576 = 1.0547
        (36_864, "36 KiB", "36 KiB"),  # 36 × 1,024
        (75_497_472, "72 MiB", "72 MiB"),  # 72 × 1,048,576
        (70_778_880, "67.5 MiB", "67.5 MiB"),  # exact in one decimal: not 67.50
        (1_048_575, "1.00 MiB", "1.00 MiB"),  # not "1024.00 KiB"
        (1000, "1000 bytes", "1000 字节"),
        (3 * 2**30, "3 GiB", "3 GiB"),
    ],
)
def test_a_size_is_in_binary_units_named_so(n, en, zh):
    assert byte_size(n, "en") == en and byte_size(n, "zh") == zh
    value, unit = en.split()
    scale = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]
    assert abs(float(value) * scale - n) <= 0.005 * scale  # the number is n in that unit


def test_no_string_names_a_decimal_looking_unit():
    """KB, MB and GB would be read as 1,000-based; the app's sizes are 1,024-based (KiB, MiB)."""
    found = []
    for path in sorted((ROOT / "assets" / "strings").glob("*.toml")):
        for key, entry in tomllib.loads(path.read_text("utf-8")).items():
            for lang, text in entry.items():
                if re.search(r"\b[KMG]B\b", str(text)):
                    found.append(f"{path.stem}.{key} ({lang})")
    assert found == []


@pytest.mark.parametrize(
    ("values", "decimals"),
    [
        ([0.0754, 1.7194, 29.0566], 3),
        ([1 / 3] * 3, 4),
        ([-0.0004, 0.0004, 2.5], 3),
        ([0.1] * 10, 2),
    ],
)
def test_a_printed_sum_adds_up_as_printed(values, decimals):
    parts, total = printed_sum(values, decimals)
    read = [Decimal(p.replace("−", "-")) for p in parts]
    assert sum(read) == Decimal(total.replace("−", "-"))  # exactly, as a student adds them
    assert all(abs(float(r) - v) <= 0.5 * 10**-decimals + 1e-12 for r, v in zip(read, values))
    assert len(total.split(".")[1]) == decimals


def test_the_residual_example_the_reviewer_added():
    parts, total = printed_sum([0.07545, 1.71946, 29.05664], 3)
    assert " + ".join(parts) + f" = {total}" == "0.075 + 1.719 + 29.057 = 30.851"


def test_the_spread_of_a_group_is_its_heads_own_distance():
    same = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    apart = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert spread(same) == 0.0 and spread(apart) == 1.0
    three = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])  # pairs: 1, 0, 1
    assert spread(three) == pytest.approx(2 / 3)
    assert group_spreads(np.vstack([same, apart]), 2) == [0.0, 1.0]


def test_the_layer_is_where_every_group_differs():
    """Layer 0: one group apart, the other alike; layer 1: both a little apart; layer 2: both
    alike. The least spread over the groups is largest in layer 1."""
    alike = [[0.5, 0.5], [0.5, 0.5]]
    apart = [[1.0, 0.0], [0.0, 1.0]]
    a_little = [[0.6, 0.4], [0.4, 0.6]]
    last = np.array([alike + apart, a_little + a_little, alike + alike])  # [3 layers, 4 heads, 2]
    assert most_different_layer(last, 2) == 1
