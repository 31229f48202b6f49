#include "ui/worker/run_worker.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QDir>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/random.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"

namespace dplda {

namespace {

QString generatorKey(const SessionState& s) {
  if (s.source == SessionState::Source::Uci) return "uci:" + QFileInfo(s.corpusPath).absoluteFilePath();
  if (s.source == SessionState::Source::Text) {
    // The import depends on the path, the separator and d (the vocabulary cap).
    return QString("text:%1:%2:%3").arg(s.generator.vocabSize).arg(s.separator.size()).arg(s.separator) + ":" +
           QFileInfo(s.corpusPath).absoluteFilePath();
  }
  const GeneratorParams& g = s.generator;
  return QString("gen:%1:%2:%3:%4:%5:%6:%7:%8:%9")
      .arg(g.vocabSize).arg(g.topicCount).arg(g.docCount)
      .arg(QString::number(g.alpha0, 'g', 17), g.prior == GeneratorParams::Prior::Random ? "r" : "s",
           QString::number(g.beta, 'g', 17), QString::number(g.meanLength, 'g', 17))
      .arg(g.fixedLength ? 1 : 0).arg(seedToText(g.seed));
}

PrivacyOptions privacyOptions(const SessionState& s, EdgeSet edges, double epsilon) {
  PrivacyOptions o;
  o.edges = edges;
  // The weights are one per release of the session's own edge set; other sets (the preset
  // comparison of the sweep) split uniformly.
  if (edges == s.edges) o.splitWeights = s.splitWeights;
  o.shareReleases = s.shareReleases;
  o.epsilon = epsilon;
  o.delta = s.delta;
  o.mechanism = s.mechanism;
  o.bounds = s.bounds;
  o.maxLength = s.maxLength;
  return o;
}

SpectralOptions spectralOptions(const SessionState& s) {
  SpectralOptions o;
  o.topicCount = s.topicCount();
  o.alpha0 = s.alpha0();
  o.decomposer = s.decomposer.toStdString();
  o.initSeed = s.initSeed;
  return o;
}

double quantileSorted(const std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double pos = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

}  // namespace

QVector<double> RunWorker::sweepEpsilons() { return {0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0}; }

Status RunWorker::prepareCorpus(const SessionState& s, Feedback* fb, RunOutcome& out) {
  const QString key = generatorKey(s);
  if (key != m_corpusKey || !m_corpus) {
    m_corpusKey.clear();
    m_corpus.reset();
    m_truth.reset();
    m_truthNote.clear();
    if (s.source == SessionState::Source::Synthetic) {
      emit progress(out.id, 0.0, "generating corpus");
      auto r = generateLdaCorpus(s.generator, fb);
      if (!r.ok()) return r.status();
      m_corpus = std::make_shared<Corpus>(std::move(r.value().corpus));
      m_truth = std::move(r.value().truth);
    } else if (s.source == SessionState::Source::Text) {
      emit progress(out.id, 0.0, "importing text");
      if (!QFileInfo::exists(s.corpusPath)) {
        return ioError(QString("corpus: '%1' does not exist").arg(s.corpusPath).toStdString());
      }
      TextImportParams params;
      params.input = s.corpusPath.toStdString();
      params.vocabSize = s.generator.vocabSize;
      params.separator = s.separator.toStdString();
      TextImportReport report;
      auto r = importText(params, &report, fb);
      if (!r.ok()) return r.status();
      m_corpus = std::make_shared<Corpus>(std::move(r.value()));
      m_truthNote = QString("plain text (%1 documents read, %2 kept, %3 distinct words, d = %4): no truth; errors "
                            "are measured against the non-private output")
                        .arg(report.documentsRead).arg(report.documentsKept).arg(report.distinctWords)
                        .arg(m_corpus->vocabSize());
    } else {
      emit progress(out.id, 0.0, "reading corpus");
      const QFileInfo info(s.corpusPath);
      if (!info.exists()) {
        return ioError(QString("corpus: '%1' does not exist").arg(s.corpusPath).toStdString());
      }
      auto r = readUciCorpus(s.corpusPath.toStdString(), fb);
      if (!r.ok()) return r.status();
      m_corpus = std::make_shared<Corpus>(std::move(r.value()));
      const QString truthPath = QDir(info.isDir() ? info.absoluteFilePath() : info.absolutePath()).filePath("truth.json");
      if (QFileInfo::exists(truthPath)) {
        auto t = readTruthJson(truthPath.toStdString());
        if (!t.ok()) {
          m_truthNote = "truth.json ignored: " + QString::fromStdString(t.status().message());
        } else if (t.value().vocabSize() != m_corpus->vocabSize()) {
          m_truthNote = QString("truth.json ignored: its topics cover %1 words, the corpus has %2")
                            .arg(t.value().vocabSize()).arg(m_corpus->vocabSize());
        } else {
          m_truth = std::move(t.value());
        }
      } else {
        m_truthNote = "no truth.json next to the corpus: errors are measured against the non-private output";
      }
    }
    m_corpusKey = key;
    m_pipeline.setCorpus(m_corpus);
  }
  out.docCount = m_corpus->docCount();
  out.vocabSize = m_corpus->vocabSize();
  out.droppedDocuments = m_corpus->droppedDocuments;
  out.nnz = m_corpus->nnz();
  out.maxLength = m_corpus->maxLength();
  out.truth = m_truth;
  out.truthNote = m_truthNote;
  out.words.clear();
  for (int i = 0; i < m_corpus->vocabSize(); ++i) out.words << QString::fromStdString(m_corpus->wordName(i));
  return Status::ok();
}

void RunWorker::process(const RunRequest& request, const std::shared_ptr<Feedback>& feedback) {
  Feedback* fb = feedback.get();
  const quint64 id = request.id;
  // The stage name is read by the progress callback, which runs on this thread.
  auto stage = std::make_shared<QString>();
  fb->setProgressCallback([this, id, stage](double f) { emit progress(id, f, *stage); });
  QElapsedTimer timer;
  timer.start();

  auto out = std::make_shared<RunOutcome>();
  out->id = id;
  out->session = request.session;
  auto finish = [&](Status st, const char* where) {
    out->status = std::move(st);
    if (!out->status.isOk()) out->failedStage = where;
    out->milliseconds = timer.elapsed();
    emit runFinished(out);
  };
  if (fb->isCanceled()) {
    finish(cancelled(), "corpus");
    emit done(id);
    return;
  }
  const SessionState& s = request.session;
  *stage = s.source == SessionState::Source::Synthetic ? "generating corpus"
           : s.source == SessionState::Source::Text    ? "importing text"
                                                       : "reading corpus";
  Status st = prepareCorpus(s, fb, *out);
  if (!st.isOk()) {
    finish(st, "corpus");
    emit done(id);
    return;
  }
  *stage = "spectral pipeline";
  emit progress(id, 0.0, *stage);
  const SpectralOptions so = spectralOptions(s);
  st = validateSpectralOptions(so, *m_corpus);
  if (!st.isOk()) {
    finish(st, "model");
    emit done(id);
    return;
  }
  m_pipeline.setOptions(so);
  auto model = m_pipeline.run(fb);
  if (!model.ok()) {
    finish(model.status(), "model");
    emit done(id);
    return;
  }
  out->timings = m_pipeline.timings();
  out->eigenvalues = model->eigen.values;
  out->tensorLambda = model->eigenpairs.lambda;
  out->gammaS = model->gammaS;
  out->nonPrivate = model->output;
  if (m_truth) {
    out->baselineError = compareTopics(m_truth->topics, m_truth->alpha, model->output.topics, model->output.alpha);
  }

  *stage = "private run";
  emit progress(id, 0.0, *stage);
  const PrivacyOptions po = privacyOptions(s, s.edges, s.epsilon);
  std::unique_ptr<RandomSource> noise;
  if (s.noiseSeed) noise = std::make_unique<SeededRandom>(*s.noiseSeed);
  else noise = std::make_unique<SecureRandom>();
  auto priv = runPrivate(m_pipeline, po, *noise, fb);
  if (!priv.ok()) {
    finish(priv.status(), "privacy");
    emit done(id);
    return;
  }
  out->priv = priv.value();
  if (priv->released && priv->output) {
    const UnwhitenedTopics& o = *priv->output;
    if (m_truth) out->error = compareTopics(m_truth->topics, m_truth->alpha, o.topics, o.alpha);
    out->utilityLoss = compareTopics(model->output.topics, model->output.alpha, o.topics, o.alpha);
  }
  finish(Status::ok(), "");

  if (request.sweep && !fb->isCanceled()) {
    *stage = "error vs ε sweep";
    auto sw = sweep(request, *out, fb);
    emit sweepFinished(sw);
  }
  emit done(id);
}

std::shared_ptr<SweepOutcome> RunWorker::sweep(const RunRequest& request, const RunOutcome& main, Feedback* fb) {
  const SessionState& s = request.session;
  auto out = std::make_shared<SweepOutcome>();
  out->id = request.id;
  out->trials = s.trials;
  const bool haveTruth = m_truth.has_value();
  out->errorLabel = haveTruth ? "mean ℓ₂ error per topic (vs truth)" : "utility loss: mean ℓ₂ distance to the non-private output";
  out->baseline = haveTruth && main.baselineError ? main.baselineError->l2Mean : 0.0;

  // Common random numbers: trial t uses the same noise seed in every configuration and at every ε.
  std::uint64_t base = 0;
  if (s.noiseSeed) {
    base = *s.noiseSeed;
    out->noiseNote = QString("seeded noise: trial t uses deriveSeed(%1, t)").arg(seedToText(base));
  } else {
    SecureRandom secure;
    base = secure.nextU64();
    out->noiseNote = "secure base seed drawn for this sweep; trials share it across configurations";
  }

  struct Config {
    QString key, label;
    EdgeSet edges;
    int style;
  };
  QVector<Config> configs;
  if (s.comparePresets) {
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4})
      configs.push_back({QString("config%1").arg(presetName(p)), edgeSetLabel(presetEdges(p)), presetEdges(p),
                         static_cast<int>(p) - 1});
  } else if (s.edges != 0) {
    const auto p = presetOf(s.edges);
    const int style = p && *p != Preset::None ? static_cast<int>(*p) - 1 : 5;
    configs.push_back({"current", edgeSetLabel(s.edges), s.edges, style});
  }
  const QVector<double> grid = sweepEpsilons();
  const int total = std::max<int>(1, static_cast<int>(configs.size()) * grid.size() * s.trials);
  int done = 0;
  const Eigen::MatrixXd& refTopics = haveTruth ? m_truth->topics : main.nonPrivate.topics;
  const Eigen::VectorXd& refAlpha = haveTruth ? m_truth->alpha : main.nonPrivate.alpha;

  for (const Config& c : configs) {
    SweepCurve curve;
    curve.key = c.key;
    curve.label = c.label;
    curve.style = c.style;
    for (double eps : grid) {
      std::vector<double> errors;
      for (int t = 0; t < s.trials; ++t) {
        if (fb->isCanceled()) {
          out->status = cancelled();
          return out;
        }
        SeededRandom noise(deriveSeed(base, static_cast<std::uint64_t>(t)));
        auto r = runPrivate(m_pipeline, privacyOptions(s, c.edges, eps), noise, nullptr);
        ++done;
        fb->setProgress(static_cast<double>(done) / total);
        if (!r.ok() || !r->released || !r->output) {
          ++curve.failures;
          continue;
        }
        const TopicErrors e = compareTopics(refTopics, refAlpha, r->output->topics, r->output->alpha);
        if (std::isfinite(e.l2Mean)) errors.push_back(e.l2Mean);
        else ++curve.failures;
      }
      std::sort(errors.begin(), errors.end());
      curve.eps.push_back(eps);
      curve.median.push_back(quantileSorted(errors, 0.5));
      curve.lower.push_back(errors.empty() ? std::numeric_limits<double>::quiet_NaN() : errors.front());
      curve.upper.push_back(errors.empty() ? std::numeric_limits<double>::quiet_NaN() : errors.back());
    }
    out->curves.push_back(curve);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

RunController::RunController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const RunOutcome>>();
  qRegisterMetaType<std::shared_ptr<const SweepOutcome>>();
  m_worker = new RunWorker;
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  connect(m_worker, &RunWorker::runFinished, this, &RunController::onRunFinished, Qt::QueuedConnection);
  connect(m_worker, &RunWorker::sweepFinished, this, &RunController::onSweepFinished, Qt::QueuedConnection);
  connect(m_worker, &RunWorker::done, this, &RunController::onDone, Qt::QueuedConnection);
  connect(
      m_worker, &RunWorker::progress, this,
      [this](quint64 id, double f, const QString& stage) {
        if (id == m_currentId) emit progressChanged(id, f, stage);
      },
      Qt::QueuedConnection);
  m_thread.setObjectName("dplda-worker");
  m_thread.start();
}

RunController::~RunController() {
  if (m_feedback) m_feedback->cancel();
  m_thread.quit();
  m_thread.wait();
}

quint64 RunController::start(const SessionState& session, bool sweep) {
  if (m_feedback) m_feedback->cancel();  // the superseded run stops at its next poll
  const quint64 id = m_nextId++;
  m_currentId = id;
  m_feedback = std::make_shared<Feedback>();
  RunRequest request{id, session, sweep};
  auto fb = m_feedback;
  RunWorker* worker = m_worker;
  QMetaObject::invokeMethod(worker, [worker, request, fb] { worker->process(request, fb); }, Qt::QueuedConnection);
  setBusy(true);
  emit started(id);
  return id;
}

void RunController::cancel() {
  if (!m_feedback || !m_busy) return;
  m_feedback->cancel();
  const quint64 id = m_currentId;
  m_currentId = 0;  // nothing of this run is shown any more
  setBusy(false);
  emit cancelled(id);
}

void RunController::onRunFinished(std::shared_ptr<const RunOutcome> outcome) {
  if (!outcome || outcome->id != m_currentId) {
    ++m_dropped;
    return;
  }
  emit runReady(outcome);
}

void RunController::onSweepFinished(std::shared_ptr<const SweepOutcome> outcome) {
  if (!outcome || outcome->id != m_currentId) {
    ++m_dropped;
    return;
  }
  emit sweepReady(outcome);
}

void RunController::onDone(quint64 id) {
  if (id == m_currentId) setBusy(false);
}

void RunController::setBusy(bool busy) {
  if (busy == m_busy) return;
  m_busy = busy;
  emit busyChanged(busy);
}

}  // namespace dplda
