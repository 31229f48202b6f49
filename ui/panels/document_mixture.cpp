#include "ui/panels/document_mixture.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "core/common/text_escape.h"
#include "core/corpus/holdout.h"
#include "core/eval/metrics.h"
#include "core/model/inference_privacy.h"
#include "core/model/topic_inference.h"
#include "ui/common/palette.h"
#include "ui/plots/document_mixture_plot.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {
constexpr int kTopicWords = 3;      // words naming a topic beside its bar
constexpr int kDocumentWords = 40;  // most frequent words listed for the document
const char* const kSessionFit = "the session's run fitted the model on them, its training part";
}  // namespace

DocumentMixtureView::DocumentMixtureView(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  m_model = new QComboBox;
  m_model->setObjectName("mixtureModel");
  m_model->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_model->setMinimumContentsLength(10);
  m_model->setToolTip(tr("The model whose topics the document is mixed from: the session's runs on this corpus "
                         "and split, and model files opened with File ▸ Open model…"));
  m_set = new QComboBox;
  m_set->setObjectName("mixtureSet");
  m_set->addItem(tr("training documents"));
  m_set->addItem(tr("held-out documents"));
  m_set->setToolTip(tr("The session's public split: the documents every fit sees, or those held out for evaluation"));
  m_document = new QSpinBox;
  m_document->setObjectName("mixtureDocument");
  m_document->setPrefix(tr("document "));
  m_document->setRange(1, 1);
  m_document->setKeyboardTracking(false);
  m_id = new QLabel;
  m_id->setObjectName("mixtureDocumentId");
  m_id->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_id->setTextFormat(Qt::PlainText);
  row->addWidget(new QLabel(tr("Model")));
  row->addWidget(m_model, 2);
  row->addWidget(m_set);
  row->addWidget(m_document);
  row->addWidget(m_id, 1);
  v->addLayout(row);
  m_privacy = new QLabel;
  m_privacy->setObjectName("mixturePrivacy");
  m_privacy->setWordWrap(true);
  m_privacy->setTextFormat(Qt::PlainText);  // claims come from model files: never read as markup
  m_problem = new QLabel;
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet("color: gray;");
  m_problem->hide();
  v->addWidget(m_problem);

  auto* split = new QSplitter(Qt::Horizontal);
  m_plot = new DocumentMixturePlot;
  m_plot->setObjectName("documentMixturePlot");
  m_plot->setMinimumWidth(240);
  m_words = new QPlainTextEdit;
  m_words->setObjectName("mixtureDocumentWords");
  m_words->setReadOnly(true);
  // Beside the plot: the mixture's privacy label first, then the document (the plot keeps the height).
  auto* side = new QWidget;
  auto* sv = new QVBoxLayout(side);
  sv->setContentsMargins(0, 0, 0, 0);
  sv->addWidget(m_privacy);
  sv->addWidget(m_words, 1);
  side->setMinimumWidth(160);
  split->addWidget(m_plot);
  split->addWidget(side);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  v->addWidget(split, 1);

  connect(m_model, &QComboBox::currentIndexChanged, this, [this] {
    if (!m_updating) refresh();
  });
  connect(m_set, &QComboBox::currentIndexChanged, this, [this] {
    if (m_updating) return;
    updateDocumentRange();
    refresh();
  });
  connect(m_document, &QSpinBox::valueChanged, this, [this] {
    if (!m_updating) refresh();
  });
  refresh();
}

QString DocumentMixtureView::privacyText() const { return m_privacy->text(); }
QString DocumentMixtureView::documentText() const { return m_words->toPlainText(); }
QString DocumentMixtureView::problem() const { return m_problem->isVisible() ? m_problem->text() : QString(); }
Eigen::VectorXd DocumentMixtureView::proportions() const { return m_plot->proportions(); }

const Corpus* DocumentMixtureView::documents(Set set) const {
  return set == Set::Training ? m_train.get() : m_test.get();
}

void DocumentMixtureView::setStale(bool stale) {
  m_plot->setStale(stale);
  m_words->setStyleSheet(stale ? "color: gray;" : QString());
}

void DocumentMixtureView::setDocuments(const RunOutcome& o) {
  m_corpus = o.corpus;
  m_train = o.train;
  m_test = o.test;
  m_trainRows = o.trainRows;
  m_testRows = o.testRows;
  m_ids = o.documentIds;
  m_wordLabels = o.words;
  m_corpusFolder.clear();
  if (o.session.source == SessionState::Source::Uci) {
    const QFileInfo info(o.session.corpusPath);
    m_corpusFolder = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
  }
  m_matches.clear();
  m_updating = true;
  m_set->setItemText(0, tr("training documents (%1)").arg(m_train ? m_train->docCount() : 0));
  m_set->setItemText(1, m_test ? tr("held-out documents (%1)").arg(m_test->docCount()) : tr("held-out documents (none)"));
  if (!m_test) m_set->setCurrentIndex(0);
  m_updating = false;
  updateDocumentRange();
  refresh();
}

void DocumentMixtureView::setModels(const QVector<MixtureModel>& models) {
  const QString key = m_model->currentData().toString();
  m_models = models;
  m_matches.clear();
  m_updating = true;
  m_model->clear();
  for (const MixtureModel& m : m_models) m_model->addItem(m.label, m.key);
  m_model->setCurrentIndex(std::max(0, m_model->findData(key)));
  m_updating = false;
  refresh();
}

bool DocumentMixtureView::chooseModel(const QString& key) {
  const int i = m_model->findData(key);
  if (i < 0) return false;
  m_model->setCurrentIndex(i);
  return true;
}

bool DocumentMixtureView::showDocument(Set set, int index, QString* error) {
  const Corpus* docs = documents(set);
  if (!docs || index < 0 || index >= docs->docCount()) {
    if (error) {
      *error = tr("no %1 document %2 (there are %3)")
                   .arg(set == Set::Training ? tr("training") : tr("held-out"))
                   .arg(index + 1)
                   .arg(docs ? docs->docCount() : 0);
    }
    return false;
  }
  m_updating = true;
  m_set->setCurrentIndex(static_cast<int>(set));
  m_updating = false;
  updateDocumentRange();
  m_updating = true;
  m_document->setValue(index + 1);
  m_updating = false;
  refresh();
  if (!problem().isEmpty()) {
    if (error) *error = problem();
    return false;
  }
  return true;
}

const MixtureModel* DocumentMixtureView::chosen() const {
  const QString key = m_model->currentData().toString();
  for (const MixtureModel& m : m_models)
    if (m.key == key) return &m;
  return nullptr;
}

void DocumentMixtureView::updateDocumentRange() {
  const Corpus* docs = documents(static_cast<Set>(m_set->currentIndex()));
  m_updating = true;
  m_document->setRange(1, std::max(1, docs ? docs->docCount() : 1));
  m_document->setSuffix(docs ? tr(" of %1").arg(docs->docCount()) : QString());
  m_document->setEnabled(docs && docs->docCount() > 0);
  m_updating = false;
}

QString DocumentMixtureView::documentId(int row) const {
  if (m_ids && row >= 0 && row < static_cast<int>(m_ids->size()))
    return QString::fromStdString(escapeControls((*m_ids)[static_cast<std::size_t>(row)]));
  return QString();
}

QStringList DocumentMixtureView::topicWordLists(const LdaModel& model) const {
  QStringList out;
  for (int t = 0; t < model.topicCount(); ++t) {
    QStringList words;
    for (int w : topIndices(model.topics.col(t), kTopicWords))
      words << (w < m_wordLabels.size() && !m_wordLabels[w].isEmpty() ? m_wordLabels[w] : QString("w%1").arg(w));
    out << words.join(' ');
  }
  return out;
}

QString DocumentMixtureView::trainingMatch(const MixtureModel& m, Set set) {
  if (!m.file) return set == Set::Training ? QString(kSessionFit) : QString();  // held out of every fit
  const QString key = m.key + (set == Set::Training ? "|train" : "|test");
  if (auto it = m_matches.constFind(key); it != m_matches.constEnd()) return it.value();
  // As `dplda infer`: the whole corpus (its folder or fingerprint), else the set's own fingerprint.
  std::string match = trainingDocumentsMatch(*m.file, *m_corpus, m_corpusFolder.toStdString());
  if (match.empty()) match = trainingDocumentsMatch(*m.file, *documents(set), "");
  const QString text = QString::fromStdString(match);
  m_matches.insert(key, text);
  return text;
}

void DocumentMixtureView::showProblem(const QString& problem) {
  m_plot->clearMixture();
  m_words->clear();
  m_privacy->clear();
  m_id->clear();
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
}

void DocumentMixtureView::refresh() {
  const Set set = static_cast<Set>(m_set->currentIndex());
  const Corpus* docs = documents(set);
  const MixtureModel* model = chosen();
  if (!m_train) return showProblem(tr("Run the session: the documents are those of its corpus."));
  if (!docs) return showProblem(tr("This session holds no documents out (held-out evaluation is off)."));
  if (!model) return showProblem(tr("No model yet: run the session or open a model file."));
  const int index = m_document->value() - 1;
  if (index < 0 || index >= docs->docCount()) return showProblem(tr("No document %1.").arg(index + 1));
  const std::vector<int>& rows = set == Set::Training ? m_trainRows : m_testRows;
  const int row = index < static_cast<int>(rows.size()) ? rows[static_cast<std::size_t>(index)] : -1;
  // One document through infer's E-step (the same function, options and start as `dplda infer`).
  const Corpus one = selectDocuments(*docs, {index});
  const Result<DocumentTopics> r = inferTopics(model->model, one, InferenceOptions{});
  if (!r.ok()) return showProblem(tr("%1: %2").arg(model->label, QString::fromStdString(r.status().message())));

  const QString match = trainingMatch(*model, set);
  QString label = QString::fromStdString(inferencePrivacyLabel(model->isPrivate, model->claim.toStdString(),
                                                               match.toStdString()));
  const bool isPrivate = model->isPrivate && match.isEmpty();
  if (!match.isEmpty()) label += tr(" — computed from the document itself: a non-private diagnostic.");
  else if (!isPrivate) label += tr(" — a non-private diagnostic.");
  m_privacy->setText(label);
  m_privacy->setStyleSheet(isPrivate ? QString("color: gray;")
                                     : QString("color: %1;").arg(okabe_ito::kVermillion.darker(120).name()));
  m_privacy->setToolTip(model->file && isPrivate ? tr("Training documents are recognised as `dplda infer` does: %1.")
                                                       .arg(kTrainingRecognitionNote)
                                                 : QString());
  const QString id = documentId(row);
  m_id->setText(row >= 0 ? (id.isEmpty() ? tr("corpus row %1").arg(row + 1) : tr("id “%1” (corpus row %2)").arg(id).arg(row + 1))
                         : QString());
  const QString what = set == Set::Training ? tr("training document %1").arg(index + 1)
                                            : tr("held-out document %1").arg(index + 1);
  QString error;
  const QString title = tr("Topic mixture of %1%2").arg(what, id.isEmpty() ? QString() : QString(" (%1)").arg(id));
  const QString note = tr("%1; %2").arg(model->label, isPrivate ? tr("post-processing of the release")
                                                                : tr("NOT private: a non-private diagnostic"));
  if (!m_plot->setMixture(r.value().proportions.col(0), topicWordLists(model->model), title, note, &error))
    return showProblem(error);
  m_problem->hide();

  // The document as counts: the app keeps no text, so its most frequent vocabulary words stand for it.
  std::vector<std::pair<double, int>> words;
  for (SparseCounts::InnerIterator it(one.counts, 0); it; ++it) words.push_back({it.value(), static_cast<int>(it.col())});
  std::stable_sort(words.begin(), words.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  QStringList listed;
  for (std::size_t i = 0; i < words.size() && i < static_cast<std::size_t>(kDocumentWords); ++i) {
    const int w = words[i].second;
    const QString name = w < m_wordLabels.size() && !m_wordLabels[w].isEmpty() ? m_wordLabels[w] : QString("w%1").arg(w);
    listed << QString("%1 ×%2").arg(name).arg(words[i].first);
  }
  const double length = one.lengths.size() ? one.lengths[0] : 0.0;
  QString text = tr("%1%2: %3 tokens of the vocabulary, %4 distinct words.\n")
                     .arg(what, id.isEmpty() ? QString() : tr(", id “%1”").arg(id))
                     .arg(length)
                     .arg(words.size());
  if (words.empty()) text += tr("No token of this document is in the vocabulary: its mixture is the prior mean α/α₀.\n");
  else text += tr("Most frequent words (the app keeps counts, not the text):\n") + listed.join("  ") + "\n";
  text += tr("\nE-step: %1 updates (tolerance 1e-8, as `dplda infer`).").arg(r.value().iterations.at(0));
  m_words->setPlainText(text);
}

}  // namespace dplda
