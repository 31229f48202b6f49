#!/usr/bin/env bash
# Real-text corpora built from Debian packages the machine can install, each imported with
# `dplda import-text` (ids in documents.txt: package names, fortune file:line, verse references,
# page names).
#
#   scripts/text_presets.sh --list                       the presets, what each shows, its package
#   scripts/text_presets.sh NAME OUT_DIR [IMPORT_OPTIONS...]
#
# OUT_DIR receives the source table (source.tsv, or nothing for fortunes, read in place) and the
# corpus in OUT_DIR/corpus (replaced when the preset runs again). IMPORT_OPTIONS go to import-text
# (default: --vocab 2000).
# Privacy: the presets use import-text's default, the PRIVATE vocabulary selection (at most D
# words by differentially private partition selection, epsilon 1, delta 1e-6; docs/PRIVACY.md §13),
# which every private run on the corpus charges in its ledger. The texts are public, but the
# presets stand for a user's own documents and are imported as those should be.
# The dplda program: $DPLDA, else build/app/dplda of this checkout, else `dplda` on the PATH.
set -euo pipefail

list() {
  cat <<'EOF'
debian-descriptions  (package: apt and dpkg, always installed)  what Debian's software is for: one document per package of the apt index (the installed ones without an index), its description; topics of libraries, compilers, Qt and Python modules, fonts, games
fortunes             (package: fortunes-min; fortunes for 15 000)  quips, quotations and jokes of fortune(6), one per "%" record; topics of love, work, computers, politics
bible-kjv            (package: bible-kjv, with bible-kjv-text)  the 31 102 verses of the King James Bible; topics of the Law, the kings, the prophets, the Gospels and the letters
man-pages            (package: man-db and the pages of the installed packages)  the section-1 manual pages of the installed commands; topics of options, files, networks, compilers
EOF
}

die() { echo "text_presets: $*" >&2; exit 3; }

need_package() {  # PACKAGE WHY
  if ! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; then
    die "the preset needs the Debian package $1 ($2): sudo apt-get install $1"
  fi
}

if [ "${1:-}" = "--list" ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ] || [ $# -lt 2 ]; then
  echo "usage: scripts/text_presets.sh NAME OUT_DIR [import-text options]   (default --vocab 2000)"
  echo "presets (private vocabulary selection by default, docs/PRIVACY.md §13):"
  list
  [ $# -ge 2 ] || [ "${1:-}" = "--list" ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ] || exit 2
  exit 0
fi

NAME=$1
OUT=$2
shift 2
IMPORT_OPTIONS=("$@")
[ ${#IMPORT_OPTIONS[@]} -gt 0 ] || IMPORT_OPTIONS=(--vocab 2000)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DPLDA=${DPLDA:-}
[ -n "$DPLDA" ] || { [ -x "$ROOT/build/app/dplda" ] && DPLDA=$ROOT/build/app/dplda; } || true
[ -n "$DPLDA" ] || DPLDA=$(command -v dplda || true)
[ -n "$DPLDA" ] || die "no dplda program: build it (bash scripts/setup.sh) or set DPLDA"
mkdir -p "$OUT"
SOURCE="$OUT/source.tsv"

# The tables are TSV with every text field quoted (RFC 4180 style: "" for a quote).
case "$NAME" in
  debian-descriptions)
    # Every package of the apt index (apt-cache dumpavail: ~60 000 on Debian 12), its short
    # description joined to the long one of the Translation-en index by Description-md5 when the
    # index is there; without an apt index, the installed packages of /var/lib/dpkg/status.
    TRANSLATIONS="$OUT/translation-en.txt"
    : > "$TRANSLATIONS"
    for f in /var/lib/apt/lists/*_i18n_Translation-en*; do
      [ -e "$f" ] && /usr/lib/apt/apt-helper cat-file "$f" >> "$TRANSLATIONS" 2>/dev/null && echo >> "$TRANSLATIONS"
    done
    PACKAGES="$OUT/packages.txt"
    apt-cache dumpavail > "$PACKAGES" 2>/dev/null || true
    if [ ! -s "$PACKAGES" ]; then
      echo "text_presets: the apt index is empty (run apt-get update for all packages); using the installed ones" >&2
      [ -r /var/lib/dpkg/status ] || die "cannot read /var/lib/dpkg/status (the dpkg database; is this Debian?)"
      cp /var/lib/dpkg/status "$PACKAGES"
    fi
    # deb822 stanzas; " ." paragraph lines dropped; the first stanza of each package name.
    awk 'BEGIN { printf "package\tdescription\n" }
         function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
         function add(line) { gsub(/\t/, " ", line); sub(/^ +/, "", line); if (line != ".") text = text " " line }
         function flush() {
           if (FILENAME == ARGV[1]) { if (md5 != "" && text != "") long[md5] = text }
           else if (pkg != "" && !(pkg in seen)) {
             seen[pkg] = 1
             if (md5 in long) text = long[md5]
             if (text != "") printf "%s\t%s\n", pkg, q(text)
           }
           pkg = ""; md5 = ""; text = ""; field = ""
         }
         FNR == 1 && NR > 1 { flush() }
         /^$/ { flush(); next }
         /^[ \t]/ { if (field == "d") add($0); next }
         { field = "" }
         /^Package: / { pkg = substr($0, 10); next }
         /^Description-md5: / { md5 = substr($0, 18); next }
         /^Description(-en)?: / { text = substr($0, index($0, ":") + 2); field = "d"; next }
         END { flush() }' "$TRANSLATIONS" "$PACKAGES" > "$SOURCE"
    rm -f "$TRANSLATIONS" "$PACKAGES"
    "$DPLDA" import-text --input "$SOURCE" --format tsv --column description --id-column package \
      --out "$OUT/corpus" --force "${IMPORT_OPTIONS[@]}"
    ;;
  fortunes)
    need_package fortunes-min "the fortune files in /usr/share/games/fortunes"
    rm -f "$SOURCE"
    "$DPLDA" import-text --input /usr/share/games/fortunes --separator % --out "$OUT/corpus" --force "${IMPORT_OPTIONS[@]}"
    ;;
  bible-kjv)
    need_package bible-kjv "the bible program that reads the text of bible-kjv-text"
    # "Book N" chapter lines, then "  V text" verse lines (one a line at a wide line width).
    { printf "verse\ttext\n"
      bible -l100000 "gen1:1-rev22:21" | awk '
        /^ +[0-9]+ / { v = $1; sub(/^ +[0-9]+ /, ""); gsub(/\t/, " "); gsub(/"/, "\"\""); printf "%s %s:%s\t\"%s\"\n", book, chapter, v, $0; next }
        NF >= 2 { chapter = $NF; book = $1; for (i = 2; i < NF; ++i) book = book " " $i }'
    } > "$SOURCE"
    [ "$(wc -l < "$SOURCE")" -eq 31103 ] || die "bible printed $(($(wc -l < "$SOURCE") - 1)) verses, not the 31 102 expected"
    "$DPLDA" import-text --input "$SOURCE" --format tsv --column text --id-column verse \
      --out "$OUT/corpus" --force "${IMPORT_OPTIONS[@]}"
    ;;
  man-pages)
    need_package man-db "the manual page system"
    PAGES=/usr/share/man/man1
    ls "$PAGES"/*.gz >/dev/null 2>&1 ||
      die "no manual pages in $PAGES (minimal images exclude them: see /etc/dpkg/dpkg.cfg.d/ and reinstall the packages)"
    # Roff to words: macro definitions and requests dropped, the text macros' names dropped (their
    # arguments are text: .SH NAME, .B ls), font changes and special characters removed; pages
    # that only point to another (.so) have no text and are skipped.
    printf "page\ttext\n" > "$SOURCE"
    n=0
    for f in "$PAGES"/*.gz; do
      page=$(basename "$f" .gz)
      zcat -- "$f" 2>/dev/null | awk -v page="$page" '
        skip { if ($0 ~ /^\.\.[ \t]*$/) skip = 0; next }
        /^\\"/ { next }
        /^[.'"'"'][ \t]*(de|am|ig)([ \t]|$)/ { skip = 1; next }
        /^[.'"'"']/ {
          if ($0 !~ /^[.'"'"'][ \t]*(TH|SH|SS|B|I|BR|IR|RB|RI|BI|IB|SM|SB|IP|TP|TQ|Nm|Nd|Fl|Ar|Op|Xr|Sh|Ss|It|Dl)([ \t]|$)/) next
          sub(/^[.'"'"'][ \t]*[^ \t]*[ \t]*/, "")
        }
        { gsub(/\\f(\[[^]]*\]|\(..|.)/, ""); gsub(/\\(\(..|\[[^]]*\]|\*(\(..|.))/, " "); gsub(/\\./, " ");
          gsub(/[\t"]/, " "); text = text " " $0 }
        END { gsub(/  +/, " ", text); if (text ~ /[A-Za-z]/) printf "%s\t%s\n", page, text }' >> "$SOURCE" || true
      n=$((n + 1))
      [ $((n % 2000)) -ne 0 ] || echo "text_presets: $n manual pages read" >&2
    done
    "$DPLDA" import-text --input "$SOURCE" --format tsv --column text --id-column page \
      --out "$OUT/corpus" --force "${IMPORT_OPTIONS[@]}"
    ;;
  *)
    echo "text_presets: no preset '$NAME'; the presets are:" >&2
    list >&2
    exit 2
    ;;
esac
