"""The hand check's worksheet as one standalone HTML file that the learner prints to PDF.

It needs nothing installed: no TeX, no fonts of ours. The browser uses the reader's own fonts
(common CJK fonts first, then any sans-serif) and its print dialog makes the PDF; the answer
key starts on a page of its own.
"""

import html

FONTS = (
    '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
    '"Microsoft YaHei", "WenQuanYi Micro Hei", "Noto Sans", "Segoe UI", Arial, sans-serif'
)

STYLE = f"""
@page {{ size: A4; margin: 15mm; }}
body {{ font-family: {FONTS}; font-size: 11pt; line-height: 1.45; color: #111;
       max-width: 48em; margin: 1.5em auto; padding: 0 1em; }}
h1 {{ font-size: 16pt; margin: 0 0 .4em; }}
h2 {{ font-size: 13pt; margin: 1em 0 .4em; }}
.answers {{ break-before: page; page-break-before: always; font-size: 10pt; line-height: 1.35; }}
.worked {{ break-inside: avoid; }}
.worked p {{ margin: .5em 0 .1em; }}
.grid {{ display: flex; flex-wrap: wrap; gap: .6em 1.6em; align-items: flex-start; }}
figure {{ margin: .3em 0; break-inside: avoid; }}
figcaption {{ font-weight: 600; margin-bottom: .2em; }}
table {{ border-collapse: collapse; font-variant-numeric: tabular-nums; }}
th, td {{ border: 1px solid #999; padding: .15em .55em; text-align: right; }}
th {{ background: #f1f1f1; font-weight: 600; }}
td.blank {{ width: 4.2em; height: 1.9em; }}
th {{ white-space: nowrap; }}
@media (max-width: 30em) {{ td.blank {{ width: 2.6em; }} }}
ul, ol {{ padding-left: 1.3em; margin: .2em 0 .6em; }}
li {{ break-inside: avoid; }}
.noprint button {{ font: inherit; padding: .3em 1em; }}
@media print {{ .noprint {{ display: none; }} body {{ margin: 0; max-width: none; }} }}
"""


def _figure(caption: str, header, rows, blank: bool = False) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        if blank:  # a row label, then empty cells to write in
            cells = '<td class="blank"></td>' * (len(header) - 1)
            body.append(f"<tr><th>{html.escape(row)}</th>{cells}</tr>")
        else:
            cells = "".join(f"<td>{html.escape(c)}</td>" for c in row[1:])
            body.append(f"<tr><th>{html.escape(row[0])}</th>{cells}</tr>")
    return (
        f"<figure><figcaption>{html.escape(caption)}</figcaption>"
        f"<table><tr>{head}</tr>{''.join(body)}</table></figure>"
    )


def _inline(text: str) -> str:
    """Escaped text; the **bold** that worked rows use for results becomes <b>."""
    parts = html.escape(text).split("**")
    return "".join(f"<b>{p}</b>" if k % 2 else p for k, p in enumerate(parts))


def worksheet_html(blocks, lang: str, print_label: str) -> str:
    """The blocks of ui.views.hand_check.text.worksheet_blocks as a printable HTML document."""
    out, grid = [], []

    def flush():
        if grid:
            out.append(f'<div class="grid">{"".join(grid)}</div>')
            grid.clear()

    first_heading = True
    for block in blocks:
        kind = block[0]
        if kind in ("table", "blank"):
            grid.append(_figure(*block[1:], blank=kind == "blank"))
            continue
        flush()
        if kind == "h":
            tag = "h1" if first_heading else "h2"
            out.append(f"<{tag}>{html.escape(block[1])}</{tag}>")
            first_heading = False
        elif kind == "p":
            out.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "list":
            # the steps, numbered as on the page
            out.append("<ol>" + "".join(f"<li>{_inline(x)}</li>" for x in block[1]) + "</ol>")
        elif kind == "worked":
            items = "".join(f"<li>{_inline(x)}</li>" for x in block[2])
            out.append(
                f'<div class="worked"><p><b>{_inline(block[1])}</b></p><ul>{items}</ul></div>'
            )
        elif kind == "answers":
            out.append('</section><section class="answers">')
    flush()
    title = html.escape(blocks[0][1])
    button = html.escape(print_label)
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n'
        f'<meta charset="utf-8">\n<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n'
        f'<body>\n<p class="noprint"><button onclick="window.print()">{button}</button></p>\n'
        f"<section>{''.join(out)}</section>\n</body>\n</html>\n"
    )
