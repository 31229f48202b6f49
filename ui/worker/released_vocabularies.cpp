#include "ui/worker/released_vocabularies.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QStandardPaths>
#include <mutex>

#include "core/common/number_text.h"
#include "core/common/safe_file.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {

constexpr const char* kFormat = "dplda-released-vocabularies";
// The file is read whole; 10⁶-word vocabularies take ~15 MB each: a few dozen selections.
constexpr qint64 kMaxStoreBytes = qint64(512) << 20;

std::mutex& storeMutex() {
  static std::mutex m;
  return m;
}

// The store's selections, or an error naming the file (a store that cannot be read is never
// replaced: its selections would be drawn again).
Result<QJsonArray> readStore(const QString& path) {
  if (!QFileInfo::exists(path)) return QJsonArray();
  if (Status s = requireRegularFile(path.toStdString()); !s.isOk()) return s;
  QFile f(path);
  if (QFileInfo(path).size() > kMaxStoreBytes || !f.open(QIODevice::ReadOnly))
    return ioError("cannot read the released vocabularies " + path.toStdString() + " (larger than 512 MiB or unreadable)");
  QJsonParseError e;
  const QJsonDocument d = QJsonDocument::fromJson(f.readAll(), &e);
  if (e.error != QJsonParseError::NoError || !d.isObject() || d.object().value("format").toString() != kFormat ||
      !d.object().value("selections").isArray())
    return badInput(path.toStdString() + " is not a released-vocabularies file (" + e.errorString().toStdString() +
                    "); move it away to start a new one: every selection in it would be drawn again");
  return d.object().value("selections").toArray();
}

std::optional<QJsonObject> recordOf(const QJsonArray& selections, const QString& key) {
  for (const QJsonValue& v : selections)
    if (v.toObject().value("import").toString() == key) return v.toObject();
  return std::nullopt;
}

std::vector<std::string> wordsOf(const QJsonObject& record) {
  std::vector<std::string> words;
  for (const QJsonValue& w : record.value("words").toArray()) words.push_back(w.toString().toStdString());
  return words;
}

bool privateSelection(const SessionState& s) {
  return s.source == SessionState::Source::Text && textImportParams(s).vocabularyRule == VocabularyRule::PrivateSelection;
}

// Whether the selection the session file carries was released for this import's options.
bool carriedSelectionApplies(const SessionState& s) {
  return privateSelection(s) && !s.releasedSelection.isEmpty() &&
         s.releasedSelection.value("options").toString() == textImportOptionsKey(s);
}

struct Spent {
  int count = 0;
  double epsilon = 0.0, delta = 0.0;
};

// The selections recorded for the text file `input` and what they spend together.
Spent spentOn(const QJsonArray& selections, const QString& input) {
  Spent s;
  for (const QJsonValue& v : selections) {
    const QJsonObject o = v.toObject();
    if (o.value("input").toString() != input) continue;
    ++s.count;
    s.epsilon += o.value("epsilon").toDouble();
    s.delta += o.value("delta").toDouble();
  }
  return s;
}

}  // namespace

QString releasedVocabulariesPath() {
  const QByteArray env = qgetenv("DPLDA_RELEASED_VOCABULARIES");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("released_vocabularies.json");
}

SessionState withRecordedSelection(SessionState s) {
  if (!carriedSelectionApplies(s)) s.releasedSelection = QJsonObject();
  if (!privateSelection(s)) return s;
  std::lock_guard<std::mutex> lock(storeMutex());
  auto store = readStore(releasedVocabulariesPath());
  if (!store.ok()) return s;
  if (auto record = recordOf(store.value(), corpusKey(s))) {
    record->insert("options", textImportOptionsKey(s));
    s.releasedSelection = *record;
  }
  return s;
}

int releasedSelectionCount(const QString& path) {
  std::lock_guard<std::mutex> lock(storeMutex());
  auto store = readStore(releasedVocabulariesPath());
  return store.ok() ? spentOn(store.value(), QFileInfo(path).absoluteFilePath()).count : 0;
}

Result<Corpus> importSessionText(const SessionState& s, TextImportReport* report, Feedback* fb, QString* note) {
  TextImportParams p = textImportParams(s);
  TextImportReport own;
  TextImportReport& rep = report ? *report : own;
  if (p.vocabularyRule != VocabularyRule::PrivateSelection) return importText(p, &rep, fb);
  // One import at a time holds the store: two threads importing the same text at once must not
  // both draw (the second waits and reuses the first's selection).
  std::lock_guard<std::mutex> lock(storeMutex());
  const QString path = releasedVocabulariesPath();
  auto store = readStore(path);
  if (!store.ok()) return store.status();
  const QString key = corpusKey(s), input = QFileInfo(s.corpusPath).absoluteFilePath();
  auto recorded = recordOf(store.value(), key);
  // The session file's selection, released on another machine or before this record was lost.
  const bool carried = !recorded && carriedSelectionApplies(s);
  if (recorded || carried) p.releasedVocabulary = wordsOf(recorded ? *recorded : s.releasedSelection);
  auto corpus = importText(p, &rep, fb);
  if (!corpus.ok()) return corpus;
  const VocabularySelectionRecord& v = corpus->provenance.selection;
  Spent spent = spentOn(store.value(), input);
  if (!rep.vocabularyReused || carried) {
    QJsonArray words;
    for (const std::string& w : corpus->vocab) words.append(QString::fromStdString(w));
    // A carried selection keeps what it spent when it was drawn.
    const QJsonObject& from = s.releasedSelection;
    const QJsonObject added{{"import", key},
                            {"input", input},
                            {"epsilon", carried ? from.value("epsilon").toDouble() : v.epsilon},
                            {"delta", carried ? from.value("delta").toDouble() : v.delta},
                            {"words_per_document", carried ? from.value("words_per_document").toInt() : v.maxWordsPerDocument},
                            {"words", words}};
    QJsonArray selections = store.value();
    selections.append(added);
    const QByteArray bytes =
        QJsonDocument(QJsonObject{{"format", kFormat}, {"version", 1}, {"selections", selections}}).toJson(QJsonDocument::Compact);
    QDir().mkpath(QFileInfo(path).absolutePath());
    // Not recorded, the next import would draw again and no ledger would count it: refuse instead.
    if (Status w = writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), bytes.size())); !w.isOk())
      return Status(w.code(), "the private vocabulary selection could not be recorded (" + w.message() +
                                  "): nothing was imported, so that it is not drawn again unrecorded");
    spent = {spent.count + 1, spent.epsilon + added.value("epsilon").toDouble(),
             spent.delta + added.value("delta").toDouble()};
  }
  if (note) {
    *note = carried ? QObject::tr("vocabulary: the private selection the session file carries (released when the "
                                  "session was made with these options), reused (one release) and recorded in %1")
                          .arg(path)
            : rep.vocabularyReused
                ? QObject::tr("vocabulary: the private selection released at this text's first import with these "
                              "options, reused (one release)")
                : QObject::tr("vocabulary: a new private selection, recorded in %1 for the next imports").arg(path);
    if (spent.count > 1)
      *note += QObject::tr("; this text has had %1 selections (d or the import options changed): each is a release, "
                           "together (ε = %2, δ = %3) by basic composition")
                   .arg(spent.count)
                   .arg(QString::fromStdString(shortNumber(spent.epsilon)))
                   .arg(QString::fromStdString(shortNumber(spent.delta)));
  }
  return corpus;
}

}  // namespace dplda
