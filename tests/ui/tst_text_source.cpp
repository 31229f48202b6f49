// The corpus panel's text source (issue 26 §4): a format choice (lines, CSV, TSV, JSON Lines) and
// the column or field of a table's documents, in one row that fits the 1280-px dock; the
// separator applies to lines only; a table without its column is a field error, not an edit.
#include <QComboBox>
#include <QLineEdit>
#include <QtTest>

#include "ui/panels/generator_panel.h"
#include "ui/session/session.h"

using namespace dplda;

class TestTextSource : public QObject {
  Q_OBJECT

 private slots:
  void formatAndColumnEditTheSession() {
    GeneratorPanel panel;
    SessionState s;
    s.source = SessionState::Source::Text;
    s.corpusPath = "/data/notes.csv";
    panel.setState(s);
    auto* format = qobject_cast<QComboBox*>(panel.field("text_format"));
    auto* column = qobject_cast<QLineEdit*>(panel.field("text_column"));
    QVERIFY(format && column);
    QVERIFY(format->isEnabled());
    QVERIFY(!column->isEnabled());  // lines: no column
    QVERIFY(panel.field("separator")->isEnabled());

    QList<SessionState> edited;
    connect(&panel, &GeneratorPanel::edited, this, [&edited](const SessionState& next) { edited << next; });
    format->setCurrentIndex(format->findData("csv"));
    QVERIFY(edited.isEmpty());  // a CSV without its column is not a session yet
    QVERIFY(panel.fieldError("text_column").contains("column"));
    QVERIFY(column->isEnabled());
    QVERIFY(!panel.field("separator")->isEnabled());
    column->setText("body");
    emit column->editingFinished();
    QCOMPARE(edited.size(), 1);
    const SessionState next = edited.last();
    QCOMPARE(next.textFormat, TextFormat::Csv);
    QCOMPARE(next.textColumn, QString("body"));
    QVERIFY(panel.fieldError("text_column").isEmpty());
    QCOMPARE(textImportParams(next).column, std::string("body"));

    format->setCurrentIndex(format->findData("jsonl"));
    QCOMPARE(edited.last().textFormat, TextFormat::JsonLines);
    QVERIFY(column->placeholderText().contains("field"));

    // Other sources leave the row disabled.
    SessionState synthetic;
    panel.setState(synthetic);
    QVERIFY(!format->isEnabled() && !column->isEnabled());
  }
};

QTEST_MAIN(TestTextSource)
#include "tst_text_source.moc"
