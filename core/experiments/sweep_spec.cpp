// The sweep specification: seeds, ε grids, configuration names and the privacy options of a
// point, and grids of cases (core/experiments/sweep.h).
#include "core/experiments/sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "core/experiments/table_text.h"

namespace dplda {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

Result<double> parsePositive(const std::string& text, const std::string& what) {
  double x = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, x);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(x) || x <= 0.0) {
    return invalidArgument(what + ": \"" + text + "\" is not a finite number > 0");
  }
  return x;
}


}  // namespace

SweepSeeds SweepSeeds::fromSeed(std::uint64_t seed) {
  return SweepSeeds{deriveSeed(seed, 0), deriveSeed(seed, 1), deriveSeed(seed, 2)};
}

std::vector<double> logSpaced(double lo, double hi, int count) {
  std::vector<double> out;
  if (count <= 0) return out;
  if (count == 1) return {lo};
  const double a = std::log(lo), b = std::log(hi);
  for (int i = 0; i < count; ++i) {
    if (i == 0 || i == count - 1) {
      out.push_back(i == 0 ? lo : hi);
      continue;
    }
    // 12 significant digits: 1:1000:4 gives 10 and 100, not 9.999999999999998, in every table.
    const double x = std::exp(a + (b - a) * i / (count - 1));
    const double scale = std::pow(10.0, 11 - static_cast<int>(std::floor(std::log10(x))));
    out.push_back(std::round(x * scale) / scale);
  }
  return out;
}

Result<std::vector<double>> parseEpsilons(const std::string& text) {
  const std::string body = trim(text);
  if (body.empty())
    return invalidArgument("epsilons: empty (use lo:hi:count, e.g. 0.1:2:10, or a list 0.1,1)");
  std::vector<double> out;
  if (body.find(':') != std::string::npos) {
    const auto parts = split(body, ':');
    if (parts.size() != 3)
      return invalidArgument("epsilons: \"" + text + "\" is not lo:hi:count (e.g. 0.1:2:10)");
    auto lo = parsePositive(parts[0], "epsilons lower end");
    if (!lo.ok()) return lo.status();
    auto hi = parsePositive(parts[1], "epsilons upper end");
    if (!hi.ok()) return hi.status();
    int count = 0;
    const auto [ptr, ec] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), count);
    if (parts[2].empty() || ec != std::errc() || ptr != parts[2].data() + parts[2].size() || count < 1 ||
        count > 1000) {
      return invalidArgument("epsilons: the count \"" + parts[2] + "\" must be an integer from 1 to 1000");
    }
    if (hi.value() < lo.value())
      return invalidArgument("epsilons: the upper end " + parts[1] + " is below the lower end " + parts[0]);
    if (count > 1 && hi.value() == lo.value())
      return invalidArgument("epsilons: " + std::to_string(count) + " values between equal ends");
    out = logSpaced(lo.value(), hi.value(), count);
  } else {
    for (const std::string& p : split(body, ',')) {
      auto x = parsePositive(p, "epsilons");
      if (!x.ok()) return x.status();
      out.push_back(x.value());
    }
  }
  return out;
}

PrivacyOptions privacyOptionsFor(const SweepSpec& spec, const SweepConfiguration& config, double epsilon) {
  PrivacyOptions po;
  po.edges = config.edges;
  po.splitWeights = config.splitWeights;
  po.shareReleases = spec.shareReleases || config.shareReleases;
  po.epsilon = epsilon;
  po.delta = spec.delta;
  po.mechanism = spec.mechanism;
  po.accountant = config.accountant.value_or(spec.accountant);
  po.bounds = spec.bounds;
  po.maxLength = spec.maxLength;
  po.noiseMultiplier = spec.noiseMultiplier;
  po.privateDecomposition = config.privateDecomposition;
  po.whitened = config.whitened;
  po.nonPrivateDiagnostics = false;  // the case's own baseline run gives them, once
  return po;
}

Result<std::vector<SweepConfiguration>> parseConfigurations(const std::string& text) {
  std::vector<SweepConfiguration> out;
  for (const std::string& entry : split(text, ',')) {
    if (entry.empty()) return invalidArgument("configurations: \"" + text + "\" has an empty entry");
    const auto endsWith = [&](const char* suffix) {
      const std::size_t n = std::char_traits<char>::length(suffix);
      return entry.size() > n && entry.compare(entry.size() - n, n, suffix) == 0;
    };
    if (endsWith("/gdp")) {
      auto base = parseConfigurations(entry.substr(0, entry.size() - 4));
      if (!base.ok()) return base.status();
      SweepConfiguration c = base.value().front();
      if (c.model != SweepModel::Spectral || c.edges == 0) {
        return invalidArgument("configurations: \"" + entry + "\": /gdp sets the accountant of a private spectral "
                               "configuration");
      }
      c.label = entry;
      c.accountant = Accountant::GaussianDp;
      c.shareReleases = true;
      out.push_back(c);
      continue;
    }
    if (entry == "whitened" || entry == "whitened/raw") {
      SweepConfiguration c{entry, (1u << 2) | (1u << 5) | (1u << 6), {}};
      c.whitened.enabled = true;
      c.whitened.clipToRowBound = entry == "whitened/raw";
      out.push_back(c);
      continue;
    }
    if (endsWith("/clip")) {
      auto base = parseConfigurations(entry.substr(0, entry.size() - 5));
      if (!base.ok()) return base.status();
      SweepConfiguration c = base.value().front();
      if (c.model != SweepModel::Spectral || c.edges == 0 || c.whitened.enabled || contains(c.edges, 0) ||
          contains(c.edges, 1)) {
        return invalidArgument("configurations: \"" + entry + "\": /clip clips the documents' moment terms of a "
                               "private spectral configuration of the papers (not input perturbation, not the "
                               "whitened release, which clips its own)");
      }
      c.label = entry;
      c.clipMoments = true;
      out.push_back(c);
      continue;
    }
    const bool tpm = endsWith("/tpm");
    const std::string item = tpm ? entry.substr(0, entry.size() - 4) : entry;
    if (tpm) {
      auto base = parseConfigurations(item);
      if (!base.ok()) return base.status();
      SweepConfiguration c = base.value().front();
      if (c.model != SweepModel::Spectral || !contains(c.edges, 6)) {
        return invalidArgument("configurations: \"" + entry +
                               "\": /tpm releases e6 by the private power method, so the set must hold e6");
      }
      c.label = entry;
      c.privateDecomposition = true;
      out.push_back(c);
      continue;
    }
    if (item == "vi" || item == "dp-vi") {
      out.push_back({item, 0, {}, item == "vi" ? SweepModel::Vi : SweepModel::DpVi});
      continue;
    }
    auto preset = parsePreset(item);
    if (preset.ok()) {
      out.push_back({presetName(preset.value()), presetEdges(preset.value()), {}});
      continue;
    }
    // Custom sets name their edges with the e prefix ("e5+e6"): a bare "5" would read as a preset.
    bool prefixed = true;
    for (const std::string& token : split(item, '+')) {
      prefixed = prefixed && !token.empty() && (token[0] == 'e' || token[0] == 'E');
    }
    std::string edges = item;
    std::replace(edges.begin(), edges.end(), '+', ',');
    auto set = prefixed ? parseEdgeSet(edges) : Result<EdgeSet>(invalidArgument("no e prefix"));
    if (!set.ok()) {
      return invalidArgument(
          "configurations: \"" + item +
          "\" is neither a preset (none, 1, 2, 3, 4, input, whitened, whitened/raw), a variational baseline "
          "(vi, dp-vi) nor an edge set such as e5+e6 (append /gdp for the exact accountant, /tpm for e6 by the "
          "private power method)");
    }
    out.push_back({item, set.value(), {}});
  }
  return out;
}

Result<std::vector<SweepCase>> expandGrid(const SweepCase& base, const SweepGrid& grid) {
  const bool generated = base.source.generator.has_value();
  if (!grid.docCounts.empty() && !generated) {
    return invalidArgument("a grid over N needs a generated corpus; a loaded corpus has a fixed N");
  }
  const std::vector<int> ns = grid.docCounts.empty()
                                  ? std::vector<int>{generated ? base.source.generator->docCount : -1}
                                  : grid.docCounts;
  const std::vector<int> ks = grid.topicCounts.empty() ? std::vector<int>{base.topicCount} : grid.topicCounts;
  const std::vector<double> as = grid.alpha0s.empty() ? std::vector<double>{base.alpha0} : grid.alpha0s;
  std::vector<SweepCase> out;
  for (int n : ns)
    for (int k : ks)
      for (double a : as) {
        SweepCase c = base;
        c.topicCount = k;
        c.alpha0 = a;
        std::string label;
        if (!grid.docCounts.empty()) label += "N=" + std::to_string(n);
        if (!grid.topicCounts.empty())
          label += std::string(label.empty() ? "" : " ") + "k=" + std::to_string(k);
        if (!grid.alpha0s.empty())
          label += std::string(label.empty() ? "" : " ") + "alpha0=" + csvNumberText(a);
        c.label = label.empty() ? base.label : (base.label.empty() ? label : base.label + " " + label);
        if (generated) {
          c.source.generator->docCount = n;
          c.source.generator->topicCount = k;
          c.source.generator->alpha0 = a;
          std::ostringstream d;
          d << "synthetic (d=" << c.source.generator->vocabSize << ", k=" << k << ", N=" << n
            << ", alpha0=" << csvNumberText(a) << ")";
          c.source.description = d.str();
        }
        out.push_back(std::move(c));
      }
  return out;
}

}  // namespace dplda
