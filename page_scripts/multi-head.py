"""Multi-head: the split into heads drawn explicitly, every head's A, the concat and W_O."""

from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import multi_head
from ui.work.traces import trace_or_stop

settings = current()
page_header()
data = trace_or_stop(settings)
multi_head.split(data, settings)
multi_head.every_head(data, settings)
multi_head.one_wide_head(data, settings)
