"""core.tiny: a small attention-only decoder trained in pure NumPy, backward pass written by hand.

    params = init(seed, vocab, n_ctx, d_model, n_heads, n_layers)
    loss, grads = loss_and_grads(params, tokens, n_heads)        # tokens [b, n]; grads: same keys
    for p in train(None, "repeat"): ...                           # Progress per step

model.py the parameters, forward.py the forward pass, backward.py its gradients, adam.py the
optimizer, tasks.py the tasks (TASKS), scores.py the heads' scores, train.py the training loop.
"""

from core.tiny.adam import AdamState, adam_init, adam_step
from core.tiny.backward import BackwardTrace, LayerGrads, backward_trace, loss_and_grads
from core.tiny.forward import Forward, LayerTrace, forward
from core.tiny.model import init
from core.tiny.scores import induction_score, previous_token_score
from core.tiny.tasks import TASKS, Batch, Task, make_batch, probe
from core.tiny.train import Progress, head_step, init_for, loss_drop_step, train

__all__ = [
    "TASKS",
    "AdamState",
    "BackwardTrace",
    "Batch",
    "Forward",
    "LayerGrads",
    "LayerTrace",
    "Progress",
    "Task",
    "adam_init",
    "adam_step",
    "backward_trace",
    "forward",
    "head_step",
    "induction_score",
    "init",
    "init_for",
    "loss_and_grads",
    "loss_drop_step",
    "make_batch",
    "previous_token_score",
    "probe",
    "train",
]
