#!/usr/bin/env python3
"""malformed-table.py — the rows of tests/test_malformed.c as a Markdown table.

Prints one line a row (the input, the command, the status and the line it must print) for
docs/malformed-input.md, whose second part is this output:
  python3 scripts/malformed-table.py > /tmp/rows.md   (then paste it between the markers)
tests/test_malformed.c checks that every row's name is in that document."""
import re
import sys

MACROS = {"TRAIN": '"train %D/c -K 2 -n 1 --device cpu -o %D/out "'}


def c_strings(expr):
    """The value of a C expression made of string literals (and known macros), or None."""
    for name, text in MACROS.items():
        expr = re.sub(r"\b%s\b" % name, text, expr)
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', expr)
    if not parts:
        return None
    raw = "".join(parts)
    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|.)", lambda m: {"n": "\\n", "t": "\\t", "\\": "\\", '"': '"'}.get(
        m.group(1), "\\" + m.group(1)), raw)


def scan(text):
    """Each character of C source with the brace depth before it, outside string literals
    (inside one, depth is None)."""
    depth, in_str, esc = 0, False, False
    for ch in text:
        if in_str:
            yield ch, None
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        in_str = ch == '"'
        yield ch, depth
        depth += (ch == "{") - (ch == "}")


def fields(row):
    """Top-level comma-separated fields of a row's braces."""
    out, cur = [], ""
    for ch, depth in scan(row[1:-1]):
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def rows(source):
    start = source.index("static malformed rows[] = {") + len("static malformed rows[] = {")
    body = re.sub(r"/\*.*?\*/", "", source[start:source.index("\n};", start)], flags=re.S)
    cur = ""
    for ch, depth in scan(body):
        if depth == 0 and ch == "{":
            cur = ""
        if depth != 0 or ch == "{":
            cur += ch
        if depth == 1 and ch == "}":
            yield fields(cur)


def cell(text):
    return "`%s`" % text.replace("|", "\\|") if text else ""


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/test_malformed.c"
    print("| Input | Command | Status | The line it prints (contains) |")
    print("|---|---|---|---|")
    for f in rows(open(path, encoding="utf-8").read()):
        what, args, status, needle = c_strings(f[0]), c_strings(f[5]), f[6], c_strings(f[7])
        print("| %s | %s | %s | %s |" % (what, cell("ldagpu " + (args or "").strip()), status, cell(needle)))


main()
