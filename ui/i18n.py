"""Every visible string in English and Chinese, and the learner-facing text of each InputError."""

import streamlit as st

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "中文"}
DEFAULT_SENTENCE = {"en": "the movie was really good", "zh": "这 部 电影 很 好看"}
DEFAULT_BATCH = {
    "en": "the movie was really good\nI love you\ngreat",
    "zh": "这 部 电影 很 好看\n我 喜欢 你\n好看",
}

# key -> (English, 中文). Templates use str.format fields.
STRINGS = {
    # app shell and sidebar
    "app_title": ("Self-Attention, Step by Step", "自注意力，一步一步"),
    "sidebar_input": ("Your sentence", "你的句子"),
    "sentence": ("Sentence", "句子"),
    "sentence_help": (
        "Words separated by spaces become tokens. Without spaces, Chinese is split into words.",
        "用空格分隔的词就是 token；没有空格时，中文会被自动分词。",
    ),
    "tokenizer": ("Tokenizer", "分词方式"),
    "mode_auto": ("auto", "自动"),
    "mode_space": ("spaces", "按空格"),
    "mode_char": ("characters", "逐字"),
    "mode_jieba": ("Chinese words (jieba)", "中文分词（jieba）"),
    "tokenizer_help": (
        "auto: split on spaces when there are any, otherwise into Chinese words (jieba) with Latin words and punctuation on their own; spaces: only on spaces; characters: one token per character.",
        "自动：有空格就按空格切分，否则用 jieba 切出中文词，英文单词和标点各自成为 token；按空格：只按空格切分；逐字：每个字符一个 token。",
    ),
    "sidebar_model": ("The layer", "注意力层"),
    "d_model": ("d_model (width of each token vector)", "d_model（每个 token 向量的维度）"),
    "n_heads": ("Heads", "头数"),
    "seed": ("Random seed", "随机种子"),
    "positional": ("Add positional encoding", "加入位置编码"),
    "mask": ("Mask", "掩码"),
    "mask_none": ("None (every token sees every token)", "无（每个 token 看得到全部）"),
    "mask_causal": ("Causal (no peeking ahead)", "因果（不能看后面的词）"),
    "decimals": ("Decimals shown", "显示的小数位"),
    "presentation": ("Large text for a projector", "投影用大字号"),
    "share_hint": (
        "The address bar holds these settings: copy it to share this exact view.",
        "地址栏里保存了这些设置：复制链接即可分享完全相同的视图。",
    ),
    "backend_note": ("Computed with {backend}", "计算后端：{backend}"),
    "random_weights_note": (
        "Embeddings and weights are random (seeded): the patterns mean nothing yet, "
        "but every step of the arithmetic is exact.",
        "词向量和权重都是（固定种子的）随机数：图案本身还没有含义，但每一步计算都是精确的。",
    ),
    # pages
    "page_walkthrough": ("Walkthrough", "逐步演示"),
    "page_loop": ("Loop vs matrix", "循环 vs 矩阵"),
    "page_hand": ("Hand check", "手算核对"),
    # axis titles and labels
    "axis_query": ("query i", "查询 i"),
    "axis_key": ("key j →", "键 j →"),
    "axis_token": ("token", "token"),
    "axis_dim": ("dimension", "维度"),
    "downsampled": (
        "{n}×{n} shown as {m}×{m} blocks (block means); hover shows the block.",
        "{n}×{n} 矩阵按块平均后显示为 {m}×{m}；悬停查看该块。",
    ),
    # walkthrough
    "pipeline": ("Pipeline", "计算流程"),
    "previous": ("◀ Previous", "◀ 上一步"),
    "next": ("Next ▶", "下一步 ▶"),
    "step_of": ("Step {i} of {n}", "第 {i} 步，共 {n} 步"),
    "head": ("Head", "头"),
    "focus": ("Focus token (query row)", "聚焦的 token（查询行）"),
    "chart_E": ("E (token vectors)", "E（token 向量）"),
    "chart_scores": ("S = QKᵀ", "S = QKᵀ"),
    "chart_scaled": ("S / √d_k", "S / √d_k"),
    "chart_mask": ("S / √d_k after the mask", "加掩码后的 S / √d_k"),
    "chart_softmax": ("A = softmax(S / √d_k), row by row", "A = softmax(S / √d_k)，按行"),
    "chart_concat": (
        "Concat(O₀ … Oₕ₋₁): head 0's columns first",
        "Concat(O₀ … Oₕ₋₁)：头 0 的列在前",
    ),
    "chart_output": ("output = Concat · W_O", "输出 = Concat · W_O"),
    "masked_legend": (
        "Grey cells are masked: −∞ before the softmax, exactly 0 after it.",
        "灰色格子被掩码遮住：softmax 之前是 −∞，之后恰好是 0。",
    ),
    "row_sum_note": (
        "Σ is each row's sum computed from the unrounded weights; the printed cells are rounded.",
        "Σ 是用未经舍入的权重算出的行和；格子里显示的是舍入后的数。",
    ),
    "focus_mask": (
        "Row {i}: which keys stay and which become −∞",
        "第 {i} 行：哪些键保留，哪些变成 −∞",
    ),
    "mask_kept": ("key {j}: allowed, stays {value}", "键 {j}：允许，保持 {value}"),
    "mask_hidden": ("key {j}: masked, {value} → −∞", "键 {j}：被遮住，{value} → −∞"),
    "tokens_line": ("{n} tokens", "{n} 个 token"),
    "shape": ("Shapes", "形状"),
    "show_weights": ("The weight matrices", "权重矩阵"),
    "focus_title": ("Row {i} (“{token}”) worked out", "第 {i} 行（“{token}”）的计算过程"),
    "too_big_for_text": (
        "n = {n}: too many cells to print; hover the heatmap for values.",
        "n = {n}：格子太多，不逐个打印数值；把鼠标移到热力图上查看。",
    ),
    # step names (pipeline strip)
    "step_tokens": ("X", "X"),
    "step_pe": ("PE", "PE"),
    "step_x_pe": ("X + PE", "X + PE"),
    "step_qkv": ("Q, K, V", "Q, K, V"),
    "step_scores": ("QKᵀ", "QKᵀ"),
    "step_scaled": ("÷√d_k", "÷√d_k"),
    "step_mask": ("mask", "掩码"),
    "step_softmax": ("softmax", "softmax"),
    "step_av": ("AV", "AV"),
    "step_heads": ("concat · W_O", "拼接 · W_O"),
    # step titles
    "title_tokens": ("1. Tokens become vectors: the matrix X", "1. token 变成向量：矩阵 X"),
    "title_pe": ("2. Positional encoding PE", "2. 位置编码 PE"),
    "title_x_pe": ("3. Adding positions: X + PE", "3. 加上位置：X + PE"),
    "title_qkv": ("4. Three projections: Q, K, V", "4. 三个投影：Q、K、V"),
    "title_scores": ("5. Scores S = QKᵀ", "5. 分数 S = QKᵀ"),
    "title_scaled": ("6. Scaling: S / √d_k", "6. 缩放：S / √d_k"),
    "title_mask": ("7. Masking", "7. 掩码"),
    "title_softmax": (
        "8. Softmax by row: the attention weights A",
        "8. 按行 softmax：注意力权重 A",
    ),
    "title_av": ("9. Weighted sum of values: O = AV", "9. 对 V 加权求和：O = AV"),
    "title_heads": ("10. Heads side by side, then W_O", "10. 拼接各头，再乘 W_O"),
    # step explanations
    "explain_tokens": (
        "Each token gets a row vector of length d_model. Stacking the rows gives X: row i is "
        "token i, so the order of the rows is the order of the sentence. Every later step works "
        "on all rows at once.",
        "每个 token 对应一个长度为 d_model 的行向量。把这些行叠起来就是 X：第 i 行就是第 i 个 "
        "token，行的先后就是句子里的先后。后面每一步都同时处理所有行。",
    ),
    "explain_pe": (
        "Attention by itself compares tokens without knowing where they stand. PE gives every "
        "position its own pattern of sines (even columns) and cosines (odd columns) at different "
        "frequencies: the left columns change quickly along the sentence, the right ones slowly.",
        "注意力本身只比较 token，不知道它们在第几个位置。PE 给每个位置一组不同频率的正弦（偶数列）"
        "和余弦（奇数列）：左边的列随位置变化快，右边的列变化慢。",
    ),
    "explain_pe_off": (
        "Positional encoding is switched off in the sidebar, so X is just the token vectors. "
        "Turn it on to see PE here.",
        "侧边栏里关闭了位置编码，所以 X 就是 token 向量本身。打开它就能在这里看到 PE。",
    ),
    "explain_x_pe": (
        "The position pattern is added element by element to the token vectors. The same word at "
        "two positions now has two different rows, so order can change the result.",
        "位置编码逐元素加到 token 向量上。同一个词出现在两个位置时，会得到两行不同的向量，"
        "所以词序会影响结果。",
    ),
    "explain_qkv": (
        "Three weight matrices turn every row of X into a query (what this token is looking for), "
        "a key (what it offers to be found by) and a value (what it passes on). One matrix product "
        "does all n tokens at once, with the same weights for every position.",
        "三个权重矩阵把 X 的每一行变成查询 Query（这个 token 在找什么）、键 Key（它能被什么找到）"
        "和值 Value（它要传递的信息）。一次矩阵乘法同时处理全部 n 个 token，所有位置共用同一组权重。",
    ),
    "explain_scores": (
        "Entry (i, j) is the dot product qᵢ · kⱼ: how well query i matches key j. K is "
        "transposed so that every query meets every key, giving an n × n table: rows ask, "
        "columns answer. Scores can be any sign; they are not probabilities yet.",
        "第 (i, j) 格是点积 qᵢ · kⱼ：查询 i 与键 j 有多匹配。K 要转置，才能让每个查询和每个键"
        "都相乘，得到 n × n 的表：行是提问者，列是被问者。分数可正可负，还不是概率。",
    ),
    "explain_scaled": (
        "A dot product of d_k terms grows with d_k: for random vectors its variance is about "
        "d_k. Dividing by √d_k brings the spread back to about 1, so the softmax does not "
        "saturate into a single 1 and tiny gradients.",
        "d_k 个乘积相加，点积会随 d_k 变大：随机向量的点积方差约为 d_k。除以 √d_k 把方差拉回约 1，"
        "softmax 就不会饱和成一个 1 加一堆 0，梯度也不会消失。",
    ),
    "explain_mask_causal": (
        "With a causal mask, query i may only look at keys j ≤ i: the cells above the diagonal "
        "are set to −∞ before the softmax, so they will get weight exactly 0.",
        "因果掩码下，查询 i 只能看键 j ≤ i：对角线以上的格子在 softmax 之前被设成 −∞，"
        "之后的权重恰好是 0。",
    ),
    "explain_mask_none": (
        "No mask is selected, so every query may look at every key and this matrix equals the "
        "scaled scores. Choose the causal mask in the sidebar to hide future tokens.",
        "当前没有掩码，每个查询都能看所有键，这个矩阵与缩放后的分数相同。在侧边栏选择因果掩码，"
        "就能遮住后面的词。",
    ),
    "explain_softmax": (
        "Softmax runs along each row: e^(sᵢⱼ − max) divided by the row's sum. Every weight is "
        "between 0 and 1 and each row sums to 1, so row i says how query i splits its attention "
        "over the keys. Masked cells get exactly 0.",
        "softmax 按行进行：e^(sᵢⱼ − 该行最大值) 再除以该行之和。每个权重在 0 和 1 之间，每行之和"
        "为 1，所以第 i 行表示查询 i 如何把注意力分配给各个键。被遮住的格子权重正好是 0。",
    ),
    "explain_av": (
        "Output row i is a weighted average of the value rows: oᵢ = Σⱼ aᵢⱼ vⱼ. A token that "
        "puts most of its weight on one key mostly copies that key's value.",
        "输出的第 i 行是各个值向量的加权平均：oᵢ = Σⱼ aᵢⱼ vⱼ。如果一个 token 把大部分权重给了"
        "某个键，它的输出就主要来自那个键的值。",
    ),
    "explain_heads": (
        "Each head does steps 4-9 with its own slice of W_Q, W_K, W_V, so heads can look for "
        "different things. Their outputs are placed side by side (head 0 first) and multiplied "
        "by W_O, which mixes the heads back into one d_model-wide row per token.",
        "每个头用各自那一段 W_Q、W_K、W_V 完成第 4-9 步，所以不同的头可以关注不同的关系。"
        "各头的输出按顺序（头 0 在前）并排拼接，再乘 W_O，把各头的信息混合回每个 token 一行、"
        "宽度为 d_model 的输出。",
    ),
    # focus arithmetic
    "focus_dot": (
        "Scores of row {i}: q{si} · kⱼ, a sum of products",
        "第 {i} 行的分数：q{si} · kⱼ，逐项相乘再相加",
    ),
    "focus_softmax": ("Softmax of row {i}", "第 {i} 行的 softmax"),
    "focus_max": ("largest allowed score m = {m}", "允许位置中的最大分数 m = {m}"),
    "focus_sum": ("sum of the exponentials = {total}", "指数之和 = {total}"),
    "focus_output": (
        "Output row {i}: o{si} = Σⱼ a{si}ⱼ vⱼ",
        "第 {i} 个输出：o{si} = Σⱼ a{si}ⱼ vⱼ",
    ),
    "focus_masked_key": ("key {j} is masked: weight 0", "键 {j} 被遮住：权重为 0"),
    "focus_more": ("… and {k} more keys (choose a key above)", "……还有 {k} 个键（可在上方选择）"),
    # loop vs matrix
    "loop_title": ("Loop or matrix: the same numbers", "循环还是矩阵：结果相同"),
    "loop_intro": (
        "The loop computes outputᵢ = Σⱼ aᵢⱼ vⱼ for one query token after another. The matrix "
        "form computes every row in one product. They agree to the last digits; only the speed "
        "differs.",
        "循环写法一个接一个地计算每个查询 token 的 outputᵢ = Σⱼ aᵢⱼ vⱼ；矩阵写法一次乘法算出"
        "所有行。两者结果一致（只差舍入误差），区别只在速度。",
    ),
    "loop_rows_done": ("rows computed by the loop so far", "循环已经算完的行数"),
    "loop_panel": ("Loop: output after {k} of {n} tokens", "循环：已算 {k} / {n} 个 token 的输出"),
    "matrix_panel": (
        "Matrix: output = Concat(A V) W_O, all rows at once",
        "矩阵：输出 = Concat(A V) W_O，一次算完所有行",
    ),
    "max_diff": (
        "Largest |loop − matrix| over all entries: {diff}",
        "循环与矩阵所有元素的最大差 |循环 − 矩阵|：{diff}",
    ),
    "timing_title": ("Measured times", "实测时间"),
    "timing_intro": (
        "Time of one full attention pass at this d_model and head count, measured on this server the first time these settings were used (best of several runs, then kept for everyone). Other learners' work on the server can slow single runs down.",
        "在当前 d_model 和头数下完整计算一次注意力的时间：这组设置第一次使用时在本服务器上测得（取多次中最快，之后所有人沿用）。其他同学同时在用服务器，可能让个别几次变慢。",
    ),
    "measuring_here": (
        "Measuring on this server … the table appears here by itself in a few seconds.",
        "正在本服务器上测量……几秒后表格会自动出现在这里。",
    ),
    "code_caption": (
        "The code that computed these numbers (core/reference.py):",
        "算出这些数字的代码（core/reference.py）：",
    ),
    "col_n": ("n (tokens)", "n（token 数）"),
    "col_matrix": ("matrix", "矩阵"),
    "col_loop": ("per-token loop", "逐 token 循环"),
    "col_python": ("pure Python", "纯 Python"),
    "col_speedup_loop": ("loop ÷ matrix", "循环 ÷ 矩阵"),
    "col_speedup_python": ("Python ÷ matrix", "Python ÷ 矩阵"),
    "time_axis": ("milliseconds per pass", "每次计算的毫秒数"),
    # hand check
    "hand_title": ("Check it by hand: three tokens", "手算核对：三个 token"),
    "hand_intro": (
        "A small example with whole numbers, one head and no positional encoding. Edit any cell, "
        "follow the worksheet with pen and paper, then type your answer for one row.",
        "一个只有整数的小例子：一个头、不加位置编码。可以修改任意格子，用纸笔跟着计算单一步步算，"
        "然后输入你算出的某一行。",
    ),
    "hand_d_model": ("d_model", "d_model"),
    "hand_reset": ("Reset the matrices", "恢复默认矩阵"),
    "hand_inputs": ("The inputs (editable)", "输入（可编辑）"),
    "worksheet": ("Worksheet", "计算单"),
    "your_answer": ("Your answer", "你的答案"),
    "answer_which": ("which row", "哪一行"),
    "answer_matrix": ("matrix", "矩阵"),
    "answer_A": ("a row of A (weights)", "A 的一行（权重）"),
    "answer_O": ("a row of O (output)", "O 的一行（输出）"),
    "answer_input": (
        "{k} numbers separated by spaces or commas",
        "{k} 个数，用空格或逗号分隔",
    ),
    "answer_ok": (
        "All {k} entries are right (within {tol}).",
        "全部 {k} 个数都对（误差在 {tol} 以内）。",
    ),
    "answer_off": (
        "entry {j}: you wrote {typed}, the answer is {expected} (off by {diff})",
        "第 {j} 个：你写的是 {typed}，正确答案是 {expected}（差 {diff}）",
    ),
    "answer_wrong": ("{bad} of {k} entries are off:", "{k} 个数中有 {bad} 个不对："),
    "answer_count": ("Expected {k} numbers, got {got}.", "需要 {k} 个数，你输入了 {got} 个。"),
    "answer_nan": ("“{text}” is not a number.", "“{text}” 不是一个数。"),
    "download_md": ("Download worksheet (Markdown)", "下载计算单（Markdown）"),
    "download_csv": ("Download matrices (CSV)", "下载矩阵（CSV）"),
    "cell_not_number": (
        "{matrix}, row {row} ({label}), column {col}: “{text}” is not a number. Correct that cell to see the results again.",
        "{matrix} 第 {row} 行（{label}）第 {col} 列：“{text}” 不是一个数。改正这个格子后即可重新看到结果。",
    ),
    "cell_not_finite": (
        "{matrix}, row {row} ({label}), column {col}: {text} is not a finite number (or is too large for this example).",
        "{matrix} 第 {row} 行（{label}）第 {col} 列：{text} 不是有限的数（或对这个例子来说太大）。",
    ),
    "ws_scores": ("S = Q Kᵀ, entry by entry", "S = Q Kᵀ，逐格计算"),
    "ws_scaled": ("Divide by √d_k = √{d_k} = {root}", "除以 √d_k = √{d_k} = {root}"),
    "ws_softmax": ("Softmax of each row", "每行做 softmax"),
    "ws_output": ("O = A V, row by row", "O = A V，逐行计算"),
    "ws_header": ("Self-attention worksheet (n = 3)", "自注意力计算单（n = 3）"),
    "timing_small_n": (
        "At tiny n the fixed cost of each NumPy call outweighs the arithmetic, so plain Python can even win; as n grows, the matrix form pulls far ahead.",
        "n 很小时，每次调用 NumPy 的固定开销比计算本身还大，纯 Python 甚至可能更快；n 变大后，矩阵写法遥遥领先。",
    ),
    "hand_sidebar_note": (
        "This page uses its own three-token example; the sidebar's sentence and layer settings apply to the other pages.",
        "本页使用自带的三 token 例子；侧边栏里的句子和注意力层设置只作用于其他页面。",
    ),
    "worksheet_open": (
        "Worksheet: every step worked out (the full solution)",
        "计算单：每一步的完整过程（含答案）",
    ),
    "cut_tokens": ("Keep the first {limit} tokens", "只保留前 {limit} 个 token"),
    "page_multihead": ("Multi-head", "多头注意力"),
    "mh_title": ("Several heads, side by side", "多个头，并排计算"),
    "mh_intro": (
        "Instead of one attention over d_model-wide vectors, the layer splits Q, K and V into h narrower heads of width d_k = d_model / h. Each head computes its own A, so one head can follow one relation and another head another. The split is only a reshape and a transpose: the numbers do not change.",
        "多头注意力不在 d_model 维的向量上只做一次注意力，而是把 Q、K、V 切成 h 个更窄的头，每个头宽 d_k = d_model / h。每个头都算出自己的 A，所以不同的头可以关注不同的关系。切分只是一次 reshape 加一次转置，数值本身不变。",
    ),
    "mh_split_title": ("1. One projection, then split into heads", "1. 先整体投影，再切成多个头"),
    "mh_split_text": (
        "X W_Q gives one [n × h·d_k] matrix; its columns come in h blocks, one per head (coloured). Reshaping to [n × h × d_k] and swapping the first two axes gives [h × n × d_k]: head h is the block of columns h·d_k … (h+1)·d_k − 1.",
        "X W_Q 先得到一个 [n × h·d_k] 的矩阵，它的列分成 h 块，每块对应一个头（不同颜色）。reshape 成 [n × h × d_k]，再交换前两个轴，就得到 [h × n × d_k]：第 h 个头就是第 h·d_k … (h+1)·d_k − 1 列。",
    ),
    "mh_all_columns": (
        "X W_Q: all heads' queries, [n × h·d_k]",
        "X W_Q：所有头的查询，[n × h·d_k]",
    ),
    "mh_weights_title": ("2. Every head's attention weights A", "2. 每个头的注意力权重 A"),
    "mh_weights_text": (
        "Same tokens, different weights: each head scores the pairs with its own slice of W_Q and W_K.",
        "同样的 token，不同的权重：每个头用自己那一段 W_Q、W_K 给每一对 token 打分。",
    ),
    "mh_outputs_title": (
        "3. Per-head outputs, concatenated, then W_O",
        "3. 各头的输出、拼接，再乘 W_O",
    ),
    "mh_concat": ("Concat: [n × h·d_v], head 0 first", "拼接：[n × h·d_v]，头 0 在前"),
    "mh_output": ("output = Concat · W_O, [n × d_model]", "输出 = Concat · W_O，[n × d_model]"),
    "mh_compare_title": (
        "4. One head or several, same d_model",
        "4. 一个头还是多个头（d_model 相同）",
    ),
    "mh_compare_text": (
        "With the same W_Q, W_K, W_V and W_O (same parameter count), one wide head produces a single A; {h} heads produce {h} different A's from the same numbers and a different output. Largest |difference| between the two outputs: {diff}.",
        "用同样的 W_Q、W_K、W_V 和 W_O（参数量相同），一个宽头只得到一个 A；{h} 个头从同样的数得到 {h} 个不同的 A，输出也不同。两个输出的最大差 |差值|：{diff}。",
    ),
    "mh_one_head": ("One head (d_k = {d})", "一个头（d_k = {d}）"),
    "mh_single_note": (
        "Choose 2 or more heads in the sidebar to compare.",
        "在侧边栏选择 2 个或更多的头，才能比较。",
    ),
    "section_basics": ("Basics", "基础"),
    "section_deeper": ("Going deeper", "深入"),
    "page_masks": ("Masks on a batch", "批量与掩码"),
    "mk_title": ("Padding and causal masks on a batch", "批量中的填充掩码与因果掩码"),
    "mk_intro": (
        "Sentences in a batch have different lengths, but a batch is one array. Shorter sentences are padded to the longest with <pad> tokens (zero vectors here), giving X of shape [b, n, d_model]. A padding mask hides the padding keys; a causal mask hides later tokens; combined, a key must pass both.",
        "一个批次里的句子长短不一，但批次必须是一个数组。较短的句子用 <pad> 补到最长的长度（这里补的是零向量），得到形状为 [b, n, d_model] 的 X。填充掩码遮住补出来的键；因果掩码遮住后面的 token；两者合用时，一个键必须同时通过两个掩码。",
    ),
    "mk_batch": ("One sentence per line (2 or 3)", "每行一个句子（2 到 3 句）"),
    "mk_add_empty": ("Add an empty sentence to the batch", "往批次里加一个空句子"),
    "mk_mask_kind": ("Mask to apply", "使用的掩码"),
    "mk_padding": ("padding", "填充"),
    "mk_causal": ("causal", "因果"),
    "mk_both": ("padding and causal", "填充 + 因果"),
    "mk_which": ("Sentence to inspect", "查看哪个句子"),
    "mk_padded": (
        "The padded batch: X is [{b} × {n} × {d}]",
        "补齐后的批次：X 的形状是 [{b} × {n} × {d}]",
    ),
    "mk_lengths": ("real tokens", "真实 token 数"),
    "mk_masks_title": (
        "The three masks for sentence {s} (1 = may attend, 0 = hidden)",
        "第 {s} 句的三个掩码（1 = 可以看，0 = 被遮住）",
    ),
    "mk_result_title": ("Masked scores and weights (head 0)", "加掩码后的分数和权重（头 0）"),
    "mk_padded_rows": (
        "Rows of <pad> queries still attend to the real keys, so they get ordinary-looking numbers; nothing reads them later, because the loss and any pooling skip padding positions too.",
        "<pad> 作为查询的那些行仍然会看真实的键，所以看起来也有正常的数；但后面没有人使用它们，因为损失函数和池化同样会跳过填充位置。",
    ),
    "mk_empty_row": (
        "Sentence {s} has no real token: every key is hidden in every row, so each row of A is all zeros (never NaN) and its output is zero.",
        "第 {s} 句没有真实 token：每一行的所有键都被遮住，所以 A 的每一行全是 0（而不是 NaN），输出也是 0。",
    ),
    "mk_order_title": ("Mask before the softmax, not after", "掩码要在 softmax 之前，而不是之后"),
    "mk_order_text": (
        "Right: set hidden scores to −∞, then softmax, so the allowed weights share all of the 1. Wrong: softmax over every key, then zero the hidden ones: the rows no longer sum to 1, and the hidden keys still took their share of the total.",
        "正确做法：先把被遮住的分数设成 −∞，再做 softmax，允许的权重分掉全部的 1。错误做法：先对所有键做 softmax，再把被遮住的权重清零：每行之和不再是 1，而且被遮住的键已经分走了一部分权重。",
    ),
    "mk_right": ("Right: softmax(mask(S))", "正确：softmax(mask(S))"),
    "mk_wrong": ("Wrong: mask(softmax(S))", "错误：mask(softmax(S))"),
    "page_scaling": ("Why √d_k", "为什么除以 √d_k"),
    "sc_title": ("Why divide by √d_k: a live experiment", "为什么要除以 √d_k：现场实验"),
    "sc_intro": (
        "Draw random queries and keys with independent entries of mean 0 and variance 1. Their dot product adds up d_k such products, so its variance is d_k: the wider the head, the larger the scores. Dividing by √d_k brings the variance back to 1 whatever d_k is.",
        "随机生成查询和键，每个分量独立、均值 0、方差 1。它们的点积是 d_k 个乘积之和，所以方差是 d_k：头越宽，分数越大。除以 √d_k 后，无论 d_k 多大，方差都回到 1。",
    ),
    "sc_d_k": ("d_k (width of each query and key)", "d_k（每个查询和键的维度）"),
    "sc_samples": ("random pairs", "随机向量对的数量"),
    "sc_hist_raw": ("q · k  (variance {var})", "q · k（方差 {var}）"),
    "sc_hist_scaled": ("q · k / √d_k  (variance {var})", "q · k / √d_k（方差 {var}）"),
    "sc_measured": (
        "Measured with {samples} pairs at d_k = {d_k}: variance of q·k = {raw} (theory: {d_k}); after dividing by √d_k = {scaled} (theory: 1).",
        "用 {samples} 对向量、d_k = {d_k} 测得：q·k 的方差 = {raw}（理论值 {d_k}）；除以 √d_k 后 = {scaled}（理论值 1）。",
    ),
    "sc_sharp_title": (
        "How sharp the softmax gets as d_k grows ({n} keys per row)",
        "随着 d_k 变大，softmax 有多尖锐（每行 {n} 个键）",
    ),
    "sc_sharp_text": (
        "Without scaling, the largest weight in a row heads for 1 and the entropy for 0: the softmax turns into a hard one-hot choice. With scaling, both stay put.",
        "不缩放时，每行最大的权重趋近 1，熵趋近 0：softmax 变成了几乎只选一个的硬选择。缩放后两者都基本不变。",
    ),
    "sc_max_weight": ("mean largest weight", "平均最大权重"),
    "sc_entropy": ("mean entropy (nats)", "平均熵（nats）"),
    "sc_gradient": ("mean size of the softmax gradient", "softmax 梯度的平均大小"),
    "sc_grad_title": ("The gradient vanishes when the softmax saturates", "softmax 饱和时梯度消失"),
    "sc_grad_text": (
        "The softmax's Jacobian is diag(a) − a aᵀ. When one weight is nearly 1 and the rest nearly 0, every entry of it is nearly 0, so almost no gradient flows back to Q and K and learning stalls. Scaling keeps it alive.",
        "softmax 的雅可比矩阵是 diag(a) − a aᵀ。当一个权重接近 1、其余接近 0 时，它的每个元素都接近 0，几乎没有梯度传回 Q 和 K，学习就停滞了。缩放让梯度保持有效。",
    ),
    "sc_with": ("with ÷√d_k", "除以 √d_k"),
    "sc_without": ("without scaling", "不缩放"),
    "page_mistakes": ("Common mistakes", "常见错误"),
    "ms_title": (
        "Four common mistakes, and the check that catches each",
        "四个常见错误，以及发现它们的检查方法",
    ),
    "ms_intro": (
        "Each mistake below is computed on purpose from the same numbers as the walkthrough (head 0), next to the correct result.",
        "下面每个错误都是用与逐步演示相同的数（头 0）故意算出来的，旁边是正确结果。",
    ),
    "ms_axis_title": ("1. Softmax along the wrong axis", "1. softmax 沿错了轴"),
    "ms_axis_text": (
        "softmax(S, axis=0) normalises each column instead of each row. Check: every row of A must sum to 1. Here the columns do and the rows don't.",
        "softmax(S, axis=0) 对每一列归一化，而不是每一行。检查方法：A 的每一行之和必须是 1。这里是每一列之和为 1，行却不是。",
    ),
    "ms_transpose_title": ("2. A missing transpose", "2. 忘了转置"),
    "ms_transpose_text": (
        "Q K instead of Q Kᵀ. Check: the shapes. [n × d_k] @ [n × d_k] only fits when n = d_k, and the product has no meaning.",
        "把 Q Kᵀ 写成了 Q K。检查方法：看形状。[n × d_k] @ [n × d_k] 只有在 n = d_k 时才能相乘，而且乘出来的结果没有意义。",
    ),
    "ms_transpose_fits": (
        "Here n = d_k = {n}, so Q K runs without an error, and every number is wrong: only checking what each entry means (q_i · k_j) catches it.",
        "这里 n = d_k = {n}，所以 Q K 不会报错，但每个数都是错的：只有检查每一格的含义（q_i · k_j）才能发现。",
    ),
    "ms_order_title": ("3. Masking after the softmax", "3. softmax 之后才加掩码"),
    "ms_order_text": (
        "softmax first, then zero the hidden keys (causal mask here). Check: the row sums fall below 1 (every row but the last, which hides nothing), and the per-token loop, which only ever sees allowed keys, disagrees. Largest |wrong − loop| = {diff}.",
        "先 softmax 再把被遮住的键清零（这里用因果掩码）。检查方法：行和小于 1（最后一行没有被遮住的键，除外），而且只看允许的键的逐 token 循环给出的结果不同。最大差 |错误 − 循环| = {diff}。",
    ),
    "ms_dv_title": ("4. d_k and d_v mixed up", "4. 把 d_k 和 d_v 弄混"),
    "ms_dv_text": (
        "With d_k = {d_k} and d_v = {d_v}: dividing by √d_v instead of √d_k changes every weight (check: the per-token loop disagrees, largest difference {diff}); and giving W_O d_k·h rows instead of d_v·h makes the last product fail (check: shapes).",
        "当 d_k = {d_k}、d_v = {d_v} 时：除以 √d_v 而不是 √d_k 会改变每个权重（检查：逐 token 循环的结果不同，最大差 {diff}）；W_O 如果有 d_k·h 行而不是 d_v·h 行，最后一次乘法就会失败（检查：形状）。",
    ),
    "ms_wrong": ("Wrong", "错误"),
    "ms_right": ("Right", "正确"),
    "ms_col_sums": ("column sums: {sums}", "列和：{sums}"),
    "page_pe": ("Positional encoding", "位置编码"),
    "pe_title": (
        "Positional encoding: giving attention a sense of order",
        "位置编码：让注意力知道词序",
    ),
    "pe_intro": (
        "Attention compares every token with every other one, but nothing in Q Kᵀ says where a token stands. The sinusoidal encoding adds a fixed pattern per position: even columns are sines, odd columns cosines, each pair at its own frequency.",
        "注意力会把每个 token 和其他所有 token 比较，但 Q Kᵀ 里没有任何信息说明 token 在哪个位置。正弦位置编码为每个位置加上一个固定的模式：偶数列是正弦，奇数列是余弦，每一对列有自己的频率。",
    ),
    "pe_positions": ("positions shown", "显示的位置数"),
    "pe_width": ("d_model for this page", "本页使用的 d_model"),
    "pe_matrix": ("PE [{n} × {d}]", "PE [{n} × {d}]"),
    "pe_curves_title": ("Chosen columns along the positions", "所选的列随位置的变化"),
    "pe_dims": ("columns to draw", "要画的列"),
    "pe_position": ("position", "位置"),
    "pe_eval_title": ("The formula at one (pos, i)", "在某个 (pos, i) 处计算公式"),
    "pe_eval": (
        "angle = {pos} / 10000^({two_i}/{d}) = {angle}; PE[{pos}, {two_i}] = sin({angle}) = {sin}; PE[{pos}, {odd}] = cos({angle}) = {cos}. The matrix above holds exactly these values.",
        "角度 = {pos} / 10000^({two_i}/{d}) = {angle}；PE[{pos}, {two_i}] = sin({angle}) = {sin}；PE[{pos}, {odd}] = cos({angle}) = {cos}。上面的矩阵里正是这些值。",
    ),
    "pe_order_title": ("Word order: the same words, swapped", "词序：同样的词，换了位置"),
    "pe_order_text": (
        "Without positional encoding, the second sentence's output rows are exactly the first sentence's rows in a different order: attention cannot tell the two sentences apart. With it, the same word gets a different output in a different place.",
        "没有位置编码时，第二个句子的输出行与第一个句子完全相同，只是顺序不同：注意力分不清这两个句子。加上位置编码后，同一个词在不同位置会得到不同的输出。",
    ),
    "pe_row_a": ("position in sentence 1", "在句子 1 中的位置"),
    "pe_row_b": ("position in sentence 2", "在句子 2 中的位置"),
    "pe_diff_off": ("max |difference|, no PE", "最大差（无 PE）"),
    "pe_diff_on": ("max |difference|, with PE", "最大差（有 PE）"),
    "pe_pair": ("sentence pair", "句子对"),
    "pe_dims_hint": ("Pick at least one column.", "请至少选择一列。"),
    "page_cost": ("What parallelism buys", "并行带来了什么"),
    "co_title": (
        "What parallelism buys: an RNN chain against attention",
        "并行带来了什么：RNN 链与注意力",
    ),
    "co_intro": (
        "An RNN computes hₜ = tanh(hₜ₋₁ W_h + xₜ W_x): step t cannot start before step t − 1 ends, so information from token 0 reaches token n − 1 after n − 1 steps. Attention connects every pair of tokens in one matrix product: a path of length 1, every row at once, at the price of an n × n matrix.",
        "RNN 计算 hₜ = tanh(hₜ₋₁ W_h + xₜ W_x)：第 t 步必须等第 t − 1 步算完，所以 token 0 的信息要经过 n − 1 步才能到达 token n − 1。注意力用一次矩阵乘法连接每一对 token：路径长度为 1，所有行同时算出，代价是一个 n × n 的矩阵。",
    ),
    "co_path": (
        "Path length from the first token to the last: RNN {n_minus_1} sequential steps; attention 1 step.",
        "从第一个 token 到最后一个 token 的路径长度：RNN 需要 {n_minus_1} 个串行步骤；注意力只需 1 步。",
    ),
    "co_measure_title": ("Measured time and memory as n grows", "随 n 增长的实测时间和内存"),
    "co_measure_text": (
        "Attention (output only, float32) against two sequential loops: the RNN chain and the per-token attention loop (up to n = 1024). Memory is the peak allocated during one attention pass that keeps the weights A of every head.",
        "注意力（只算输出，float32）与两种串行循环比较：RNN 链和逐 token 的注意力循环（最多到 n = 1024）。内存是一次保留全部头的权重 A 的注意力计算中分配的峰值。",
    ),
    "co_measure": ("Measure (about 10 s)", "开始测量（约 10 秒）"),
    "co_measuring": ("Measuring n = {n} …", "正在测量 n = {n} …"),
    "co_not_measured": (
        "Press the button to measure on this server.",
        "点击按钮，在本服务器上测量。",
    ),
    "co_measured_at": (
        "Measured at {clock} (server clock, {ago} ago) for d_model = {d_model} and {heads} heads; this result is shared by {who}.",
        "测量于 {clock}（服务器时间，{ago}前），d_model = {d_model}、{heads} 个头；{who}共用这一结果。",
    ),
    "co_who_one": ("1 learner", "1 位学习者"),
    "co_who_many": ("{n} learners", "{n} 位学习者"),
    "co_ago_s": ("{s} s", "{s} 秒"),
    "co_ago_min": ("{m} min", "{m} 分钟"),
    "co_queued": (
        "The server measures one setting at a time: {ahead} measurement(s) run before this one.",
        "服务器一次只测一组设置：前面还有 {ahead} 个测量，之后轮到这一个。",
    ),
    "co_joined": (
        "Measuring n = {n} … ({who} waiting for this result)",
        "正在测量 n = {n} …（{who}在等这个结果）",
    ),
    "co_failed": (
        "The measurement did not finish ({error}). Press the button to try again.",
        "测量没有完成（{error}）。请再点一次按钮重试。",
    ),
    "co_disturb": (
        "One measurement runs at a time on this server, and everyone who presses the button meanwhile shares it; it is reused for 10 minutes. Other learners keep working while it runs, and their work can slow single passes down, so the seconds are a rough guide. Each n is timed in three sweeps and keeps its best time, which keeps the growth (the exponent) reliable: read that, not the absolute times.",
        "本服务器一次只进行一个测量，测量期间点击按钮的人共用同一结果，结果保留 10 分钟。测量时其他同学仍在使用服务器，他们的计算会让个别几次变慢，所以秒数只是大致参考。每个 n 都分三轮计时并取最快的一次，这样增长规律（指数）是可靠的：请看指数，而不是绝对时间。",
    ),
    "co_time": ("seconds per pass", "每次计算的秒数"),
    "co_memory": ("peak memory (MB)", "峰值内存（MB）"),
    "co_attention": ("attention on the CPU (NumPy)", "注意力，CPU（NumPy）"),
    "co_rnn": ("RNN chain (sequential)", "RNN 链（串行）"),
    "co_loop": ("attention, token by token", "注意力，逐 token"),
    "co_fit": (
        "Fitted growth over n = 512 … 4096: attention time ~ n^{time}, attention memory ~ n^{memory}; RNN time ~ n^{rnn}.",
        "在 n = 512 … 4096 上拟合：注意力时间 ~ n^{time}，注意力内存 ~ n^{memory}；RNN 时间 ~ n^{rnn}。",
    ),
    "co_train_title": (
        "Training in one pass, inference one token at a time",
        "训练一次算完，推理逐个 token",
    ),
    "co_train_text": (
        "Training sees the whole sentence, so a causal mask lets it compute every position in one pass. Generation does not have the future yet: at step t it projects only the new token, appends its key and value to a cache, and attends over the cache. The rows come out identical.",
        "训练时整句话都已知，用因果掩码就能一次算出所有位置。生成时还没有后面的词：第 t 步只对新 token 做投影，把它的键和值加入缓存，再对缓存做注意力。两种方式得到的行完全相同。",
    ),
    "co_full": ("Training: one pass with a causal mask", "训练：因果掩码下一次算完"),
    "co_incremental": (
        "Inference: token by token with a K/V cache",
        "推理：用 K/V 缓存逐个 token 计算",
    ),
    "co_same": ("Largest |difference| between the two: {diff}", "两者的最大差：{diff}"),
    "co_step": ("inference step t", "推理第 t 步"),
    "co_cache": (
        "K and V caches at step {t} (head 0): {rows} of {n} rows",
        "第 {t} 步的 K、V 缓存（头 0）：{rows} / {n} 行",
    ),
    "sc_hist_title": (
        "The same scores before and after dividing by √d_k, on one axis",
        "除以 √d_k 前后的同一批分数，画在同一个坐标轴上",
    ),
    "ms_dv_fix": (
        "Here the fix is not a transpose: W_O needs h·d_v = {rows} rows, one for each column of the concat.",
        "这里的改法不是转置：W_O 需要 h·d_v = {rows} 行，对应拼接结果的每一列。",
    ),
    "mh_diff_title": ("output(1 head) − output({h} heads)", "输出（1 个头）− 输出（{h} 个头）"),
    "own_mask_note": (
        "This page chooses its own mask; the sidebar's mask setting applies to the walkthrough.",
        "本页自己选择掩码；侧边栏的掩码设置只作用于逐步演示。",
    ),
    "co_wall_time": (
        "On a CPU with a tiny d_model, one attention pass can take longer than the whole RNN chain: it does n² work. What it buys is a path of length 1 between any two tokens and work that runs in parallel on wide hardware, where the chain's n steps must wait for each other.",
        "在 CPU 上、d_model 很小时，一次注意力计算可能比整条 RNN 链还慢：它要做 n² 的工作。注意力换来的是任意两个 token 之间长度为 1 的路径，以及能在并行硬件上同时执行的计算，而 RNN 链的 n 步只能一步等一步。",
    ),
    "cut_chars": ("Keep the first {limit} characters", "只保留前 {limit} 个字符"),
    "invisible_removed": (
        "{k} invisible character(s) (zero-width or control) were ignored.",
        "忽略了 {k} 个不可见字符（零宽字符或控制字符）。",
    ),
    "url_fixed": (
        "The link asked for {params}, which is not a valid setting; the default is used instead.",
        "链接中的 {params} 不是有效的设置，已改用默认值。",
    ),
    "unexpected_error": (
        "Something went wrong on this page. Your settings are kept: try another sentence or setting, or reload. If it happens again, please send the details below to your teacher or the developers.",
        "这个页面出了点问题。你的设置都还在：换一个句子或设置试试，或者刷新页面。如果再次出现，请把下面的详细信息发给老师或开发者。",
    ),
    "error_details": ("Details for a bug report", "错误详情（用于报告问题）"),
    "page_flash": ("FlashAttention's tiles", "FlashAttention 的分块"),
    "fl_title": ("Attention tile by tile: the online softmax", "分块计算注意力：在线 softmax"),
    "fl_intro": (
        "FlashAttention never stores the n × n matrix. It walks over the keys one tile at a time, keeping for every query row a running maximum m, a running sum l of e^(s − m) and an unnormalised output. When a tile brings a larger score, everything so far is multiplied by e^(m_old − m_new). At the end, dividing by l gives exactly softmax(S) V.",
        "FlashAttention 从不保存完整的 n × n 矩阵。它一次处理一块键，并为每个查询行维护三样东西：到目前为止的最大值 m、e^(s − m) 的累计和 l，以及尚未归一化的输出。当新的一块带来更大的分数时，之前的结果都乘以 e^(m_old − m_new)。最后除以 l，得到的正是 softmax(S) V。",
    ),
    "fl_tile": ("tile size (rows and columns)", "分块大小（行和列）"),
    "fl_step": ("step: query tile {qi}, key tile {kj}", "步骤：查询块 {qi}，键块 {kj}"),
    "fl_step_slider": ("step", "步骤"),
    "fl_scores": (
        "S / √d_k (head 0): the current tile is outlined",
        "S / √d_k（头 0）：当前块用方框标出",
    ),
    "fl_state": (
        "State of the rows in this query tile after this step",
        "这一步之后，当前查询块中各行的状态",
    ),
    "fl_row": ("row", "行"),
    "fl_m": ("running max m", "当前最大值 m"),
    "fl_l": ("running sum l", "累计和 l"),
    "fl_rescale": ("rescale e^(m_old − m_new)", "缩放因子 e^(m_old − m_new)"),
    "fl_partial": ("Output of this tile's rows so far", "当前块各行到目前为止的输出"),
    "fl_equal": (
        "After the last tile, largest |tiled − full| = {diff} (float64).",
        "最后一块算完后，|分块 − 完整| 的最大差 = {diff}（float64）。",
    ),
    "fl_memory_title": (
        "Peak memory: tiles against the full n × n",
        "峰值内存：分块与完整 n × n 的对比",
    ),
    "fl_memory_text": (
        "Measured with tracemalloc for one head (d_k = 64, float64, tiles of 64): the full computation grows like n², the tiled one like n.",
        "用 tracemalloc 测量单个头（d_k = 64，float64，块大小 64）：完整计算按 n² 增长，分块计算按 n 增长。",
    ),
    "fl_full": ("full n × n", "完整 n × n"),
    "fl_tiled": ("tiles of 64", "64 的分块"),
    "export_title": ("Download this view", "下载当前视图的数据"),
    "export_npz": ("All matrices (.npz)", "全部矩阵（.npz）"),
    "export_csv": ("All matrices (CSV files, zipped)", "全部矩阵（CSV 文件，zip 压缩）"),
    "export_png": (
        "Each chart's camera button (top right of the chart) saves it as PNG.",
        "每张图右上角的相机按钮可以把图保存为 PNG。",
    ),
    "download_tex": ("Download worksheet (LaTeX)", "下载计算单（LaTeX）"),
    "page_trained": ("A trained model", "训练好的模型"),
    "tr_title": ("Attention in a trained model", "训练好的模型里的注意力"),
    "tr_intro": (
        "Everything so far used random weights. Here the weights come from a real pretrained encoder, read from its own files and run by this app's NumPy code: the same Q, K, V, S, A and O as in the walkthrough, now with patterns the model learned.",
        "前面用的都是随机权重。这里的权重来自一个真正预训练过的编码器，直接从它自己的文件读取，用本应用的 NumPy 代码计算：和逐步演示里一样的 Q、K、V、S、A、O，但图案是模型学到的。",
    ),
    "tr_model": ("model", "模型"),
    "tr_missing": (
        "This model is not installed here. Install it with: {hint}",
        "这里没有安装这个模型。安装方法：{hint}",
    ),
    "tr_sentence": ("Sentence for the model", "给模型的句子"),
    "tr_layer": ("layer", "层"),
    "tr_head": ("head", "头"),
    "tr_pieces": (
        "The model's own pieces: how your words map onto them",
        "模型自己的分词结果：你的词如何对应到这些片段",
    ),
    "tr_word": ("word", "词"),
    "tr_its_pieces": ("pieces", "片段"),
    "tr_special": (
        "{start} and {end} are added by the model at the start and end.",
        "{start} 和 {end} 是模型在开头和结尾自动加上的。",
    ),
    "tr_vocab_note": (
        "This model's vocabulary has almost no Chinese: most Chinese characters become [UNK]. Choose multilingual-e5-small for Chinese.",
        "这个模型的词表几乎没有中文：大多数汉字会变成 [UNK]。中文请选择 multilingual-e5-small。",
    ),
    "tr_matrices": (
        "Layer {layer}, head {head}: the same steps as the walkthrough",
        "第 {layer} 层、第 {head} 个头：与逐步演示相同的步骤",
    ),
    "tr_bias_note": (
        "Q, K and V include the model's biases (X W + b). X is the layer's input; output bias and the rest of the layer (residual, LayerNorm, feed-forward) come after.",
        "Q、K、V 包含模型的偏置（X W + b）。X 是这一层的输入；输出偏置以及这一层的其余部分（残差、LayerNorm、前馈网络）在之后。",
    ),
    "tr_who_title": ("Which heads connect two pieces?", "哪些头把两个片段联系起来？"),
    "tr_query": ("query piece", "查询片段"),
    "tr_key": ("key piece", "键片段"),
    "tr_who": (
        "Weight from “{q}” to “{k}” in every layer and head",
        "每一层、每个头中“{q}”对“{k}”的权重",
    ),
    "tr_compare_title": (
        "Word order: two sentences, layer {layer}, head {head}",
        "词序：两个句子，第 {layer} 层、第 {head} 个头",
    ),
    "tr_second": ("Second sentence", "第二个句子"),
    "tr_about_minilm": (
        "**all-MiniLM-L6-v2**: an English BERT-style encoder with 6 layers, 12 heads, d_model 384 and d_k 32. Its vocabulary has almost no Chinese.",
        "**all-MiniLM-L6-v2**：一个英文的 BERT 类编码器，6 层、12 个头、d_model 384、d_k 32。它的词表几乎没有中文。",
    ),
    "tr_about_e5": (
        "**multilingual-e5-small**: an XLM-R encoder trained on about 100 languages, Chinese included, with 12 layers, 12 heads, d_model 384 and d_k 32. **Its weights are quantised to 4 bits**: each block of 32 weights shares one scale d, and each weight is one of 16 levels (q − 8)·d. This page turns them back into float32 and computes in float32, so the weights are close to the original model's but not identical.",
        "**multilingual-e5-small**：一个在约 100 种语言（包括中文）上训练的 XLM-R 编码器，12 层、12 个头、d_model 384、d_k 32。**它的权重被量化成了 4 位**：每 32 个权重共用一个缩放因子 d，每个权重只能取 16 个等级之一 (q − 8)·d。本页把它们还原成 float32 再用 float32 计算，所以权重接近原模型，但并不完全相同。",
    ),
    "model_minilm": ("all-MiniLM-L6-v2 (English)", "all-MiniLM-L6-v2（英文）"),
    "model_e5-small-q4": (
        "multilingual-e5-small, 4-bit (中文, English, …)",
        "multilingual-e5-small，4 位量化（中文、英文等）",
    ),
    "tr_metaspace": (
        "▁ stands for a space: a piece starting with ▁ starts a word, and a lone ▁ is the space in front of characters that got pieces of their own.",
        "▁ 表示空格：以 ▁ 开头的片段是一个词的开始；单独的 ▁ 是后面字符前面的那个空格，后面的字符各自成了片段。",
    ),
    "tr_strongest": (
        "Strongest: layer {layer}, head {head}, where “{q}” gives “{k}” a weight of {weight} (spread evenly over the {n} pieces it would be {even}).",
        "最强的是第 {layer} 层第 {head} 个头：“{q}”给“{k}”的权重是 {weight}（如果平均分给 {n} 个片段，每个只有 {even}）。",
    ),
    "tr_first": ("First sentence", "第一个句子"),
    "tr_sidebar_note": (
        "This page uses the trained model's own sentence and sizes; the sidebar's sentence and layer settings apply to the other pages.",
        "本页使用训练好的模型自己的句子和尺寸；侧边栏里的句子和注意力层设置只作用于其他页面。",
    ),
    "co_gpu": ("attention on the GPU (CuPy)", "注意力，GPU（CuPy）"),
    "co_gpu_from": (
        "Here the GPU is faster than the CPU from n = {n} on. Shorter sentences are computed on the CPU (below n = {limit}), where they are quicker.",
        "在这里，从 n = {n} 起 GPU 比 CPU 快。更短的句子（n < {limit}）放在 CPU 上算，那样更快。",
    ),
    "co_gpu_never": (
        "The GPU was not faster than the CPU at any n measured here.",
        "在这里测到的所有 n 上，GPU 都没有比 CPU 快。",
    ),
    "co_no_gpu": (
        "This server has no usable GPU, so attention is measured on the CPU (NumPy) only.",
        "这台服务器没有可用的 GPU，所以只测量 CPU（NumPy）上的注意力。",
    ),
    "co_recorded": (
        "For comparison, the same measurement on a GPU server ({device}, {cores} CPU cores), recorded by bench/gpu_timing.py on {date}. d_model = 512, 8 heads, output brought back to the CPU. The GPU was faster from n = {from_n} on.",
        "作为对比，这是在一台 GPU 服务器（{device}，{cores} 个 CPU 核）上的同一测量，由 bench/gpu_timing.py 于 {date} 记录。d_model = 512，8 个头，输出拷回 CPU。从 n = {from_n} 起 GPU 更快。",
    ),
    "co_col_cpu": ("CPU, NumPy (ms)", "CPU，NumPy（毫秒）"),
    "co_col_gpu": ("GPU, CuPy (ms)", "GPU，CuPy（毫秒）"),
    "co_col_ratio": ("GPU speed-up", "GPU 加速倍数"),
    "backend_numpy": ("NumPy (CPU)", "NumPy（CPU）"),
    "backend_cupy": ("CuPy (GPU)", "CuPy（GPU）"),
    "backend_short": (
        "a GPU is available, but a sequence shorter than {limit} tokens is faster on the CPU",
        "有可用的 GPU，但少于 {limit} 个 token 的序列在 CPU 上更快",
    ),
}

# InputError code -> (English, 中文) template over the error's params
ERRORS = {
    "empty_sentence": (
        "The sentence is empty: type at least one word.",
        "句子是空的：请至少输入一个词。",
    ),
    "too_many_tokens": (
        "The sentence has {n} tokens; this page shows at most {limit}. Shorten it, or keep the "
        "first {limit} tokens.",
        "这个句子有 {n} 个 token，本页最多显示 {limit} 个。请缩短句子，或只保留前 {limit} 个。",
    ),
    "too_long": (
        "The sentence has {n} characters; the limit is {limit}. Shorten it to use it here.",
        "这个句子有 {n} 个字符，上限是 {limit} 个。请缩短后再使用。",
    ),
    "unknown_mode": ("Unknown tokenizer mode {mode!r}.", "未知的分词方式 {mode!r}。"),
    "non_positive": (
        "{name} must be a positive whole number, not {value}.",
        "{name} 必须是正整数，而不是 {value}。",
    ),
    "heads_do_not_divide": (
        "d_model = {d_model} cannot be split evenly into {n_heads} heads. Pick a head count that "
        "divides d_model.",
        "d_model = {d_model} 不能平均分给 {n_heads} 个头。请选择能整除 d_model 的头数。",
    ),
    "non_finite": (
        "{name} contains {value}, which is not a finite number.",
        "{name} 中有 {value}，它不是有限的数。",
    ),
    "shape_mismatch": (
        "{left} @ {right}: inner dimensions {inner_left} and {inner_right} differ. Did you forget "
        "a transpose?",
        "{left} @ {right}：内侧维度 {inner_left} 和 {inner_right} 不相等。是不是忘了转置？",
    ),
    "bad_shape": (
        "{name} should have shape {expected}, not {actual}.",
        "{name} 的形状应为 {expected}，而不是 {actual}。",
    ),
    "overflow": (
        "The numbers are too large for {dtype}: {step} has a value beyond ±{limit:.3g}, so the "
        "steps after it would only show inf and NaN. Use smaller inputs or weights.",
        "数值太大，超出了 {dtype} 能表示的范围：{step} 中有超过 ±{limit:.3g} 的值，之后的步骤"
        "只会得到 inf 和 NaN。请使用更小的输入或权重。",
    ),
    "unknown_model": (
        "Unknown model {name!r}; choose one of {models}.",
        "未知的模型 {name!r}；可选：{models}。",
    ),
    "bad_dtype": ("Unsupported number type {dtype!r}.", "不支持的数值类型 {dtype!r}。"),
    "model_missing": (
        "The model package {package!r} is not installed: {hint}",
        "没有安装模型包 {package!r}：{hint}",
    ),
}


def current_lang() -> str:
    lang = st.session_state.get("lang")
    return lang if lang in LANGS else "en"


def t(key: str, lang: str | None = None, **params) -> str:
    """The string ``key`` in ``lang`` (default: the session's language), formatted with params."""
    text = STRINGS[key][LANGS.index(lang or current_lang())]
    return text.format(**params) if params else text


def error_text(error, lang: str | None = None) -> str:
    """The learner-facing message of an InputError in ``lang``."""
    template = ERRORS.get(error.code)
    if template is None:
        return str(error)
    return template[LANGS.index(lang or current_lang())].format(**error.params)


def labeller(prefix: str):
    """A format_func for coded choices: code -> t(f"{prefix}_{code}") in this run's language.

    The language is fixed now, because Streamlit may call the function after the run ends.
    """
    lang = current_lang()
    return lambda code: t(f"{prefix}_{code}", lang)
