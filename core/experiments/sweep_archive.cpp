// sweep.json, written and read (sweep_archive.h).
#include "core/experiments/sweep_archive.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/common/memory_budget.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"

namespace dplda {

namespace {

using json = nlohmann::ordered_json;
constexpr const char* kFormat = "dplda-sweep";

// Every number finite or said in words (issue 28 §6: no NaN, infinity or null in an output).
json number(double x) {
  if (std::isnan(x)) return kNotComputed;
  if (std::isinf(x)) return x > 0 ? kUnbounded : "-unbounded";
  return x;
}

json numbers(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(number(x));
  return a;
}

json numbers(const Eigen::VectorXd& v) { return numbers(std::vector<double>(v.data(), v.data() + v.size())); }

json quantiles(const QuantileSummary& q) {
  return {{"count", q.count}, {"median", number(q.median)}, {"lower", number(q.lower)}, {"upper", number(q.upper)}};
}

json configurationJson(const SweepConfiguration& c) {
  const WhitenedRelease& w = c.whitened;
  return {{"label", c.label},
          {"model", sweepModelName(c.model)},
          {"edges", c.edges ? edgeSetToString(c.edges) : std::string()},
          {"split_weights", numbers(c.splitWeights)},
          {"private_decomposition", c.privateDecomposition},
          {"whitened",
           {{"enabled", w.enabled},
            {"clip_m1", number(w.m2Clip.m1)},
            {"clip_m2", number(w.m2Clip.m2)},
            {"whitened_clip", number(w.whitenedClip)},
            {"clip_to_row_bound", w.clipToRowBound}}},
          {"accountant", c.accountant ? accountantName(*c.accountant) : ""},  // "": the sweep's
          {"share_releases", c.shareReleases},
          {"clip_moments", c.clipMoments}};
}

json caseSpecJson(const SweepCase& c) {
  json j = {{"label", c.label},           {"description", c.source.description},
            {"topics", c.topicCount},     {"alpha0", number(c.alpha0)},
            {"vi_batch_size", c.viBatchSize}, {"vi_passes", c.viPasses},
            {"vi_tau0", number(c.viTau0)}, {"vi_kappa", number(c.viKappa)}};
  if (const auto& p = c.source.generator) {  // a loaded corpus has none
    j["generator"] = {{"vocab", p->vocabSize},      {"topics", p->topicCount},
                      {"docs", p->docCount},        {"alpha0", number(p->alpha0)},
                      {"prior", p->prior == GeneratorParams::Prior::Random ? "random" : "symmetric"},
                      {"beta", number(p->beta)},    {"mean_length", number(p->meanLength)},
                      {"fixed_length", p->fixedLength}, {"seed", std::to_string(p->seed)}};
  }
  return j;
}

json specJson(const SweepSpec& s) {
  json cases = json::array(), configs = json::array();
  for (const SweepCase& c : s.cases) cases.push_back(caseSpecJson(c));
  for (const SweepConfiguration& c : s.configurations) configs.push_back(configurationJson(c));
  const ViOptions& v = s.vi;
  return {{"name", s.name},
          {"moment_clip", {{"enabled", s.momentClip.enabled}, {"m1", number(s.momentClip.m1)},
                           {"m2", number(s.momentClip.m2)}, {"m3", number(s.momentClip.m3)}}},
          {"cases", cases},
          {"configurations", configs},
          {"epsilons", numbers(s.epsilons)},
          {"delta", number(s.delta)},
          {"mechanism", mechanismName(s.mechanism)},
          {"accountant", accountantName(s.accountant)},
          {"bounds", boundSetName(s.bounds)},
          {"share_releases", s.shareReleases},
          {"max_length", number(s.maxLength)},
          {"trials", s.trials},
          {"seeds", {{"data", std::to_string(s.seeds.data)}, {"noise", std::to_string(s.seeds.noise)},
                     {"init", std::to_string(s.seeds.init)}}},
          {"decomposer", s.decomposer},
          {"power", {{"restarts", s.power.restarts}, {"max_iterations", s.power.maxIterations},
                     {"tolerance", number(s.power.tolerance)}}},
          {"holdout", number(s.holdout)},
          {"coherence_top_words", s.coherenceTopWords},
          {"vi",
           {{"method", viMethodName(v.method)}, {"iterations", v.iterations}, {"batch_size", v.batchSize},
            {"tau0", number(v.tau0)}, {"kappa", number(v.kappa)}, {"alpha0", number(v.alpha0)},
            {"alpha", numbers(v.alpha)}, {"learn_alpha", v.learnAlpha}, {"eta", number(v.eta)},
            {"estep_tolerance", number(v.estepTolerance)}, {"estep_max_iterations", v.estepMaxIterations},
            {"seed", std::to_string(v.seed)}, {"compute_elbo", v.computeElbo}, {"threads", v.threads}}},
          {"dp_vi_clip", number(s.dpViClip)},
          {"noise_multiplier", number(s.noiseMultiplier)},
          {"release_only", s.releaseOnly},
          {"threads", s.threads},
          {"band_lower", number(s.bandLower)},
          {"band_upper", number(s.bandUpper)}};
}

// A case as prepared. Under releaseOnly: what the release-only report shows (the exact statistics,
// the baselines, dropped documents and timings stay out).
json caseInfoJson(const SweepCaseInfo& c, bool releaseOnly) {
  json j = {{"label", c.label},         {"description", c.description},
            {"docs", c.docCount},       {"vocab", c.vocabSize},
            {"topics", c.topicCount},   {"alpha0", number(c.alpha0)},
            {"vocabulary", vocabularyOriginName(c.vocabulary)},
            {"has_truth", c.hasTruth},  {"guess_error_l2", number(c.guessErrorL2)},
            {"held_out_documents", c.heldOutDocuments}};
  if (releaseOnly) return j;
  j["dropped_documents"] = c.droppedDocuments;
  j["baseline_failure"] = c.baselineFailure;
  for (const auto& [name, field] : sweep_archive::caseExactNumbers()) j[name] = number(c.*field);
  return j;
}

json rowJson(const SweepRow& r, bool releaseOnly) {
  json j = {{"case", r.caseIndex}, {"config", r.configIndex}, {"epsilon_index", r.epsilonIndex},
            {"trial", r.trial},    {"epsilon", number(r.epsilon)}, {"noise_seed", std::to_string(r.noiseSeed)},
            {"released", r.released}, {"status", statusCodeName(r.status)}, {"reason", r.reason}};
  for (const auto& [name, field] : sweep_archive::rowNumbers())
    if (!releaseOnly || releasedColumn(name)) j[name] = number(r.*field);
  json scales = json::array();
  for (const NoiseScale& n : r.noiseScales) {
    scales.push_back({{"release", n.release}, {"epsilon", number(n.epsilon)}, {"delta", number(n.delta)},
                      {"sigma", number(n.sigma)}, {"spent", n.spent}});
  }
  j["noise_scales"] = scales;
  if (!releaseOnly) j["elapsed_ms"] = number(r.elapsedMs);
  return j;
}

json summaryJson(const SweepSummaryRow& s, bool releaseOnly) {
  json j = {{"case", s.caseIndex},       {"config", s.configIndex}, {"epsilon_index", s.epsilonIndex},
            {"epsilon", number(s.epsilon)}, {"trials", s.trials},   {"released", s.released},
            {"release_rate", number(s.releaseRate)}};
  for (const auto& [name, field] : sweep_archive::summaryQuantiles())
    if (!releaseOnly || releasedColumn(name)) j[name] = quantiles(s.*field);
  if (!releaseOnly) j["mean_elapsed_ms"] = number(s.meanElapsedMs);
  return j;
}

}  // namespace

namespace sweep_archive {

const char* kindName(ExperimentKind k) {
  switch (k) {
    case ExperimentKind::Diagnostics: return "diagnostics";
    case ExperimentKind::ErrorVsN: return "error-vs-n";
    default: return "error-sweep";
  }
}

const std::vector<std::pair<const char*, double SweepRow::*>>& rowNumbers() {
  static const std::vector<std::pair<const char*, double SweepRow::*>> fields = {
      {"error_l2", &SweepRow::errorL2},         {"error_l1", &SweepRow::errorL1},
      {"error_alpha", &SweepRow::errorAlpha},   {"error_frobenius", &SweepRow::errorFrobenius},
      {"loss_l2", &SweepRow::lossL2},           {"loss_l1", &SweepRow::lossL1},
      {"loss_alpha", &SweepRow::lossAlpha},     {"loss_frobenius", &SweepRow::lossFrobenius},
      {"perplexity", &SweepRow::perplexity},    {"perplexity_bound", &SweepRow::perplexityBound},
      {"coherence_npmi", &SweepRow::coherenceNpmi}, {"coherence_umass", &SweepRow::coherenceUmass},
      {"sigma_k", &SweepRow::sigmaK},           {"sigma_k_tilde", &SweepRow::sigmaKTilde},
      {"gamma_s", &SweepRow::gammaS},           {"gamma_s_tilde", &SweepRow::gammaSTilde},
      {"epsilon_spent", &SweepRow::epsilonSpent}, {"delta_spent", &SweepRow::deltaSpent},
      {"epsilon_gdp", &SweepRow::epsilonGaussianDp}, {"epsilon_pld", &SweepRow::epsilonPld}};
  return fields;
}

const std::vector<std::pair<const char*, double SweepCaseInfo::*>>& caseExactNumbers() {
  static const std::vector<std::pair<const char*, double SweepCaseInfo::*>> fields = {
      {"baseline_error_l2", &SweepCaseInfo::baselineErrorL2},
      {"baseline_error_l1", &SweepCaseInfo::baselineErrorL1},
      {"baseline_error_alpha", &SweepCaseInfo::baselineErrorAlpha},
      {"baseline_error_frobenius", &SweepCaseInfo::baselineErrorFrobenius},
      {"baseline_perplexity", &SweepCaseInfo::baselinePerplexity},
      {"baseline_perplexity_bound", &SweepCaseInfo::baselinePerplexityBound},
      {"baseline_coherence_npmi", &SweepCaseInfo::baselineCoherenceNpmi},
      {"sigma_k", &SweepCaseInfo::sigmaK},
      {"sigma_k_plus_1", &SweepCaseInfo::sigmaKPlus1},
      {"gamma_s", &SweepCaseInfo::gammaS},
      {"prepare_ms", &SweepCaseInfo::prepareMs}};
  return fields;
}

const std::vector<std::pair<const char*, QuantileSummary SweepSummaryRow::*>>& summaryQuantiles() {
  static const std::vector<std::pair<const char*, QuantileSummary SweepSummaryRow::*>> fields = {
      {"error_l2", &SweepSummaryRow::errorL2},       {"error_l1", &SweepSummaryRow::errorL1},
      {"error_alpha", &SweepSummaryRow::errorAlpha}, {"error_frobenius", &SweepSummaryRow::errorFrobenius},
      {"loss_l2", &SweepSummaryRow::lossL2},         {"loss_l1", &SweepSummaryRow::lossL1},
      {"loss_alpha", &SweepSummaryRow::lossAlpha},   {"loss_frobenius", &SweepSummaryRow::lossFrobenius},
      {"sigma_k_tilde", &SweepSummaryRow::sigmaKTilde}, {"gamma_s_tilde", &SweepSummaryRow::gammaSTilde},
      {"perplexity", &SweepSummaryRow::perplexity},  {"coherence_npmi", &SweepSummaryRow::coherenceNpmi}};
  return fields;
}

}  // namespace sweep_archive

std::string sweepArchiveJson(const SweepArchiveInfo& a, const SweepResult& r) {
  const bool releaseOnly = r.spec.releaseOnly;
  json cases = json::array(), rows = json::array(), summary = json::array();
  for (const SweepCaseInfo& c : r.cases) cases.push_back(caseInfoJson(c, releaseOnly));
  for (const SweepRow& row : r.rows)
    if (configurationShown(r.spec, row.configIndex)) rows.push_back(rowJson(row, releaseOnly));
  for (const SweepSummaryRow& s : r.summary)
    if (configurationShown(r.spec, s.configIndex)) summary.push_back(summaryJson(s, releaseOnly));
  json j = {{"format", kFormat},
            {"version", kSweepArchiveVersion},
            {"experiment",
             {{"name", a.name}, {"title", a.title}, {"description", a.description}, {"kind", sweep_archive::kindName(a.kind)},
              {"command", a.commandLine}, {"seed_note", a.seedNote}}},
            {"spec", specJson(r.spec)},
            {"noise_source", r.noiseSource},
            {"threads_used", r.threadsUsed},
            {"elapsed_ms", number(releaseOnly ? std::numeric_limits<double>::quiet_NaN() : r.elapsedMs)},
            {"cases", cases},
            {"summary", summary},
            {"rows", rows}};
  return j.dump() + "\n";  // compact: a 10⁴-run sweep is ~10 MB
}

Result<SweepArchive> readSweepArchive(const std::filesystem::path& file) {
  const std::string name = file.string();
  DPLDA_RETURN_IF_ERROR(requireRegularFile(name));
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) return ioError("cannot read " + escapeText(name) + ": " + ec.message());
  if (size > kMaxSweepArchiveBytes) {
    return Status(StatusCode::ResourceLimit, escapeText(name) + " has " + std::to_string(size) +
                                                 " bytes, more than the 256 MiB a sweep archive may have");
  }
  // The parsed tree takes about ten times the text.
  DPLDA_RETURN_IF_ERROR(checkMemory(11.0 * static_cast<double>(size), "reading " + escapeText(name),
                                    "the parsed sweep archive"));
  auto text = readFileText(name, size);
  if (!text.ok()) return text.status();
  return parseSweepArchive(text.value(), escapeText(name));
}

}  // namespace dplda
