#include "ui/worker/run_worker.h"

#include "ui/experiments/seed004_run.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QDir>
#include <algorithm>
#include <chrono>
#include <memory>

#include "core/common/random.h"
#include "core/common/text_escape.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/corpus/corpus_cache.h"
#include "core/corpus/document_ids.h"
#include "core/corpus/holdout.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/pipeline/memory_estimate.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/released_vocabularies.h"

namespace dplda {

QString textImportOptionsKey(const SessionState& s) {
  // The import depends on the separator, the format and column, d (the vocabulary cap) and the
  // vocabulary list (and the path: corpusKey).
  return QString("text:%1:%2:%3").arg(s.generator.vocabSize).arg(s.separator.size()).arg(s.separator) + ":" +
         textFormatName(s.textFormat) + ":" + QString::number(s.textColumn.size()) + ":" + s.textColumn + ":" +
         QString::number(s.vocabularyFile.size()) + ":" + s.vocabularyFile;
}

QString corpusKey(const SessionState& s) {
  if (s.source == SessionState::Source::Uci) return "uci:" + QFileInfo(s.corpusPath).absoluteFilePath();
  if (s.source == SessionState::Source::Text) return textImportOptionsKey(s) + ":" + QFileInfo(s.corpusPath).absoluteFilePath();
  const GeneratorParams& g = s.generator;
  return QString("gen:%1:%2:%3:%4:%5:%6:%7:%8:%9")
      .arg(g.vocabSize).arg(g.topicCount).arg(g.docCount)
      .arg(QString::number(g.alpha0, 'g', 17), g.prior == GeneratorParams::Prior::Random ? "r" : "s",
           QString::number(g.beta, 'g', 17), QString::number(g.meanLength, 'g', 17))
      .arg(g.fixedLength ? 1 : 0).arg(seedToText(g.seed));
}

SpectralOptions spectralOptions(const SessionState& s) {
  SpectralOptions o;
  o.topicCount = s.topicCount();
  o.alpha0 = s.alpha0();
  o.decomposer = s.decomposer.toStdString();
  o.initSeed = s.initSeed;
  o.clip = momentClipOf(s);  // every stage on the clipped documents (docs/PRIVACY.md §12)
  return o;
}


Status RunWorker::prepareCorpus(const SessionState& s, Feedback* fb, RunOutcome& out) {
  const QString key = corpusKey(s);
  if (key != m_corpusKey || !m_corpus) {
    m_corpusKey.clear();
    m_corpus.reset();
    m_documentIds.reset();
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
      TextImportReport report;
      QString vocabularyNote;  // whether the selection was drawn now or reused (docs/PRIVACY.md §13.5)
      auto r = importSessionText(s, &report, fb, &vocabularyNote);
      if (!r.ok()) return r.status();
      m_corpus = std::make_shared<Corpus>(std::move(r.value()));
      if (static_cast<int>(report.documentIds.size()) == m_corpus->docCount())
        m_documentIds = std::make_shared<const std::vector<std::string>>(std::move(report.documentIds));
      m_truthNote = QString("plain text (%1 documents, %2 of them empty after the vocabulary, %3 distinct words, "
                            "d = %4, vocabulary %5): no truth; errors are measured against the non-private output")
                        .arg(report.documentsRead).arg(report.emptyDocuments).arg(report.distinctWords)
                        .arg(m_corpus->vocabSize())
                        .arg(vocabularyOriginName(m_corpus->provenance.vocabulary));
      if (!vocabularyNote.isEmpty()) m_truthNote += "; " + vocabularyNote;
    } else {
      emit progress(out.id, 0.0, "reading corpus");
      const QFileInfo info(s.corpusPath);
      if (!info.exists()) {
        return ioError(QString("corpus: '%1' does not exist").arg(s.corpusPath).toStdString());
      }
      auto r = loadUciCorpus(s.corpusPath.toStdString(), corpusCacheOptionsFromEnvironment(), fb);  // binary cache, issue 11
      if (!r.ok()) return r.status();
      m_corpus = std::make_shared<Corpus>(std::move(r.value()));
      const QString folder = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
      const QString truthPath = QDir(folder).filePath("truth.json");
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
      // The ids import-text kept (documents.txt), else the row numbers; a bad file is named, not fatal.
      auto ids = readDocumentIds(folder.toStdString(), m_corpus->docCount());
      if (!ids.ok()) m_truthNote += "; document ids ignored: " + QString::fromStdString(ids.status().message());
      else if (!ids.value().empty()) m_documentIds = std::make_shared<const std::vector<std::string>>(std::move(ids.value()));
    }
    m_corpusKey = key;
    m_splitKey.clear();  // prepareSplit gives the pipeline its (training) corpus
  }
  out.docCount = m_corpus->docCount();
  out.vocabSize = m_corpus->vocabSize();
  out.droppedDocuments = m_corpus->droppedDocuments;
  out.nnz = m_corpus->nnz();
  out.maxLength = m_corpus->maxLength();
  out.truth = m_truth;
  out.truthNote = m_truthNote;
  out.words.clear();
  // Shown in topic lists: format characters (U+061C, zero-width joiners, ...) written visibly.
  for (int i = 0; i < m_corpus->vocabSize(); ++i)
    out.words << QString::fromStdString(escapeControls(m_corpus->wordName(i)));
  return Status::ok();
}

Status RunWorker::prepareSplit(const SessionState& s, RunOutcome& out) {
  const QString key = m_corpusKey + QString("|holdout:%1:%2").arg(s.holdout, 0, 'g', 17).arg(seedToText(s.holdoutSeed));
  if (key != m_splitKey) {
    m_splitKey.clear();
    if (s.holdout > 0) {
      auto split = splitHoldout(*m_corpus, s.holdout, s.holdoutSeed);
      if (!split.ok()) return split.status();
      m_train = std::make_shared<Corpus>(std::move(split.value().train));
      m_test = std::make_shared<Corpus>(std::move(split.value().test));
      m_trainRows = std::move(split.value().trainIds);
      m_testRows = std::move(split.value().testIds);
    } else {
      m_train = m_corpus;
      m_test.reset();
      m_trainRows.resize(static_cast<std::size_t>(m_corpus->docCount()));
      for (int n = 0; n < m_corpus->docCount(); ++n) m_trainRows[static_cast<std::size_t>(n)] = n;
      m_testRows.clear();
    }
    m_pipeline.setCorpus(m_train);
    m_splitKey = key;
  }
  out.trainDocCount = m_train->docCount();
  out.testDocCount = m_test ? m_test->docCount() : 0;
  out.corpus = m_corpus;
  out.train = m_train;
  out.test = m_test;
  out.trainRows = m_trainRows;
  out.testRows = m_testRows;
  out.documentIds = m_documentIds;
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
  const char* where = "corpus";
  if (st.isOk()) {
    where = "holdout";  // e.g. a fraction that leaves no document on one side
    st = prepareSplit(s, *out);
  }
  if (!st.isOk()) {
    finish(st, where);
    emit done(id);
    return;
  }
  if (s.isVariational()) {  // VI or DP-VI on the training part; the graph's pipeline does not run
    st = runVariationalModel(s, *m_train, m_test.get(), fb, [&](const QString& name) {
      *stage = name;
      emit progress(id, 0.0, name);
    }, *out);
    finish(isCanceled(fb) ? cancelled() : st, "model");
    emit done(id);
    return;
  }
  const SpectralOptions so = spectralOptions(s);
  st = validateSpectralOptions(so, *m_corpus);  // public inputs only (k, d, α0, the decomposer)
  // Before any stage allocates (issue 28): a k x k x k tensor that cannot fit is refused with what it
  // needs, as on the command line, instead of failing or swapping halfway through the fit.
  const PrivacyOptions po = privacyOptionsOf(s);
  if (st.isOk()) st = checkSpectralMemory(so, *m_corpus, s.edges ? &po : nullptr, "Topics k");
  if (!st.isOk()) {
    finish(st, "model");
    emit done(id);
    return;
  }
  m_pipeline.setOptions(so);

  // The release first: nothing non-private is computed before it, so that a failure of the
  // exact pipeline cannot decide whether a private run releases (docs/PRIVACY.md §2). The
  // exact statistics it reports (diagnostics.nonPrivate) are computed after the release.
  *stage = s.edges ? "private run" : "spectral pipeline";
  emit progress(id, 0.0, *stage);
  std::unique_ptr<RandomSource> noise;
  if (s.noiseSeed) noise = std::make_unique<SeededRandom>(*s.noiseSeed);
  else noise = std::make_unique<SecureRandom>();
  auto priv = runPrivate(m_pipeline, po, *noise, fb);
  if (!priv.ok()) {
    // Without noise the run is the non-private model itself: its failure is the run's.
    finish(priv.status(), s.edges ? "privacy" : "model");
    emit done(id);
    return;
  }
  if (fb->isCanceled() || priv->status.code() == StatusCode::Cancelled) {
    finish(cancelled(), "privacy");
    emit done(id);
    return;
  }
  out->priv = priv.value();

  // The non-private model, for teaching: the baseline, the utility loss and the exact
  // statistics. Its failure is shown as a labelled diagnostic, never as the run's.
  *stage = "non-private model (teaching)";
  emit progress(id, 0.0, *stage);
  auto model = m_pipeline.run(fb);
  if (!model.ok() && model.status().code() == StatusCode::Cancelled) {
    finish(cancelled(), "model");
    emit done(id);
    return;
  }
  if (model.ok()) {
    out->hasNonPrivate = true;
    out->eigenvalues = model->eigen.values;
    out->decomposition = model->eigenpairs;
    out->gammaS = model->gammaS;
    out->nonPrivate = model->output;
    if (m_truth) {
      out->baselineError = compareTopics(m_truth->topics, m_truth->alpha, model->output.topics, model->output.alpha);
    }
  } else {
    out->nonPrivateFailure = QString::fromStdString(model.status().message());
    // The spectrum of M̂2 usually survives a later failure (σ_k <= 0 stops the whitening).
    auto eigen = m_pipeline.runThrough(PipelineStage::Eigen, fb);
    if (eigen.ok()) out->eigenvalues = eigen->eigen.values;
  }
  out->timings = m_pipeline.timings();
  if (priv->released && priv->output) {
    const UnwhitenedTopics& o = *priv->output;
    if (m_truth) out->error = compareTopics(m_truth->topics, m_truth->alpha, o.topics, o.alpha);
    if (model.ok()) out->utilityLoss = compareTopics(model->output.topics, model->output.alpha, o.topics, o.alpha);
  }
  if (m_test) {  // evaluation: post-processing of the outputs on the held-out documents
    *stage = "held-out perplexity (evaluation)";
    emit progress(id, 0.0, *stage);
    scoreSpectralRun(s, *m_test, fb, *out);
    if (fb->isCanceled()) {
      finish(cancelled(), "model");
      emit done(id);
      return;
    }
  }
  scoreCoherence(*m_train, *out);  // a non-private diagnostic on the training documents
  finish(Status::ok(), "");

  if (request.sweep && !fb->isCanceled()) {
    *stage = "ε sweep";
    runLive(id, "session", sessionSweep(s), QString(), fb);
  }
  emit done(id);
}

void RunWorker::processExperiment(const ExperimentRequest& request, const std::shared_ptr<Feedback>& feedback) {
  Feedback* fb = feedback.get();
  const quint64 id = request.id;
  const QString stage = request.preset;
  fb->setProgressCallback([this, id, stage](double f) { emit progress(id, f, stage); });
  PresetOverrides ov;
  ov.trials = request.trials;
  ov.bounds = request.bounds;
  ov.seed = request.seed;
  if (request.preset == "figure3" && m_corpus) {  // figure3 runs on the session's corpus
    ov.corpus = m_corpus;
    ov.corpusDescription = "the session's corpus (" + std::to_string(m_corpus->docCount()) + " documents, d = " +
                           std::to_string(m_corpus->vocabSize()) + ")";
  }
  auto preset = makeExperimentPreset(request.preset.toStdString(), ov);
  if (!preset.ok()) {
    auto u = std::make_shared<ExperimentUpdate>();
    u->id = id;
    u->source = request.preset;
    u->status = preset.status();
    emit experimentUpdated(u);
    emit done(id);
    return;
  }
  QString command = QString("dplda sweep --preset %1 --seed %2").arg(request.preset).arg(request.seed);
  if (request.trials) command += QString(" --trials %1").arg(*request.trials);
  if (request.bounds) command += QString(" --bounds %1").arg(boundSetName(*request.bounds));
  command += " --out DIR";
  runLive(id, request.preset, preset.value(), command, fb);
  emit done(id);
}

ExperimentPreset RunWorker::sessionSweep(const SessionState& s) const {
  ExperimentPreset p;
  p.name = "session";
  p.title = m_truth ? "Error vs total ε (this session)" : "Utility loss vs total ε (this session)";
  p.description = "The session's corpus and model; each ε is the total budget of one run. Trial t draws the "
                  "same noise seed in every configuration and at every ε (common random numbers).";
  p.kind = ExperimentKind::ErrorSweep;
  SweepSpec& spec = p.sweep;
  spec.name = "session";
  SweepCase c;
  c.label = "session";
  c.source.corpus = m_train;  // the pipeline's corpus: the training part under held-out evaluation
  c.source.truth = m_truth;
  c.source.description = corpusKey(s).toStdString();
  c.source.pipeline = std::make_shared<const SpectralPipeline>(m_pipeline);
  c.topicCount = s.topicCount();
  c.alpha0 = s.alpha0();
  spec.cases = {c};
  // Clipped documents: the sweep's "/clip" configurations (spectralOptionsFor leaves the case's
  // pipeline unclipped, so the non-private baseline is SPEC §3's, as in `dplda sweep`).
  const MomentClip clip = momentClipOf(s);
  if (clip.enabled) spec.momentClip = clip;
  if (s.comparePresets) {
    for (Preset preset : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4})
      spec.configurations.push_back({presetName(preset), presetEdges(preset), {}});
  } else if (s.edges != 0) {
    const auto preset = presetOf(s.edges);
    const std::string label = preset ? presetName(*preset) : edgeSetToString(s.edges);
    SweepConfiguration config{label, s.edges, s.splitWeights};
    const PrivacyOptions po = privacyOptionsOf(s);  // e6's release and the accountant, as in the run
    config.privateDecomposition = po.privateDecomposition;
    config.whitened = po.whitened;
    config.accountant = s.accountant;
    if (po.whitened.enabled) config.label = po.whitened.clipToRowBound ? "whitened/raw" : "whitened";
    else if (po.privateDecomposition) config.label += "/tpm";
    spec.configurations.push_back(config);
  } else {
    spec.configurations.push_back({"none", 0, {}});  // non-private: the baseline alone
  }
  for (SweepConfiguration& config : spec.configurations) {
    if (!clip.enabled || config.edges == 0) continue;
    config.clipMoments = true;
    config.label += "/clip";
  }
  // The sound improvements beside them (SessionState::compareSound), each once; they need the
  // sound bounds and the analytic Gaussian, which soundImprovementsApply checks.
  if (s.compareSound && soundImprovementsApply(s)) {
    spec.momentClip = {true, s.clipM1, s.clipM2, s.clipM3};
    const std::vector<SweepConfiguration> improvements = parseConfigurations("1/clip/gdp,whitened/gdp").value();
    for (const SweepConfiguration& extra : improvements) {
      const bool present = std::any_of(spec.configurations.begin(), spec.configurations.end(),
                                       [&](const SweepConfiguration& c) { return c.label == extra.label; });
      if (!present) spec.configurations.push_back(extra);
    }
  }
  // validateSession checks the grid before a run starts; were it bad, runSweep would refuse the
  // empty list and the Sweeps tab would say so.
  auto grid = parseEpsilons(s.sweepEpsilons.toStdString());
  if (grid.ok()) spec.epsilons = grid.value();
  spec.delta = s.delta;
  spec.mechanism = s.mechanism;
  spec.accountant = s.accountant;
  spec.bounds = s.bounds;
  spec.shareReleases = s.shareReleases;
  spec.maxLength = s.maxLength;
  spec.trials = s.trials;
  spec.decomposer = s.decomposer.toStdString();
  spec.seeds.init = s.initSeed;
  spec.seeds.data = 0;  // the corpus is given, nothing is drawn
  if (s.noiseSeed) {
    spec.seeds.noise = *s.noiseSeed;
  } else {
    SecureRandom secure;  // a fresh base seed per sweep; trials share it across configurations
    spec.seeds.noise = secure.nextU64();
  }
  return p;
}

void RunWorker::runLive(quint64 id, const QString& source, const ExperimentPreset& preset, const QString& command,
                        Feedback* fb) {
  if (isSeed004Experiment(preset)) {  // online-tpm, dp-tpm: their own runner, the same snapshots
    runSeed004Experiment(preset, fb, [&](const Seed004Snapshot& snap) {
      auto u = std::make_shared<ExperimentUpdate>();
      u->id = id;
      u->source = source;
      u->status = snap.status;
      u->run = snap.run;
      u->pointsDone = snap.pointsDone;
      u->pointsTotal = snap.pointsTotal;
      u->commandLine = command;
      emit experimentUpdated(u);
    });
    return;
  }
  using Clock = std::chrono::steady_clock;
  const bool tpm = preset.kind == ExperimentKind::TpmNoise;
  SweepResult sweep;  // the live state of an error or diagnostics sweep
  sweep.spec = preset.sweep;
  TpmNoiseResult noise;  // of a tpm-noise experiment
  if (tpm) {
    noise.spec = preset.tpm;
    noise.points = emptyTpmNoisePoints(preset.tpm);
  }
  int done = 0;
  const int total = tpm ? static_cast<int>(noise.points.size())
                        : static_cast<int>(sweep.spec.configurations.size() * sweep.spec.epsilons.size() *
                                           sweep.spec.cases.size());
  // An update holding a snapshot of the live state (or, at the end, the state itself).
  auto update = [&](bool finished, Status status) {
    auto run = std::make_shared<ExperimentRun>();
    run->preset = preset;
    run->finished = finished;
    if (tpm) {
      run->tpm = finished ? std::make_shared<const TpmNoiseResult>(std::move(noise))
                          : std::make_shared<const TpmNoiseResult>(noise);
    } else if (!sweep.cases.empty()) {  // nothing to draw before the cases are prepared
      run->sweep = finished ? std::make_shared<const SweepResult>(std::move(sweep))
                            : std::make_shared<const SweepResult>(sweep);
    }
    auto u = std::make_shared<ExperimentUpdate>();
    u->id = id;
    u->source = source;
    u->status = std::move(status);
    u->run = std::move(run);
    u->pointsDone = done;
    u->pointsTotal = total;
    u->commandLine = command;
    return u;
  };
  Clock::time_point last{};
  auto snapshot = [&](bool force) {
    const auto now = Clock::now();
    if (!force && now - last < std::chrono::milliseconds(80)) return;  // a few redraws per second
    last = now;
    emit experimentUpdated(update(false, Status::ok()));
  };
  Status status;
  if (tpm) {
    TpmNoiseListener listener;
    listener.pointDone = [&](const TpmNoisePoint& p) {
      noise.point(p.modelIndex, p.dimIndex, p.levelIndex) = p;
      ++done;
      snapshot(false);
    };
    snapshot(true);
    auto r = runTpmNoise(preset.tpm, fb, &listener);
    status = r.status();
    if (r.ok()) noise = std::move(r).value();
  } else {
    SweepListener listener;
    listener.casesReady = [&](const std::vector<SweepCaseInfo>& cases) {
      sweep.cases = cases;
      sweep.summary = emptySummary(sweep.spec, static_cast<int>(cases.size()));
      snapshot(true);
    };
    listener.pointDone = [&](const SweepSummaryRow& row) {
      sweep.summary[summaryIndex(sweep.spec, row.caseIndex, row.configIndex, row.epsilonIndex)] = row;
      ++done;
      snapshot(false);
    };
    auto r = runSweep(preset.sweep, fb, &listener);
    status = r.status();
    if (r.ok()) sweep = std::move(r).value();
  }
  // Failed or cancelled: the last state holds what was known so far.
  emit experimentUpdated(update(status.isOk(), status));
}

// ---------------------------------------------------------------------------------------------

RunController::RunController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const RunOutcome>>();
  qRegisterMetaType<std::shared_ptr<const ExperimentUpdate>>();
  m_worker = new RunWorker;
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  connect(m_worker, &RunWorker::runFinished, this, &RunController::onRunFinished, Qt::QueuedConnection);
  connect(m_worker, &RunWorker::experimentUpdated, this, &RunController::onExperimentUpdated, Qt::QueuedConnection);
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

quint64 RunController::begin() {
  if (m_feedback) m_feedback->cancel();  // the superseded run stops at its next poll
  const quint64 id = m_nextId++;
  m_currentId = id;
  m_feedback = std::make_shared<Feedback>();
  return id;
}

quint64 RunController::startExperiment(ExperimentRequest request) {
  request.id = begin();
  auto fb = m_feedback;
  RunWorker* worker = m_worker;
  QMetaObject::invokeMethod(
      worker, [worker, request, fb] { worker->processExperiment(request, fb); }, Qt::QueuedConnection);
  setBusy(true);
  emit started(request.id);
  return request.id;
}

quint64 RunController::start(const SessionState& session, bool sweep) {
  const quint64 id = begin();
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

void RunController::onExperimentUpdated(std::shared_ptr<const ExperimentUpdate> update) {
  if (!update || update->id != m_currentId) {
    ++m_dropped;
    return;
  }
  emit experimentReady(update);
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
