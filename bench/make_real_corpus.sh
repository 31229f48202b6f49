#!/usr/bin/env bash
# Builds a real-text corpus (~60 000 documents) from the Debian package descriptions:
# one document per binary package = its short description line plus the long description
# (continuation lines, with the " ." paragraph markers removed), imported with
# `dplda import-text --vocab 8000`.
#
#   bench/make_real_corpus.sh DPLDA_BINARY OUT_DIR [VOCAB]
#
# Writes OUT_DIR/descriptions.txt (one document per line) and the UCI files in OUT_DIR/corpus
# (the VOCAB most frequent words: --vocab-from-counts).
# `apt-cache dumpavail` lists the packages; on Debian its Packages indexes carry only the
# short description (plus Description-md5) and the long text lives in the Translation-en
# indexes, which Docker images usually do not download (Acquire::Languages "none"). Then this
# script runs `apt-get update -o Acquire::Languages=en` once to fetch them (~7 MB).
set -euo pipefail

DPLDA=${1:?usage: make_real_corpus.sh DPLDA_BINARY OUT_DIR [VOCAB]}
OUT=${2:?usage: make_real_corpus.sh DPLDA_BINARY OUT_DIR [VOCAB]}
VOCAB=${3:-8000}
LISTS=/var/lib/apt/lists
mkdir -p "$OUT"

if [ -z "$(apt-cache dumpavail 2>/dev/null | head -c 1)" ]; then
  echo "apt-cache dumpavail printed nothing: running apt-get update" >&2
  apt-get update -qq >&2
fi
if ! ls "$LISTS"/*_i18n_Translation-en* >/dev/null 2>&1; then
  echo "no Translation-en index: running apt-get update -o Acquire::Languages=en" >&2
  apt-get update -qq -o Acquire::Languages=en >&2 || true
fi

TRANSLATIONS="$OUT/translation-en.txt"
: > "$TRANSLATIONS"
for f in "$LISTS"/*_i18n_Translation-en*; do
  [ -e "$f" ] || continue
  /usr/lib/apt/apt-helper cat-file "$f" >> "$TRANSLATIONS"
  echo >> "$TRANSLATIONS"
done

apt-cache dumpavail > "$OUT/dumpavail.txt"

# Join: for each package (first stanza of each name), the long description whose
# Description-md5 matches; the short Description when no translation has it.
/usr/bin/python3 - "$OUT/dumpavail.txt" "$TRANSLATIONS" "$OUT/descriptions.txt" <<'EOF'
import sys

def stanzas(path):
    """Yields (field -> value) dicts of a deb822 file; continuation lines are kept in the value."""
    fields, key = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if fields:
                    yield fields
                fields, key = {}, None
            elif line[0] in " \t" and key:
                fields[key] += "\n" + line
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
    if fields:
        yield fields

def flatten(description):
    """Short line + long description on one line; ' .' paragraph markers dropped."""
    words = []
    for i, line in enumerate(description.split("\n")):
        line = line.strip()
        if i > 0 and line == ".":
            continue
        words.append(line)
    return " ".join(w for w in words if w)

long_text = {}
for st in stanzas(sys.argv[2]):
    md5, text = st.get("Description-md5"), st.get("Description-en")
    if md5 and text:
        long_text.setdefault(md5, text)

seen, written, with_long = set(), 0, 0
with open(sys.argv[3], "w", encoding="utf-8") as out:
    for st in stanzas(sys.argv[1]):
        name = st.get("Package")
        if not name or name in seen:
            continue
        seen.add(name)
        text = long_text.get(st.get("Description-md5", ""))
        if text:
            with_long += 1
        else:
            text = st.get("Description", "")
        line = flatten(text)
        if line:
            out.write(line + "\n")
            written += 1
print(f"{written} package descriptions ({with_long} with their long description)", file=sys.stderr)
EOF
rm -f "$TRANSLATIONS" "$OUT/dumpavail.txt"

# --vocab-from-counts: the benchmarks want d = VOCAB exactly (a timing input, not a private release;
# the private selection keeps ~1 200 words of these descriptions at its default budget).
"$DPLDA" import-text --input "$OUT/descriptions.txt" --vocab "$VOCAB" --vocab-from-counts --out "$OUT/corpus" >&2
echo "documents: $(sed -n 1p "$OUT/corpus/docword.txt")  vocabulary: $(sed -n 2p "$OUT/corpus/docword.txt")  non-zeros: $(sed -n 3p "$OUT/corpus/docword.txt")"
