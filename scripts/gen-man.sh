#!/bin/sh
# Writes the man page ldagpu(1) on stdout: man/ldagpu.1.in with every command's usage,
# summary and options taken from the binary's own --help (which the option tables in
# src/cli/cmd_*.c write), so the page cannot drift from the program.
#   scripts/gen-man.sh BINARY > ldagpu.1
set -eu
bin=${1:?usage: gen-man.sh BINARY}
here=$(dirname "$0")
version=$("$bin" --version | sed 's/^ldagpu //')
commands=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')


page_commands() {
    for c in $commands; do
        "$bin" "$c" --help | awk '
            function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
            NR == 1 { sub(/^usage: /, ""); printf ".SS \"%s\"\n", esc($0); state = "summary"; next }
            state == "summary" && /^options:$/ { state = "options"; next }
            state == "summary" { if ($0 == "") { if (text) print ".PP"; } else { line = esc($0); sub(/^[.'"'"']/, "\\\\\\&&", line); print line; text = 1 } next }
            state == "options" && /^$/ { state = "notes"; next }
            state == "notes" { if ($0 == "") print ".PP"; else { line = esc($0); sub(/^[.'"'"']/, "\\\\\\&&", line); if (!notes++) print ".PP"; print line } next }
            state == "options" && /^                                     [^ ]/ {
                # a named choice of the option above
                name = $1; help = $0; sub(/^ +[^ ]+ +/, "", help)
                printf ".RS\n.TP 14\n.B %s\n%s\n.RE\n", esc(name), esc(help); next }
            state == "options" {
                line = $0; sub(/^  /, "", line)
                short = ""
                if (line ~ /^-[^-], /) { short = substr(line, 1, 2); line = substr(line, 5) } else sub(/^ +/, "", line)
                split(line, w, " "); long = w[1]; rest = substr(line, length(long) + 1)
                arg = ""
                if (rest ~ /^ [^ ]/) { sub(/^ /, "", rest); arg = rest; sub(/ .*/, "", arg); rest = substr(rest, length(arg) + 1) }
                sub(/^ +/, "", rest)
                bs = "\\"
                printf ".TP\n"
                if (short != "") printf "%sfB%s%sfR, ", bs, esc(short), bs
                printf "%sfB%s%sfR", bs, esc(long), bs
                if (arg != "") printf " %sfI%s%sfR", bs, esc(arg), bs
                printf "\n%s\n", esc(rest)
            }'
    done
}

# Through the environment: awk -v would read the backslashes of roff as escapes.
LDAGPU_MAN_BODY=$(page_commands) LDAGPU_MAN_VERSION=$version awk '
    /^@COMMANDS@$/ { print ENVIRON["LDAGPU_MAN_BODY"]; next }
    { gsub(/@VERSION@/, ENVIRON["LDAGPU_MAN_VERSION"]); print }' "$here/../man/ldagpu.1.in"
