// Escaping user text in messages (core/common/text_escape.h): no control byte, invalid UTF-8
// byte or terminal-affecting code point survives; readable text does.
#include <QtTest>
#include <string>

#include "core/common/text_escape.h"

using namespace dplda;

namespace {

std::string utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

}  // namespace

class TestTextEscape : public QObject {
  Q_OBJECT

 private slots:
  void escapesControlBytes() {
    QCOMPARE(escapeText(std::string("a\0b", 3)), std::string("a\\0b"));
    QCOMPARE(escapeText("\x1b[31mred"), std::string("\\x1b[31mred"));
    QCOMPARE(escapeText("cr\rlf\ntab\t"), std::string("cr\\rlf\\ntab\\t"));
    QCOMPARE(escapeText("del\x7f"), std::string("del\\x7f"));
    QCOMPARE(escapeText("back\\slash"), std::string("back\\\\slash"));
  }

  void keepsReadableUtf8() {
    QCOMPARE(escapeText("caf\xc3\xa9 \xce\xb5 \xe6\x97\xa5"), std::string("caf\xc3\xa9 \xce\xb5 \xe6\x97\xa5"));
    QCOMPARE(escapeText("plain words, 1.5e-3"), std::string("plain words, 1.5e-3"));
  }

  void escapesInvalidUtf8AndTerminalCodePoints() {
    QCOMPARE(escapeText("\xff"), std::string("\\xff"));
    QCOMPARE(escapeText("\xc3"), std::string("\\xc3"));             // truncated sequence
    QCOMPARE(escapeText("\xc0\xaf"), std::string("\\xc0\\xaf"));    // overlong '/'
    QCOMPARE(escapeText("\xed\xa0\x80"), std::string("\\xed\\xa0\\x80"));  // surrogate
    QCOMPARE(escapeText("\xc2\x9b"), std::string("\\u{009b}"));     // C1 CSI
    QCOMPARE(escapeText("\xe2\x80\xae"), std::string("\\u{202e}"));  // right-to-left override
    QCOMPARE(escapeText("\xe2\x80\xa8"), std::string("\\u{2028}"));  // line separator
    QCOMPARE(escapeText("\xef\xbb\xbf"), std::string("\\u{feff}"));  // byte order mark
  }

  // Issue 28: format characters (Unicode Cf) are invisible, and U+061C and the bidirectional
  // controls reorder what a terminal shows ("Trojan source"): escaped in every message.
  void escapesFormatCharacters() {
    QCOMPARE(escapeText("a\xd8\x9c" "b"), std::string("a\\u{061c}b"));  // ARABIC LETTER MARK
    QCOMPARE(escapeText("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), std::string("\\u{202a}\\u{2066}\\u{2069}"));
    QCOMPARE(escapeText("zero\xe2\x80\x8bwidth"), std::string("zero\\u{200b}width"));  // ZERO WIDTH SPACE
    QCOMPARE(escapeText("soft\xc2\xadhyphen"), std::string("soft\\u{00ad}hyphen"));
    QCOMPARE(escapeText("tag\xf3\xa0\x81\x81"), std::string("tag\\u{e0041}"));       // TAG LATIN CAPITAL A
    QCOMPARE(escapeControls("w\xe2\x80\x8dx"), std::string("w\\u{200d}x"));          // ZERO WIDTH JOINER
    QCOMPARE(quoteText("\xe2\x81\xa0"), std::string("'\\u{2060}'"));                 // WORD JOINER
    // Letters next to them stay: Arabic text is readable.
    QCOMPARE(escapeText("\xd8\xb3\xd9\x84\xd8\xa7\xd9\x85"), std::string("\xd8\xb3\xd9\x84\xd8\xa7\xd9\x85"));
    // Words may hold format characters (a ZWJ belongs to Persian words and emoji); the refused
    // set is the controls: hasControlText is the reader's rule, hasEscapedText the display's.
    QVERIFY(!hasControlText("w\xe2\x80\x8dx"));
    QVERIFY(!hasControlText("a\xd8\x9c" "b"));
    QVERIFY(hasControlText("a\xe2\x80\xae" "b"));
    QVERIFY(hasEscapedText("w\xe2\x80\x8dx"));
    QVERIFY(hasEscapedText("a\xd8\x9c" "b"));
    QVERIFY(!hasEscapedText("caf\xc3\xa9"));
    // Code points across the Cf ranges: escaped, and nothing escapable is left after escaping.
    for (char32_t cp : {0x0600u, 0x0605u, 0x06DDu, 0x070Fu, 0x0890u, 0x08E2u, 0x180Eu, 0x2064u, 0x206Fu, 0xFFF9u,
                        0xFFFBu, 0x110BDu, 0x13430u, 0x1BCA3u, 0x1D173u, 0xE0001u, 0xE007Fu}) {
      const std::string s = "x" + utf8(cp) + "y";
      QVERIFY2(hasEscapedText(s), qPrintable(QString::number(cp, 16)));
      QVERIFY2(!hasEscapedText(escapeText(s)), qPrintable(QString::number(cp, 16)));
      QVERIFY2(escapeText(s).find("\\u{") != std::string::npos, qPrintable(QString::number(cp, 16)));
    }
    // Neighbours that are letters or symbols stay as they are.
    for (char32_t cp : {0x0606u, 0x061Bu, 0x061Du, 0x06DEu, 0x180Fu, 0x2070u, 0xFFFCu, 0x13440u, 0xE0080u})
      QVERIFY2(!hasEscapedText(utf8(cp)), qPrintable(QString::number(cp, 16)));
  }

  void quotes() {
    QCOMPARE(quoteText("abc"), std::string("'abc'"));
    QCOMPARE(quoteText("it's"), std::string("'it\\'s'"));
    QCOMPARE(quoteText(std::string(100, 'x'), 10), "'" + std::string(10, 'x') + "...'");
    // Cut at a UTF-8 boundary, never inside a sequence: 4 bytes allow "a" and one 2-byte "é".
    QCOMPARE(quoteText("a\xc3\xa9\xc3\xa9", 4), std::string("'a\xc3\xa9...'"));
  }

  void controlsOnlyNet() {
    // For whole messages that may already hold escapes: backslashes stay.
    QCOMPARE(escapeControls("line 3: '\\x1b' and\nmore"), std::string("line 3: '\\x1b' and\\nmore"));
    QVERIFY(hasControlText("a\x1b"));
    QVERIFY(hasControlText("\xff"));
    QVERIFY(!hasControlText("caf\xc3\xa9 \\x1b"));
    // Every byte value: the escaped form is printable ASCII or valid UTF-8 without controls.
    for (int b = 0; b < 256; ++b) {
      const std::string s(1, static_cast<char>(b));
      QVERIFY2(!hasEscapedText(escapeText(s)), qPrintable(QString::number(b)));
      QVERIFY2(!hasEscapedText(quoteText(s)), qPrintable(QString::number(b)));
    }
  }
};

QTEST_APPLESS_MAIN(TestTextEscape)
#include "tst_text_escape.moc"
