#!/bin/sh
# embed.sh SYMBOL FILE — prints a C file defining `const char SYMBOL[]` with FILE's
# bytes, so data files (the GPU catalog, calibration constants) ship inside the
# binary and a fresh clone needs no install step. Used by the Makefile.
set -eu
sym=$1; file=$2
printf '/* generated from %s by scripts/embed.sh: edit the data file, not this */\n' "$file"
printf 'const char %s[] =\n' "$sym"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$file"
printf '    "";\n'
