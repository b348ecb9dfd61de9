"""Room: open a live room the class follows, or join one with its code."""

from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import room as room_page

current()  # the sidebar's settings (and, on a server's first visit, app.py's routing)
page_header()
room_page.store_notice()
room_page.open_a_room()
room_page.join_a_room()
