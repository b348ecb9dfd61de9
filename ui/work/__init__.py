"""The server's shared work, done once and kept for every session: the attention traces the
pages draw (traces.py), each decoder's background load (model_load.py), the pages' turns at the
cores (model_turns.py), and the model pages' passes: /generate's writing (decoding.py) and
/inside's reading of the stream and the heads (reading_passes.py)."""
