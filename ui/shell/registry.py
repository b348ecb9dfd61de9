"""The app's pages: the one table that app.py, the AppTests, the e2e tests and the benchmarks read.

Adding a page means one row here, its script in pages/, and its strings.
"""

from dataclasses import dataclass

from ui.kit.settings import LAYER


@dataclass(frozen=True)
class PageEntry:
    script: str  # pages/<script>.py
    url: str  # the address path; "" is the home page at "/"
    nav_key: str  # its name in the navigation (a string key)
    title_key: str  # its heading on the page
    icon: str
    section: str  # the navigation group (a string key)
    charts: int  # charts it draws with the default settings (the e2e tests wait for them)
    query: str = ""  # extra URL settings for the e2e visit, e.g. "n_heads=4"
    unused: tuple = ()  # sidebar settings (URL keys) this page does not read: set aside there
    intro: bool = True  # under its heading, its introduction (the title's key, _title -> _intro)

    @property
    def intro_key(self) -> str | None:
        return self.title_key.removesuffix("_title") + "_intro" if self.intro else None


PAGES = (
    PageEntry("walkthrough", "", "page_walkthrough", "app_title", ":material/stairs:", "section_basics", 1, intro=False),
    PageEntry("loop-vs-matrix", "loop-vs-matrix", "page_loop", "loop_title", ":material/repeat:", "section_basics", 3),
    PageEntry("hand-check", "hand-check", "page_hand", "hand_title", ":material/edit_note:", "section_basics", 0, unused=LAYER),
    PageEntry("multi-head", "multi-head", "page_multihead", "mh_title", ":material/view_column:", "section_deeper", 10, "n_heads=4"),
    PageEntry("projections", "projections", "page_projections", "pj_title", ":material/join_inner:", "section_deeper", 6, unused=("mask",)),
    PageEntry("masks", "masks", "page_masks", "mk_title", ":material/grid_on:", "section_deeper", 7, unused=("sentence", "mask")),
    PageEntry("scaling", "scaling", "page_scaling", "sc_title", ":material/expand:", "section_deeper", 4, unused=LAYER),
    PageEntry("mistakes", "mistakes", "page_mistakes", "ms_title", ":material/bug_report:", "section_deeper", 8),
    PageEntry("positional-encoding", "positional-encoding", "page_pe", "pe_title", ":material/timeline:", "section_deeper", 2, unused=("sentence", "mode", "pe", "mask")),
    PageEntry("cost", "cost", "page_cost", "co_title", ":material/speed:", "section_deeper", 3),
    PageEntry("flash", "flash", "page_flash", "fl_title", ":material/grid_view:", "section_deeper", 4),
    PageEntry("generate", "generate", "page_generate", "gen_title", ":material/history_edu:", "section_deeper", 3, unused=LAYER),
    PageEntry("trained", "trained", "page_trained", "tr_title", ":material/school:", "section_deeper", 9, unused=LAYER),
    PageEntry("lessons", "lessons", "page_lessons", "lessons_title", ":material/menu_book:", "section_class", 0, unused=LAYER, intro=False),
    PageEntry("room", "room", "page_room", "room_title", ":material/groups:", "section_class", 0),
)  # fmt: skip


def by_script(script: str) -> PageEntry:
    return next(page for page in PAGES if page.script == script)


def by_url(url: str) -> PageEntry:
    return next((page for page in PAGES if page.url == url), PAGES[0])
