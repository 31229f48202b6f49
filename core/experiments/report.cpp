#include "core/experiments/report.h"

#include "core/pipeline/privacy_statement.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/eval/perplexity.h"
#include "core/experiments/error_vs_n.h"
#include "core/experiments/paper_claims.h"
#include "core/experiments/sweep_models.h"
#include "core/experiments/verdict.h"
#include "core/experiments/table_text.h"
#include "core/graph/computation_graph.h"

namespace dplda {

namespace {

std::string fmt(double x) { return std::isnan(x) ? "–" : shortNumber(x); }

std::string percent(double q) { return shortNumber(q * 100.0) + "%"; }

// "minibatches of expected size 1000, 10 passes; N=1000000: 10000, 1 pass" (the cases that differ
// from the sweep's VI settings are named), or "10 passes" for batch VB.
std::string viScheduleText(const SweepSpec& s) {
  auto passes = [](int n) { return std::to_string(n) + (n == 1 ? " pass" : " passes"); };
  if (!isMinibatch(s.vi.method)) return passes(s.vi.iterations);
  std::string text = std::string(s.vi.method == ViMethod::Poisson ? "minibatches of expected size "
                                                                  : "minibatches of ") +
                     std::to_string(s.vi.batchSize) + ", " + passes(s.vi.iterations);
  for (const SweepCase& c : s.cases) {
    const ViOptions o = viOptionsFor(s, c, 0);  // what the case's fits use
    if (o.batchSize == s.vi.batchSize && o.iterations == s.vi.iterations && o.tau0 == s.vi.tau0 &&
        o.kappa == s.vi.kappa)
      continue;
    text += "; " + c.label + ": " + std::to_string(o.batchSize) + ", " + passes(o.iterations) + ", tau0 " +
            shortNumber(o.tau0) + ", kappa " + shortNumber(o.kappa);
  }
  return text;
}

}  // namespace

void writeReportHeader(std::ostringstream& o, const ReportContext& c) {
  o << "# " << c.title << "\n\n";
  if (!c.description.empty()) o << c.description << "\n\n";
  o << "- Software: DP-LDA Explorer, dplda " << DPLDA_VERSION << "\n";
  if (!c.commandLine.empty()) o << "- Command: `" << c.commandLine << "`\n";
}

void writeReportFigures(std::ostringstream& o, const ReportContext& c) {
  if (c.figures.empty() && c.notes.empty()) return;
  o << "\n## Figures\n\n";
  for (const ReportFigure& f : c.figures) {
    o << "### " << f.title << "\n\n";
    std::string embedded;
    for (const std::string& file : f.files)
      if (embedded.empty() && file.size() > 4 && file.substr(file.size() - 4) == ".png") embedded = file;
    if (!embedded.empty()) o << "![" << f.title << "](" << embedded << ")\n\n";
    o << "Files:";
    for (const std::string& file : f.files)
      o << " [" << file.substr(file.find_last_of('.') + 1) << "](" << file << ")";
    o << "\n\n";
  }
  for (const std::string& n : c.notes) o << "- " << n << "\n";
}

namespace {

// A table of one value per (case, configuration, epsilon): per case with epsilon columns, or,
// with a single epsilon, one row per case and one column per configuration.
template <class F>
void table(std::ostringstream& o, const SweepResult& r, F&& cell) {
  const SweepSpec& s = r.spec;
  const int C = static_cast<int>(r.cases.size()), G = static_cast<int>(s.configurations.size()),
            E = static_cast<int>(s.epsilons.size());
  if (E == 1) {
    o << "\ntotal epsilon = " << shortNumber(s.epsilons[0]) << "\n\n| case |";
    for (int g = 0; g < G; ++g)
      if (configurationShown(s, g)) o << " config " << s.configurations[g].label << " |";
    o << "\n|---|";
    for (int g = 0; g < G; ++g)
      if (configurationShown(s, g)) o << "---|";
    o << "\n";
    for (int ci = 0; ci < C; ++ci) {
      o << "| " << r.cases[ci].label << " |";
      for (int g = 0; g < G; ++g)
        if (configurationShown(s, g)) o << " " << cell(r.summaryRow(ci, g, 0), r.cases[ci]) << " |";
      o << "\n";
    }
    return;
  }
  for (int ci = 0; ci < C; ++ci) {
    if (C > 1) o << "\n### " << r.cases[ci].label << "\n";
    o << "\n| configuration \\ epsilon |";
    for (double e : s.epsilons) o << " " << shortNumber(e) << " |";
    o << "\n|---|";
    for (int e = 0; e < E; ++e) o << "---|";
    o << "\n";
    for (int g = 0; g < G; ++g) {
      if (!configurationShown(s, g)) continue;
      o << "| " << s.configurations[g].label << " |";
      for (int e = 0; e < E; ++e) o << " " << cell(r.summaryRow(ci, g, e), r.cases[ci]) << " |";
      o << "\n";
    }
  }
}

}  // namespace

namespace {

// The end of a release-only report: the error against a public truth, no exact statistic, no timing.
std::string releaseOnlyTail(std::ostringstream& o, const SweepResult& r, const ReportContext& c, bool anyTruth) {
  if (anyTruth) {
    o << "\n## Median error (mean l2 per topic, vs the truth)\n\nMedian over the trials that released; the "
         "truth is a public input, so the error is post-processing of the release.\n";
    table(o, r, [](const SweepSummaryRow& sr, const SweepCaseInfo& ci) { return fmt(ci.hasTruth ? sr.errorL2.median : NAN); });
  } else {
    o << "\nNo truth: a release-only report has no utility figure for a corpus without a public truth.\n";
  }
  o << "\n## Tables\n\n- [results.csv](results.csv): one row per (case, configuration, epsilon, trial)\n"
       "- [summary.csv](summary.csv): medians and quantile bands per (case, configuration, epsilon)\n";
  writeReportFigures(o, c);
  return o.str();
}

}  // namespace

std::string sweepReportMarkdown(const SweepResult& r, const ReportContext& c) {
  const SweepSpec& s = r.spec;
  std::ostringstream o;
  writeReportHeader(o, c);
  o << "- Trials: " << s.trials << " per (case, configuration, epsilon); " << r.rows.size()
    << " runs in total\n";
  o << "- Epsilon (total per run):";
  for (double e : s.epsilons) o << " " << shortNumber(e);
  o << "; delta = " << shortNumber(s.delta) << "\n";
  o << "- Mechanism: " << mechanismName(s.mechanism) << "; budget split: uniform over each configuration's "
    << "releases (basic composition)" << (s.shareReleases ? "; releases of one node shared by its edges"
                                                                        : "; every edge released separately (the papers' way)")
    << "\n";
  o << "- Bound set: **" << boundSetName(s.bounds) << "**"
    << (s.bounds == BoundSet::Printed
            ? " (the papers' formulas as printed: reproduces their figures, NOT the sound set)"
            : " (the corrected bounds of SPEC section 9)")
    << "\n";
  o << "- Decomposer: " << s.decomposer << "\n";
  if (s.noiseMultiplier != 1.0)
    o << "- **Noise multiplier " << shortNumber(s.noiseMultiplier) << ": NOT private**\n";

  o << "\n## Seeds and noise\n\n";
  if (!c.seedNote.empty()) o << "- " << c.seedNote << "\n";
  o << "- Data seed (synthetic corpora): " << s.seeds.data << "\n";
  o << "- Noise seed: " << s.seeds.noise << " (trial t uses deriveSeed(" << s.seeds.noise << ", t))\n";
  o << "- Initialisation seed (decomposer starts, fixed for the sweep): " << s.seeds.init << "\n";
  o << "- Noise source: " << r.noiseSource << "\n";

  if (s.releaseOnly) {
    o << "\n## Release-only output\n\nThis report, results.csv, summary.csv and the figures hold released values "
         "only (docs/PRIVACY.md §15.4): the released topics' error against the public truth, the released "
         "sigma_k~ and gamma_s~, release rates and the ledger's public budgets. The exact sigma_k and gamma_s, "
         "the utility loss against the non-private fit, the held-out perplexity, the timings and the "
         "non-private configurations (none, vi) are left out.\n";
    o << "\n## Corpora\n\n| case | source | N | d | k | alpha0 | held-out documents |\n"
         "|---|---|---|---|---|---|---|\n";
    for (const SweepCaseInfo& ci : r.cases) {
      o << "| " << ci.label << " | " << ci.description << " | " << ci.docCount << " | " << ci.vocabSize << " | "
        << ci.topicCount << " | " << shortNumber(ci.alpha0) << " | " << ci.heldOutDocuments << " |\n";
    }
  } else {
    o << "\n## Corpora\n\nsigma_k, sigma_k+1 and gamma_s are exact statistics of each corpus (non-private: "
         "computed for the experiment, never released and never used by a release).\n\n";
    o << "| case | source | N | d | k | alpha0 | sigma_k | sigma_k+1 | gamma_s | non-private error (l2 / l1) "
         "| held-out documents | non-private perplexity |\n";
    o << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const SweepCaseInfo& ci : r.cases) {
      o << "| " << ci.label << " | " << ci.description << " | " << ci.docCount << " | " << ci.vocabSize << " | "
        << ci.topicCount << " | " << shortNumber(ci.alpha0) << " | " << fmt(ci.sigmaK) << " | "
        << fmt(ci.sigmaKPlus1) << " | " << fmt(ci.gammaS) << " | "
        << (ci.hasTruth ? fmt(ci.baselineErrorL2) + " / " + fmt(ci.baselineErrorL1) : std::string("no truth"))
        << " | " << ci.heldOutDocuments << " | " << fmt(ci.baselinePerplexity) << " |\n";
    }
    for (const SweepCaseInfo& ci : r.cases)
      if (!ci.baselineFailure.empty())
        o << "\nThe non-private model of case " << ci.label << " failed (" << ci.baselineFailure
          << "); its private trials ran all the same, without utility loss.\n";

  }
  o << "\n## Configurations and budget split\n\n";
  o << "Privacy claim (docs/PRIVACY.md §1): proven = (epsilon, delta)-DP with bounds proven in the project's "
       "docs; heuristic, printed-bounds and not-covered runs are cuts whose bounds are not proofs; not-private "
       "runs leak. Runs at very large epsilon may also be not private as drawn (the ledger of `dplda run` says "
       "so).\n\n";
  o << "Composition: " << (s.accountant == Accountant::Basic
                               ? "basic (the epsilon_i, delta_i of the releases add up)"
                               : "gaussian-dp (the Gaussian node releases compose exactly as one Gaussian mechanism; "
                                 "Procedure 1's Laplace releases add on top)")
    << ".";
  bool ownAccountant = false;
  for (const SweepConfiguration& cfg : s.configurations)
    ownAccountant = ownAccountant || (cfg.accountant && *cfg.accountant != s.accountant);
  if (ownAccountant && s.accountant == Accountant::Basic) {
    o << " Configurations marked /gdp compose their Gaussian node releases with the Gaussian-DP accountant "
         "instead (docs/PRIVACY.md §4.1): their epsilon_i below are shares pooled into one exact composition, "
         "not budgets spent release by release.";
  }
  o << "\n\n";
  o << "The last column is the epsilon the first trial's releases spent at epsilon = " << shortNumber(s.epsilons.front())
    << " under the ledger's accountant (basic, or zcdp for DP-VI), Gaussian-DP and the PLD accountant, at the "
       "same delta (docs/PRIVACY.md §16); every one is a valid bound, the smallest the tightest.\n\n";
  o << "| configuration | noisy edges | privacy claim | releases at epsilon = " << shortNumber(s.epsilons.front())
    << " (epsilon_i each) | epsilon spent: ledger / gaussian-dp / pld |\n|---|---|---|---|---|\n";
  for (std::size_t g = 0; g < s.configurations.size(); ++g) {
    if (!configurationShown(s, static_cast<int>(g))) continue;
    const SweepConfiguration& cfg = s.configurations[g];
    const VocabularyOrigin vocabulary = r.cases.empty() ? VocabularyOrigin::Public : r.cases.front().vocabulary;
    const StatementInputs in =
        statementInputs(privacyOptionsFor(s, cfg, s.epsilons.front()), r.cases.empty() ? 0 : r.cases.front().docCount,
                        cfg.clipMoments ? s.momentClip : MomentClip{}, vocabulary);
    std::string releases;
    const SweepRow& row0 = r.row(0, static_cast<int>(g), 0, 0);
    for (const NoiseScale& n : row0.noiseScales) {
      releases += (releases.empty() ? "" : "; ") + n.release + ": " + shortNumber(n.epsilon);
    }
    std::string edges = cfg.edges ? edgeSetToString(cfg.edges) : std::string("none");
    std::string claim = cfg.edges == 0 ? std::string("no (baseline)") : privacyClaimName(privacyStatement(in).claim);
    if (cfg.model == SweepModel::Vi) {
      edges = "– (variational Bayes, " + std::string(viMethodName(s.vi.method)) +
              (s.vi.learnAlpha ? ", alpha learned" : "") + "; " + viScheduleText(s) + ")";
      claim = "no (baseline)";
    } else if (cfg.model == SweepModel::DpVi) {
      edges = "– (DP-VI, Park et al. 2016; " + std::string(viMethodName(s.vi.method)) + " VB, C = " +
              shortNumber(s.dpViClip) + (s.vi.learnAlpha ? ", alpha learned" : "") + "; " + viScheduleText(s) + ")";
      claim = vocabulary == VocabularyOrigin::CorpusCounts
                  ? "not-private (the vocabulary comes from the corpus's own counts; docs/PRIVACY.md §13)"
              : !row0.released ? "– (" + row0.reason + ")"
              : s.vi.method == ViMethod::Poisson
                  ? "proven (Poisson-sampled minibatches, PLD account with amplification by subsampling; "
                    "docs/PRIVACY.md §16.5)"
                  : "proven (zCDP over every iteration, no subsampling amplification; docs/PRIVACY.md)";
    }
    auto spent = [](double x) {
      return std::isnan(x) ? std::string("–") : std::isinf(x) ? std::string("unbounded") : shortNumber(x);
    };
    const std::string accounts = row0.epsilonSpent > 0.0 ? spent(row0.epsilonSpent) + " / " +
                                                               spent(row0.epsilonGaussianDp) + " / " +
                                                               spent(row0.epsilonPld)
                                                         : std::string("–");
    o << "| " << cfg.label << " | " << edges << " | " << claim << " | " << (releases.empty() ? std::string("–") : releases)
      << " | " << accounts << " |\n";
  }

  o << "\n## Release rates\n\nReleased runs / trials. A run releases nothing when a local bound cannot be "
       "evaluated (e.g. Procedure 1's lower bound sigma_k~ <= Delta2 or gamma_s~ = 0); nothing is plotted "
       "for an epsilon where no trial released.\n";
  table(o, r, [](const SweepSummaryRow& sr, const SweepCaseInfo&) {
    return std::to_string(sr.released) + "/" + std::to_string(sr.trials);
  });
  const bool anyTruth =
      std::any_of(r.cases.begin(), r.cases.end(), [](const SweepCaseInfo& x) { return x.hasTruth; });
  if (s.releaseOnly) return releaseOnlyTail(o, r, c, anyTruth);
  o << "\n## Median "
    << (anyTruth ? "error (mean l2 per topic, vs the truth)" : "utility loss (mean l2 per topic)")
    << "\n\nMedian over the trials that released, with the " << percent(s.bandLower) << "–"
    << percent(s.bandUpper) << " quantile band in summary.csv (type-7 quantiles).\n";
  table(o, r, [](const SweepSummaryRow& sr, const SweepCaseInfo& ci) {
    return fmt(ci.hasTruth ? sr.errorL2.median : sr.lossL2.median);
  });
  if (s.holdout > 0.0) {
    o << "\n## Median held-out perplexity\n\n" << shortNumber(s.holdout * 100.0)
      << "% of each corpus's documents are held out (a seeded public split; they enter no fit and no release). "
      << perplexityEstimatorText() << "; " << perplexitySmoothingText(kDefaultPerplexitySmoothing)
      << ". Evaluation is post-processing of the released model. Lower is better.\n";
    table(o, r, [](const SweepSummaryRow& sr, const SweepCaseInfo&) { return fmt(sr.perplexity.median); });
  }
  if (s.coherenceTopWords > 0) {
    o << "\n## Median topic coherence (NPMI)\n\nNPMI of each model's top " << s.coherenceTopWords
      << " words over document co-occurrence in the training documents, averaged over word pairs and topics "
         "(core/eval/coherence.h; -1 for a pair never together). A non-private diagnostic: exact statistics of the "
         "training data, not part of any release (left out with --release-only). Higher is more coherent.\n";
    table(o, r, [](const SweepSummaryRow& sr, const SweepCaseInfo&) { return fmt(sr.coherenceNpmi.median); });
  }
  if (anyTruth) {
    o << "\n## Median error in the Frobenius norm (seed 000, Definition 21)\n\n||mu - mu~||_F over the "
         "matched d x k topic matrix.\n";
    table(o, r, [](const SweepSummaryRow& sr, const SweepCaseInfo&) { return fmt(sr.errorFrobenius.median); });
  }
  if (c.errorVsN) o << errorVsNMarkdown(r);
  o << verdictMarkdown(r);
  o << paperClaimsMarkdown(r);
  if (c.procedureOneTable) {
    o << "\n## Procedure 1: private lower bounds\n\nMedians over the trials of sigma_k~ and gamma_s~ (the "
         "released lower bounds; 0 means the bound is useless and the release fails), next to the "
         "non-private "
         "sigma_k and gamma_s.\n";
    for (std::size_t e = 0; e < s.epsilons.size(); ++e) {
      o << "\n### total epsilon = " << shortNumber(s.epsilons[e]) << "\n\n| case | sigma_k |";
      for (const SweepConfiguration& cfg : s.configurations) o << " sigma_k~ (" << cfg.label << ") |";
      o << " gamma_s |";
      for (const SweepConfiguration& cfg : s.configurations) o << " gamma_s~ (" << cfg.label << ") |";
      o << "\n|---|---|";
      for (std::size_t g = 0; g < 2 * s.configurations.size() + 1; ++g) o << "---|";
      o << "\n";
      for (std::size_t ci = 0; ci < r.cases.size(); ++ci) {
        o << "| " << r.cases[ci].label << " | " << fmt(r.cases[ci].sigmaK) << " |";
        for (std::size_t g = 0; g < s.configurations.size(); ++g) {
          o << " "
            << fmt(r.summaryRow(static_cast<int>(ci), static_cast<int>(g), static_cast<int>(e))
                       .sigmaKTilde.median)
            << " |";
        }
        o << " " << fmt(r.cases[ci].gammaS) << " |";
        for (std::size_t g = 0; g < s.configurations.size(); ++g) {
          o << " "
            << fmt(r.summaryRow(static_cast<int>(ci), static_cast<int>(g), static_cast<int>(e))
                       .gammaSTilde.median)
            << " |";
        }
        o << "\n";
      }
    }
  }

  o << "\n## Tables\n\n- [results.csv](results.csv): one row per (case, configuration, epsilon, trial)\n"
       "- [summary.csv](summary.csv): medians and quantile bands per (case, configuration, epsilon)\n"
       "- [timings.csv](timings.csv): wall time of every run (not reproducible, hence kept apart)\n";

  o << "\n## Timing\n\n- " << r.threadsUsed << " worker threads, " << shortNumber(r.elapsedMs / 1000.0)
    << " s wall time in total\n";
  for (const SweepCaseInfo& ci : r.cases) {
    o << "- case " << ci.label << ": corpus and non-private run " << shortNumber(ci.prepareMs) << " ms\n";
  }
  const std::vector<double> perConfig = meanTrialMsPerConfiguration(r);
  for (std::size_t g = 0; g < perConfig.size(); ++g) {
    o << "- configuration " << s.configurations[g].label << ": " << shortNumber(perConfig[g])
      << " ms per run (mean)\n";
  }
  writeReportFigures(o, c);
  return o.str();
}

std::string tpmNoiseReportMarkdown(const TpmNoiseResult& r, const ReportContext& c) {
  const TpmNoiseSpec& s = r.spec;
  std::ostringstream o;
  writeReportHeader(o, c);
  o << "- Dimensions d:";
  for (int d : s.dims) o << " " << d;
  o << "\n- Trials per point: " << s.trials << "\n";
  o << "- Robust tensor power method: L = "
    << (s.power.restarts > 0 ? std::to_string(s.power.restarts) : "10 (default for rank 3)")
    << " starts, R = " << s.power.maxIterations << " steps, tolerance " << shortNumber(s.power.tolerance)
    << ", 3 components extracted\n";
  o << "- Success: every v_i recovered with v_i-hat . v_i >= " << shortNumber(s.successThreshold) << " ("
    << tpmSuccessCriterionName(s.criterion)
    << (s.criterion == TpmSuccessCriterion::ExtractionOrder
            ? ": the i-th component found against v_i, as in the paper's experiment"
            : ": under the best one-to-one matching, as in Theorem 2.2")
    << "; both overlaps are in results.csv)\n";
  o << "- Noise level sigma = ||E||_op, computed by a shifted symmetric higher-order power method with "
    << s.operatorNorm.restarts << " random starts\n";

  o << "\n## Seeds\n\n";
  if (!c.seedNote.empty()) o << "- " << c.seedNote << "\n";
  o << "- Seed " << s.seed
    << ": the Gaussian noise of (d, trial) and the power method's starts of (d, trial) are "
    << "derived from it and shared by every noise level (and the starts by every model): common random "
       "numbers.\n";
  o << "- All randomness is seeded (mt19937_64); the experiment involves no privacy release.\n";

  o << "\n## Failure probability\n";
  for (std::size_t m = 0; m < s.models.size(); ++m) {
    o << "\n### " << tpmNoiseModelTitle(s.models[m].model) << "\n\n| sigma |";
    for (int d : s.dims) o << " d = " << d << " |";
    o << "\n|---|";
    for (std::size_t di = 0; di < s.dims.size(); ++di) o << "---|";
    o << "\n";
    for (std::size_t li = 0; li < s.models[m].sigmas.size(); ++li) {
      o << "| " << shortNumber(s.models[m].sigmas[li]) << " |";
      for (std::size_t di = 0; di < s.dims.size(); ++di) {
        const TpmNoisePoint& p = r.point(static_cast<int>(m), static_cast<int>(di), static_cast<int>(li));
        o << " " << p.failures << "/" << p.trials << " |";
      }
      o << "\n";
    }
  }
  o << "\n## Tables\n\n- [results.csv](results.csv): one row per (model, d, sigma, trial)\n"
       "- [summary.csv](summary.csv): failure probability per (model, d, sigma) with the four scaled noise "
       "levels\n";
  o << "\n## Timing\n\n- " << r.threadsUsed << " worker threads, " << shortNumber(r.elapsedMs / 1000.0)
    << " s wall time in total\n";
  writeReportFigures(o, c);
  return o.str();
}

}  // namespace dplda
