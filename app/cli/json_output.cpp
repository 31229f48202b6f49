#include "app/cli/json_output.h"

#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace dplda::cli {

QJsonArray toJson(const Eigen::VectorXd& v) {
  QJsonArray a;
  for (Eigen::Index i = 0; i < v.size(); ++i) a.append(v[i]);
  return a;
}

QJsonArray columnsToJson(const Eigen::MatrixXd& m) {
  QJsonArray a;
  for (Eigen::Index c = 0; c < m.cols(); ++c) a.append(toJson(m.col(c)));
  return a;
}

QJsonObject corpusSummaryJson(const Corpus& corpus, int docs, bool withStatistics) {
  const CorpusProvenance& p = corpus.provenance;
  QJsonObject vocabulary{{"origin", vocabularyOriginName(p.vocabulary)}};
  if (!p.vocabularyFile.empty()) vocabulary.insert("file", QString::fromStdString(p.vocabularyFile));
  if (p.vocabulary == VocabularyOrigin::PrivateSelection) {
    vocabulary.insert("selection", QJsonObject{{"mechanism", "gaussian partition selection"},
                                               {"epsilon", p.selection.epsilon},
                                               {"delta", p.selection.delta},
                                               {"max_words_per_document", p.selection.maxWordsPerDocument},
                                               {"sigma", p.selection.sigma},
                                               {"threshold", p.selection.threshold}});
  }
  QJsonObject j{{"docs", docs}, {"vocab", corpus.vocabSize()}, {"vocabulary", vocabulary},
                {"short_documents_kept", p.shortDocumentsKept}};
  // Counts of short documents depend on the text: teaching output only.
  if (withStatistics) {
    j.insert("dropped_docs", corpus.droppedDocuments);
    j.insert("empty_docs", corpus.emptyDocuments);
  }
  return j;
}

QJsonArray topWords(const Corpus& corpus, const Eigen::MatrixXd& topics, int n) {
  QJsonArray out;
  for (Eigen::Index c = 0; c < topics.cols(); ++c) {
    QJsonArray words;
    for (int i : topIndices(topics.col(c), n)) words.append(QString::fromStdString(corpus.wordName(i)));
    out.append(words);
  }
  return out;
}

QJsonObject timingsToJson(const std::vector<StageTiming>& timings) {
  QJsonObject o;
  double total = 0.0;
  for (const auto& t : timings) {
    o.insert(QString::fromStdString(t.stage), t.milliseconds);
    total += t.milliseconds;
  }
  o.insert("total", total);
  return o;
}

Status writeJsonFile(const std::string& path, const QJsonObject& object, const OutputRules& rules) {
  const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Indented);
  return writeFileAtomically(path, std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), rules);
}

QJsonObject accountantComparisonToJson(const AccountantComparison& c) {
  auto value = [](double x) {
    return std::isnan(x) ? QJsonValue("not computed") : std::isinf(x) ? QJsonValue("infinite") : QJsonValue(x);
  };
  return QJsonObject{{"delta", value(c.delta)},
                     {QString::fromStdString(c.ledgerAccountant), value(c.ledger)},
                     {"gaussian_dp", value(c.gaussianDp)},
                     {"pld", value(c.pld)},
                     {"pld_interval", value(c.pldInterval)},
                     {"note", QString::fromStdString(c.note)},
                     {"explanation", "epsilon spent by the same releases at the same delta under each accountant; "
                                     "each is a valid upper bound, the smallest the tightest (docs/PRIVACY.md §16)"}};
}

}  // namespace dplda::cli
