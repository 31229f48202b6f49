#pragma once
// A session: every parameter of the explorer (corpus source, generator with its seed, model
// options, edge set, budget, mechanism, noise seed, sweep settings), pinned runs and the text
// of a lesson. Saved as JSON; seeds are written as decimal strings so 64-bit values survive.
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/common/status.h"
#include "core/corpus/holdout.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/graph/computation_graph.h"
#include "core/pipeline/private_run.h"
#include "core/privacy/budget.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sensitivity.h"
#include "core/vi/vi_parameters.h"

namespace dplda {

struct SessionState {
  enum class Source { Synthetic, Uci, Text };
  Source source = Source::Synthetic;
  QString corpusPath;        // UCI folder (or docword file), or a text file / folder of text files
  QString separator;         // Text: a line equal to it ends a document; empty = one document per line
  // Text: the file's format (core/corpus/text_formats.h) and, for CSV/TSV/JSON Lines, the column or
  // field that holds the documents.
  TextFormat textFormat = TextFormat::Text;
  QString textColumn;
  // Text: a public vocabulary list (one word a line, order kept); empty = the private selection
  // (docs/PRIVACY.md §13) with d = generator.vocabSize words at most.
  QString vocabularyFile;
  GeneratorParams generator; // d, k, N, α0, prior, β, length, seed; k and α0 also drive the fit
  QString decomposer = "fast";
  std::uint64_t initSeed = 1;  // the decomposer's starts; VI's λ start and visiting order too

  // The model a run fits (issue 10): the spectral pipeline drawn on the graph, or a variational
  // baseline (core/vi: VI, or DP-VI with its own zCDP accountant, docs/PRIVACY.md §10, using ε, δ
  // and the noise seed below). The VI parameters are kept whichever model is chosen.
  enum class Model { Spectral, Vi, DpVi };
  Model model = Model::Spectral;
  ViRunParameters vi;
  // Held-out evaluation: this fraction of the documents (a seeded, public split) is kept out of
  // every fit and scores it by perplexity; 0 fits on the whole corpus without a score. A session
  // file without an "evaluation" section (older files, the lessons) loads with 0, as it was made.
  double holdout = kDefaultHoldoutFraction;
  std::uint64_t holdoutSeed = 1;

  // Configuration 1: at the default corpus size it releases at ε = 1 (configuration 2 needs
  // about N = 1e5 before Procedure 1's σ̃_k clears Δ2), so a first run shows a private result.
  EdgeSet edges = presetEdges(Preset::Config1);
  double epsilon = 1.0;
  double delta = 1e-5;
  Mechanism mechanism = Mechanism::AnalyticGaussian;
  BoundSet bounds = BoundSet::Sound;
  bool shareReleases = true;  // as PrivacyOptions
  std::vector<double> splitWeights;  // one per release in ledger order; empty = uniform
  std::optional<std::uint64_t> noiseSeed;  // empty: secure noise
  double maxLength = 200.0;
  // How the releases compose (docs/PRIVACY.md §4.1): basic composition, or the Gaussian-DP
  // accountant of the analytic Gaussian releases.
  Accountant accountant = Accountant::Basic;
  // How e6 is released when it is noisy: Gaussian noise on T̂, seed 004's private tensor power
  // method, or the whitened release of the cut {e2, e5, e6} (docs/PRIVACY.md §11), with its
  // public clipping bounds C1, C2 (clipped M̂2) and C (whitened documents; 0 = the default rule
  // 2√(k + α0)), or nothing clipped (C1 = C2 = 1, C = ρ_W of the released W̃).
  enum class TensorRelease { Noise, Decomposition, Whitened };
  TensorRelease e6Release = TensorRelease::Noise;
  double clipM1 = kDefaultClipM1, clipM2 = kDefaultClipM2, clipWhitened = 0.0;
  bool clipToRowBound = false;
  // The papers' configurations on clipped documents (docs/PRIVACY.md §12): C1, C2 above (one set
  // for both releases) and C3 on each document's M̂3 term. Applies to noisy edges other than the
  // whitened release (momentClipOf); off by default, and in files written before it.
  bool clipDocuments = false;
  double clipM3 = kDefaultClipM3;

  int trials = 3;               // per ε in the error-vs-ε sweep
  QString sweepEpsilons = "0.1:10:7";  // the sweep's ε grid: lo:hi:count (log-spaced) or a list
  bool comparePresets = false;  // sweep configurations 1-4 instead of {none, current}
  // Also sweep the sound improvements beside the session's configuration: configuration 1 on
  // clipped documents with the Gaussian-DP accountant (1/clip/gdp, docs/PRIVACY.md §12) and the
  // whitened release with it (whitened/gdp, §11). They need the sound bounds and the analytic
  // Gaussian; with other settings the sweep leaves them out (the checkbox is greyed).
  bool compareSound = false;

  // Text with the private selection: the selection this import released, as the app's record of it
  // (ui/worker/released_vocabularies.h: words, ε, δ, the import's options), written into the file
  // when the session is saved so that the session opened on another machine, or after the app's
  // record is lost, reuses it instead of drawing (and spending) again. Empty otherwise. Derived
  // from the record, so not compared by operator==.
  QJsonObject releasedSelection;

  QJsonArray pinned;        // pinned run summaries (see RunSummary in the history panel)
  QJsonArray pinnedSweeps;  // pinned sweeps: their curves per figure (see ExperimentView::pinShown)
  QString lessonTitle, lessonText;

  int topicCount() const { return generator.topicCount; }
  bool isVariational() const { return model != Model::Spectral; }
  double alpha0() const { return generator.alpha0; }
  bool whitenedRelease() const { return e6Release == TensorRelease::Whitened; }
};

bool operator==(const SessionState& a, const SessionState& b);
// What a new window opens on (the first impression): the figure-2 corpus (d = 50, k = 5,
// N = 100 000), configuration 1 at ε = 1, its ε sweep beside the sound improvements, so that the
// first plot shows what the tool found: the paper's configuration 1 near the random-guess line and
// the proven improvements far below it. SessionState{} stays the neutral base of files and lessons.
SessionState firstSession();
// Whether the session's sweep can add the sound improvements (compareSound): the spectral model
// with the sound bounds and the analytic Gaussian mechanism (the Gaussian-DP accountant's).
bool soundImprovementsApply(const SessionState& s);
inline bool operator!=(const SessionState& a, const SessionState& b) { return !(a == b); }

// The whitened release's edges {e2, e5, e6}, and the session with it chosen (edges, e6's release,
// a Gaussian mechanism and the sound bounds, which it needs; every other field kept, "share
// releases" too: the whitened release shares its M̂2 release by construction and ignores it, so
// leaving it finds the user's choice again).
EdgeSet whitenedEdges();
SessionState withWhitenedRelease(SessionState s);
// The session with a preset's (or any chosen) edge set: leaving the whitened release for another
// set releases e6, if noisy, by noise on T again (the whitened release is a mechanism of its cut only).
SessionState withEdges(SessionState s, EdgeSet edges);

// "spectral", "vi", "dp-vi" (the command line's --model) and the label shown ("spectral", "VI", "DP-VI").
const char* modelName(SessionState::Model m);
QString modelLabel(SessionState::Model m);

// Field-level validation: key = field name ("vocab", "topics", "docs", "alpha0", "beta",
// "length", "epsilon", "delta", "corpus", "max_length", "trials", "decomposer", "split", and for
// the variational models "vi_iterations", "vi_batch_size", "vi_tau0", "vi_kappa", "vi_clip" with
// the command line's messages, "holdout", and for the privacy options "clip_m1", "clip_m2",
// "clip_whitened", "clip_m3", "clip_documents", "e6" and "accountant" with core's messages), value = a
// message naming the parameter and its value. Empty when the session can run.
QMap<QString, QString> validateSession(const SessionState& s);

QJsonObject sessionToJson(const SessionState& s);
// Missing keys keep their defaults (lesson presets list only what they change); wrong types
// and out-of-range values (the ranges of core/corpus/corpus.h and kMaxEpsilon), overlong strings
// and pinned sweeps the plots could not draw give BadInput naming the key and value, with user
// text escaped (docs/FUZZING.md).
Result<SessionState> sessionFromJson(const QJsonObject& json);

Status saveSession(const SessionState& s, const QString& path);
// Refuses folders and files above 16 MiB (ResourceLimit) before parsing.
Result<SessionState> loadSession(const QString& path);

// "uniform" for no weights, else "w1,w2,..." (shortest exact decimal form).
QString splitToText(const std::vector<double>& weights);
// Parses the split text with parseSplit; the message names "split" and the text.
Result<std::vector<double>> parseSplitText(const QString& text);

QString seedToText(std::uint64_t seed);
// The text import of a Text session: its path, separator, d and vocabulary (a public list, or the
// private selection with its defaults; docs/PRIVACY.md §13).
TextImportParams textImportParams(const SessionState& s);
// Decimal digits only, fits in 64 bits; message names `what` and the text.
Result<std::uint64_t> parseSeed(const QString& text, const QString& what);

// Short human description of the edge set: "config 2", "input perturbation", "none", "custom {e1,e5}".
QString edgeSetLabel(EdgeSet edges);
// The session's configuration: edgeSetLabel, or "whitened release" for {e2, e5, e6} with e6 whitened.
QString configurationLabel(const SessionState& s);

}  // namespace dplda
