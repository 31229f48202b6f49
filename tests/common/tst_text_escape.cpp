// Escaping user text in messages (core/common/text_escape.h): no control byte, invalid UTF-8
// byte or terminal-affecting code point survives; readable text does.
#include <QtTest>
#include <string>

#include "core/common/text_escape.h"

using namespace dplda;

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
      QVERIFY2(!hasControlText(escapeText(s)), qPrintable(QString::number(b)));
      QVERIFY2(!hasControlText(quoteText(s)), qPrintable(QString::number(b)));
    }
  }
};

QTEST_APPLESS_MAIN(TestTextEscape)
#include "tst_text_escape.moc"
