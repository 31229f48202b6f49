#include "ui/session/session.h"

#include <cmath>
#include <limits>

#include "core/common/text_escape.h"
#include "core/experiments/sweep.h"
#include "core/moments/clipped_moments.h"
#include "core/privacy/budget.h"
#include "ui/session/session_privacy.h"
#include "ui/session/session_text.h"

namespace dplda {

namespace {

QString num(double v) { return QString::number(v, 'g', 10); }

}  // namespace

bool operator==(const SessionState& a, const SessionState& b) {
  const GeneratorParams& g = a.generator;
  const GeneratorParams& h = b.generator;
  return a.source == b.source && a.corpusPath == b.corpusPath && a.separator == b.separator &&
         a.textFormat == b.textFormat && a.textColumn == b.textColumn &&
         a.vocabularyFile == b.vocabularyFile &&
         a.splitWeights == b.splitWeights && g.vocabSize == h.vocabSize &&
         g.topicCount == h.topicCount && g.docCount == h.docCount && g.alpha0 == h.alpha0 && g.prior == h.prior &&
         g.beta == h.beta && g.meanLength == h.meanLength && g.fixedLength == h.fixedLength && g.seed == h.seed &&
         a.decomposer == b.decomposer && a.initSeed == b.initSeed && a.model == b.model && a.vi == b.vi &&
         a.holdout == b.holdout && a.holdoutSeed == b.holdoutSeed && a.edges == b.edges && a.epsilon == b.epsilon &&
         a.delta == b.delta && a.mechanism == b.mechanism && a.bounds == b.bounds &&
         a.shareReleases == b.shareReleases && a.noiseSeed == b.noiseSeed && a.maxLength == b.maxLength &&
         a.accountant == b.accountant && a.e6Release == b.e6Release && a.clipM1 == b.clipM1 &&
         a.clipM2 == b.clipM2 && a.clipWhitened == b.clipWhitened && a.clipToRowBound == b.clipToRowBound &&
         a.clipDocuments == b.clipDocuments && a.clipM3 == b.clipM3 &&
         a.trials == b.trials && a.sweepEpsilons == b.sweepEpsilons && a.comparePresets == b.comparePresets &&
         a.compareSound == b.compareSound && a.pinned == b.pinned &&
         a.pinnedSweeps == b.pinnedSweeps &&
         a.lessonTitle == b.lessonTitle && a.lessonText == b.lessonText;
}

SessionState firstSession() {
  SessionState s;
  s.generator.vocabSize = 50;
  s.generator.topicCount = 5;
  s.generator.docCount = 100000;
  s.generator.alpha0 = 1.0;
  s.edges = presetEdges(Preset::Config1);
  s.epsilon = 1.0;
  s.compareSound = true;
  return s;
}

bool soundImprovementsApply(const SessionState& s) {
  return !s.isVariational() && s.bounds == BoundSet::Sound && s.mechanism == Mechanism::AnalyticGaussian;
}

QMap<QString, QString> validateSession(const SessionState& s) {
  QMap<QString, QString> e;
  const GeneratorParams& g = s.generator;
  const QString vocabRange = QString("vocabulary size d must be in 1..%1, got %2").arg(kMaxVocabularySize).arg(g.vocabSize);
  const bool vocabOk = g.vocabSize >= 1 && g.vocabSize <= kMaxVocabularySize;
  if (s.source == SessionState::Source::Synthetic) {
    if (!vocabOk) e["vocab"] = vocabRange;
    if (g.docCount < 3) e["docs"] = QString("number of documents N must be >= 3, got %1").arg(g.docCount);
    if (!std::isfinite(g.beta) || g.beta <= 0 || g.beta > kMaxBeta)
      e["beta"] = QString("topic concentration β must be in (0, %1], got %2").arg(num(kMaxBeta), num(g.beta));
    if (!std::isfinite(g.meanLength) || g.meanLength < 3)
      e["length"] = QString("document length must be >= 3, got %1").arg(num(g.meanLength));
    else if (g.fixedLength && g.meanLength != std::floor(g.meanLength))
      e["length"] = QString("a fixed document length must be a whole number, got %1").arg(num(g.meanLength));
    if (g.topicCount > g.vocabSize)
      e["topics"] = QString("k = %1 topics exceeds the vocabulary size d = %2 (k ≤ d)").arg(g.topicCount).arg(g.vocabSize);
  } else if (s.source == SessionState::Source::Text) {
    // The import keeps the d most frequent words, so d matters for text corpora too.
    if (s.corpusPath.trimmed().isEmpty())
      e["corpus"] = "choose a plain-text file (one document per line) or a folder (one document per file)";
    if (s.textFormat != TextFormat::Text && s.textColumn.trimmed().isEmpty())
      e["text_column"] = s.textFormat == TextFormat::JsonLines ? "name the JSON field that holds the documents"
                                                                : "name the column that holds the documents";
    if (!vocabOk) e["vocab"] = vocabRange;
    else if (g.topicCount > g.vocabSize)
      e["topics"] = QString("k = %1 topics exceeds the vocabulary size d = %2 (k ≤ d)").arg(g.topicCount).arg(g.vocabSize);
  } else if (s.corpusPath.trimmed().isEmpty()) {
    e["corpus"] = "choose a UCI corpus folder (docword.txt, vocab.txt, truth.json)";
  }
  if (g.topicCount < 1) e["topics"] = QString("number of topics k must be >= 1, got %1").arg(g.topicCount);
  if (!std::isfinite(g.alpha0) || g.alpha0 <= 0 || g.alpha0 > kMaxAlpha0)
    e["alpha0"] = QString("α₀ must be in (0, %1], got %2").arg(num(kMaxAlpha0), num(g.alpha0));
  if (e.isEmpty() && s.source == SessionState::Source::Synthetic) {
    const Status st = validateGeneratorParams(g);  // resource limits (huge corpora)
    if (!st.isOk()) e["docs"] = QString::fromStdString(st.message());
  }
  if (!std::isfinite(s.epsilon) || s.epsilon <= 0 || s.epsilon > kMaxEpsilon)
    e["epsilon"] = QString("total ε must be in (0, %1], got %2").arg(num(kMaxEpsilon), num(s.epsilon));
  if (!std::isfinite(s.delta) || s.delta <= 0 || s.delta >= 1)
    e["delta"] = QString("total δ must be in (0, 1), got %1").arg(num(s.delta));
  const bool spectral = !s.isVariational();  // the edges, mechanism and L_max apply to the spectral model only
  if (spectral && s.mechanism == Mechanism::ClassicGaussian && s.edges && !e.contains("epsilon")) {
    // The classic Gaussian is only proven for ε < 1 per release (SPEC §8).
    const int releases = static_cast<int>(planReleases(s.edges, s.shareReleases, s.bounds).size());
    if (releases > 0 && s.epsilon / releases >= 1.0)
      e["epsilon"] = QString("the classic Gaussian needs ε < 1 per release; ε %1 over %2 releases gives %3")
                         .arg(num(s.epsilon)).arg(releases).arg(num(s.epsilon / releases));
  }
  if (spectral && s.mechanism == Mechanism::PrintedClosedForm && s.edges)
    e["mechanism"] = "the printed closed form is not private (SPEC §8); it is a demonstration only";
  if (!std::isfinite(s.maxLength) || s.maxLength < 3 || s.maxLength > kMaxClipLength)
    e["max_length"] =
        QString("the clipping length L_max must be in [3, %1], got %2").arg(num(kMaxClipLength), num(s.maxLength));
  for (double w : s.splitWeights) {
    if (!std::isfinite(w) || w <= 0) {
      e["split"] = QString("split weights must be finite and > 0, got %1 in '%2'").arg(num(w), splitToText(s.splitWeights));
      break;
    }
  }
  if (s.trials < 1 || s.trials > 50) e["trials"] = QString("trials must be in 1..50, got %1").arg(s.trials);
  if (auto eps = parseEpsilons(s.sweepEpsilons.toStdString()); !eps.ok()) {
    e["sweep_epsilons"] = QString::fromStdString(eps.status().message());
  } else if (eps.value().size() > 50) {
    e["sweep_epsilons"] = QString("at most 50 ε values in the session's sweep, got %1").arg(eps.value().size());
  }
  if (s.decomposer != "fast" && s.decomposer != "robust" && s.decomposer != "simultaneous" && s.decomposer != "online")
    e["decomposer"] =
        QString("decomposer must be fast, robust, simultaneous or online, got %1").arg(quoted(s.decomposer));
  if (s.isVariational()) {  // the command line's ranges and messages (core/vi/vi_parameters.h)
    for (const ViParameterProblem& p : checkViRunParameters(s.vi, s.model == SessionState::Model::DpVi))
      e["vi_" + QString::fromStdString(p.option).replace('-', '_')] = QString::fromStdString(p.message);
  }
  if (s.holdout != 0.0) {
    const std::string problem = holdoutFractionProblem(s.holdout);
    if (!problem.empty()) e["holdout"] = QString::fromStdString(problem) + "; 0 turns held-out evaluation off";
  }
  addPrivacyOptionProblems(s, e);  // the whitened release's clipping, e6's release, the accountant
  // A core parser's message may quote the session's text as it is (e.g. the sweep's ε grid).
  for (auto it = e.begin(); it != e.end(); ++it) it.value() = QString::fromStdString(escapeControls(it.value().toStdString()));
  return e;
}

QString splitToText(const std::vector<double>& weights) {
  if (weights.empty()) return "uniform";
  QStringList parts;
  for (double w : weights) {
    // The shortest text that reads back exactly (so 0.1 is "0.1", not 0.10000000000000001).
    QString t = QString::number(w, 'g', 17);
    for (int p = 1; p < 17; ++p) {
      const QString c = QString::number(w, 'g', p);
      if (c.toDouble() == w) { t = c; break; }
    }
    parts << t;
  }
  return parts.join(',');
}

Result<std::vector<double>> parseSplitText(const QString& text) {
  QString t = text.trimmed();
  t.remove(' ');
  auto r = parseSplit(t.toStdString());
  if (!r.ok()) {
    return invalidArgument(
        QString("split: %1 (use 'uniform' or one weight per release, e.g. 1,2,3), got %2")
            .arg(QString::fromStdString(escapeControls(r.status().message())), quoted(text))
            .toStdString());
  }
  return r;
}

const char* modelName(SessionState::Model m) {
  switch (m) {
    case SessionState::Model::Vi: return "vi";
    case SessionState::Model::DpVi: return "dp-vi";
    default: return "spectral";
  }
}

QString modelLabel(SessionState::Model m) {
  switch (m) {
    case SessionState::Model::Vi: return "VI";
    case SessionState::Model::DpVi: return "DP-VI";
    default: return "spectral";
  }
}

QString seedToText(std::uint64_t seed) { return QString::number(static_cast<qulonglong>(seed)); }

Result<std::uint64_t> parseSeed(const QString& text, const QString& what) {
  const QString t = text.trimmed();
  bool ok = !t.isEmpty();
  for (QChar c : t) ok = ok && c.isDigit() && c.unicode() < 128;
  qulonglong v = ok ? t.toULongLong(&ok) : 0;
  if (!ok) {
    return invalidArgument(QString("%1 must be a whole number in 0..18446744073709551615, got %2")
                               .arg(what, quoted(text))
                               .toStdString());
  }
  return static_cast<std::uint64_t>(v);
}

QString configurationLabel(const SessionState& s) {
  if (s.whitenedRelease() && s.edges == whitenedEdges()) return QString("whitened release");
  const MomentClip clip = momentClipOf(s);  // a clipped run names its public bounds wherever it is listed
  if (!clip.enabled) return edgeSetLabel(s.edges);
  return edgeSetLabel(s.edges) + ", documents clipped (" + QString::fromStdString(momentClipText(clip)) + ")";
}

QString edgeSetLabel(EdgeSet edges) {
  const auto p = presetOf(edges);
  if (!p) return QString("custom {%1}").arg(QString::fromStdString(edgeSetToString(edges)));
  switch (*p) {
    case Preset::None: return "none (non-private)";
    case Preset::Input: return "input perturbation";
    default: return QString("config %1").arg(presetName(*p));
  }
}

TextImportParams textImportParams(const SessionState& s) {
  TextImportParams p;
  p.input = s.corpusPath.toStdString();
  p.vocabSize = s.generator.vocabSize;
  p.format = s.textFormat;
  if (s.textFormat == TextFormat::Text) p.separator = s.separator.toStdString();
  else p.column = s.textColumn.trimmed().toStdString();
  if (!s.vocabularyFile.isEmpty()) {
    p.vocabularyRule = VocabularyRule::PublicFile;
    p.vocabularyFile = s.vocabularyFile.toStdString();
  }
  return p;
}

}  // namespace dplda
