r"""Mutation testing, with no mutation-testing package: break the code on purpose, one mutant at
a time, run the fast tests against it and report which test caught it. The mutants are in the
compute core, and beyond it: the numbers the pages print (worked rows, a clicked cell's story,
the loop and multi-head panels), the questions' answers and predict-first's gate, the classroom
(answer counting, the teacher's key) and the curriculum (block, projections, scaling, mistakes).

    python bench/mutants.py                      # every mutant (any interpreter with the
    python bench/mutants.py --only ref_no_scale  # test requirements: a .venv's, CI's)
    python bench/mutants.py --list               # the mutants; check that they apply

Each mutant is a set of exact source edits (find this snippet, put that in its place). A snippet
that is not found exactly once stops the script before anything runs, so mutants cannot rot
silently when the core changes: rewrite the snippet to match the new source.

The working tree is never touched. The repository (git ls-files plus untracked, not-ignored
files; no .venv, no .git) is copied once into a temporary directory, so edits made meanwhile in
the tree do not mix into the run; every mutant then gets its own copy of that snapshot, is
edited there, and its tests run there with the interpreter running this script:

    python -m pytest -x -q -p no:cacheprovider -rfE --hypothesis-seed=S TESTS

TESTS: for a core mutant tests/core; for one beyond the core, the test files nearest it; with
--whole, the whole fast suite (tests/core tests/app tests/ui tests/server; not tests/e2e, too
slow). The unmutated snapshot runs first, without -x, every test any mutant runs, and must pass:
a mutant then counts as caught only because of its edits. A run past --timeout is "not caught".
The Hypothesis seed is fixed (--seed) so a report can be reproduced.

Exit status: 0 whatever survives (this is a report); 2 when a snippet does not apply or the
unmutated suite fails (nothing to measure then).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = Path(sys.executable)  # the interpreter running this script: a .venv, CI's, any
TEST_PATHS = ("tests/core", "tests/app", "tests/ui", "tests/server")  # the whole fast suite
CORE_TESTS = ("tests/core",)  # the core's own tests: what a core mutant runs against
SKIPPED_TOP_LEVEL = {".venv", ".git"}
MAX_JOBS = 2  # the machine this was written for has two cores


@dataclass(frozen=True)
class Edit:
    path: str  # relative to the repository root
    find: str  # must occur exactly once in the file (after the mutant's earlier edits)
    replace: str


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str  # the bug it plants, in words
    edits: tuple[Edit, ...]
    tests: tuple[str, ...] = CORE_TESTS  # what runs against it: the core's tests, or for a
    # mutant beyond the core, the test files nearest it (a failure there is a failure of the
    # suite too; the baseline run shows that each of them passes unmutated); --whole: the suite


def mutant(name: str, what: str, path: str, find: str, replace: str, tests=CORE_TESTS) -> Mutant:
    return Mutant(name, what, (Edit(path, find, replace),), tuple(tests))


SOFT, LOOP, HEADS = "core/softmax.py", "core/variants/loop.py", "core/heads.py"
# attention has two paths: core/reference.py (one unbatched sentence, every field, n <= 512: what
# the app shows) and core/fast.py (batches, keep=/heads=, long sentences); core/attention.py picks
REF, FAST, ATT = "core/reference.py", "core/fast.py", "core/attention.py"

MUTANTS: tuple[Mutant, ...] = (
    # 1. softmax along the wrong axis (both paths: small arrays and the chunked one)
    Mutant(
        "softmax_axis_small",
        "softmax_rows (small path): max and sum along axis -2 (queries) instead of -1 (keys)",
        (
            Edit(
                SOFT,
                "row_max = xp.max(Z, axis=-1, keepdims=True)",
                "row_max = xp.max(Z, axis=-2, keepdims=True)",
            ),
            Edit(
                SOFT,
                "row_sum = xp.sum(E, axis=-1, keepdims=True)",
                "row_sum = xp.sum(E, axis=-2, keepdims=True)",
            ),
        ),
    ),
    Mutant(
        "softmax_axis_chunked",
        "softmax_block: max and sum down the columns of each block of rows",
        (
            Edit(
                SOFT,
                "row_max = z.max(axis=1, keepdims=True)",
                "row_max = z.max(axis=0, keepdims=True)",
            ),
            Edit(
                SOFT,
                "row_sum = e.sum(axis=1, keepdims=True)",
                "row_sum = e.sum(axis=0, keepdims=True)",
            ),
        ),
    ),
    # 2. the division by sqrt(d_k) missing
    mutant(
        "ref_no_scale",
        "reference: S_scaled = S (no division by sqrt(d_k))",
        REF,
        "S_scaled = S / math.sqrt(Q.shape[-1])",
        "S_scaled = S * 1.0",
    ),
    mutant(
        "fast_no_scale",
        "fast: root = 1 instead of sqrt(d_k)",
        FAST,
        "    root = math.sqrt(Q.shape[-1])\n    n_cells",
        "    root = 1.0  # MUTANT\n    n_cells",
    ),
    # 3. the mask applied after the softmax
    mutant(
        "ref_mask_after_softmax",
        "reference: softmax of the unmasked scores, then the forbidden cells set to 0",
        REF,
        "    A = softmax_rows(S_masked)  # [h, n, n]",
        "    A = softmax_rows(S_scaled)  # MUTANT: over every key, then masked\n"
        "    A = A if mask is None else xp.where(mask, A, xp.zeros_like(A))  # [h, n, n]",
    ),
    Mutant(
        "fast_mask_after_softmax",
        "fast: softmax of the unmasked scores, then the forbidden cells set to 0",
        (
            Edit(
                FAST,
                '    if check_scores:\n        check_no_overflow("S = Q Kᵀ", S_scaled)\n',
                "    unmasked = S_scaled * 1.0  # MUTANT: the scores before any -inf is written\n"
                '    if check_scores:\n        check_no_overflow("S = Q Kᵀ", S_scaled)\n',
            ),
            Edit(
                FAST,
                '    A = softmax_rows(S_masked, overwrite=not (aliases & keep), out=out.get("A"))',
                "    A = softmax_rows(unmasked)  # MUTANT: softmax over every key,\n"
                "    A = xp.where(S_masked == -math.inf, xp.zeros_like(A), A)  # then mask\n"
                '    if "A" in out:\n'
                '        np.copyto(out["A"], A)\n'
                '        A = out["A"]',
            ),
        ),
    ),
    # 4. K swapped for Q
    mutant(
        "ref_k_uses_w_q",
        "reference: K = X W_Q instead of X W_K",
        REF,
        "K = split_heads(X @ W.W_K, n_heads)",
        "K = split_heads(X @ W.W_Q, n_heads)",
    ),
    mutant(
        "fast_k_uses_w_q",
        "fast: K = X W_Q instead of X W_K",
        FAST,
        "K = split_heads(X @ weights.W_K, n_heads)",
        "K = split_heads(X @ weights.W_Q, n_heads)",
    ),
    mutant(
        "ref_scores_q_q_t",
        "reference: S = Q Qᵀ (the K field itself stays right)",
        REF,
        "S = Q @ xp.matrix_transpose(K)",
        "S = Q @ xp.matrix_transpose(Q)",
    ),
    mutant(
        "fast_scores_q_q_t",
        "fast: S = Q Qᵀ (Kᵀ built from Q; the K field itself stays right)",
        FAST,
        "Kt = xp.matrix_transpose(K)  # [..., hb, d_k, n]",
        "Kt = xp.matrix_transpose(Q)  # MUTANT",
    ),
    # 5. W_O skipped
    mutant(
        "ref_skip_w_o",
        "reference: output = concat, W_O never applied",
        REF,
        "    output = concat @ W.W_O  # [n, d_model]",
        "    output = concat  # MUTANT: no W_O",
    ),
    mutant(
        "fast_skip_w_o",
        "fast: output = concat, W_O never applied",
        FAST,
        'trace["output"] = concat @ weights.W_O  # [..., n, d_model]',
        'trace["output"] = concat  # MUTANT: no W_O',
    ),
    # 6. head order flipped (core/heads.py serves both paths)
    mutant(
        "merge_heads_reversed",
        "merge_heads: the heads concatenated last head first",
        HEADS,
        "    return xp.reshape(M, (*lead, n, h * d))",
        "    return xp.reshape(xp.flip(M, axis=-2), (*lead, n, h * d))  # MUTANT",
    ),
    mutant(
        "split_heads_reversed",
        "split_heads: head 0 takes the last d columns",
        HEADS,
        "    M = xp.reshape(M, (*lead, n, n_heads, width // n_heads))  # [..., n, h, d]",
        "    M = xp.flip(xp.reshape(M, (*lead, n, n_heads, width // n_heads)), axis=-2)  # MUTANT",
    ),
    # 7. softmax without subtracting the row max (only visible on large scores)
    mutant(
        "softmax_no_max_small",
        "softmax_rows (small path): the row max is not subtracted before exp",
        SOFT,
        "    row_max = xp.where(xp.isfinite(row_max), row_max, 0.0)",
        "    row_max = xp.zeros_like(row_max)  # MUTANT",
    ),
    mutant(
        "softmax_no_max_chunked",
        "softmax_block: the row max is not subtracted before exp",
        SOFT,
        "    row_max[~np.isfinite(row_max)] = 0.0",
        "    row_max[...] = 0.0  # MUTANT",
    ),
    # 8. the causal mask transposed
    mutant(
        "causal_mask_triu",
        "causal_mask: triu instead of tril (each token sees the future, not the past)",
        "core/masks.py",
        "np.tril(np.ones((n, n), dtype=bool))",
        "np.triu(np.ones((n, n), dtype=bool))",
    ),
    # 9. V replaced by K
    mutant(
        "ref_v_replaced_by_k",
        "reference: O = A K instead of A V",
        REF,
        "    O = A @ V  # [h, n, d_v]",
        "    O = A @ K  # MUTANT [h, n, d_v]",
    ),
    mutant(
        "fast_v_replaced_by_k",
        "fast: O = A K instead of A V",
        FAST,
        "    O = A @ V  # [..., hb, n, n] @ [..., hb, n, d_v] -> [..., hb, n, d_v]\n"
        '    check_no_overflow("O = A V", O)  # rows',
        '    O = A @ K  # MUTANT\n    check_no_overflow("O = A V", O)  # rows',
    ),
    # 10. 1/d_k instead of 1/sqrt(d_k)
    mutant(
        "ref_scale_by_d_k",
        "reference: S_scaled = S / d_k instead of S / sqrt(d_k)",
        REF,
        "S_scaled = S / math.sqrt(Q.shape[-1])",
        "S_scaled = S / Q.shape[-1]",
    ),
    mutant(
        "fast_scale_by_d_k",
        "fast: root = d_k instead of sqrt(d_k)",
        FAST,
        "    root = math.sqrt(Q.shape[-1])\n    n_cells",
        "    root = float(Q.shape[-1])  # MUTANT\n    n_cells",
    ),
    # 11. the per-token loop wrong (both variants: it is an oracle the matrix forms are held to)
    mutant(
        "loop_scale_by_d_k",
        "attention_loop: t_i = s_i / d_k instead of / sqrt(d_k)",
        LOOP,
        "    t_i = s_i / math.sqrt(d_k)  # [n]",
        "    t_i = s_i / d_k  # MUTANT [n]",
    ),
    mutant(
        "loop_no_mask",
        "attention_loop: every key allowed for every query (the mask ignored)",
        LOOP,
        "_attend_token(Q[i, :], K, V, allowed[i, :], d_k, xp)",
        "_attend_token(Q[i, :], K, V, xp.ones_like(allowed[i, :]), d_k, xp)",
    ),
    # 12. an all-forbidden row: uniform weights instead of zeros (both softmax paths)
    mutant(
        "empty_row_uniform_small",
        "softmax_rows (small path): a row with no allowed key gets 1/n everywhere",
        SOFT,
        "    E /= xp.where(row_sum > 0, row_sum, 1.0)",
        "    E = xp.where(  # MUTANT\n"
        "        row_sum > 0, E / xp.where(row_sum > 0, row_sum, 1.0), 1.0 / max(E.shape[-1], 1)\n"
        "    )",
    ),
    mutant(
        "empty_row_uniform_chunked",
        "softmax_block: a row with no allowed key gets 1/n everywhere",
        SOFT,
        "    row_sum[row_sum == 0] = 1.0  # an all-zero row stays all zero, never 0/0\n"
        "    np.divide(e, row_sum, out=e)\n",
        "    empty = row_sum[:, 0] == 0  # MUTANT\n"
        "    row_sum[row_sum == 0] = 1.0\n"
        "    np.divide(e, row_sum, out=e)\n"
        "    e[empty] = 1.0 / e.shape[1]\n",
    ),
    # more: the mask ignored, the fast path's side paths and aliasing, overflow refusal, the
    # masks, and the other implementations (incremental decoding, pure Python, tiles)
    mutant(
        "ref_mask_ignored",
        "reference: the mask never applied (S_masked = S_scaled)",
        REF,
        "S_masked = S_scaled if mask is None else xp.where(mask, S_scaled, -math.inf)",
        "S_masked = S_scaled  # MUTANT",
    ),
    mutant(
        "fast_where_mask_ignored",
        "fast: the xp.where masking branch (non-NumPy backends, broadcast masks) skipped",
        FAST,
        "        S_masked = xp.where(mask, S_scaled, -math.inf)  # [..., hb, n, n]",
        "        S_masked = S_scaled  # MUTANT",
    ),
    mutant(
        "fast_pow2_path_unscaled",
        "fast: S not kept and sqrt(d_k) a power of 2 (d_k = 4, 16, ...): Q not divided",
        FAST,
        "        Q_scaled = Q / root\n",
        "        Q_scaled = Q  # MUTANT\n",
    ),
    mutant(
        "fast_unkept_s_unscaled",
        "fast: S not kept and sqrt(d_k) not a power of 2: S /= root dropped",
        FAST,
        "        S /= root\n",
        "        pass  # MUTANT: S /= root dropped\n",
    ),
    mutant(
        "fast_masked_aliases_kept_scaled",
        "fast: -inf written into the S_scaled array even when the caller keeps it",
        FAST,
        '        S_masked = S_scaled if "S_scaled" not in keep else np.array(S_scaled)',
        "        S_masked = S_scaled  # MUTANT",
    ),
    mutant(
        "fast_softmax_overwrites_kept",
        "fast: the softmax always reuses S_masked's memory, even when it is kept",
        FAST,
        "overwrite=not (aliases & keep)",
        "overwrite=True",
    ),
    mutant(
        "fast_score_overflow_unchecked",
        "fast: scores never checked for overflow (inf scores become NaN or zero rows)",
        FAST,
        "    check_scores = not scores_cannot_overflow(Q, K)",
        "    check_scores = False  # MUTANT",
    ),
    mutant(
        "ref_overflow_unchecked",
        "attention (reference path): no step checked for overflow (inf and NaN shown)",
        ATT,
        "        check_no_overflow(step, M)\n",
        "        pass  # MUTANT: check_no_overflow(step, M)\n",
    ),
    mutant(
        "padding_mask_off_by_one",
        "padding_mask: key j allowed iff j <= length (one padding key visible)",
        "core/masks.py",
        "np.arange(n)[None, :] < lengths[:, None]",
        "np.arange(n)[None, :] <= lengths[:, None]",
    ),
    mutant(
        "decoding_no_scale",
        "decode_incremental: scores not divided by sqrt(d_k)",
        "core/variants/decoding.py",
        "softmax_rows(q @ xp.matrix_transpose(K) / math.sqrt(d_k))",
        "softmax_rows(q @ xp.matrix_transpose(K))",
    ),
    mutant(
        "decoding_query_uses_w_k",
        "decode_incremental: the new token's query projected with W_K instead of W_Q",
        "core/variants/decoding.py",
        "q = xp.reshape(x_t @ weights.W_Q, (n_heads, 1, d_k))",
        "q = xp.reshape(x_t @ weights.W_K, (n_heads, 1, d_k))",
    ),
    mutant(
        "scalar_no_scale",
        "attention_scalar: scores not divided by sqrt(d_k)",
        "core/variants/scalar.py",
        "for c in range(d_k)) / math.sqrt(d_k) for j in keys]",
        "for c in range(d_k)) for j in keys]",
    ),
    mutant(
        "scalar_causal_ignored",
        "attention_scalar: causal=True still sees every key",
        "core/variants/scalar.py",
        "keys = range(i + 1) if causal else range(n)",
        "keys = range(n)",
    ),
    mutant(
        "flash_no_rescale",
        "flash_attention: earlier tiles not rescaled when the running max grows",
        "core/variants/flash.py",
        "            rescale = np.exp(m - safe)",
        "            rescale = np.where(np.isfinite(m), 1.0, 0.0)  # MUTANT",
    ),
    # 12. the fused pass on every core (core/fast.py's _attend_block_on_every_core: large blocks)
    mutant(
        "fused_no_scale",
        "fused pass on every core: the scores copied unscaled (÷ √d_k skipped in each block)",
        FAST,
        "                scale(S[index][part], factor, out=z)",
        "                np.copyto(z, S[index][part])  # MUTANT",
    ),
    mutant(
        "fused_mask_ignored",
        "fused pass on every core: the mask never written into the blocks",
        FAST,
        "                np.copyto(masked, -math.inf, where=fb[index][part])",
        "                pass  # MUTANT",
    ),
    mutant(
        "fused_last_rows_skipped",
        "fused pass on every core: each head's last block of rows left out of the pass",
        FAST,
        "        for rows in threads.product_blocks(shape[-2], n, Q.itemsize)\n    ]",
        "        for rows in threads.product_blocks(shape[-2], n, Q.itemsize)[:-1]  # MUTANT\n"
        "    ]",
    ),
    mutant(
        "fused_last_part_skipped",
        "fused pass on every core: each block's last cache-sized part left out of the softmax",
        FAST,
        "        for part in threads.within(rows, n, Q.itemsize):",
        "        for part in threads.within(rows, n, Q.itemsize)[:-1]:  # MUTANT",
    ),
    mutant(
        "fused_v_replaced_by_k",
        "fused pass on every core: O = A K instead of A V",
        FAST,
        "        np.matmul(A[index][rows], V[index], out=O[index][rows])",
        "        np.matmul(A[index][rows], K[index], out=O[index][rows])  # MUTANT",
    ),
)


# Beyond the core: what the pages print, the questions, the classroom and the curriculum
ROW, CELL_STORY = "ui/views/walkthrough/row_story.py", "ui/views/walkthrough/cell_story.py"
WALK_TESTS = ("tests/app/test_walkthrough_numbers.py", "tests/ui/test_cell_story.py")
ROOM_TESTS = ("tests/server", "tests/app/test_room.py", "tests/app/test_room_faults.py")

BEYOND_CORE: tuple[Mutant, ...] = (
    mutant(
        "row_dot_wrong_key",
        "worked row: q_i·k_j written with k_(j−1)'s components",
        ROW,
        'f"{factor(a, decimals)}·{factor(b, decimals)}" for a, b in zip(q_i, K[j])',
        'f"{factor(a, decimals)}·{factor(b, decimals)}" for a, b in zip(q_i, K[j - 1])',
        WALK_TESTS,
    ),
    mutant(
        "row_exp_off",
        "worked row: each e^(s − m) printed 1% too large",
        ROW,
        "s, e = num(masked_row[j], decimals), num(exps[j], decimals)",
        "s, e = num(masked_row[j], decimals), num(exps[j] * 1.01, decimals)",
        WALK_TESTS,
    ),
    mutant(
        "row_sum_drops_a_key",
        "worked row: the exponentials' sum printed without key 0's",
        ROW,
        'lines.append(t("walkthrough.focus_sum", lang, total=num(total, decimals)))',
        'lines.append(t("walkthrough.focus_sum", lang, total=num(total - exps[0], decimals)))',
        WALK_TESTS,
    ),
    mutant(
        "row_output_wrong_column",
        "worked row: o_i[c] written with column 0 of V for every c",
        ROW,
        'f"{num(weights_row[j], decimals)}·{factor(V[j, c], decimals)}" for j in keys',
        'f"{num(weights_row[j], decimals)}·{factor(V[j, 0], decimals)}" for j in keys',
        WALK_TESTS,
    ),
    mutant(
        "row_lightest_keys",
        "worked row past eight keys: the lightest keys written out instead of the heaviest",
        ROW,
        'heaviest = set(np.argsort(-weights_row, kind="stable")[: MAX_KEYS - 1].tolist())',
        'heaviest = set(np.argsort(weights_row, kind="stable")[: MAX_KEYS - 1].tolist())',
        WALK_TESTS,
    ),
    mutant(
        "cell_divides_by_d_k",
        "clicked cell: 's ÷ √d_k' printed with d_k as the divisor",
        CELL_STORY,
        'f"s{sij} ÷ √{d_k} = {num(s, decimals)} ÷ {num(math.sqrt(d_k), decimals)} = "',
        'f"s{sij} ÷ √{d_k} = {num(s, decimals)} ÷ {num(d_k, decimals)} = "',
        WALK_TESTS,
    ),
    mutant(
        "cell_mask_always_one",
        "clicked cell: the mask entry M_ij printed as 1 for a hidden key too",
        CELL_STORY,
        "lines.append(t(key, ij=sij, i=i + base, j=j + base, m=1 if allowed else 0))",
        "lines.append(t(key, ij=sij, i=i + base, j=j + base, m=1))",
        WALK_TESTS,
    ),
    mutant(
        "cell_value_transposed",
        "clicked O cell: the values column read from V transposed",
        CELL_STORY,
        'column = [f"v{sub(k + base)}[{c + base}] = {num(V[k, c], decimals)}" for k in keys]',
        'column = [f"v{sub(k + base)}[{c + base}] = {num(V[c, k], decimals)}" for k in keys]',
        WALK_TESTS,
    ),
    mutant(
        "qkv_weights_of_head_0",
        "the QKV step's weight charts show head 0's slice of W_Q, W_K, W_V for every head",
        "ui/views/walkthrough/step_charts.py",
        "W = getattr(c.data.W, name)[:, head * width : (head + 1) * width]",
        "W = getattr(c.data.W, name)[:, :width]",
        WALK_TESTS,
    ),
    mutant(
        "block_row_prints_h_for_n",
        "the block's worked row: LayerNorm's result printed as its input h",
        "ui/views/walkthrough/block.py",
        "*norm_lines(h, n, out.H[i], out.N[i]),",
        "*norm_lines(h, n, out.H[i], out.H[i]),",
        WALK_TESTS,
    ),
    mutant(
        "cell_text_transposed",
        "every square heatmap's printed cell values transposed (colours right)",
        "ui/figures/heatmaps.py",
        "trace.text = _format(cells.M, decimals)",
        "trace.text = _format(cells.M.T if cells.M.shape[0] == cells.M.shape[1] else cells.M,"
        " decimals)",
        ("tests/app/test_walkthrough_numbers.py", "tests/ui/test_figures.py"),
    ),
    mutant(
        "loop_panel_runs_ahead",
        "loop page: the loop's panel shows one row more than it has computed",
        "ui/views/loop_vs_matrix.py",
        "pending = np.broadcast_to(np.arange(n)[:, None] >= k, loop.output.shape)",
        "pending = np.broadcast_to(np.arange(n)[:, None] >= k + 1, loop.output.shape)",
        ("tests/app/test_loop_vs_matrix.py",),
    ),
    mutant(
        "multi_head_A_reversed",
        "multi-head page: each head's A drawn under another head's title",
        "ui/views/multi_head.py",
        'head_grid(tr.A, tokens, tokens, f"A{{sh}}  [{n} × {n}]", "mh_a", base=base, **weights)',
        'head_grid(tr.A[::-1], tokens, tokens, f"A{{sh}}  [{n} × {n}]", "mh_a", base=base,'
        " **weights)",
        ("tests/app/test_multi_head.py",),
    ),
    mutant(
        "multi_head_split_uses_W_K",
        "multi-head page: the split drawn from X W_K instead of X W_Q",
        "ui/views/multi_head.py",
        "Q_all = data.trace.X @ data.W.W_Q",
        "Q_all = data.trace.X @ data.W.W_K",
        ("tests/app/test_multi_head.py",),
    ),
    mutant(
        "question_score_unscaled",
        "questions: a scaled score's right answer is q·k, not q·k ÷ √d_k",
        "core/lessons/questions.py",
        "    right = dot / math.sqrt(d_k)\n",
        "    right = dot  # MUTANT\n",
        ("tests/core/test_questions.py", "tests/app/test_walkthrough.py"),
    ),
    mutant(
        "question_top_key_is_lightest",
        "questions: 'which key gets the most weight' answered with the least",
        "core/lessons/questions.py",
        "best = max(keys, key=lambda j: A[j])",
        "best = min(keys, key=lambda j: A[j])",
        ("tests/core/test_questions.py", "tests/app/test_walkthrough.py"),
    ),
    mutant(
        "question_qkv_shape_transposed",
        "questions: Q's shape answered as d_k × n",
        "core/lessons/questions.py",
        '"qkv": (n, d_k),',
        '"qkv": (d_k, n),',
        ("tests/core/test_questions.py", "tests/app/test_walkthrough.py"),
    ),
    mutant(
        "predict_gate_open",
        "predict first: the step's result shown before the learner answers",
        "ui/views/walkthrough/predict.py",
        "        _tally_line(tally)\n    return False\n",
        "        _tally_line(tally)\n    return True  # MUTANT\n",
        ("tests/app/test_walkthrough.py",),
    ),
    mutant(
        "predict_every_answer_right",
        "predict first: every answer counted as right",
        "ui/views/walkthrough/predict.py",
        'tally[question["id"]] = (choice, question["answer"])',
        'tally[question["id"]] = (choice, choice)',
        ("tests/app/test_walkthrough.py",),
    ),
    mutant(
        "block_no_residual",
        "block: H = MultiHead(X), the residual X + … left out",
        "core/block.py",
        "    H = X + attention_out\n",
        "    H = attention_out * 1.0  # MUTANT\n",
        ("tests/core/test_block.py", "tests/app/test_walkthrough_numbers.py"),
    ),
    mutant(
        "block_second_norm_skips_N",
        "block: Y = LayerNorm(F), the second residual left out",
        "core/block.py",
        "layer_norm(N + F))",
        "layer_norm(F))",
        ("tests/core/test_block.py", "tests/app/test_walkthrough_numbers.py"),
    ),
    mutant(
        "projections_X_unscaled",
        "projections: softmax(X Xᵀ) without ÷ √d_model",
        "core/lessons/projections.py",
        "A_X = softmax_rows(S_X / np.sqrt(X.shape[1]))",
        "A_X = softmax_rows(S_X)",
        ("tests/core/test_projections.py", "tests/app/test_projections.py"),
    ),
    mutant(
        "projections_lookup_unscaled",
        "projections: the lookup's scores q·k_j without ÷ √d_k",
        "core/lessons/projections.py",
        "scores = K @ q / np.sqrt(K.shape[1])  # [n]",
        "scores = K @ q  # MUTANT",
        ("tests/core/test_projections.py", "tests/app/test_projections.py"),
    ),
    mutant(
        "scaling_divides_by_d_k",
        "scaling: the scaled softmax divides by d_k instead of √d_k",
        "core/lessons/scaling.py",
        "A = softmax_rows(S / np.sqrt(d_k) if scaled else S)",
        "A = softmax_rows(S / d_k if scaled else S)",
        ("tests/core/test_scaling.py", "tests/app/test_scaling.py"),
    ),
    mutant(
        "scaling_q_dot_q",
        "scaling: the sampled dot products are q·q instead of q·k",
        "core/lessons/scaling.py",
        'return np.einsum("sd,sd->s", q, k)  # [samples]',
        'return np.einsum("sd,sd->s", q, q)  # MUTANT',
        ("tests/core/test_scaling.py", "tests/app/test_scaling.py"),
    ),
    mutant(
        "mistake_wrong_axis_is_right",
        "mistakes: the 'wrong axis' softmax taken along the right axis",
        "core/lessons/mistakes.py",
        "return softmax_along(scaled, axis=-2)",
        "return softmax_along(scaled, axis=-1)",
        ("tests/core/test_mistakes.py", "tests/app/test_mistakes.py"),
    ),
    mutant(
        "mistake_mask_after_softmax_unmasked",
        "mistakes: 'mask after softmax' never zeroes the hidden keys",
        "core/lessons/mistakes.py",
        "return softmax_along(scaled, axis=-1) * allowed",
        "return softmax_along(scaled, axis=-1) * 1.0",
        ("tests/core/test_mistakes.py", "tests/app/test_mistakes.py"),
    ),
    mutant(
        "room_counts_every_answer_as_first",
        "classroom: every answer counted for the first choice",
        "classroom/rooms.py",
        "counts[int(choice)] += 1",
        "counts[0] += 1",
        ROOM_TESTS,
    ),
    mutant(
        "room_one_browser_answers_twice",
        "classroom: a browser that changes its answer is counted twice",
        "classroom/rooms.py",
        'f"answers:{code}:{question_id}", _browser(browser), str(choice), MAX_ANSWERS,',
        'f"answers:{code}:{question_id}", _browser(browser) + str(choice), str(choice),'
        " MAX_ANSWERS,",
        ROOM_TESTS,
    ),
    mutant(
        "room_any_key_drives",
        "classroom: any key (a student's guess) drives the room",
        "classroom/rooms.py",
        'if not hmac.compare_digest(_hash(key or ""), room["key_hash"]):',
        "if False:  # MUTANT",
        ROOM_TESTS,
    ),
    mutant(
        "room_any_key_is_teacher",
        "classroom: any key is taken for the teacher's",
        "classroom/rooms.py",
        'return hmac.compare_digest(_hash(key), room["key_hash"])',
        "return True  # MUTANT",
        ROOM_TESTS,
    ),
)

MUTANTS = MUTANTS + BEYOND_CORE


class RottenMutant(Exception):
    pass


def mutated_sources(root: Path, m: Mutant) -> dict[str, str]:
    """The mutant's files as text, edited; RottenMutant unless every snippet is there once."""
    texts: dict[str, str] = {}
    for number, edit in enumerate(m.edits, 1):
        if edit.path not in texts:
            file = root / edit.path
            if not file.is_file():
                raise RottenMutant(f"{m.name}: edit {number}: {edit.path} does not exist")
            texts[edit.path] = file.read_text(encoding="utf-8")
        count = texts[edit.path].count(edit.find)
        if count != 1:
            raise RottenMutant(
                f"{m.name}: edit {number}: the snippet occurs {count} times in {edit.path} "
                f"(exactly once expected); update it to the current source:\n{edit.find}"
            )
        texts[edit.path] = texts[edit.path].replace(edit.find, edit.replace, 1)
    return texts


def repository_files() -> list[str]:
    """Tracked files and untracked ones git does not ignore, minus .venv and .git."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "surrogateescape")
    names = sorted({name for name in listing.split("\0") if name})
    return [
        name
        for name in names
        if name.split("/", 1)[0] not in SKIPPED_TOP_LEVEL
        and ((REPO / name).is_file() or (REPO / name).is_symlink())  # deleted, submodule: no
    ]


def snapshot(destination: Path) -> int:
    for name in repository_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target, follow_symlinks=False)
    return len(repository_files())


_running: set[subprocess.Popen] = set()
_running_lock = threading.Lock()
_print_lock = threading.Lock()


def say(*parts) -> None:
    with _print_lock:
        print(*parts, flush=True)


@dataclass
class Run:
    returncode: int | None  # None: timed out
    output: str
    seconds: float


def run_pytest(cwd: Path, args: argparse.Namespace, stop_at_first: bool, paths=TEST_PATHS) -> Run:
    command = [str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE"]
    command += ["-x"] if stop_at_first else []
    command += [f"--hypothesis-seed={args.seed}"]
    command += [f"--deselect={node}" for node in args.deselect]
    command += list(paths)
    # COLUMNS: pytest cuts the summary's messages at the terminal's width
    env = dict(os.environ, PYTHONPATH=str(cwd), PYTHONDONTWRITEBYTECODE="1", COLUMNS="240")
    start = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,  # its own process group: a timeout ends the children too
    )
    with _running_lock:
        _running.add(process)
    try:
        output, _ = process.communicate(timeout=args.timeout)
        returncode = process.returncode
    except subprocess.TimeoutExpired:
        _kill_group(process)
        output, _ = process.communicate()
        returncode = None
    finally:
        with _running_lock:
            _running.discard(process)
    return Run(returncode, output, time.monotonic() - start)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the group this script started, by its id
    except ProcessLookupError:
        pass


SUMMARY_LINE = re.compile(r"^(FAILED|ERROR) (.+?)(?: - (.*))?$")


def failures(output: str) -> list[tuple[str, str, str]]:
    """(FAILED or ERROR, node id, message) from pytest's short test summary, in order."""
    _, found, summary = output.partition("short test summary info")
    lines = summary.splitlines() if found else output.splitlines()
    return [match.groups(default="") for line in lines if (match := SUMMARY_LINE.match(line))]


ERROR_LINE = re.compile(r"^\w*(Error|Exception)(:|$)")  # AssertionError: ..., ValueError
LINE_PREFIX = re.compile(r"^(E\s|\s*\|\s?)")  # pytest's "E " lines, an exception group's "| "
NOISE = (
    "Arrays are not equal",
    "Not equal to tolerance",
    "Mismatch at",
    "First ",
    "[",
    "Max relative",
    "ExceptionGroup",
)


def explain(message: str, output: str) -> str:
    """The summary's message, or where it says little ("AssertionError:", "Hypothesis found 2
    distinct failures"), the gist of the first error in the report: what differed (the err_msg,
    often a trace field's name) and by how much."""
    if message and not message.rstrip().endswith(":") and "distinct failures" not in message:
        return message
    body = output.partition("short test summary info")[0].splitlines()
    lines = [LINE_PREFIX.sub("", line, count=1).strip() for line in body]
    start = next((i for i, line in enumerate(lines) if ERROR_LINE.match(line)), None)
    if start is None:
        return message
    first = lines[start].removesuffix(":").strip()
    gist = [] if first == "AssertionError" else [first]
    for line in lines[start + 1 :]:
        if line.startswith(("Failing test case", "Falsifying example", "ACTUAL", "Traceback")):
            break
        if line and not line.startswith(NOISE):
            gist.append(line.replace("Max absolute difference among violations", "max |diff|"))
    return " / ".join(gist) or message


@dataclass
class Verdict:
    mutant: Mutant
    caught: bool
    status: str  # "caught", "SURVIVED", "not caught (timeout)", ...
    test: str  # the first failing test's node id, or ""
    why: str  # its message, or why there is none
    seconds: float


def judge(m: Mutant, run: Run) -> Verdict:
    if run.returncode is None:
        return Verdict(m, False, "not caught (timeout)", "", "", run.seconds)
    if run.returncode == 0:
        return Verdict(m, False, "SURVIVED", "", "every test passed", run.seconds)
    found = failures(run.output)
    if found:
        kind, node, message = found[0]
        status = "caught" if kind == "FAILED" else "caught (error)"
        return Verdict(m, True, status, node, explain(message, run.output), run.seconds)
    tail = run.output.strip().splitlines()[-1:] or [""]
    why = f"pytest exit {run.returncode}, no test named: {tail[0]}"
    return Verdict(m, True, "caught (crash)", "", why, run.seconds)


def baseline_paths(chosen: list[Mutant]) -> tuple[str, ...]:
    """What must pass unmutated: every test any chosen mutant runs."""
    return tuple(sorted({path for m in chosen for path in m.tests}))


def run_mutant(m: Mutant, pristine: Path, work: Path, args: argparse.Namespace) -> Verdict:
    copy = work / m.name
    shutil.copytree(pristine, copy, symlinks=True)
    try:
        for path, text in mutated_sources(copy, m).items():
            (copy / path).write_text(text, encoding="utf-8")
        run = run_pytest(copy, args, stop_at_first=True, paths=m.tests)
    finally:
        if not args.keep:
            shutil.rmtree(copy, ignore_errors=True)
    if args.logs:
        (args.logs / f"{m.name}.log").write_text(run.output, encoding="utf-8")
    return judge(m, run)


def shorten(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def print_table(verdicts: list[Verdict]) -> None:
    rows = [("mutant", "caught?", "first failing test", "s", "message")]
    rows += [
        (v.mutant.name, v.status, v.test or "-", f"{v.seconds:.0f}", shorten(v.why, 90))
        for v in verdicts
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        " | ".join([*(cell.ljust(w) for cell, w in zip(row[:4], widths)), row[4]]).rstrip()
        for row in rows
    ]
    lines.insert(1, "-+-".join("-" * w for w in [*widths, 7]))
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run just these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and check them")
    parser.add_argument("--jobs", type=int, default=1, help=f"mutants at once (1..{MAX_JOBS})")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per test run")
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis seed (fixed: reproducible)")
    parser.add_argument(
        "--deselect",
        action="append",
        default=[],
        metavar="NODEID",
        help="leave this test out of every run (e.g. one this machine cannot run); repeatable",
    )
    parser.add_argument(
        "--whole", action="store_true", help="run the whole fast suite against every mutant"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies")
    parser.add_argument("--logs", type=Path, help="write each run's pytest output here")
    args = parser.parse_args(argv)

    known = {m.name: m for m in MUTANTS}
    unknown = [name for name in args.only or () if name not in known]
    if unknown:
        parser.error(f"unknown mutant(s) {unknown}; --list shows them")
    chosen = [known[name] for name in args.only] if args.only else list(MUTANTS)
    args.jobs = max(1, min(MAX_JOBS, args.jobs))
    if args.whole:
        chosen = [replace(m, tests=TEST_PATHS) for m in chosen]

    if args.list:
        rotten = 0
        for m in chosen:
            try:
                mutated_sources(REPO, m)
                state = "ok"
            except RottenMutant as error:
                state, rotten = f"ROTTEN: {str(error).splitlines()[0]}", rotten + 1
            files = ", ".join(sorted({e.path for e in m.edits}))
            print(f"{m.name:32} {files:18} {m.what}  [{state}]")
        return 2 if rotten else 0

    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="mutants-") as temporary:
        work = Path(temporary)
        pristine = work / "_snapshot"
        count = snapshot(pristine)
        say(f"snapshot of {count} files from {REPO} in {pristine}")
        rotten = []
        for m in chosen:
            try:
                mutated_sources(pristine, m)
            except RottenMutant as error:
                rotten.append(str(error))
        if rotten:
            print("mutants that no longer apply (fix their snippets):", file=sys.stderr)
            print("\n\n".join(rotten), file=sys.stderr)
            return 2

        baseline_copy = work / "_baseline"
        shutil.copytree(pristine, baseline_copy, symlinks=True)
        paths = baseline_paths(chosen)
        say(f"baseline: the unmutated suite ({' '.join(paths)}) ...")
        baseline = run_pytest(baseline_copy, args, stop_at_first=False, paths=paths)
        shutil.rmtree(baseline_copy, ignore_errors=True)
        if args.logs:
            (args.logs / "_baseline.log").write_text(baseline.output, encoding="utf-8")
        if baseline.returncode != 0:
            why = "timed out" if baseline.returncode is None else f"exit {baseline.returncode}"
            print(f"ABORT: the unmutated suite does not pass ({why}).", file=sys.stderr)
            for kind, node, message in failures(baseline.output):
                print(f"  {kind} {node} - {shorten(message, 100)}", file=sys.stderr)
            last = baseline.output.strip().splitlines()[-1:] or [""]
            print(f"  ({last[0]})", file=sys.stderr)
            hint = "(a test this machine cannot run can be left out: --deselect NODEID)"
            print(hint, file=sys.stderr)
            return 2
        say(
            f"baseline passed in {baseline.seconds:.0f} s; {len(chosen)} mutant(s), "
            f"{args.jobs} at a time, timeout {args.timeout:.0f} s each"
        )

        verdicts: dict[str, Verdict] = {}
        try:
            with ThreadPoolExecutor(max_workers=args.jobs) as pool:
                futures = {pool.submit(run_mutant, m, pristine, work, args): m for m in chosen}
                for done, future in enumerate(as_completed(futures), 1):
                    v = future.result()
                    verdicts[v.mutant.name] = v
                    where = f" by {v.test}" if v.test else ""
                    say(
                        f"[{done}/{len(chosen)}] {v.mutant.name}: {v.status}{where} "
                        f"({v.seconds:.0f} s)"
                    )
        except KeyboardInterrupt:
            with _running_lock:
                for process in list(_running):
                    _kill_group(process)
            raise

    ordered = [verdicts[m.name] for m in chosen]
    print()
    print_table(ordered)
    caught = sum(v.caught for v in ordered)
    print(f"\n{caught} of {len(ordered)} mutants caught")
    survivors = [v for v in ordered if not v.caught]
    if survivors:
        print("\nSURVIVORS (no fast test noticed these bugs):")
        for v in survivors:
            print(f"  {v.mutant.name}: {v.mutant.what} [{v.status}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
