// Reading sweep.json back (sweep_archive.h). Strict: every field the writer writes must be there
// with its type and range, so a file that reads is one the report and the figures can use.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/common/number_text.h"
#include "core/common/text_escape.h"
#include "core/experiments/sweep_archive.h"

namespace dplda {

namespace {

using json = nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Points × trials of an archive: each trial row is ~600 bytes of JSON, so a file under the size
// cap never holds more; the count also bounds what the placeholders of a release-only file take.
constexpr double kMaxArchiveRuns = 1e7;

struct ArchiveError {
  std::string message;
};

// The reader's cursor: every message names the field as a path, e.g. rows[12].error_l2.
class Fields {
 public:
  Fields(const json& object, std::string path) : m_o(object), m_path(std::move(path)) {
    if (!m_o.is_object()) fail(m_path + " must be an object");
  }
  [[noreturn]] static void fail(const std::string& message) { throw ArchiveError{message}; }
  std::string at(const char* key) const { return m_path.empty() ? key : m_path + "." + key; }
  const json& get(const char* key) const {
    auto it = m_o.find(key);
    if (it == m_o.end()) fail(at(key) + " is missing");
    return *it;
  }
  Fields object(const char* key) const { return Fields(get(key), at(key)); }
  bool has(const char* key) const { return m_o.contains(key); }
  // "not computed" is NaN, "unbounded" / "-unbounded" are ±∞ (the writer's spelling).
  double number(const char* key) const { return numberValue(get(key), at(key)); }
  static double numberValue(const json& v, const std::string& where) {
    if (v.is_number()) return v.get<double>();
    const std::string s = v.is_string() ? v.get<std::string>() : std::string();
    if (s == kNotComputed) return kNaN;
    if (s == kUnbounded) return std::numeric_limits<double>::infinity();
    if (s == std::string("-") + kUnbounded) return -std::numeric_limits<double>::infinity();
    fail(where + " must be a number, \"not computed\" or \"unbounded\", got " + quoteText(v.dump()));
  }
  double finite(const char* key, double lo, double hi) const {
    const double x = number(key);
    if (!(x >= lo && x <= hi)) fail(at(key) + " must be in [" + shortNumber(lo) + ", " + shortNumber(hi) + "], got " + quoteText(get(key).dump()));
    return x;
  }
  int integer(const char* key, long long lo, long long hi) const {
    const json& v = get(key);
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      fail(at(key) + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + quoteText(v.dump()));
    return static_cast<int>(v.get<long long>());
  }
  bool flag(const char* key) const {
    const json& v = get(key);
    if (!v.is_boolean()) fail(at(key) + " must be true or false, got " + quoteText(v.dump()));
    return v.get<bool>();
  }
  std::string text(const char* key) const {
    const json& v = get(key);
    if (!v.is_string()) fail(at(key) + " must be a string, got " + quoteText(v.dump()));
    return v.get<std::string>();
  }
  std::uint64_t seed(const char* key) const {
    const std::string s = text(key);
    std::uint64_t x = 0;
    bool ok = !s.empty() && s.size() <= 20;
    for (char c : s) ok = ok && c >= '0' && c <= '9';
    if (ok) {
      try {
        x = std::stoull(s);
      } catch (...) {
        ok = false;
      }
    }
    if (!ok) fail(at(key) + " must be a seed (decimal digits, below 2^64), got " + quoteText(s));
    return x;
  }
  const json& array(const char* key) const {
    const json& v = get(key);
    if (!v.is_array()) fail(at(key) + " must be an array");
    return v;
  }
  std::vector<double> numbers(const char* key) const {
    std::vector<double> out;
    const json& a = array(key);
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(numberValue(a[i], at(key) + "[" + std::to_string(i) + "]"));
    return out;
  }
  // A name among `names(value)` for the enum's values.
  template <typename E, typename NameOf>
  E choice(const char* key, std::initializer_list<E> values, NameOf nameOf) const {
    const std::string s = text(key);
    for (E e : values)
      if (s == nameOf(e)) return e;
    fail(at(key) + " has the unknown value " + quoteText(s));
  }
  template <typename T>
  T parsed(const char* key, Result<T> (*parse)(const std::string&)) const {
    auto r = parse(text(key));
    if (!r.ok()) fail(at(key) + ": " + r.status().message());
    return r.value();
  }

 private:
  const json& m_o;
  std::string m_path;
};

std::string item(const Fields& f, const char* key, std::size_t i) { return f.at(key) + "[" + std::to_string(i) + "]"; }

SweepConfiguration readConfiguration(const Fields& f) {
  SweepConfiguration c;
  c.label = f.text("label");
  c.model = f.choice("model", {SweepModel::Spectral, SweepModel::Vi, SweepModel::DpVi}, sweepModelName);
  const std::string edges = f.text("edges");
  if (!edges.empty()) {
    auto e = parseEdgeSet(edges);
    if (!e.ok()) Fields::fail(f.at("edges") + ": " + e.status().message());
    c.edges = e.value();
  }
  c.splitWeights = f.numbers("split_weights");
  c.privateDecomposition = f.flag("private_decomposition");
  const Fields w = f.object("whitened");
  c.whitened.enabled = w.flag("enabled");
  c.whitened.m2Clip = {w.number("clip_m1"), w.number("clip_m2")};
  c.whitened.whitenedClip = w.number("whitened_clip");
  c.whitened.clipToRowBound = w.flag("clip_to_row_bound");
  if (!f.text("accountant").empty()) c.accountant = f.parsed<Accountant>("accountant", parseAccountant);
  c.shareReleases = f.flag("share_releases");
  c.clipMoments = f.flag("clip_moments");
  return c;
}

SweepCase readCaseSpec(const Fields& f) {
  SweepCase c;
  c.label = f.text("label");
  c.source.description = f.text("description");
  c.topicCount = f.integer("topics", 1, 1000000);
  c.alpha0 = f.number("alpha0");
  c.viBatchSize = f.integer("vi_batch_size", 0, std::numeric_limits<int>::max());
  c.viPasses = f.integer("vi_passes", 0, std::numeric_limits<int>::max());
  c.viTau0 = f.number("vi_tau0");
  c.viKappa = f.number("vi_kappa");
  if (f.has("generator")) {
    const Fields g = f.object("generator");
    GeneratorParams p;
    p.vocabSize = g.integer("vocab", 1, std::numeric_limits<int>::max());
    p.topicCount = g.integer("topics", 1, std::numeric_limits<int>::max());
    p.docCount = g.integer("docs", 1, std::numeric_limits<int>::max());
    p.alpha0 = g.number("alpha0");
    p.prior = g.choice("prior", {GeneratorParams::Prior::Random, GeneratorParams::Prior::Symmetric},
                       [](GeneratorParams::Prior x) { return x == GeneratorParams::Prior::Random ? "random" : "symmetric"; });
    p.beta = g.number("beta");
    p.meanLength = g.number("mean_length");
    p.fixedLength = g.flag("fixed_length");
    p.seed = g.seed("seed");
    c.source.generator = p;
  }
  return c;
}

SweepSpec readSpec(const Fields& f) {
  SweepSpec s;
  s.name = f.text("name");
  const Fields mc = f.object("moment_clip");
  s.momentClip = {mc.flag("enabled"), mc.number("m1"), mc.number("m2"), mc.number("m3")};
  const json& cases = f.array("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) s.cases.push_back(readCaseSpec(Fields(cases[i], item(f, "cases", i))));
  const json& configs = f.array("configurations");
  for (std::size_t i = 0; i < configs.size(); ++i)
    s.configurations.push_back(readConfiguration(Fields(configs[i], item(f, "configurations", i))));
  s.epsilons = f.numbers("epsilons");
  for (std::size_t i = 0; i < s.epsilons.size(); ++i)
    if (!(s.epsilons[i] > 0 && std::isfinite(s.epsilons[i]))) Fields::fail(item(f, "epsilons", i) + " must be finite and > 0");
  if (s.cases.empty() || s.configurations.empty() || s.epsilons.empty())
    Fields::fail(f.at("cases") + ", configurations and epsilons must each have at least one entry");
  s.delta = f.number("delta");
  s.mechanism = f.parsed<Mechanism>("mechanism", parseMechanism);
  s.accountant = f.parsed<Accountant>("accountant", parseAccountant);
  s.bounds = f.parsed<BoundSet>("bounds", parseBoundSet);
  s.shareReleases = f.flag("share_releases");
  s.maxLength = f.number("max_length");
  s.trials = f.integer("trials", 1, 1000000);
  const Fields seeds = f.object("seeds");
  s.seeds = {seeds.seed("data"), seeds.seed("noise"), seeds.seed("init")};
  s.decomposer = f.text("decomposer");
  const Fields p = f.object("power");
  s.power.restarts = p.integer("restarts", 0, std::numeric_limits<int>::max());
  s.power.maxIterations = p.integer("max_iterations", 0, std::numeric_limits<int>::max());
  s.power.tolerance = p.number("tolerance");
  s.holdout = f.finite("holdout", 0.0, 1.0);
  s.coherenceTopWords = f.integer("coherence_top_words", 0, 1000000);
  const Fields v = f.object("vi");
  s.vi.method = v.parsed<ViMethod>("method", parseViMethod);
  s.vi.iterations = v.integer("iterations", 0, std::numeric_limits<int>::max());
  s.vi.batchSize = v.integer("batch_size", 0, std::numeric_limits<int>::max());
  s.vi.tau0 = v.number("tau0");
  s.vi.kappa = v.number("kappa");
  s.vi.alpha0 = v.number("alpha0");
  const std::vector<double> alpha = v.numbers("alpha");
  s.vi.alpha = Eigen::Map<const Eigen::VectorXd>(alpha.data(), static_cast<Eigen::Index>(alpha.size()));
  s.vi.learnAlpha = v.flag("learn_alpha");
  s.vi.eta = v.number("eta");
  s.vi.estepTolerance = v.number("estep_tolerance");
  s.vi.estepMaxIterations = v.integer("estep_max_iterations", 0, std::numeric_limits<int>::max());
  s.vi.seed = v.seed("seed");
  s.vi.computeElbo = v.flag("compute_elbo");
  s.vi.threads = v.integer("threads", 0, 1 << 20);
  s.dpViClip = f.number("dp_vi_clip");
  s.noiseMultiplier = f.number("noise_multiplier");
  s.releaseOnly = f.flag("release_only");
  s.threads = f.integer("threads", 0, 1 << 20);
  s.bandLower = f.finite("band_lower", 0.0, 1.0);
  s.bandUpper = f.finite("band_upper", s.bandLower, 1.0);
  return s;
}

SweepCaseInfo readCaseInfo(const Fields& f, bool releaseOnly) {
  SweepCaseInfo c;
  c.label = f.text("label");
  c.description = f.text("description");
  c.docCount = f.integer("docs", 0, std::numeric_limits<int>::max());
  c.vocabSize = f.integer("vocab", 0, std::numeric_limits<int>::max());
  c.topicCount = f.integer("topics", 0, std::numeric_limits<int>::max());
  c.alpha0 = f.number("alpha0");
  c.vocabulary = f.choice("vocabulary",
                          {VocabularyOrigin::Unknown, VocabularyOrigin::Public, VocabularyOrigin::PrivateSelection,
                           VocabularyOrigin::CorpusCounts},
                          vocabularyOriginName);
  c.hasTruth = f.flag("has_truth");
  c.guessErrorL2 = f.number("guess_error_l2");
  c.heldOutDocuments = f.integer("held_out_documents", 0, std::numeric_limits<int>::max());
  // A release-only writer left the rest out: not known here.
  for (const auto& [name, field] : sweep_archive::caseExactNumbers()) c.*field = releaseOnly ? kNaN : f.number(name);
  if (releaseOnly) return c;
  c.droppedDocuments = f.integer("dropped_documents", 0, std::numeric_limits<int>::max());
  c.baselineFailure = f.text("baseline_failure");
  return c;
}

// (case, configuration, ε index) of a row or summary point, each checked against the spec; the
// configuration must be one the archive shows.
std::tuple<int, int, int> pointOf(const Fields& f, const SweepSpec& s, int caseCount) {
  const int c = f.integer("case", 0, caseCount - 1);
  const int g = f.integer("config", 0, static_cast<int>(s.configurations.size()) - 1);
  const int e = f.integer("epsilon_index", 0, static_cast<int>(s.epsilons.size()) - 1);
  if (!configurationShown(s, g))
    Fields::fail(f.at("config") + " names " + s.configurations[g].label + ", which a release-only archive leaves out");
  return {c, g, e};
}

void readPoints(const Fields& root, SweepResult& r) {
  const SweepSpec& s = r.spec;
  const int C = static_cast<int>(r.cases.size()), G = static_cast<int>(s.configurations.size());
  const int E = static_cast<int>(s.epsilons.size()), T = s.trials;
  if (static_cast<double>(C) * G * E * T > kMaxArchiveRuns)
    Fields::fail("spec: " + std::to_string(C) + " cases x " + std::to_string(G) + " configurations x " +
                 std::to_string(E) + " epsilons x " + std::to_string(T) + " trials is more runs than an archive holds");
  // What a release-only archive leaves out stays a placeholder: never shown (configurationShown).
  r.summary = emptySummary(s, C);
  r.rows.assign(r.summary.size() * T, SweepRow{});
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    SweepRow& row = r.rows[i];
    const std::size_t point = i / T;
    row.caseIndex = r.summary[point].caseIndex;
    row.configIndex = r.summary[point].configIndex;
    row.epsilonIndex = r.summary[point].epsilonIndex;
    row.epsilon = r.summary[point].epsilon;
    row.trial = static_cast<int>(i % T);
    row.status = StatusCode::NothingReleased;
    row.reason = "not in the release-only archive";
  }
  int shown = 0;
  for (int g = 0; g < G; ++g) shown += configurationShown(s, g) ? 1 : 0;
  const std::size_t points = static_cast<std::size_t>(C) * shown * E;

  const json& summary = root.array("summary");
  if (summary.size() != points)
    Fields::fail("summary has " + std::to_string(summary.size()) + " points, the spec makes " + std::to_string(points));
  std::set<std::size_t> seen;
  for (std::size_t i = 0; i < summary.size(); ++i) {
    const Fields f(summary[i], item(root, "summary", i));
    const auto [c, g, e] = pointOf(f, s, C);
    const std::size_t at = summaryIndex(s, c, g, e);
    if (!seen.insert(at).second) Fields::fail(f.at("case") + ": a second entry for the same point");
    SweepSummaryRow& p = r.summary[at];
    p.trials = f.integer("trials", 0, T);
    p.released = f.integer("released", 0, p.trials);
    p.releaseRate = f.number("release_rate");
    for (const auto& [name, field] : sweep_archive::summaryQuantiles()) {
      if (s.releaseOnly && !releasedColumn(name)) continue;
      const Fields q = f.object(name);
      p.*field = {q.integer("count", 0, T), q.number("median"), q.number("lower"), q.number("upper")};
    }
    if (!s.releaseOnly) p.meanElapsedMs = f.number("mean_elapsed_ms");
  }

  const json& rows = root.array("rows");
  if (rows.size() != points * T)
    Fields::fail("rows has " + std::to_string(rows.size()) + " trials, the spec makes " + std::to_string(points * T));
  seen.clear();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Fields f(rows[i], item(root, "rows", i));
    const auto [c, g, e] = pointOf(f, s, C);
    const int t = f.integer("trial", 0, T - 1);
    const std::size_t at = summaryIndex(s, c, g, e) * T + t;
    if (!seen.insert(at).second) Fields::fail(f.at("trial") + ": a second entry for the same trial");
    SweepRow& row = r.rows[at];
    row.epsilon = f.number("epsilon");
    row.noiseSeed = f.seed("noise_seed");
    row.released = f.flag("released");
    row.status = f.choice("status",
                          {StatusCode::Ok, StatusCode::InvalidArgument, StatusCode::BadInput, StatusCode::IoError,
                           StatusCode::NumericalFailure, StatusCode::NotConverged, StatusCode::Cancelled,
                           StatusCode::ResourceLimit, StatusCode::NothingReleased},
                          statusCodeName);
    row.reason = f.text("reason");
    for (const auto& [name, field] : sweep_archive::rowNumbers()) {
      row.*field = s.releaseOnly && !releasedColumn(name) ? kNaN : f.number(name);
    }
    const json& scales = f.array("noise_scales");
    for (std::size_t j = 0; j < scales.size(); ++j) {
      const Fields n(scales[j], item(f, "noise_scales", j));
      row.noiseScales.push_back({n.text("release"), n.number("epsilon"), n.number("delta"), n.number("sigma"), n.flag("spent")});
    }
    row.elapsedMs = s.releaseOnly ? kNaN : f.number("elapsed_ms");
  }
}

}  // namespace

Result<SweepArchive> parseSweepArchive(const std::string& text, const std::string& sourceName) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    return badInput(sourceName + " is not valid JSON: " + escapeControls(e.what()));
  }
  try {
    const Fields f(root, "");
    if (!root.contains("format") || !root["format"].is_string() || root["format"] != "dplda-sweep")
      Fields::fail("format must be \"dplda-sweep\" (this is not a sweep archive written by dplda)");
    const int version = f.integer("version", 1, 1000000);
    if (version != kSweepArchiveVersion)
      Fields::fail("version " + std::to_string(version) + " is newer than this dplda reads (" +
                   std::to_string(kSweepArchiveVersion) + ")");
    SweepArchive a;
    const Fields x = f.object("experiment");
    a.name = x.text("name");
    a.title = x.text("title");
    a.description = x.text("description");
    a.kind = x.choice("kind", {ExperimentKind::ErrorSweep, ExperimentKind::Diagnostics, ExperimentKind::ErrorVsN},
                      sweep_archive::kindName);
    a.commandLine = x.text("command");
    a.seedNote = x.text("seed_note");
    SweepResult& r = a.result;
    r.spec = readSpec(f.object("spec"));
    r.noiseSource = f.text("noise_source");
    r.threadsUsed = f.integer("threads_used", 0, 1 << 20);
    r.elapsedMs = f.number("elapsed_ms");
    const json& cases = f.array("cases");
    if (cases.size() != r.spec.cases.size())
      Fields::fail("cases has " + std::to_string(cases.size()) + " entries, spec.cases " + std::to_string(r.spec.cases.size()));
    for (std::size_t i = 0; i < cases.size(); ++i)
      r.cases.push_back(readCaseInfo(Fields(cases[i], item(f, "cases", i)), r.spec.releaseOnly));
    readPoints(f, r);
    return a;
  } catch (const ArchiveError& e) {
    return badInput(sourceName + ": " + escapeControls(e.message));
  }
}

}  // namespace dplda
