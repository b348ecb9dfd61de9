"""Record Hugging Face transformers' SmolLM2-135M-Instruct (torch, CPU) on the same GGUF as the app
reads, as a fixture for tests/core/test_smollm2.py: the token ids of STRINGS, at every position of
PROMPTS the top 20 logits and the greedy continuation, and for ATTENTION_PROMPT the attention
weights of the first and the last layer (eager attention, float32). Run once, with torch==2.13.0,
transformers and accelerate installed (none of them is needed at run time):

    .venv/bin/python bench/make_smollm2_reference.py
"""

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "core" / "reference" / "smollm2_135m.json"
OUT_ATTENTION = OUT.with_name("smollm2_135m_attention.npz")
STRINGS = [
    "今天天气很好，我们一起去", "猫坐在", "The cat sat on the", "自注意力机制", "Hello, world!",
    "  two  spaces   and three", "3.14159 × 2 = 6.28", "emoji 🙂👍🏽 and 🇨🇳",
    "def f(x):\n    return x ** 2", "<div class=\"a\">x</div>", "naïve café résumé",
    "日本語とEnglishのmix", "line one\n\nline two\t\ttabbed", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔣𝔬𝔫𝔱",
    "ﾊﾝｶｸ and ｆｕｌｌ　ｗｉｄｔｈ", "1234567890", "a", "", "Attention is all you need.",
    "这 部 电影 很 好看", "I'm sure they'll say it's John's, don't you?", " leading", "trailing  ",
    "tabs\tand\nnewlines\n", "x1y22z333", "¼ ½ Ⅻ ², ٣",
]  # fmt: skip
PROMPTS = ["The capital of France is", "今天天气很好，我们一起去", "One, two, three, four,"]
TOP = 20
ATTENTION_PROMPT = "The cat sat on the mat because it was tired"


def main() -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from core.decoder import MODELS

    model_info = MODELS["smollm2-135m"]
    path = model_info.find(model_info.package)[0]
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, torch_dtype=torch.float32, attn_implementation="eager"
    ).eval()
    record = {"model": path.name, "transformers": __import__("transformers").__version__,
              "torch": torch.__version__, "ids": {}, "prompts": {}}  # fmt: skip
    for text in STRINGS:
        record["ids"][text] = tokenizer(text)["input_ids"]
    for prompt in PROMPTS:
        ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            logits = model(ids).logits[0]  # [n, vocab]
            top = torch.topk(logits, TOP, dim=-1)
            out = model.generate(ids, max_new_tokens=12, do_sample=False)
        record["prompts"][prompt] = {
            "ids": ids[0].tolist(),
            "top_ids": top.indices.tolist(),
            "top_logits": [[round(float(v), 5) for v in row] for row in top.values],
            "greedy": out[0, ids.shape[1] :].tolist(),
        }
    ids = tokenizer(ATTENTION_PROMPT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        attentions = model(ids, output_attentions=True).attentions  # per layer [1, h, n, n]
    np.savez_compressed(OUT_ATTENTION, ids=ids[0].numpy(), first=attentions[0][0].numpy(),
                        last=attentions[-1][0].numpy())  # fmt: skip
    OUT.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} and {OUT_ATTENTION.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
