#pragma once
// Runs off the GUI thread (after Avogadro's calcworker): a RunWorker lives on its own QThread
// and receives a by-value snapshot of the session; results come back through queued signals.
// Every run carries an id; the RunController (GUI side) cancels the previous run through its
// dplda::Feedback when a new one starts and drops any result whose id is not the current one.
#include <Eigen/Dense>
#include <QObject>
#include <QStringList>
#include <QThread>
#include <memory>
#include <optional>
#include <vector>

#include "core/common/feedback.h"
#include "core/corpus/corpus.h"
#include "core/eval/coherence.h"
#include "core/eval/metrics.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "ui/experiments/experiment_output.h"
#include "ui/session/session.h"
#include "ui/worker/model_run.h"

namespace dplda {

struct RunRequest {
  quint64 id = 0;
  SessionState session;
  bool sweep = true;  // also run the session's ε sweep after the main run
};

// The main run: corpus, the private run of the session's edge set, then the non-private
// spectral model for teaching (baseline, utility loss, exact statistics). The private run comes
// first and never depends on the non-private model: when the exact pipeline fails (e.g.
// σ_k(M̂2) <= 0) the private result is still shown and nonPrivateFailure says why the teaching
// values are missing; it is not a failure of the run.
struct RunOutcome {
  quint64 id = 0;
  Status status;   // ok, or why there is nothing to show (bad corpus, invalid options, cancelled)
  QString failedStage;  // "corpus", "model" or "privacy" when status is not ok
  SessionState session;  // the snapshot this outcome was computed from
  int docCount = 0, vocabSize = 0, droppedDocuments = 0;
  long long nnz = 0;
  double maxLength = 0;
  std::optional<LdaModel> truth;
  QString truthNote;      // e.g. why a truth.json was ignored
  QStringList words;      // vocabulary (d names)
  // ---- non-private (teaching): exact statistics of the corpus, never part of a release ----
  bool hasNonPrivate = false;      // the non-private model ran to the end (nonPrivate, decomposition, gammaS)
  QString nonPrivateFailure;       // why it did not (empty when it did)
  Eigen::VectorXd eigenvalues;     // σ_1..σ_{k+1} of M̂2 (non-private; also when a later stage failed)
  TensorEigenpairs decomposition;  // of T̂ (non-private): λ, the method and whether it converged
  double gammaS = 0;
  UnwhitenedTopics nonPrivate;     // the non-private output (OUT); empty when !hasNonPrivate
  std::optional<PrivateRunResult> priv;
  std::optional<TopicErrors> error;          // private output vs truth
  std::optional<TopicErrors> baselineError;  // non-private output vs truth
  std::optional<TopicErrors> utilityLoss;    // private vs non-private output
  std::vector<StageTiming> timings;
  double milliseconds = 0;
  // ---- the model choice and held-out evaluation (issue 10) ----
  int trainDocCount = 0, testDocCount = 0;  // the public split; testDocCount 0: fitted on every document
  // A VI or DP-VI run (session.model): its fit and ledger; priv and the spectral fields stay empty,
  // error is the fit's vs the truth.
  std::optional<VariationalOutcome> variational;
  // Held-out perplexity (evaluation, post-processing; empty without a split): of the run's model
  // (the released spectral output, or the VI / DP-VI fit), of the non-private spectral model
  // (teaching) and of the truth.
  std::optional<HeldOutScore> perplexity, baselinePerplexity, truthPerplexity;
  // Topic coherence (NPMI, UMass; top 10 words) on the training documents of the run's model and
  // of the non-private spectral model: non-private diagnostics (exact statistics of the data).
  std::optional<CoherenceResult> coherence, baselineCoherence;
  // ---- the documents (issue 26: a document's topic mixture, a model file's vocabulary check) ----
  // The worker's cached corpus and its split, shared read-only (set once the split is made).
  std::shared_ptr<const Corpus> corpus, train, test;  // test: null without held-out evaluation
  std::vector<int> trainRows, testRows;  // the corpus row of each train / test document
  // Each corpus row's id (file name, id column, line number: documents.txt or the text import),
  // or null (synthetic corpora, UCI folders without documents.txt): ids are the row numbers.
  std::shared_ptr<const std::vector<std::string>> documentIds;
};

// An experiment in the results dock: the session's own ε sweep (run after each main run) or a
// preset of the papers' experiments (run on request), both on the core sweep engine.
struct ExperimentRequest {
  quint64 id = 0;
  QString preset;                  // a name from experimentPresetNames()
  std::optional<int> trials;       // the preset's own when empty
  std::optional<BoundSet> bounds;  // error sweeps only
  std::uint64_t seed = 1;          // every seed of the experiment is derived from it
};

// A snapshot of a running experiment (a few per second, as points complete) or its end.
struct ExperimentUpdate {
  quint64 id = 0;
  QString source;  // "session" or the preset's name
  Status status;   // not ok: the experiment failed or was cancelled (run then holds what was known)
  std::shared_ptr<const ExperimentRun> run;
  int pointsDone = 0, pointsTotal = 0;
  QString commandLine;  // the equivalent `dplda sweep` command, when there is one
  QString seedNote;     // an opened sweep folder's (its report's seed line); empty otherwise
};

// A key naming the session's corpus (source, path or generator parameters and seed): equal
// keys give the same corpus.
QString corpusKey(const SessionState& s);
// A text import's options without its path (separator, format, column, d, vocabulary list):
// corpusKey of a Text session is this, ':', the text's absolute path.
QString textImportOptionsKey(const SessionState& s);
// The session's spectral pipeline options (k, α0, decomposer, seed, moment clipping), as a run sets them.
SpectralOptions spectralOptions(const SessionState& s);

// Lives on the worker thread. Keeps the last corpus and pipeline so that a change of ε, edges
// or mechanism recomputes only the private part.
class RunWorker : public QObject {
  Q_OBJECT

 public:
  void process(const RunRequest& request, const std::shared_ptr<Feedback>& feedback);
  void processExperiment(const ExperimentRequest& request, const std::shared_ptr<Feedback>& feedback);

 signals:
  void progress(quint64 id, double fraction, const QString& stage);
  void runFinished(std::shared_ptr<const dplda::RunOutcome> outcome);
  void experimentUpdated(std::shared_ptr<const dplda::ExperimentUpdate> update);
  void done(quint64 id);

 private:
  Status prepareCorpus(const SessionState& s, Feedback* fb, RunOutcome& out);
  // The session's public train/test split of the corpus (cached); the pipeline fits the train part.
  Status prepareSplit(const SessionState& s, RunOutcome& out);
  // The session's sweep on the corpus and model just computed (no stage is computed again).
  ExperimentPreset sessionSweep(const SessionState& s) const;
  // Runs an experiment, emitting snapshots as its points complete, then its end.
  void runLive(quint64 id, const QString& source, const ExperimentPreset& preset, const QString& command,
               Feedback* fb);

  QString m_corpusKey;
  std::shared_ptr<const Corpus> m_corpus;
  std::optional<LdaModel> m_truth;
  QString m_truthNote;
  QString m_splitKey;                     // corpus key, fraction and seed of m_train / m_test
  std::shared_ptr<const Corpus> m_train;  // what every fit sees (m_corpus without a split)
  std::shared_ptr<const Corpus> m_test;   // the held-out documents, or null
  std::vector<int> m_trainRows, m_testRows;  // their rows of m_corpus
  std::shared_ptr<const std::vector<std::string>> m_documentIds;  // of m_corpus's rows, or null
  SpectralPipeline m_pipeline;
  bool m_pipelineHasCorpus = false;
};

// GUI side: owns the thread, hands out run ids, cancels superseded runs and forwards only
// the current run's results.
class RunController : public QObject {
  Q_OBJECT

 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Starts a run of `session` (cancelling the one in flight) and returns its id.
  quint64 start(const SessionState& session, bool sweep = true);
  // Starts a preset experiment (cancelling whatever this controller runs) and returns its id.
  quint64 startExperiment(ExperimentRequest request);
  void cancel();
  bool isBusy() const { return m_busy; }
  quint64 currentId() const { return m_currentId; }
  int droppedResults() const { return m_dropped; }  // superseded results not forwarded

 signals:
  void started(quint64 id);
  void progressChanged(quint64 id, double fraction, const QString& stage);
  void runReady(std::shared_ptr<const dplda::RunOutcome> outcome);
  void experimentReady(std::shared_ptr<const dplda::ExperimentUpdate> update);
  void busyChanged(bool busy);
  void cancelled(quint64 id);

 private:
  void onRunFinished(std::shared_ptr<const RunOutcome> outcome);
  void onExperimentUpdated(std::shared_ptr<const ExperimentUpdate> update);
  quint64 begin();  // cancels the run in flight and hands out the next id
  void onDone(quint64 id);
  void setBusy(bool busy);

  QThread m_thread;
  RunWorker* m_worker = nullptr;
  quint64 m_nextId = 1;
  quint64 m_currentId = 0;
  std::shared_ptr<Feedback> m_feedback;
  bool m_busy = false;
  int m_dropped = 0;
};

}  // namespace dplda

Q_DECLARE_METATYPE(std::shared_ptr<const dplda::RunOutcome>)
Q_DECLARE_METATYPE(std::shared_ptr<const dplda::ExperimentUpdate>)
