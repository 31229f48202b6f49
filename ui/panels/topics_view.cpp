#include "ui/panels/topics_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/common/text_escape.h"
#include "core/corpus/uci_io.h"
#include "core/eval/metrics.h"
#include "ui/common/scroll_page.h"
#include "ui/panels/document_mixture.h"
#include "ui/panels/model_files.h"
#include "ui/panels/table_export.h"
#include "ui/panels/topic_browser.h"
#include "ui/plots/document_mixture_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {
constexpr int kPlotWords = 12;  // bars per topic in the plot
constexpr int kTableWords = 8;  // top words per cell of the table
constexpr int kRememberedModels = 8;  // private releases are kept per configuration and ε
QString g(double v) { return std::isfinite(v) ? QString::number(v, 'g', 3) : QString("—"); }

std::vector<double> npmiOf(const std::optional<CoherenceResult>& c) {
  std::vector<double> out;
  if (c) for (const TopicCoherence& t : c->topics) out.push_back(t.npmi);
  return out;
}

QVector<QVector<double>> columns(const Eigen::MatrixXd& m) {
  QVector<QVector<double>> out;
  for (Eigen::Index c = 0; c < m.cols(); ++c) out.push_back(QVector<double>(m.col(c).data(), m.col(c).data() + m.rows()));
  return out;
}

bool comparable(const LdaModel& ref, const LdaModel& est) {
  return validateTopicComparison(ref.topics, ref.alpha, est.topics, est.alpha).isOk();
}
}  // namespace

TopicsView::TopicsView(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* wordsPage = new QWidget;
  auto* v = new QVBoxLayout(wordsPage);
  v->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  m_spin = new QSpinBox;
  m_spin->setRange(1, 1);
  m_spin->setPrefix(tr("topic "));
  m_note = new QLabel;
  m_note->setStyleSheet("color: gray;");
  m_note->setWordWrap(true);
  row->addWidget(m_spin);
  row->addWidget(m_note, 1);
  v->addLayout(row);

  auto* split = new QSplitter(Qt::Horizontal);
  m_plot = new TopicsPlot;
  split->addWidget(m_plot);
  auto* compare = new QWidget;
  auto* cv = new QVBoxLayout(compare);
  cv->setContentsMargins(0, 0, 0, 0);
  auto* pick = new QHBoxLayout;
  m_first = new QComboBox;
  m_second = new QComboBox;
  m_first->setObjectName("compareFirst");
  m_second->setObjectName("compareSecond");
  for (QComboBox* box : {m_first, m_second}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
    box->setToolTip(tr("The last run of each model on this corpus and split"));
  }
  pick->addWidget(new QLabel(tr("All topics:")));
  pick->addWidget(m_first, 1);
  pick->addWidget(new QLabel(tr("beside")));
  pick->addWidget(m_second, 1);
  cv->addLayout(pick);
  m_table = makeResultsTable({tr("topic")});
  m_table->setObjectName("topicsTable");
  cv->addWidget(m_table, 1);
  split->addWidget(compare);
  split->setStretchFactor(0, 1);  // the plot and the table share the width
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  v->addWidget(split, 1);
  addTableExportMenu(m_table, "topics");
  m_browser = new TopicBrowser;
  m_mixture = new DocumentMixtureView;
  m_views = new QTabWidget;
  m_views->setTabPosition(QTabWidget::South);
  m_views->setDocumentMode(true);
  m_views->addTab(wordsPage, tr("Top words && table"));
  m_views->addTab(m_browser, tr("Map && relevance (browser)"));
  m_views->addTab(m_mixture, tr("Document mixture"));
  outer->addWidget(scrollPage(m_views, true));  // its plots keep their height on a small screen

  connect(m_spin, &QSpinBox::valueChanged, this, [this](int t) { m_plot->setCurrentTopic(t - 1); });
  connect(m_plot, &TopicsPlot::currentTopicChanged, this, [this](int t) {
    QSignalBlocker b(m_spin);
    m_spin->setValue(t + 1);
  });
  for (QComboBox* box : {m_first, m_second})
    connect(box, &QComboBox::currentIndexChanged, this, [this] {
      if (!m_updating) rebuildTable();
    });
}

QString TopicsView::note() const { return m_note->text(); }

void TopicsView::showBrowser(bool browser) { m_views->setCurrentWidget(browser ? static_cast<QWidget*>(m_browser) : m_views->widget(0)); }

void TopicsView::showMixture() { m_views->setCurrentWidget(m_mixture); }

PlotWidget* TopicsView::currentPlot() const {
  if (m_views->currentWidget() == m_mixture) return m_mixture->plot();
  return m_views->currentWidget() == m_browser ? m_browser->currentPlot() : m_plot;
}

void TopicsView::setStale(bool stale) {
  m_plot->setStale(stale);
  m_browser->setStale(stale);
  m_mixture->setStale(stale);
  m_table->setStyleSheet(stale ? "color: gray;" : QString());
}

QString TopicsView::modelDescription(const RunOutcome& o) {
  if (o.variational) return o.variational->ledger ? tr("DP-VI (private)") : tr("VI (non-private)");
  if (o.session.edges == 0) return tr("non-private spectral");
  if (o.priv && o.priv->released && o.priv->output) return tr("private spectral");
  return tr("non-private spectral (nothing released)");
}

QString TopicsView::titleFor(const RunOutcome& o) {
  const bool truth = o.truth.has_value();
  const QString what = modelDescription(o);
  return truth ? tr("True vs %1 topic").arg(what) : tr("%1 topic — no truth for this corpus").arg(what);
}

void TopicsView::remember(Model model) {
  for (int i = 0; i < m_models.size(); ++i)
    if (m_models[i].key == model.key) m_models.removeAt(i--);
  m_models.prepend(std::move(model));
  while (m_models.size() > kRememberedModels) m_models.removeLast();
}

const TopicsView::Model* TopicsView::chosen(const QComboBox* box) const {
  const QString key = box->currentData().toString();
  for (const Model& m : m_models)
    if (m.key == key) return &m;
  return nullptr;
}

void TopicsView::refreshChoices(const QString& firstKey) {
  m_updating = true;
  const QString second = m_second->currentData().toString();
  m_first->clear();
  m_second->clear();
  m_second->addItem(tr("(none)"), QString());
  for (const Model& m : m_models) {
    m_first->addItem(m.label, m.key);
    m_second->addItem(m.label, m.key);
  }
  m_first->setCurrentIndex(std::max(0, m_first->findData(firstKey)));
  // The second keeps the user's choice when it still exists, else the most recent other model.
  int index = second.isEmpty() || second == firstKey ? -1 : m_second->findData(second);
  for (int i = 1; index < 0 && i < m_second->count(); ++i)
    if (m_second->itemData(i).toString() != firstKey) index = i;
  m_second->setCurrentIndex(std::max(0, index));
  m_updating = false;
  rebuildTable();
  QVector<BrowsedModel> browsed;
  QVector<MixtureModel> mixed;
  for (const Model& m : m_models) {
    const QString statement =
        m.file ? tr("Model file %1: %2")
                         .arg(QString::fromStdString(escapeControls(QFileInfo(m.key.mid(5)).fileName().toStdString())),
                              modelStatement(*m.file)) : QString();
    browsed.append({m.key, m.label, m.model, m.isPrivate, m.shortName, statement});
    mixed.append({m.key, m.label, m.model, m.claimHolds, m.claim, m.file});
  }
  m_browser->setModels(browsed, m_words);
  m_mixture->setModels(mixed);
}

QString TopicsView::topWords(const Eigen::MatrixXd& topics, int column) const {
  QStringList out;
  for (int w : topIndices(topics.col(column), kTableWords))
    out << (w < m_words.size() && !m_words[w].isEmpty() ? m_words[w] : QString("w%1").arg(w));
  return out.join(' ');
}

void TopicsView::rebuildTable() {
  const Model* a = chosen(m_first);
  const Model* b = chosen(m_second);
  m_table->clearContents();
  m_table->setRowCount(0);
  if (!a) return;
  const bool truth = m_truth && comparable(*m_truth, a->model) && (!b || comparable(*m_truth, b->model));
  // Every row: an anchor topic (true, or the first model's) and each model's matched topic.
  QStringList header;
  QVector<QStringList> rows;
  QVector<int> topicA, topicB;  // each row's topic of a and of b (-1: none), for the coherence columns
  if (truth) {
    header << tr("true topic") << tr("true top words") << a->label << tr("ℓ₂");
    if (b) header << b->label << tr("ℓ₂");
    const TopicErrors ea = compareTopics(m_truth->topics, m_truth->alpha, a->model.topics, a->model.alpha);
    const TopicErrors eb = b ? compareTopics(m_truth->topics, m_truth->alpha, b->model.topics, b->model.alpha)
                             : TopicErrors{};
    for (int i = 0; i < m_truth->topicCount(); ++i) {
      QStringList r{QString::number(i + 1), topWords(m_truth->topics, i)};
      const int ma = ea.matching.at(i);
      r << tr("#%1: %2").arg(ma + 1).arg(topWords(a->model.topics, ma)) << g(ea.l2PerTopic.at(i));
      topicA << ma;
      topicB << (b ? eb.matching.at(i) : -1);
      if (b) {
        const int mb = eb.matching.at(i);
        r << tr("#%1: %2").arg(mb + 1).arg(topWords(b->model.topics, mb)) << g(eb.l2PerTopic.at(i));
      }
      rows << r;
    }
  } else {
    const bool matched = b && comparable(a->model, b->model);
    header << tr("topic") << tr("α") << a->label;
    if (b) header << tr("%1 (matched)").arg(b->label) << tr("ℓ₂ between");
    const TopicErrors e = matched ? compareTopics(a->model.topics, a->model.alpha, b->model.topics, b->model.alpha)
                                  : TopicErrors{};
    for (int c = 0; c < a->model.topicCount(); ++c) {
      QStringList r{QString::number(c + 1), g(a->model.alpha[c]), topWords(a->model.topics, c)};
      topicA << c;
      topicB << (b && matched ? e.matching.at(c) : -1);
      if (b && matched) {
        const int m = e.matching.at(c);
        r << tr("#%1: %2").arg(m + 1).arg(topWords(b->model.topics, m)) << g(e.l2PerTopic.at(c));
      } else if (b) {
        r << tr("not comparable (%1 vs %2 topics)").arg(a->model.topicCount()).arg(b->model.topicCount()) << "—";
      }
      rows << r;
    }
  }
  // Coherence of each model's topic in the row: computed from the training documents.
  for (const Model* m : {a, b}) {
    if (!m || m->npmi.empty()) continue;
    const QVector<int>& topic = m == a ? topicA : topicB;
    header << tr("NPMI: %1").arg(m->label);
    for (int r = 0; r < rows.size(); ++r) {
      const int t = topic.value(r, -1);
      rows[r] << (t >= 0 && t < static_cast<int>(m->npmi.size()) ? g(m->npmi[t]) : QString("—"));
    }
  }
  m_table->setColumnCount(header.size());
  m_table->setHorizontalHeaderLabels(header);
  for (int c = 0; c < header.size(); ++c) {
    if (!header[c].startsWith(tr("NPMI: "))) continue;
    m_table->horizontalHeaderItem(c)->setToolTip(
        tr("Topic coherence: NPMI of the topic's top 10 words over document co-occurrence in the training "
           "documents (−1 to 1, higher is more coherent). A non-private diagnostic: exact statistics of the data, "
           "not part of any release."));
  }
  m_table->setRowCount(rows.size());
  for (int r = 0; r < rows.size(); ++r)
    for (int c = 0; c < rows[r].size(); ++c) setResultsCell(m_table, r, c, rows[r][c]);
  m_table->resizeColumnsToContents();
  for (int c = 0; c < m_table->columnCount(); ++c) m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 260));
}

void TopicsView::showOutcome(const RunOutcome& o) {
  setStale(false);
  const SessionState& s = o.session;
  // Models of another corpus or split are not comparable with this run's.
  const QString corpus = corpusKey(s) + QString("|%1|%2|%3").arg(s.holdout, 0, 'g', 17).arg(seedToText(s.holdoutSeed)).arg(o.vocabSize);
  if (corpus != m_corpusKey) m_models.clear();
  m_corpusKey = corpus;
  m_truth = o.truth;
  m_words = o.words;
  m_corpus = o.corpus;
  m_runFile = runModelFile(o, false);
  m_train = o.train;
  m_corpusFiles.clear();
  if (s.source == SessionState::Source::Uci) m_corpusFiles = uciCorpusFiles(s.corpusPath.toStdString());
  if (s.source == SessionState::Source::Text) m_corpusFiles = {s.corpusPath.toStdString(), s.vocabularyFile.toStdString()};
  m_mixture->setDocuments(o);

  // The run's own topics in the plot: VI's fit, the spectral release, else the non-private output.
  const bool released = o.priv && o.priv->released && o.priv->output;
  const Eigen::MatrixXd* est = nullptr;
  const TopicErrors* err = o.error ? &*o.error : nullptr;
  QString firstKey;
  const QString run = tr("run %1").arg(o.id);
  if (o.variational) {
    const bool priv = o.variational->ledger.has_value();
    firstKey = priv ? QString("dp-vi@%1").arg(o.variational->ledger->epsilon, 0, 'g', 17) : QString("vi");
    QString label = tr("%1 (%2)").arg(modelLabel(o.variational->model), run);
    if (priv) label = tr("DP-VI (%1, ε %2)").arg(run, g(o.variational->ledger->epsilon));
    remember({firstKey, label, o.variational->fit.model, npmiOf(o.coherence), priv,
              priv ? tr("DP-VI ε %1").arg(g(o.variational->ledger->epsilon)) : tr("VI"),
              priv ? QString::fromStdString(o.variational->ledger->summary)
                   : tr("non-private variational inference: no noise, not a private release"),
              priv && o.variational->ledger->claim == "proven", nullptr});
    est = &o.variational->fit.model.topics;
  } else {
    if (o.hasNonPrivate) {
      remember({"spectral", tr("spectral non-private (%1)").arg(run), LdaModel{o.nonPrivate.alpha, o.nonPrivate.topics},
                npmiOf(o.baselineCoherence), false, tr("Non-private"),
                tr("the non-private spectral model: exact statistics of the training documents, not a release"), false,
                nullptr});
    }
    const QString privateKey = QString("spectral-private@%1@%2").arg(configurationLabel(s)).arg(s.epsilon, 0, 'g', 17);
    if (released && s.edges) {
      remember({privateKey, tr("spectral %1 (%2, ε %3)").arg(configurationLabel(s), run, g(s.epsilon)),
                LdaModel{o.priv->output->alpha, o.priv->output->topics}, npmiOf(o.coherence), true,
                tr("Private ε %1").arg(g(s.epsilon)), QString::fromStdString(o.priv->statement.summary),
                o.priv->statement.isPrivate(), nullptr});
    }
    firstKey = released && s.edges ? privateKey : QString("spectral");
    est = released ? &o.priv->output->topics : &o.nonPrivate.topics;
    if (!released) err = o.baselineError ? &*o.baselineError : nullptr;
  }
  QVector<QVector<double>> truth;
  QVector<int> matching;
  if (o.truth && o.truth->vocabSize() == est->rows()) {
    truth = columns(o.truth->topics);
    if (err) matching = QVector<int>(err->matching.begin(), err->matching.end());
  }
  QString error;
  if (est->cols() > 0 && m_plot->setTopics(truth, columns(*est), matching, o.words, kPlotWords, &error)) {
    m_spin->setRange(1, std::max(1, m_plot->topicCount()));
    m_plot->setTitle(titleFor(o));
  } else {
    m_plot->clearTopics();
  }
  QString note;
  if (o.variational) {
    const ViFit& f = o.variational->fit;
    note = tr("%1, %2 VB, %3 passes, on %4 training documents").arg(modelDescription(o), viMethodName(f.method))
               .arg(f.passes).arg(o.trainDocCount);
  } else if (released && s.edges) {
    note = tr("recovered from the private run (%1)").arg(configurationLabel(s));
  } else if (!s.edges) {
    note = tr("non-private output");
  } else if (o.hasNonPrivate) {
    note = tr("nothing released: showing the non-private output (teaching)");
  } else {
    note = tr("nothing released, and the non-private model could not be computed either");
  }
  if (!o.truthNote.isEmpty()) note += "; " + o.truthNote;
  if (!o.variational && released && s.edges && !o.hasNonPrivate)
    note += tr("; no utility loss: the non-private model could not be computed");
  m_note->setText(note);
  refreshChoices(firstKey);
}

QString TopicsView::modelFileKey(const QString& path) { return "file:" + QFileInfo(path).absoluteFilePath(); }

bool TopicsView::openModelFile(const QString& path, QString* error) {
  if (!m_corpus) {
    if (error) *error = tr("Cannot open the model %1: run the session first (a model is checked against the "
                           "session's corpus).").arg(QString::fromStdString(escapeText(path.toStdString())));
    return false;
  }
  Result<ModelFile> read = readSessionModel(path, *m_corpus);
  if (!read.ok()) {
    if (error) *error = QString::fromStdString(read.status().message());
    return false;
  }
  auto file = std::make_shared<const ModelFile>(std::move(read).value());
  const QString name = QString::fromStdString(escapeControls(QFileInfo(path).fileName().toStdString()));
  // Plot headings name it shortly ("release: topic 3"); the choices and the statement in full.
  QString shortName = QString::fromStdString(escapeControls(QFileInfo(path).completeBaseName().toStdString()));
  if (shortName.size() > 20) shortName = shortName.left(19) + QStringLiteral("…");
  const QString key = modelFileKey(path);
  const QString first = m_first->currentData().toString();
  remember({key, tr("file %1 (%2)").arg(name, file->isPrivate ? tr("private") : tr("NOT private")), file->lda, {},
            file->isPrivate, shortName, QString::fromStdString(file->claim), file->isPrivate, file});
  refreshChoices(first.isEmpty() || first == key ? m_models.value(1).key : first);
  m_browser->chooseSecond(key);
  m_mixture->chooseModel(key);
  return true;
}

bool TopicsView::saveModelFile(const QString& path, const QStringList& otherInputs, QString* error) {
  if (!m_runFile) {
    if (error) *error = tr("No model to save: run the session first.");
    return false;
  }
  if (!m_runFile->ok()) {
    if (error) *error = QString::fromStdString(m_runFile->status().message());
    return false;
  }
  OutputRules rules;
  rules.inputs = m_corpusFiles;
  for (const QString& f : otherInputs) rules.inputs.push_back(f.toStdString());
  ModelFile file = m_runFile->value();
  file.training.fingerprint = corpusFingerprint(*m_train);  // as runModelFile: not private, the app shows diagnostics
  const Status written = writeModelFile(file, path.toStdString(), rules);
  if (!written.isOk()) {
    if (error) *error = QString::fromStdString(written.message());
    return false;
  }
  return true;
}

}  // namespace dplda
