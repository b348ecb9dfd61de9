"""llama.cpp on a GGUF, timed as bench/two_decoders.py times ours: the prefill of the given ids
and one cached token's step after n − 1 of them. Runs in the bench's own environment, with
llama-cpp-python built from its PyPI source (never an app dependency):

    python3 -m venv /tmp/llvenv && /tmp/llvenv/bin/pip install llama-cpp-python==0.3.36
    /tmp/llvenv/bin/python bench/llama_cpp_timing.py MODEL.gguf IDS.json 16,128,512

It prints one line of JSON: {"prefill": seconds, "step": {n: seconds}}, each the best of a few.
"""

import json
import sys
import time

from llama_cpp import Llama


def main() -> None:
    path, ids_file, lengths = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3].split(",")]
    ids = json.loads(open(ids_file).read())
    llm = Llama(model_path=path, n_ctx=1024, n_batch=512, n_threads=2, n_threads_batch=2,
                logits_all=False, verbose=False)  # fmt: skip
    prefill = []
    for _ in range(2):
        llm.reset()
        start = time.perf_counter()
        llm.eval(ids)
        prefill.append(time.perf_counter() - start)
    step = {}
    for n in lengths:
        llm.reset()
        llm.eval(ids[: n - 1])
        times = []
        for k in range(4):  # the next tokens, one at a time (the cache grows by at most 3)
            start = time.perf_counter()
            llm.eval([ids[n - 1 + k]])
            times.append(time.perf_counter() - start)
        step[n] = min(times)
    print(json.dumps({"prefill": min(prefill), "step": step}))


if __name__ == "__main__":
    main()
