// The app's record of released vocabulary selections (ui/worker/released_vocabularies.h): a text
// imported again with the same options reuses its first selection (nothing drawn: one release);
// other options draw a new one and the note adds up what all of them spend; a session file carries
// its selection to another machine; a store that cannot be read or written refuses the import
// instead of drawing unrecorded.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <random>

#include "ui/session/session.h"
#include "ui/worker/released_vocabularies.h"

using namespace dplda;

namespace {

// 2 000 documents of 15 words from a 60-word vocabulary: every word is in hundreds of documents,
// so the private selection (ε_v = 1, m = 20) keeps them.
QString writeText(const QString& dir) {
  const QString path = dir + "/docs.txt";
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> word(0, 59);
  for (int n = 0; n < 2000; ++n) {
    QStringList line;
    for (int i = 0; i < 15; ++i) line << QString("word%1").arg(QChar('a' + word(rng) % 26)) + QString(QChar('a' + word(rng) / 26 * 7));
    f.write((line.join(' ') + "\n").toUtf8());
  }
  return path;
}

SessionState textSession(const QString& path, int d) {
  SessionState s;
  s.source = SessionState::Source::Text;
  s.corpusPath = path;
  s.generator.vocabSize = d;
  return s;
}

}  // namespace

class TestReleasedVocabularies : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    QVERIFY(m_dir.isValid());
    m_store = m_dir.filePath("released.json");
    QFile::remove(m_store);
    qputenv("DPLDA_RELEASED_VOCABULARIES", m_store.toLocal8Bit());
  }

  void theSameImportReusesItsSelectionAndOthersAddUp() {
    const QString text = writeText(m_dir.path());
    QString note;
    TextImportReport first;
    auto a = importSessionText(textSession(text, 50), &first, nullptr, &note);
    QVERIFY2(a.ok(), a.status().message().c_str());
    QVERIFY(!first.vocabularyReused);
    QVERIFY2(note.contains("a new private selection"), qPrintable(note));
    QVERIFY(a->vocabSize() > 10);
    QCOMPARE(a->provenance.vocabulary, VocabularyOrigin::PrivateSelection);
    QVERIFY(QFileInfo(m_store).size() > 0);
    QCOMPARE(releasedSelectionCount(text), 1);

    // Again: the same words, nothing drawn (the selection's noise would give another set).
    TextImportReport second;
    auto b = importSessionText(textSession(text, 50), &second, nullptr, &note);
    QVERIFY2(b.ok(), b.status().message().c_str());
    QVERIFY(second.vocabularyReused);
    QCOMPARE(b->vocab, a->vocab);
    QCOMPARE(b->provenance.selection.noiseSource, std::string(kReusedSelectionSource));
    QCOMPARE(b->provenance.selection.epsilon, a->provenance.selection.epsilon);
    QVERIFY2(note.contains("reused (one release)"), qPrintable(note));
    QVERIFY((b->counts - a->counts).norm() == 0.0);
    QCOMPARE(releasedSelectionCount(text), 1);

    // Another d is another selection: recorded, and the note adds up both.
    auto c = importSessionText(textSession(text, 20), nullptr, nullptr, &note);
    QVERIFY2(c.ok(), c.status().message().c_str());
    QCOMPARE(releasedSelectionCount(text), 2);
    QVERIFY2(note.contains("2 selections") && note.contains("ε = 2"), qPrintable(note));
    // And back: the first selection again, still two in all.
    TextImportReport back;
    auto d = importSessionText(textSession(text, 50), &back, nullptr, &note);
    QVERIFY(d.ok() && back.vocabularyReused);
    QCOMPARE(d->vocab, a->vocab);
    QCOMPARE(releasedSelectionCount(text), 2);
  }

  void aSessionFileCarriesItsSelectionToAnotherMachine() {
    const QString text = writeText(m_dir.path());
    auto a = importSessionText(textSession(text, 50), nullptr, nullptr, nullptr);
    QVERIFY2(a.ok(), a.status().message().c_str());
    // Saved, the session file carries the selection and its import options.
    const SessionState saved = withRecordedSelection(textSession(text, 50));
    QCOMPARE(saved.releasedSelection.value("words").toArray().size(), qsizetype(a->vocabSize()));
    auto reopened = sessionFromJson(sessionToJson(saved));
    QVERIFY2(reopened.ok(), reopened.status().message().c_str());
    QCOMPARE(reopened->releasedSelection, saved.releasedSelection);

    // Another machine: no record of it, the text in another folder. The carried words, no draw.
    QTemporaryDir there;
    const QString moved = there.filePath("docs.txt");
    QVERIFY(QFile::copy(text, moved));
    qputenv("DPLDA_RELEASED_VOCABULARIES", there.filePath("released.json").toLocal8Bit());
    SessionState s = reopened.value();
    s.corpusPath = moved;
    TextImportReport report;
    QString note;
    auto b = importSessionText(s, &report, nullptr, &note);
    QVERIFY2(b.ok(), b.status().message().c_str());
    QVERIFY(report.vocabularyReused);
    QCOMPARE(b->vocab, a->vocab);
    QVERIFY2(note.contains("session file carries"), qPrintable(note));
    QCOMPARE(releasedSelectionCount(moved), 1);  // recorded there: one release, as before
    QCOMPARE(withRecordedSelection(s).releasedSelection.value("words"), saved.releasedSelection.value("words"));

    // Other options (d = 20) are another import: the carried words do not apply, and the file drops them.
    SessionState other = s;
    other.generator.vocabSize = 20;
    QVERIFY(withRecordedSelection(other).releasedSelection.isEmpty());
    TextImportReport drawn;
    QVERIFY(importSessionText(other, &drawn, nullptr, nullptr).ok());
    QVERIFY(!drawn.vocabularyReused);
    QCOMPARE(releasedSelectionCount(moved), 2);
  }

  void aStoreThatCannotBeReadOrWrittenRefusesTheImport() {
    const QString text = writeText(m_dir.path());
    QFile bad(m_store);
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("not json");
    bad.close();
    auto r = importSessionText(textSession(text, 50), nullptr, nullptr, nullptr);
    QVERIFY(!r.ok());
    QVERIFY2(r.status().message().find("released_vocabularies") != std::string::npos ||
                 r.status().message().find(m_store.toStdString()) != std::string::npos,
             r.status().message().c_str());
    QFile again(m_store);
    QVERIFY(again.open(QIODevice::ReadOnly));
    QCOMPARE(again.readAll(), QByteArray("not json"));  // never replaced: its selections would be lost
    QFile::remove(m_store);
    QVERIFY(QDir().mkpath(m_store));  // a folder where the file goes: the new selection cannot be kept
    auto w = importSessionText(textSession(text, 50), nullptr, nullptr, nullptr);
    QVERIFY(!w.ok());
    QVERIFY2(w.status().message().find("could not be recorded") != std::string::npos ||
                 w.status().message().find("folder") != std::string::npos,
             w.status().message().c_str());
    QDir(m_store).removeRecursively();
  }

 private:
  QTemporaryDir m_dir;
  QString m_store;
};

QTEST_GUILESS_MAIN(TestReleasedVocabularies)
#include "tst_released_vocabularies.moc"
