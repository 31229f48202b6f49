#include "ui/panels/generator_panel.h"

#include <algorithm>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QMenu>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/common/compact_combo.h"
#include "ui/common/palette.h"

namespace dplda {

namespace {
QSpinBox* spin(int lo, int hi) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setKeyboardTracking(false);  // one edit per committed value, not per keystroke
  s->setGroupSeparatorShown(true);
  return s;
}
QDoubleSpinBox* dspin(double lo, double hi, int decimals, double step) {
  auto* s = new QDoubleSpinBox;
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  s->setKeyboardTracking(false);
  return s;
}
}  // namespace

GeneratorPanel::GeneratorPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(6, 6, 6, 6);

  auto* corpusBox = new QGroupBox(tr("Corpus"));
  auto* cform = new QFormLayout(corpusBox);
  m_source = new QComboBox;
  m_source->addItem(tr("Synthetic LDA"), "synthetic");
  m_source->addItem(tr("UCI folder"), "uci");
  m_source->addItem(tr("Text, CSV or JSON Lines"), "text");
  makeCompact(m_source, 14);
  addRow(cform, "source", tr("Source"), m_source, tr("Draw a synthetic corpus with known truth, or load one"));
  auto* pathRow = new QWidget;
  auto* pl = new QHBoxLayout(pathRow);
  pl->setContentsMargins(0, 0, 0, 0);
  m_path = new QLineEdit;
  m_path->setPlaceholderText(tr("docword.txt folder"));
  m_browse = new QPushButton(tr("Load…"));
  pl->addWidget(m_path, 1);
  pl->addWidget(m_browse);
  addRow(cform, "corpus", tr("Path"), pathRow,
         tr("UCI: bag-of-words folder with docword.txt, optional vocab.txt and truth.json.\n"
            "Plain text: a file (one document per line, or per separator) or a folder (one document per file)"));
  m_fields["corpus"] = m_path;
  // The text file's format, then for a table the column or field of the documents: two rows, so
  // that both show their whole text in a 270-px panel (one row cut them to "Lines" and "(…").
  m_textFormat = new QComboBox;
  m_textFormat->addItem(tr("Lines"), "text");
  m_textFormat->addItem(tr("CSV"), "csv");
  m_textFormat->addItem(tr("TSV"), "tsv");
  m_textFormat->addItem(tr("JSON Lines"), "jsonl");
  addRow(cform, "text_format", tr("Format"), m_textFormat,
         tr("Lines: plain text, a document per line (or per separator) or per file of a folder.\n"
            "CSV / TSV: one file, a document per row, read from the named column (RFC 4180 quoting).\n"
            "JSON Lines: one object a line, the document in the named field.\n"
            "Any file may be gzip-compressed. dplda import-text --column/--field does the same."));
  m_textColumn = new QLineEdit;
  addRow(cform, "text_column", tr("Column"), m_textColumn,
         tr("CSV / TSV: the column of the documents; JSON Lines: their field"));
  m_separator = new QLineEdit;
  m_separator->setPlaceholderText(tr("empty: one document per line"));
  addRow(cform, "separator", tr("Separator line"), m_separator,
         tr("Plain-text file: a line equal to this ends a document (\"%\" reads fortune files); empty: one "
            "document per line"));
  m_vocabularyFile = new QLineEdit;
  m_vocabularyFile->setPlaceholderText(tr("empty: chosen privately"));
  addRow(cform, "vocabulary_file", tr("Vocabulary list"), m_vocabularyFile,
         tr("Plain text: a public word list (one word a line; the coordinates follow its order). Empty: at most "
            "d words (Vocabulary d below) chosen by private partition selection, epsilon 1, delta 1e-6, charged "
            "in every private run's ledger (docs/PRIVACY.md §13)"));
  outer->addWidget(corpusBox);

  auto* genBox = new QGroupBox(tr("Generator (SPEC §2)"));
  m_syntheticBox = genBox;
  auto* gform = new QFormLayout(genBox);
  // Spin box minimums sit below the valid ranges: a typed 0 reaches validateSession, which says
  // what is wrong next to the field, instead of the spin box silently restoring the old value.
  m_vocab = spin(0, 1000000);
  addRow(gform, "vocab", tr("Vocabulary d"), m_vocab,
         tr("Number of distinct words; for plain text, the import keeps the d most frequent words"));
  m_docs = spin(0, 100000000);
  m_docs->setSingleStep(1000);
  addRow(gform, "docs", tr("Documents N"), m_docs, tr("Number of documents; sensitivities shrink like 1/N"));
  m_prior = new QComboBox;
  m_prior->addItem(tr("random: α₀·Dir(1)"), "random");
  m_prior->addItem(tr("symmetric: α₀/k"), "symmetric");
  addRow(gform, "prior", tr("Prior shape"), m_prior, tr("How α₀ is spread over the k topics"));
  m_beta = dspin(0, 1000, 3, 0.05);
  addRow(gform, "beta", tr("Topic concentration β"), m_beta, tr("μᵢ ~ Dirichlet(β·1): small β gives bursty topics"));
  m_length = dspin(0, 100000, 1, 10);
  addRow(gform, "length", tr("Mean length"), m_length, tr("Poisson mean of the document length (≥ 3)"));
  m_fixed = new QCheckBox(tr("exactly the mean length"));
  m_fixed->setToolTip(tr("Every document has exactly the mean length (no Poisson draw)"));
  addRow(gform, "fixed", tr("Fixed length"), m_fixed, QString());
  m_seed = new QLineEdit;
  addRow(gform, "seed", tr("Data seed"), m_seed, tr("Same parameters and seed give the same corpus everywhere"));
  outer->addWidget(genBox);

  auto* modelBox = new QGroupBox(tr("Model"));
  auto* mform = new QFormLayout(modelBox);
  m_modelForm = mform;
  m_model = new QComboBox;
  m_model->addItem(tr("spectral (the graph)"), "spectral");
  m_model->addItem(tr("VI (variational LDA)"), "vi");
  m_model->addItem(tr("DP-VI (Park et al. 2016)"), "dp-vi");
  makeCompact(m_model, 14);
  addRow(mform, "model", tr("Model"), m_model,
         tr("Spectral: the computation graph with noise on its edges. VI: variational Bayes, non-private. "
            "DP-VI: VI with clipped, noisy statistics every iteration, accounted by zCDP (docs/PRIVACY.md §10)"));
  m_topics = spin(0, 10000);
  addRow(mform, "topics", tr("Topics k"), m_topics, tr("Number of topics (k ≤ d)"));
  m_alpha0 = dspin(0, 10000, 3, 0.1);
  addRow(mform, "alpha0", tr("α₀"), m_alpha0, tr("Sum of the Dirichlet prior; public, known to the estimator"));
  // VI's parameters: the command line's (`dplda run --model vi|dp-vi`) with its ranges and messages.
  m_viMethod = new QComboBox;
  m_viMethod->addItem(tr("online (minibatches)"), "online");
  m_viMethod->addItem(tr("batch (full passes)"), "batch");
  m_viMethod->addItem(tr("Poisson minibatches"), "poisson");
  addRow(mform, "vi_method", tr("VI method"), m_viMethod,
         tr("--vi: online VB (Hoffman et al. 2010), batch VB (Blei et al. 2003), or online VB on Poisson samples. "
            "For DP-VI, online counts every minibatch as a full release; Poisson samples are secret and their "
            "account claims the amplification by subsampling (PRIVACY.md §16.5)"));
  m_viAlpha = new QComboBox;
  m_viAlpha->addItem(tr("symmetric (α₀/k each)"), "symmetric");
  m_viAlpha->addItem(tr("learned (token shares)"), "learned");
  addRow(mform, "vi_alpha", tr("VI α"), m_viAlpha,
         tr("--vi-alpha: the prior's shape. Symmetric: α₀/k for every topic. Learned: α₀ times the topics' "
            "token shares after every M-step (empirical Bayes; for DP-VI post-processing of the released "
            "statistics, PRIVACY.md §10)"));
  m_viIterations = spin(0, 1000000);
  addRow(mform, "vi_iterations", tr("Passes"), m_viIterations, tr("--iterations: passes over the training documents"));
  m_viBatch = spin(0, 100000000);
  addRow(mform, "vi_batch_size", tr("Batch size S"), m_viBatch, tr("--batch-size: online minibatch size"));
  m_viTau0 = dspin(0, 1e7, 1, 1);  // 1e7 (as L_max's field) keeps the dock narrow; useful τ₀ and C are far below
  addRow(mform, "vi_tau0", tr("τ₀"), m_viTau0, tr("--tau0: learning offset, ρ_t = (τ₀ + t)^−κ"));
  m_viKappa = dspin(0, 2, 3, 0.05);
  addRow(mform, "vi_kappa", tr("κ"), m_viKappa, tr("--kappa: learning decay in (0.5, 1]"));
  m_viClip = dspin(0, 1e7, 3, 1);
  addRow(mform, "vi_clip", tr("Clip C"), m_viClip,
         tr("--clip: public bound on the Frobenius norm of one document's statistics; sensitivity 2C"));
  m_decomposer = new QComboBox;
  // Short names, read whole in a narrow panel; what each does is its tooltip.
  const std::pair<QString, QString> decomposers[] = {
      {tr("fast"), tr("fast: a spectral start, then power steps")},
      {tr("robust power"), tr("robust tensor power method")},
      {tr("simultaneous"), tr("simultaneous power method")},
      {tr("online power"), tr("online power method (seed 004 Algorithm 2; non-private runs only)")}};
  const char* decomposerKeys[] = {"fast", "robust", "simultaneous", "online"};
  for (int i = 0; i < 4; ++i) {
    m_decomposer->addItem(decomposers[i].first, decomposerKeys[i]);
    m_decomposer->setItemData(i, decomposers[i].second, Qt::ToolTipRole);
  }
  makeCompact(m_decomposer, 14);
  addRow(mform, "decomposer", tr("Decomposer"), m_decomposer, tr("Tensor decomposition method (SPEC §5)"));
  m_initSeed = new QLineEdit;
  addRow(mform, "init_seed", tr("Init seed"), m_initSeed, tr("Random starts of the decomposer"));
  m_maxLength = dspin(0, 1e7, 0, 10);
  addRow(mform, "max_length", tr("Clip length L_max"), m_maxLength,
         tr("Public clipping length for input perturbation (e0, e1)"));
  outer->addWidget(modelBox);

  auto* evalBox = new QGroupBox(tr("Held-out evaluation"));
  auto* eform = new QFormLayout(evalBox);
  m_holdout = dspin(0, 1, 3, 0.05);
  addRow(eform, "holdout", tr("Held-out fraction"), m_holdout,
         tr("--holdout: this fraction of the documents (a seeded, public split) never enters a fit and scores "
            "every model by perplexity (post-processing); 0: fit on every document, no score"));
  m_holdoutSeed = new QLineEdit;
  addRow(eform, "holdout_seed", tr("Split seed"), m_holdoutSeed, tr("--holdout-seed: the split's seed"));
  outer->addWidget(evalBox);

  auto* sweepBox = new QGroupBox(tr("The session's ε sweep"));
  m_sweepBox = sweepBox;
  auto* sform = new QFormLayout(sweepBox);
  m_sweepEpsilons = new QLineEdit;
  m_sweepEpsilons->setPlaceholderText(tr("lo:hi:count or a list, e.g. 0.1:10:7"));
  addRow(sform, "sweep_epsilons", tr("ε grid"), m_sweepEpsilons,
         tr("Total ε values of the sweep: lo:hi:count (log-spaced, ends included) or a list such as 0.5,1,2"));
  m_trials = spin(0, 999);
  addRow(sform, "trials", tr("Trials per ε"), m_trials,
         tr("Noise draws per ε; curves show the median and the 10–90% band of the trials that released"));
  m_compare = new QCheckBox(tr("configurations 1–4"));
  addRow(sform, "compare", tr("Compare"), m_compare, tr("Sweep all four configurations instead of the current set"));
  m_compareSound = new QCheckBox(tr("sound improvements"));
  addRow(sform, "compare_sound", QString(), m_compareSound,
         tr("Also sweep configuration 1 on clipped documents and the whitened release, both with the Gaussian-DP "
            "accountant (1/clip/gdp, whitened/gdp): the proven ways to a useful error. Needs the sound bounds and "
            "the analytic Gaussian"));
  // Whole, or on their own row (the form wraps a row whose field's minimum does not fit).
  for (QCheckBox* box : {m_compare, m_compareSound}) box->setMinimumWidth(box->sizeHint().width());
  outer->addWidget(sweepBox);
  outer->addStretch(1);
  // A narrow dock (a 1280-px screen) puts a long label above its field instead of cutting the
  // field or adding a horizontal scroll bar.
  // The corpus box's labels all go above their fields: paths and placeholders get the whole width.
  for (QFormLayout* form : findChildren<QFormLayout*>())
    form->setRowWrapPolicy(form->parentWidget() == corpusBox ? QFormLayout::WrapAllRows : QFormLayout::WrapLongRows);

  connect(m_source, &QComboBox::currentIndexChanged, this, [this] { commit("source", tr("change corpus source")); });
  connect(m_path, &QLineEdit::editingFinished, this, [this] { commit("corpus", tr("change corpus folder")); });
  connect(m_separator, &QLineEdit::editingFinished, this, [this] { commit("separator", tr("change separator")); });
  connect(m_textFormat, &QComboBox::currentIndexChanged, this, [this] { commit("text_column", tr("change text format")); });
  connect(m_textColumn, &QLineEdit::editingFinished, this, [this] { commit("text_column", tr("change text column")); });
  connect(m_vocabularyFile, &QLineEdit::editingFinished, this,
          [this] { commit("vocabulary_file", tr("change vocabulary list")); });
  connect(m_browse, &QPushButton::clicked, this, [this] {
    if (m_source->currentData().toString() == "text") browseText();
    else emit loadCorpusRequested();
  });
  auto onInt = [this](QSpinBox* s, const QString& key, const QString& what) {
    connect(s, &QSpinBox::valueChanged, this, [this, key, what] { commit(key, what); });
  };
  auto onDouble = [this](QDoubleSpinBox* s, const QString& key, const QString& what) {
    connect(s, &QDoubleSpinBox::valueChanged, this, [this, key, what] { commit(key, what); });
  };
  onInt(m_vocab, "vocab", tr("change d"));
  onInt(m_topics, "topics", tr("change k"));
  onInt(m_docs, "docs", tr("change N"));
  onInt(m_trials, "trials", tr("change trials"));
  onInt(m_viIterations, "vi_iterations", tr("change VI passes"));
  onInt(m_viBatch, "vi_batch_size", tr("change VI batch size"));
  onDouble(m_viTau0, "vi_tau0", tr("change τ₀"));
  onDouble(m_viKappa, "vi_kappa", tr("change κ"));
  onDouble(m_viClip, "vi_clip", tr("change clip C"));
  onDouble(m_holdout, "holdout", tr("change held-out fraction"));
  connect(m_model, &QComboBox::currentIndexChanged, this, [this] { commit("model", tr("choose the model")); });
  connect(m_viMethod, &QComboBox::currentIndexChanged, this, [this] { commit("vi_method", tr("change VI method")); });
  connect(m_viAlpha, &QComboBox::currentIndexChanged, this, [this] { commit("vi_alpha", tr("change VI α")); });
  connect(m_holdoutSeed, &QLineEdit::editingFinished, this, [this] { commit("holdout_seed", tr("change split seed")); });
  onDouble(m_alpha0, "alpha0", tr("change α₀"));
  onDouble(m_beta, "beta", tr("change β"));
  onDouble(m_length, "length", tr("change document length"));
  onDouble(m_maxLength, "max_length", tr("change L_max"));
  connect(m_prior, &QComboBox::currentIndexChanged, this, [this] { commit("prior", tr("change prior")); });
  connect(m_decomposer, &QComboBox::currentIndexChanged, this, [this] { commit("decomposer", tr("change decomposer")); });
  connect(m_fixed, &QCheckBox::toggled, this, [this] { commit("length", tr("toggle fixed length")); });
  connect(m_compare, &QCheckBox::toggled, this, [this] { commit("trials", tr("toggle comparison")); });
  connect(m_compareSound, &QCheckBox::toggled, this,
          [this] { commit("trials", tr("toggle comparison with the sound improvements")); });
  connect(m_seed, &QLineEdit::editingFinished, this, [this] { commit("seed", tr("change data seed")); });
  connect(m_initSeed, &QLineEdit::editingFinished, this, [this] { commit("init_seed", tr("change init seed")); });
  connect(m_sweepEpsilons, &QLineEdit::editingFinished, this,
          [this] { commit("sweep_epsilons", tr("change the sweep's ε grid")); });
}

void GeneratorPanel::insertSection(QWidget* section) {
  if (auto* outer = qobject_cast<QVBoxLayout*>(layout())) outer->insertWidget(0, section);
}

void GeneratorPanel::addRow(QFormLayout* form, const QString& key, const QString& label, QWidget* w,
                            const QString& tip) {
  auto* box = new QWidget;
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  v->addWidget(w);
  auto* err = new QLabel;
  err->setWordWrap(true);
  err->setStyleSheet(QString("color: %1; font-size: small;").arg(leakColor().name()));
  err->setObjectName("error_" + key);
  err->hide();
  v->addWidget(err);
  if (!tip.isEmpty()) w->setToolTip(tip);
  w->setObjectName(key);
  form->addRow(label, box);
  m_rows[key] = box;
  if (!m_fields.contains(key)) m_fields[key] = w;
  m_errors[key] = err;
}

void GeneratorPanel::setFieldError(const QString& key, const QString& message) {
  QLabel* l = m_errors.value(key);
  if (!l) return;
  l->setText(message);
  l->setVisible(!message.isEmpty());
  // The field itself shows it too (a red border, the message as its tooltip): the label under
  // it may be scrolled out of view in a short window.
  if (QWidget* w = m_fields.value(key)) {
    if (!m_tips.contains(key)) m_tips.insert(key, w->toolTip());
    w->setStyleSheet(message.isEmpty() ? QString()
                                       : QString("%1 { border: 2px solid %2; }")
                                             .arg(QString::fromLatin1(w->metaObject()->className()), leakColor().name()));
    w->setToolTip(message.isEmpty() ? m_tips.value(key) : message);
  }
}

QString GeneratorPanel::problem() const {
  for (auto it = m_errors.begin(); it != m_errors.end(); ++it)
    if (!it.value()->isHidden() && !it.value()->text().isEmpty()) return it.value()->text();
  return QString();
}

void GeneratorPanel::reportProblem() {
  const QString now = problem();
  if (now == m_reportedProblem) return;
  m_reportedProblem = now;
  emit inputProblem(now);
}

QString GeneratorPanel::fieldError(const QString& key) const {
  QLabel* l = m_errors.value(key);
  return l && !l->isHidden() ? l->text() : QString();
}

void GeneratorPanel::setState(const SessionState& s) {
  m_updating = true;
  m_state = s;
  const GeneratorParams& g = s.generator;
  m_source->setCurrentIndex(s.source == SessionState::Source::Uci ? 1 : s.source == SessionState::Source::Text ? 2 : 0);
  m_path->setText(s.corpusPath);
  m_separator->setText(s.separator);
  m_textFormat->setCurrentIndex(std::max(0, m_textFormat->findData(QString::fromLatin1(textFormatName(s.textFormat)))));
  m_textColumn->setText(s.textColumn);
  m_vocabularyFile->setText(s.vocabularyFile);
  m_vocab->setValue(g.vocabSize);
  m_topics->setValue(g.topicCount);
  m_docs->setValue(g.docCount);
  m_alpha0->setValue(g.alpha0);
  m_prior->setCurrentIndex(g.prior == GeneratorParams::Prior::Symmetric ? 1 : 0);
  m_beta->setValue(g.beta);
  m_length->setValue(g.meanLength);
  m_fixed->setChecked(g.fixedLength);
  m_seed->setText(seedToText(g.seed));
  m_decomposer->setCurrentIndex(std::max(0, m_decomposer->findData(s.decomposer)));
  m_initSeed->setText(seedToText(s.initSeed));
  m_maxLength->setValue(s.maxLength);
  m_trials->setValue(s.trials);
  m_sweepEpsilons->setText(s.sweepEpsilons);
  m_compare->setChecked(s.comparePresets);
  m_compareSound->setChecked(s.compareSound);
  m_model->setCurrentIndex(std::max(0, m_model->findData(QString::fromLatin1(modelName(s.model)))));
  m_viMethod->setCurrentIndex(m_viMethod->findData(QString(viMethodName(s.vi.method))));
  m_viAlpha->setCurrentIndex(s.vi.learnAlpha ? 1 : 0);
  m_viIterations->setValue(s.vi.iterations);
  m_viBatch->setValue(s.vi.batchSize);
  m_viTau0->setValue(s.vi.tau0);
  m_viKappa->setValue(s.vi.kappa);
  m_viClip->setValue(s.vi.clip);
  m_holdout->setValue(s.holdout);
  m_holdoutSeed->setText(seedToText(s.holdoutSeed));
  updateEnabled(s);
  for (const QString& key : m_errors.keys()) setFieldError(key, QString());
  m_updating = false;
  reportProblem();
}

SessionState GeneratorPanel::fromWidgets(QString* seedError, QString* seedKey) const {
  SessionState s = m_state;
  GeneratorParams& g = s.generator;
  const QString source = m_source->currentData().toString();
  s.source = source == "uci"    ? SessionState::Source::Uci
             : source == "text" ? SessionState::Source::Text
                                : SessionState::Source::Synthetic;
  s.corpusPath = m_path->text().trimmed();
  s.separator = m_separator->text();
  s.textFormat = parseTextFormat(m_textFormat->currentData().toString().toStdString()).value();
  s.textColumn = m_textColumn->text().trimmed();
  s.vocabularyFile = m_vocabularyFile->text().trimmed();
  g.vocabSize = m_vocab->value();
  g.topicCount = m_topics->value();
  g.docCount = m_docs->value();
  g.alpha0 = m_alpha0->value();
  g.prior = m_prior->currentIndex() == 1 ? GeneratorParams::Prior::Symmetric : GeneratorParams::Prior::Random;
  g.beta = m_beta->value();
  g.meanLength = m_length->value();
  g.fixedLength = m_fixed->isChecked();
  s.decomposer = m_decomposer->currentData().toString();
  s.maxLength = m_maxLength->value();
  s.trials = m_trials->value();
  s.sweepEpsilons = m_sweepEpsilons->text().trimmed();
  s.comparePresets = m_compare->isChecked();
  s.compareSound = m_compareSound->isChecked();
  const QString model = m_model->currentData().toString();
  s.model = model == "vi" ? SessionState::Model::Vi : model == "dp-vi" ? SessionState::Model::DpVi
                                                                        : SessionState::Model::Spectral;
  s.vi.method = parseViMethod(m_viMethod->currentData().toString().toStdString()).value();
  s.vi.learnAlpha = m_viAlpha->currentData().toString() == "learned";
  s.vi.iterations = m_viIterations->value();
  s.vi.batchSize = m_viBatch->value();
  s.vi.tau0 = m_viTau0->value();
  s.vi.kappa = m_viKappa->value();
  s.vi.clip = m_viClip->value();
  s.holdout = m_holdout->value();
  auto seed = parseSeed(m_seed->text(), tr("data seed"));
  if (seed.ok()) g.seed = seed.value();
  else { *seedError = QString::fromStdString(seed.status().message()); *seedKey = "seed"; }
  auto init = parseSeed(m_initSeed->text(), tr("init seed"));
  if (init.ok()) s.initSeed = init.value();
  else if (seedError->isEmpty()) { *seedError = QString::fromStdString(init.status().message()); *seedKey = "init_seed"; }
  auto split = parseSeed(m_holdoutSeed->text(), tr("split seed"));
  if (split.ok()) s.holdoutSeed = split.value();
  else if (seedError->isEmpty()) { *seedError = QString::fromStdString(split.status().message()); *seedKey = "holdout_seed"; }
  return s;
}

void GeneratorPanel::commit(const QString& key, const QString& what) {
  if (m_updating) return;
  QString seedError, seedKey;
  const SessionState next = fromWidgets(&seedError, &seedKey);
  updateEnabled(next);
  const QMap<QString, QString> errors = validateSession(next);
  for (const QString& k : m_errors.keys()) setFieldError(k, errors.value(k));
  if (!seedError.isEmpty()) setFieldError(seedKey, seedError);
  reportProblem();
  if (!errors.isEmpty() || !seedError.isEmpty()) return;  // the session keeps its last valid state
  if (next == m_state) return;
  Q_UNUSED(key);
  m_state = next;
  emit edited(next, what);
}

void GeneratorPanel::updateEnabled(const SessionState& s) {
  // Rows of the chosen model only: the spectral options, or VI's (online ones, DP-VI's clip).
  const bool variational = s.isVariational(), online = isMinibatch(s.vi.method);
  const QMap<QString, bool> rows{{"decomposer", !variational},      {"max_length", !variational},
                                 {"vi_method", variational},        {"vi_alpha", variational},
                                 {"vi_iterations", variational},
                                 {"vi_batch_size", variational && online}, {"vi_tau0", variational && online},
                                 {"vi_kappa", variational && online},
                                 {"vi_clip", s.model == SessionState::Model::DpVi}};
  for (auto it = rows.begin(); it != rows.end(); ++it) m_modelForm->setRowVisible(m_rows.value(it.key()), it.value());
  m_sweepBox->setEnabled(!variational);  // the session's ε sweep is of the spectral model
  m_sweepBox->setToolTip(variational ? tr("The session's ε sweep runs with the spectral model only") : QString());
  m_compareSound->setEnabled(soundImprovementsApply(s));  // greyed with printed bounds or another mechanism
  const SessionState::Source source = s.source;
  const bool synthetic = source == SessionState::Source::Synthetic;
  const bool text = source == SessionState::Source::Text;
  // Plain text uses d from the generator box (the vocabulary cap) and nothing else of it.
  m_syntheticBox->setEnabled(synthetic || text);
  for (QWidget* w : std::initializer_list<QWidget*>{m_docs, m_prior, m_beta, m_length, m_fixed, m_seed})
    w->setEnabled(synthetic);
  m_vocab->setEnabled(true);
  m_path->setEnabled(!synthetic);
  m_browse->setText(text ? tr("Browse…") : tr("Load…"));
  m_path->setPlaceholderText(text ? tr("text file or folder") : tr("docword.txt folder"));
  const bool table = s.textFormat != TextFormat::Text;
  m_textFormat->setEnabled(text);
  m_textColumn->setEnabled(text && table);
  m_textColumn->setPlaceholderText(!table ? tr("(a table's column)")
                                   : s.textFormat == TextFormat::JsonLines ? tr("field, e.g. text")
                                                                           : tr("column, e.g. text"));
  m_separator->setEnabled(text && !table);
  m_vocabularyFile->setEnabled(text);
}

void GeneratorPanel::browseText() {
  QMenu menu(this);
  QAction* file = menu.addAction(tr("File (text, CSV, TSV, JSON Lines; gzip too)…"));
  QAction* folder = menu.addAction(tr("Folder (one document per file)…"));
  QAction* chosen = menu.exec(m_browse->mapToGlobal(QPoint(0, m_browse->height())));
  QString path;
  if (chosen == file) path = QFileDialog::getOpenFileName(this, tr("Plain-text corpus"), m_path->text());
  else if (chosen == folder) path = QFileDialog::getExistingDirectory(this, tr("Folder of text documents"), m_path->text());
  if (path.isEmpty()) return;
  m_path->setText(path);
  // A file's name says its format (.csv, .tsv, .jsonl, also before .gz); a folder is plain text.
  const TextFormat format = chosen == file ? textFormatFromName(path.toStdString()) : TextFormat::Text;
  m_textFormat->blockSignals(true);
  m_textFormat->setCurrentIndex(std::max(0, m_textFormat->findData(QString::fromLatin1(textFormatName(format)))));
  m_textFormat->blockSignals(false);
  commit("corpus", tr("load text corpus"));
}

}  // namespace dplda
