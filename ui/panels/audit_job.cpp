#include "ui/panels/audit_job.h"

#include <QFileInfo>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/holdout.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/corpus/uci_io.h"
#include "core/moments/clipped_moments.h"
#include "core/privacy/mechanisms.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/released_vocabularies.h"
#include "ui/worker/run_worker.h"

namespace dplda {

using namespace privacy_audit;

PrivacyOptions auditedRunOptions(const AuditRequest& r) {
  PrivacyOptions o = privacyOptionsOf(r.session);
  o.epsilon = r.epsilon;
  o.delta = r.delta;
  o.noiseMultiplier = r.noiseControl ? kAuditControlNoiseMultiplier : 1.0;
  o.nonPrivateDiagnostics = false;
  return o;
}

QString auditKey(const AuditRequest& r) {
  const SessionState& s = r.session;
  const PrivacyOptions o = auditedRunOptions(r);
  QStringList weights;
  for (double w : o.splitWeights) weights << QString::number(w, 'g', 17);
  return corpusKey(s) + QString("|holdout:%1:%2|%3|a0:%4|k:%5|clip:%6:%7:%8:%9:%10")
                            .arg(s.holdout, 0, 'g', 17)
                            .arg(seedToText(s.holdoutSeed))
                            .arg(auditedReleaseName(r.release))
                            .arg(s.alpha0(), 0, 'g', 17)
                            .arg(s.topicCount())
                            .arg(s.clipM1, 0, 'g', 17)
                            .arg(s.clipM2, 0, 'g', 17)
                            .arg(s.clipWhitened, 0, 'g', 17)
                            .arg(s.clipToRowBound ? 1 : 0)
                            .arg(momentClipText(momentClipOf(s)).c_str()) +
         QString("|run:%1:%2:%3:%4:%5:%6:%7:%8:%9")
             .arg(edgeSetToString(o.edges).c_str())
             .arg(o.whitened.enabled ? 1 : 0)
             .arg(o.epsilon, 0, 'g', 17)
             .arg(o.delta, 0, 'g', 17)
             .arg(accountantName(o.accountant))
             .arg(mechanismName(o.mechanism))
             .arg(weights.join(','))
             .arg(o.shareReleases ? 1 : 0)
             .arg(o.noiseMultiplier, 0, 'g', 17);
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
      auto r = importSessionText(s, nullptr, fb, nullptr);  // the session's selection, never a second one
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
  out.key = auditKey(r);
  out.epsilon = r.epsilon;
  out.delta = r.delta;
  if (r.cached) {
    out.audit = *r.cached;
  } else {
    auto corpus = loadAuditCorpus(r.session, fb);
    if (!corpus.ok()) {
      out.status = corpus.status();
      return out;
    }
    auto a = prepareReleaseAudit(corpus.value(), spectralOptions(r.session), auditedRunOptions(r), r.release, fb);
    if (!a.ok()) {
      out.status = a.status();
      return out;
    }
    out.audit = std::move(a).value();
  }
  out.pair = out.audit.pair;
  out.sigma = out.audit.row.sigma;
  out.noiseMultiplier = out.audit.options.noiseMultiplier;
  const bool worst = r.neighbour == AuditNeighbour::WorstAllowed;
  out.meanD = out.pair.meanD;
  out.meanDPrime = worst ? out.pair.meanD - out.pair.sensitivity : out.pair.meanDPrime;
  AuditSettings a;
  a.epsilon = r.epsilon;
  a.delta = r.delta;
  a.sigma = out.sigma;
  a.meanD = out.meanD;
  a.meanDPrime = out.meanDPrime;
  a.draws = r.draws;
  a.confidence = r.confidence;
  a.seed = r.seed;
  auto o = runAudit(a, releaseSampler(out.audit, worst), fb);
  if (!o.ok()) {
    out.status = o.status();
    return out;
  }
  out.outcome = std::move(o.value());
  return out;
}

}  // namespace dplda
