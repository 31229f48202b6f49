#include "ui/panels/audit_job.h"

#include <QFileInfo>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/holdout.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/corpus/uci_io.h"
#include "core/privacy/mechanisms.h"
#include "ui/worker/run_worker.h"

namespace dplda {

using namespace privacy_audit;

QString auditPairKey(const AuditRequest& r) {
  const SessionState& s = r.session;
  return corpusKey(s) + QString("|holdout:%1:%2|%3|a0:%4|k:%5|clip:%6:%7:%8:%9")
                            .arg(s.holdout, 0, 'g', 17)
                            .arg(seedToText(s.holdoutSeed))
                            .arg(auditedReleaseName(r.release))
                            .arg(s.alpha0(), 0, 'g', 17)
                            .arg(s.topicCount())
                            .arg(s.clipM1, 0, 'g', 17)
                            .arg(s.clipM2, 0, 'g', 17)
                            .arg(s.clipWhitened, 0, 'g', 17)
                            .arg(s.clipToRowBound ? 1 : 0);
}

Result<Corpus> loadAuditCorpus(const SessionState& s, Feedback* fb) {
  Corpus corpus;
  if (s.source == SessionState::Source::Synthetic) {
    auto r = generateLdaCorpus(s.generator, fb);
    if (!r.ok()) return r.status();
    corpus = std::move(r.value().corpus);
  } else {
    if (!QFileInfo::exists(s.corpusPath))
      return ioError(QString("corpus: '%1' does not exist").arg(s.corpusPath).toStdString());
    if (s.source == SessionState::Source::Text) {
      auto r = importText(textImportParams(s), nullptr, fb);
      if (!r.ok()) return r.status();
      corpus = std::move(r.value());
    } else {
      auto r = loadUciCorpus(s.corpusPath.toStdString(), corpusCacheOptionsFromEnvironment(), fb);
      if (!r.ok()) return r.status();
      corpus = std::move(r.value());
    }
  }
  if (s.holdout > 0) {  // the fits see the training part: N of the privacy statement is its size
    auto split = splitHoldout(corpus, s.holdout, s.holdoutSeed);
    if (!split.ok()) return split.status();
    return std::move(split.value().train);
  }
  return corpus;
}

AuditJobResult runAuditJob(const AuditRequest& r, Feedback* fb) {
  AuditJobResult out;
  out.pairKey = auditPairKey(r);
  out.epsilon = r.epsilon;
  out.delta = r.delta;
  const SessionState& s = r.session;
  if (r.cachedPair) {
    out.pair = *r.cachedPair;
  } else {
    auto corpus = loadAuditCorpus(s, fb);
    if (!corpus.ok()) {
      out.status = corpus.status();
      return out;
    }
    AuditPairOptions o;
    o.alpha0 = s.alpha0();
    o.topicCount = s.topicCount();
    o.clipM1 = s.clipToRowBound ? 1.0 : s.clipM1;
    o.clipM2 = s.clipToRowBound ? 1.0 : s.clipM2;
    o.whitenedClip = s.clipWhitened;
    o.clipToRowBound = s.clipToRowBound;
    auto pair = adversarialPair(corpus.value(), r.release, o, fb);
    if (!pair.ok()) {
      out.status = pair.status();
      return out;
    }
    out.pair = pair.value();
  }
  const auto cal = calibrate(Mechanism::AnalyticGaussian, r.epsilon, r.delta, out.pair.sensitivity);
  if (!cal.ok()) {
    out.status = cal.status();
    return out;
  }
  out.calibratedSigma = cal.value().scale;
  out.sigma = r.halfNoise ? out.calibratedSigma / 2 : out.calibratedSigma;
  out.meanD = out.pair.meanD;
  out.meanDPrime = r.neighbour == AuditNeighbour::WorstAllowed ? out.pair.meanD - out.pair.sensitivity : out.pair.meanDPrime;
  AuditSettings a;
  a.epsilon = r.epsilon;
  a.delta = r.delta;
  a.sigma = out.sigma;
  a.meanD = out.meanD;
  a.meanDPrime = out.meanDPrime;
  a.draws = r.draws;
  a.confidence = r.confidence;
  a.seed = r.seed;
  auto o = runAudit(a, fb);
  if (!o.ok()) {
    out.status = o.status();
    return out;
  }
  out.outcome = std::move(o.value());
  return out;
}

}  // namespace dplda
