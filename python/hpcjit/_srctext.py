"""Dedenting a function's source lines as the front end needs them.

textwrap.dedent removes the whitespace common to every line, and a line
continued inside brackets may start at any column, even 0: the common
prefix is then empty and the def keeps its indentation, which no parser
accepts.  Here the amount is the first code line's indentation, taken off
every line that starts with it; a line indented less is a continuation
line (or a string's text), where indentation means nothing, and is kept."""


def dedent(text):
    """`text` with its first code line's indentation taken off each line
    that has it, and the number of columns taken off."""
    lines = text.splitlines(True)
    prefix = ""
    for ln in lines:
        if ln.strip():
            prefix = ln[:len(ln) - len(ln.lstrip(" \t"))]
            break
    if not prefix:
        return text, 0
    n = len(prefix)
    return "".join(ln[n:] if ln.startswith(prefix) else ln.lstrip(" \t") if not ln.strip() else ln
                   for ln in lines), n
