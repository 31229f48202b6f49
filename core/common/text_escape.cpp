#include "core/common/text_escape.h"

#include <cstdio>

namespace dplda {

std::size_t decodeUtf8(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  std::size_t extra;
  char32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    extra = 1;
    min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    extra = 2;
    min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    extra = 3;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + extra >= s.size()) return 0;  // truncated sequence
  char32_t v = c & (0x3F >> extra);
  for (std::size_t k = 1; k <= extra; ++k) {
    const unsigned char cc = b(i + k);
    if ((cc & 0xC0) != 0x80) return 0;
    v = (v << 6) | (cc & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  cp = v;
  return extra + 1;
}

namespace {

// Refused in words and session text: C1 controls, the line and paragraph separators, the
// left-to-right and right-to-left marks, embeddings, overrides and isolates, and U+FEFF.
bool isControlCodePoint(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || cp == 0x200E ||
         cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

// Unicode general category Cf (format characters, Unicode 15): invisible, and some (U+061C
// ARABIC LETTER MARK) reorder the text around them on a terminal. Allowed in words (a zero-width
// joiner belongs to Persian and Indic words and to emoji; text import keeps U+061C in Arabic
// words), but written visibly wherever text is shown.
bool isFormatCodePoint(char32_t cp) {
  static constexpr char32_t ranges[][2] = {
      {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
      {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},   {0x200B, 0x200F},   {0x202A, 0x202E},
      {0x2060, 0x2064},   {0x2066, 0x206F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD},
      {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
      {0xE0020, 0xE007F}};
  for (const auto& r : ranges)
    if (cp >= r[0] && cp <= r[1]) return true;
  return false;
}

bool isEscapedCodePoint(char32_t cp) { return isControlCodePoint(cp) || isFormatCodePoint(cp); }

void appendByteEscape(unsigned char c, std::string& out) {
  switch (c) {
    case 0: out += "\\0"; return;
    case '\t': out += "\\t"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    default: {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
}

// Appends s[i..] escaped up to `limit` input bytes (a UTF-8 sequence is never split); returns
// the number of input bytes consumed.
std::size_t appendEscaped(std::string_view s, std::size_t limit, bool escapeBackslash, bool escapeQuote,
                          std::string& out) {
  std::size_t i = 0;
  while (i < s.size()) {
    char32_t cp = 0;
    const std::size_t len = decodeUtf8(s, i, cp);
    const std::size_t step = len == 0 ? 1 : len;
    if (i + step > limit) break;
    if (len == 0) {
      appendByteEscape(static_cast<unsigned char>(s[i]), out);
    } else if (cp < 0x20 || cp == 0x7F) {
      appendByteEscape(static_cast<unsigned char>(cp), out);
    } else if (cp == '\\' && escapeBackslash) {
      out += "\\\\";
    } else if (cp == '\'' && escapeQuote) {
      out += "\\'";
    } else if (isEscapedCodePoint(cp)) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "\\u{%04x}", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(s.substr(i, len));
    }
    i += step;
  }
  return i;
}

}  // namespace

std::string escapeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  appendEscaped(text, text.size(), true, false, out);
  return out;
}

std::string quoteText(std::string_view text, std::size_t maxBytes) {
  std::string out = "'";
  const std::size_t used = appendEscaped(text, maxBytes, true, true, out);
  if (used < text.size()) out += "...";
  out += "'";
  return out;
}

std::string escapeControls(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  appendEscaped(message, message.size(), false, false, out);
  return out;
}

bool hasControlText(std::string_view text) {
  char32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = decodeUtf8(text, i, cp);
    if (len == 0 || cp < 0x20 || cp == 0x7F || isControlCodePoint(cp)) return true;
    i += len;
  }
  return false;
}

bool hasEscapedText(std::string_view text) { return escapeControls(text) != text; }

}  // namespace dplda
