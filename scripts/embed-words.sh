#!/bin/sh
# Turns a word list (one word a line, '#' comments) on stdin into a C array named $1,
# so the built-in stop-word list needs no file at run time.
name=${1:?usage: embed-words.sh NAME < words.txt}
echo "/* generated from a word list by scripts/embed-words.sh; do not edit */"
echo "#include <stddef.h>"
echo "const char *const ${name}[] = {"
sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' -e 's/[\\"]/\\&/g' -e 's/.*/    "&",/'
echo "};"
echo "const size_t ${name}_count = sizeof ${name} / sizeof ${name}[0];"
