#include "ui/panels/topic_browser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

#include "ui/plots/topic_map_plot.h"
#include "ui/plots/topic_terms_plot.h"

namespace dplda {

namespace {
constexpr int kReadoutWords = 6;  // words naming a topic in the map's hover readout
QString g(double v) { return QString::number(v, 'g', 3); }
}  // namespace

TopicBrowser::TopicBrowser(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  m_first = new QComboBox;
  m_second = new QComboBox;
  m_first->setObjectName("browserFirst");
  m_second->setObjectName("browserSecond");
  for (QComboBox* box : {m_first, m_second}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(8);
    box->setToolTip(tr("The last run of each model on this corpus and split"));
  }
  m_topic = new QSpinBox;
  m_topic->setRange(1, 1);
  m_topic->setPrefix(tr("topic "));
  m_topic->setToolTip(tr("The topic shown; or click its circle on the map"));
  m_lambda = new QSlider(Qt::Horizontal);
  m_lambda->setObjectName("relevanceLambda");
  m_lambda->setRange(0, 100);
  m_lambda->setValue(60);
  m_lambda->setMinimumWidth(60);
  m_lambdaValue = new QLabel;
  const QString relevance =
      tr("Relevance of a term to a topic (Sievert & Shirley 2014): λ log p(w|t) + (1 − λ) log(p(w|t)/p(w)). "
         "λ = 1 ranks terms by their probability in the topic; λ = 0 by lift, how much more often they occur in the "
         "topic than overall; about 0.6 reads best.\n"
         "p(w) is the model's own Σ_t (α_t/α₀) p(w|t), computed from its topics and α, never from the corpus' word "
         "counts: for a private model the browser shows only post-processing of the release.");
  m_both = new QCheckBox(tr("both on map"));
  m_both->setObjectName("bothOnMap");
  // Off by default: the map of one model reads as in LDAvis; with both, a release far from the
  // non-private topics (small ε, real text) sets the scale and crowds the non-private ones together.
  m_both->setToolTip(tr("Place the second model's topics on the same map (dashed rings), each joined to the topic "
                        "it is matched to: how far privacy moves every topic"));
  auto* lambdaLabel = new QLabel(tr("λ"));
  for (QWidget* w : {static_cast<QWidget*>(lambdaLabel), static_cast<QWidget*>(m_lambda),
                     static_cast<QWidget*>(m_lambdaValue)})
    w->setToolTip(relevance);
  row->addWidget(new QLabel(tr("Map of")));
  row->addWidget(m_first, 2);
  row->addWidget(new QLabel(tr("beside")));
  row->addWidget(m_second, 2);
  row->addWidget(m_topic);
  row->addWidget(m_both);
  row->addWidget(lambdaLabel);
  row->addWidget(m_lambda, 1);
  row->addWidget(m_lambdaValue);
  v->addLayout(row);
  m_problem = new QLabel;
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet("color: gray;");
  m_problem->hide();
  v->addWidget(m_problem);
  m_statement = new QLabel;
  m_statement->setObjectName("browserStatement");
  m_statement->setMinimumWidth(1);  // elided to the width it gets
  m_statement->setTextFormat(Qt::PlainText);  // a model file's claim is text, never markup
  m_statement->hide();
  v->addWidget(m_statement);

  auto* split = m_split = new QSplitter(Qt::Horizontal);
  m_map = new TopicMapPlot;
  m_map->setObjectName("topicMapPlot");
  m_map->setTitle(tr("Intertopic distance map"));
  m_firstTerms = new TopicTermsPlot;
  m_secondTerms = new TopicTermsPlot;
  m_firstTerms->setObjectName("firstTermsPlot");
  m_secondTerms->setObjectName("secondTermsPlot");
  for (PlotWidget* p : {static_cast<PlotWidget*>(m_map), static_cast<PlotWidget*>(m_firstTerms),
                        static_cast<PlotWidget*>(m_secondTerms)}) {
    p->setMinimumWidth(200);
    split->addWidget(p);
  }
  split->setChildrenCollapsible(false);
  for (int i = 0; i < 3; ++i) split->setStretchFactor(i, 1);
  connect(split, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });
  v->addWidget(split, 1);

  connect(m_lambda, &QSlider::valueChanged, this, [this](int value) {
    const double l = value / 100.0;
    m_lambdaValue->setText(QString::number(l, 'f', 2));
    m_firstTerms->setLambda(l);
    m_secondTerms->setLambda(l);
  });
  m_lambdaValue->setText(QString::number(m_lambda->value() / 100.0, 'f', 2));
  m_firstTerms->setLambda(m_lambda->value() / 100.0);
  m_secondTerms->setLambda(m_lambda->value() / 100.0);
  connect(m_map, &TopicMapPlot::currentTopicChanged, this, [this](int t) { showTopic(t); });
  connect(m_topic, &QSpinBox::valueChanged, this, [this](int t) {
    if (!m_updating) m_map->setCurrentTopic(t - 1);
  });
  for (QComboBox* box : {m_first, m_second})
    connect(box, &QComboBox::currentIndexChanged, this, [this] {
      if (!m_updating) showModels();
    });
  connect(m_both, &QCheckBox::toggled, this, [this] { showModels(); });
  connect(m_first, &QComboBox::activated, this, [this] { m_userFirst = true; });
  connect(m_second, &QComboBox::activated, this, [this] { m_userSecond = true; });
}

QString TopicBrowser::problem() const { return m_problem->text(); }

QString TopicBrowser::statement() const { return m_statementText; }

void TopicBrowser::showStatement() {
  m_statement->setText(m_statement->fontMetrics().elidedText(QString(m_statementText).replace('\n', QStringLiteral("  ·  ")),
                                                             Qt::ElideRight, std::max(40, m_statement->width())));
  m_statement->setToolTip(m_statementText);
  m_statement->setVisible(!m_statementText.isEmpty());
}

void TopicBrowser::chooseSecond(const QString& key) {
  const int i = m_second->findData(key);
  if (i < 0) return;
  m_userSecond = true;
  m_second->setCurrentIndex(i);
}

PlotWidget* TopicBrowser::currentPlot() const { return m_map; }

void TopicBrowser::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (!m_userSplit) m_split->setSizes({1, 1, 1});  // scaled to the splitter's width
  showStatement();
}

void TopicBrowser::setStale(bool stale) {
  m_map->setStale(stale);
  m_firstTerms->setStale(stale);
  m_secondTerms->setStale(stale);
}

void TopicBrowser::setLambda(double lambda) { m_lambda->setValue(static_cast<int>(std::lround(lambda * 100))); }

void TopicBrowser::setCurrentTopic(int topic) { m_map->setCurrentTopic(topic); }

const BrowsedModel* TopicBrowser::chosen(const QComboBox* box) const {
  const QString key = box->currentData().toString();
  for (const BrowsedModel& m : m_models)
    if (m.key == key) return &m;
  return nullptr;
}

void TopicBrowser::setModels(const QVector<BrowsedModel>& models, const QStringList& words) {
  m_models = models;
  m_words = words;
  refreshChoices();
}

void TopicBrowser::refreshChoices() {
  m_updating = true;
  const QString first = m_first->currentData().toString(), second = m_second->currentData().toString();
  m_first->clear();
  m_second->clear();
  m_second->addItem(tr("(none)"), QString());
  for (const BrowsedModel& m : m_models) {
    m_first->addItem(m.label, m.key);
    m_second->addItem(m.label, m.key);
  }
  // The user's choices kept while they exist; else the map shows the most recent non-private model,
  // the side the most recent private one (what privacy does to the topics: a new run's release
  // replaces the last), or else the most recent other model.
  auto keyOf = [&](bool isPrivate, const QString& other) {
    for (const BrowsedModel& m : m_models)
      if (m.isPrivate == isPrivate && m.key != other) return m.key;
    return QString();
  };
  QString a = m_userFirst && m_first->findData(first) >= 0 ? first : keyOf(false, QString());
  if (a.isEmpty() && !m_models.isEmpty()) a = m_models.first().key;
  QString b = m_userSecond && second != a && m_second->findData(second) >= 0 ? second : keyOf(true, a);
  if (b.isEmpty()) b = keyOf(false, a);
  m_first->setCurrentIndex(std::max(0, m_first->findData(a)));
  m_second->setCurrentIndex(std::max(0, m_second->findData(b)));
  m_updating = false;
  showModels();
}

QStringList TopicBrowser::topWordLists(const LdaModel& model) const {
  QStringList out;
  for (int t = 0; t < model.topicCount(); ++t) {
    QStringList words;
    for (int w : topIndices(model.topics.col(t), kReadoutWords))
      words << (w < m_words.size() && !m_words[w].isEmpty() ? m_words[w] : QString("w%1").arg(w));
    out << words.join(' ');
  }
  return out;
}

void TopicBrowser::showModels() {
  const BrowsedModel* a = chosen(m_first);
  const BrowsedModel* b = chosen(m_second);
  m_match.reset();
  QStringList problems;
  auto clearAll = [this] {
    m_map->clearMap();
    m_firstTerms->clearModel();
    m_secondTerms->clearModel();
  };
  if (!a) {
    clearAll();
    m_problem->hide();
    m_statementText.clear();
    showStatement();
    return;
  }
  const Result<TopicMap> map = topicMap(a->model);
  QString error;
  if (!map.ok()) {
    clearAll();
    problems << tr("%1: %2").arg(a->label, QString::fromStdString(map.status().message()));
  } else if (!m_map->setMap(map.value(), topWordLists(a->model), a->label, &error) ||
             !m_firstTerms->setModel(a->model, m_words, a->label, &error)) {
    clearAll();
    problems << tr("%1: %2").arg(a->label, error);
  } else {
    m_firstTerms->setHeading(heading(*a));
  }
  m_secondTerms->clearModel();
  m_secondTerms->setNote(QString());
  if (b && map.ok()) {
    const Status comparable = validateTopicComparison(a->model.topics, a->model.alpha, b->model.topics, b->model.alpha);
    if (!comparable.isOk()) {
      problems << tr("%1 cannot be matched to %2: %3").arg(b->label, a->label, QString::fromStdString(comparable.message()));
    } else if (!m_secondTerms->setModel(b->model, m_words, b->label, &error)) {
      problems << tr("%1: %2").arg(b->label, error);
    } else {
      m_secondTerms->setHeading(heading(*b));
      m_match = compareTopics(a->model.topics, a->model.alpha, b->model.topics, b->model.alpha);
    }
  }
  if (m_match && m_both->isChecked()) {
    // One scaling of both models' topics; each model's prevalences sum to 1 (α_t/α₀ of its own).
    const int ka = a->model.topicCount(), kb = b->model.topicCount();
    LdaModel both;
    both.topics.resize(a->model.vocabSize(), ka + kb);
    both.topics << a->model.topics, b->model.topics;
    both.alpha.resize(ka + kb);
    both.alpha << topicPrevalence(a->model), topicPrevalence(b->model);
    Result<TopicMap> joint = topicMap(both);
    if (joint.ok()) {
      joint->prevalence *= 2.0;
      const MapCompanion companion{ka, QVector<int>(m_match->matching.begin(), m_match->matching.end()), b->label};
      if (!m_map->setMap(joint.value(), topWordLists(a->model), a->label, &error, companion)) problems << error;
    } else {
      problems << QString::fromStdString(joint.status().message());
    }
  }
  QStringList statements;
  for (const BrowsedModel* m : {a, b})
    if (m && !m->statement.isEmpty()) statements << m->statement;
  m_statementText = statements.join('\n');
  showStatement();
  m_problem->setText(problems.join('\n'));
  m_problem->setVisible(!problems.isEmpty());
  m_updating = true;
  m_topic->setRange(1, std::max(1, m_map->topicCount()));
  m_updating = false;
  showTopic(m_map->currentTopic());
}

QString TopicBrowser::heading(const BrowsedModel& m) {
  const QString name = !m.shortName.isEmpty() ? m.shortName : m.isPrivate ? tr("Private") : tr("Non-private");
  return name + QStringLiteral(": ");
}

int TopicBrowser::matchedTopic(int topic) const {
  if (!m_match || topic < 0 || topic >= static_cast<int>(m_match->matching.size())) return -1;
  return m_match->matching[topic];
}

void TopicBrowser::showTopic(int topic) {
  m_updating = true;
  m_topic->setValue(topic + 1);
  m_updating = false;
  m_firstTerms->setTopic(topic);
  const int m = matchedTopic(topic);
  if (m < 0) return;
  m_secondTerms->setTopic(m);
  const BrowsedModel* a = chosen(m_first);
  const BrowsedModel* b = chosen(m_second);
  const double js = std::sqrt(jensenShannonDivergence(a->model.topics.col(topic), b->model.topics.col(m)));
  m_secondTerms->setNote(tr("matches topic %1 (ℓ₂ %2, JS %3)")
                             .arg(topic + 1)
                             .arg(g(m_match->l2PerTopic.at(topic)))
                             .arg(g(js)));
}

}  // namespace dplda
