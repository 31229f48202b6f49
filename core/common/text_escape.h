#pragma once
// User text in messages. Every byte of user input that reaches a message (file names, tokens
// of a file, option values, JSON keys) goes through one of these, so that a terminal never
// receives a control code and a message stays on one line, whatever the input holds.
//
// Escapes (the rest of valid UTF-8 is kept as it is, so accented words stay readable):
//   NUL \0, TAB \t, LF \n, CR \r, other C0 controls and DEL \xNN (e.g. ESC is \x1b);
//   bytes that are not part of valid UTF-8 \xNN; C1 controls (U+0080..U+009F), the line and
//   paragraph separators U+2028/U+2029, the bidirectional controls (U+200E/F, U+202A..U+202E,
//   U+2066..U+2069), U+FEFF and every other format character (Unicode category Cf: U+061C
//   ARABIC LETTER MARK, zero-width spaces and joiners, the soft hyphen, tag characters, ...)
//   as \u{XXXX};
//   escapeText and quoteText also write a backslash as \\ (so an escape in the output is never
//   ambiguous), and quoteText a single quote as \'.
#include <cstddef>
#include <string>
#include <string_view>

namespace dplda {

// `text` with every byte listed above escaped.
std::string escapeText(std::string_view text);

// 'text', escaped, cut after about maxBytes bytes of input (at a UTF-8 boundary) with "..."
// when longer. For tokens of a file and option values.
std::string quoteText(std::string_view text, std::size_t maxBytes = 60);

// A whole message made safe for one terminal line: control bytes, invalid UTF-8 and the
// code points above escaped, but backslashes kept (a message may already hold escapes).
// The command lines pass every error message through it before printing.
std::string escapeControls(std::string_view message);

// Length of the valid UTF-8 sequence at s[i] and its code point, or 0 when the bytes there
// are not valid UTF-8 (overlong forms, surrogates, code points above U+10FFFF, truncation).
std::size_t decodeUtf8(std::string_view s, std::size_t i, char32_t& cp);

// True when `text` holds what a word or a session string may not: a control byte, bytes that are
// not UTF-8, C1 controls, U+2028/U+2029, a bidirectional control or U+FEFF. The other format
// characters are allowed (and escaped when shown).
bool hasControlText(std::string_view text);

// True when escapeControls would change `text` (anything listed above, format characters included).
bool hasEscapedText(std::string_view text);

}  // namespace dplda
