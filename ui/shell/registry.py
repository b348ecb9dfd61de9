"""The app's pages: the one table that app.py, the AppTests, the e2e tests and the benchmarks read.

Adding a page means one row here, its script in page_scripts/, and its strings.
"""

from dataclasses import dataclass

from ui.kit.settings import LAYER

# The page scripts' folder, beside app.py. Not "pages/": Streamlit keeps its first multipage mode
# for a folder of that name, in which a fresh server's first sessions ran a page's script alone,
# before app.py and its imports (issue 54: 30-50 of 60 first runs failed on `streamlit run app.py`).
SCRIPTS = "page_scripts"


def script_path(script: str) -> str:
    """A page's script, relative to app.py, as st.switch_page and st.page_link take it."""
    return f"{SCRIPTS}/{script}.py"


@dataclass(frozen=True)
class PageEntry:
    script: str  # page_scripts/<script>.py
    url: str  # the address path; "" is the home page at "/"
    nav_key: str  # its name in the navigation (a string key)
    title_key: str  # its heading on the page
    icon: str
    section: str  # the navigation group (a string key)
    charts: int  # charts it draws with the default settings (the e2e tests wait for them)
    query: str = ""  # extra URL settings for the e2e visit, e.g. "n_heads=4"
    unused: tuple = ()  # sidebar settings (URL keys) this page does not read: set aside there
    intro: bool = True  # under its heading, its introduction (the title's key, _title -> _intro)
    class_view: bool = True  # a teacher here shows it to the class (the room page: their desk)
    model: bool = False  # it runs Gemma: a visit starts the model's load (ui/work/model_load.py)

    @property
    def intro_key(self) -> str | None:
        return self.title_key.removesuffix("title") + "intro" if self.intro else None


PAGES = (
    PageEntry("walkthrough", "", "shell.page_walkthrough", "shell.app_title", ":material/stairs:", "shell.section_basics", 1, intro=False),
    PageEntry("loop-vs-matrix", "loop-vs-matrix", "shell.page_loop", "loop_vs_matrix.loop_title", ":material/repeat:", "shell.section_basics", 3),
    PageEntry("hand-check", "hand-check", "shell.page_hand", "hand_check.hand_title", ":material/edit_note:", "shell.section_basics", 0, unused=LAYER),
    PageEntry("practice", "practice", "practice.page_practice", "practice.title", ":material/keyboard:", "shell.section_basics", 0),
    PageEntry("multi-head", "multi-head", "shell.page_multihead", "multi_head.title", ":material/view_column:", "shell.section_deeper", 10, "n_heads=4"),
    PageEntry("projections", "projections", "projections.page_projections", "projections.title", ":material/join_inner:", "shell.section_deeper", 6, unused=("mask",)),
    PageEntry("masks", "masks", "shell.page_masks", "masks.title", ":material/grid_on:", "shell.section_deeper", 7, unused=("sentence", "mask")),
    PageEntry("scaling", "scaling", "shell.page_scaling", "scaling.title", ":material/expand:", "shell.section_deeper", 4, unused=LAYER),
    PageEntry("mistakes", "mistakes", "shell.page_mistakes", "mistakes.title", ":material/bug_report:", "shell.section_deeper", 8),
    PageEntry("positional-encoding", "positional-encoding", "shell.page_pe", "positional_encoding.title", ":material/timeline:", "shell.section_deeper", 2, unused=("sentence", "mode", "pe", "mask")),
    PageEntry("cost", "cost", "shell.page_cost", "cost.title", ":material/speed:", "shell.section_deeper", 3),
    PageEntry("flash", "flash", "shell.page_flash", "flash.title", ":material/grid_view:", "shell.section_deeper", 4),
    PageEntry("generate", "generate", "generate.page_generate", "generate.title", ":material/history_edu:", "shell.section_deeper", 3, unused=LAYER, model=True),
    PageEntry("inside", "inside", "inside.page_inside", "inside.title", ":material/neurology:", "shell.section_deeper", 9, unused=LAYER, model=True),
    PageEntry("train", "train", "train.page_train", "train.title", ":material/model_training:", "shell.section_deeper", 7, unused=LAYER),
    PageEntry("trained", "trained", "shell.page_trained", "trained.title", ":material/school:", "shell.section_deeper", 9, unused=LAYER),
    PageEntry("lessons", "lessons", "lessons.page_lessons", "lessons.lessons_title", ":material/menu_book:", "room.section_class", 0, unused=LAYER, intro=False),
    PageEntry("room", "room", "room.page_room", "room.title", ":material/groups:", "room.section_class", 0, class_view=False),
)  # fmt: skip


def by_script(script: str) -> PageEntry:
    return next(page for page in PAGES if page.script == script)


def by_url(url: str) -> PageEntry:
    return next((page for page in PAGES if page.url == url), PAGES[0])
