"""FlashAttention's tiles: the same A V, tile by tile, with the online softmax; memory against n."""

from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import flash
from ui.work.traces import trace_or_stop

settings = current()
page_header()
data = trace_or_stop(settings)
flash.tiles(data, settings)
flash.memory()
