#!/bin/sh
# Makes a corpus with a few very long documents among short ones from a UCI docword file, by
# merging runs of consecutive input documents: the first SIZES[0] documents become document
# 1, the next SIZES[1] document 2, ..., the rest stay as they are. Tokens and vocabulary are
# the input's. (The UCI reader accepts a (document, word) pair on several lines.)
# usage: scripts/merge-documents.sh DOCWORD[.gz] OUT.txt.gz N1,N2,...|every:N
#   e.g. 14000,14000,1400 on wiki43k: two documents of about 1 M tokens, one of 100 K;
#   every:12: every run of 12 documents one (wiki43k: 3,630 documents of about 840 tokens).
set -eu
in=${1:?usage: merge-documents.sh DOCWORD OUT.txt.gz N1,N2,...}
out=${2:?usage}
sizes=${3:?usage}
cat_in() { case "$in" in *.gz) gzip -dc "$in" ;; *) cat "$in" ;; esac; }
cat_in | awk -v sizes="$sizes" '
    BEGIN { every = sizes ~ /^every:/ ? substr(sizes, 7) + 0 : 0
            n = every ? 0 : split(sizes, s, ","); total = 0
            for (i = 1; i <= n; i++) { bound[i] = total + s[i]; total += s[i] } }
    NR == 1 { print every ? int(($1 + every - 1) / every) : $1 - total + n; next }
    NR <= 3 { print; next }
    NF == 3 {
        d = $1
        if (every) nd = int((d - 1) / every) + 1
        else if (d <= total) { for (i = 1; d > bound[i]; i++) ; nd = i }
        else nd = d - total + n
        print nd, $2, $3
    }' | gzip -1 > "$out"
