"""The app's pages, in the navigation's order: the one list that app.py, the tests and the
benchmarks read."""

# (script, url path, title key, icon); the first is the home page at "/"
SECTIONS = {
    "section_basics": [
        ("walkthrough", "", "page_walkthrough", ":material/stairs:"),
        ("loop-vs-matrix", "loop-vs-matrix", "page_loop", ":material/repeat:"),
        ("hand-check", "hand-check", "page_hand", ":material/edit_note:"),
    ],
    "section_deeper": [
        ("multi-head", "multi-head", "page_multihead", ":material/view_column:"),
        ("masks", "masks", "page_masks", ":material/grid_on:"),
        ("scaling", "scaling", "page_scaling", ":material/expand:"),
        ("mistakes", "mistakes", "page_mistakes", ":material/bug_report:"),
        ("positional-encoding", "positional-encoding", "page_pe", ":material/timeline:"),
        ("cost", "cost", "page_cost", ":material/speed:"),
        ("flash", "flash", "page_flash", ":material/grid_view:"),
        ("trained", "trained", "page_trained", ":material/school:"),
    ],
}
