#include "core/graph/computation_graph.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/common/text_escape.h"

namespace dplda {

namespace {

constexpr EdgeSet kAllEdges = (1u << kEdgeCount) - 1u;

const std::array<EdgeInfo, kEdgeCount> kEdges = {{
    {0, Node::D, Node::M2, "estimate M2 (second moment) from the documents"},
    {1, Node::D, Node::M3, "estimate M3 (third moment, or its whitened image) from the documents"},
    {2, Node::M2, Node::W, "top-k eigendecomposition -> whitening matrix W"},
    {3, Node::M3, Node::T, "multilinear whitening T = M3(W, W, W), tensor input"},
    {4, Node::W, Node::T, "multilinear whitening T = M3(W, W, W), matrix input"},
    {5, Node::M2, Node::Wplus, "top-k eigendecomposition -> unwhitening matrix W+"},
    {6, Node::T, Node::TD, "tensor decomposition -> eigenpairs (lambda_i, v_i)"},
    {7, Node::TD, Node::U, "unwhitening, eigenpair input"},
    {8, Node::Wplus, Node::U, "unwhitening, matrix input"},
    {9, Node::U, Node::OUT, "simplex projection / release of the topics"},
}};

const std::array<NodeInfo, kNodeCount> kNodes = {{
    {Node::D, "D", "The corpus: the word counts of the N documents, the data to protect."},
    {Node::M2, "M2", "The estimated second moment M2, a symmetric d x d matrix."},
    {Node::M3, "M3", "The estimated third moment M3, a symmetric d x d x d tensor."},
    {Node::W, "W", "The d x k whitening matrix W = U Sigma^(-1/2) from the top-k eigenpairs of M2."},
    {Node::T, "T", "The whitened third moment T = M3(W, W, W), a symmetric k x k x k tensor."},
    {Node::Wplus, "W+", "The k x d unwhitening matrix W+ = Sigma^(1/2) U^T from the top-k eigenpairs of M2."},
    {Node::TD, "TD", "The tensor decomposition: the eigenpairs (lambda_i, v_i) of T."},
    {Node::U, "U", "The unwhitened topics mu_i and prior weights alpha_i."},
    {Node::OUT, "OUT", "The output: the topics projected onto the probability simplex."},
}};

int nodeIndex(Node n) { return static_cast<int>(n); }

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Shortest D -> OUT path that uses only edges outside `noisy` (BFS over clean edges).
// Returns false when every path crosses a noisy edge, i.e. the set is a cut.
bool shortestCleanPath(EdgeSet noisy, std::vector<Node>& nodes, std::vector<int>& edgeIds) {
  std::array<int, kNodeCount> viaEdge;
  viaEdge.fill(-1);
  std::array<bool, kNodeCount> seen{};
  std::vector<Node> queue{Node::D};
  seen[nodeIndex(Node::D)] = true;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const Node u = queue[head];
    for (const EdgeInfo& e : kEdges) {
      if (e.from != u || contains(noisy, e.id) || seen[nodeIndex(e.to)]) continue;
      seen[nodeIndex(e.to)] = true;
      viaEdge[nodeIndex(e.to)] = e.id;
      queue.push_back(e.to);
    }
  }
  if (!seen[nodeIndex(Node::OUT)]) return false;
  nodes.clear();
  edgeIds.clear();
  for (Node v = Node::OUT; v != Node::D;) {
    const int id = viaEdge[nodeIndex(v)];
    nodes.push_back(v);
    edgeIds.push_back(id);
    v = kEdges[id].from;
  }
  nodes.push_back(Node::D);
  std::reverse(nodes.begin(), nodes.end());
  std::reverse(edgeIds.begin(), edgeIds.end());
  return true;
}

std::string edgeList(EdgeSet s, const char* separator) {
  std::string out;
  for (int e = 0; e < kEdgeCount; ++e) {
    if (!contains(s, e)) continue;
    if (!out.empty()) out += separator;
    out += 'e';
    out += std::to_string(e);
  }
  return out;
}

}  // namespace

const std::array<EdgeInfo, kEdgeCount>& edges() { return kEdges; }

const EdgeInfo& edge(int id) {
  // A programming error, not user input: user text goes through parseEdgeSet.
  if (id < 0 || id >= kEdgeCount) throw std::out_of_range("edge id " + std::to_string(id) + " not in 0..9");
  return kEdges[id];
}

const NodeInfo& nodeInfo(Node n) { return kNodes[nodeIndex(n)]; }

const char* nodeName(Node n) { return kNodes[nodeIndex(n)].name; }

std::optional<Node> nodeFromName(const std::string& name) {
  const std::string key = lower(trim(name));
  for (const NodeInfo& info : kNodes)
    if (key == lower(info.name)) return info.node;
  if (key == "wplus") return Node::Wplus;
  return std::nullopt;
}

std::string edgeSetToString(EdgeSet s) { return edgeList(s & kAllEdges, ","); }

Result<EdgeSet> parseEdgeSet(const std::string& text) {
  std::string body = trim(text);
  if (body.size() >= 2 && body.front() == '{' && body.back() == '}') body = body.substr(1, body.size() - 2);
  EdgeSet set = 0;
  int count = 0;
  std::size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < body.size() && body[j] != ',' && !std::isspace(static_cast<unsigned char>(body[j]))) ++j;
    const std::string token = body.substr(i, j - i);
    std::string digits = token;
    if (!digits.empty() && (digits[0] == 'e' || digits[0] == 'E')) digits = digits.substr(1);
    const bool numeric = !digits.empty() && digits.size() <= 2 &&
                         std::all_of(digits.begin(), digits.end(),
                                     [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
    const int id = numeric ? std::stoi(digits) : -1;
    if (id < 0 || id >= kEdgeCount)
      return invalidArgument("edge set " + quoteText(text) + ": unknown edge " + quoteText(token) +
                             " (edges are e0 .. e9, written e5 or 5)");
    set |= 1u << id;
    ++count;
    i = j;
  }
  if (count == 0)
    return invalidArgument("edge set " + quoteText(text) +
                           " is empty: list noisy edges such as \"e5,e6\" (the preset \"none\" means no noise)");
  return set;
}

EdgeSet presetEdges(Preset p) {
  switch (p) {
    case Preset::None: return 0;
    case Preset::Config1: return (1u << 2) | (1u << 3) | (1u << 5);
    case Preset::Config2: return (1u << 5) | (1u << 6);
    case Preset::Config3: return (1u << 5) | (1u << 7);
    case Preset::Config4: return 1u << 9;
    case Preset::Input: return (1u << 0) | (1u << 1);
  }
  return 0;
}

const char* presetName(Preset p) {
  switch (p) {
    case Preset::None: return "none";
    case Preset::Config1: return "1";
    case Preset::Config2: return "2";
    case Preset::Config3: return "3";
    case Preset::Config4: return "4";
    case Preset::Input: return "input";
  }
  return "none";
}

Result<Preset> parsePreset(const std::string& text) {
  // Exactly a name: a blank around it (`--config '1 '`) is a quoting slip, not a preset.
  if (trim(text) != text)
    return invalidArgument("preset " + quoteText(text) +
                           " has blanks around the name: use 1, 2, 3, 4 (or config1 .. config4), input or none");
  std::string key = lower(text);
  if (key.rfind("config", 0) == 0 && key.size() == 7) key = key.substr(6);
  for (Preset p : {Preset::None, Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input})
    if (key == presetName(p)) return p;
  return invalidArgument("preset " + quoteText(text) +
                         " is unknown: use 1, 2, 3, 4 (or config1 .. config4), input or none");
}

std::optional<Preset> presetOf(EdgeSet s) {
  for (Preset p : {Preset::None, Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input})
    if (presetEdges(p) == s) return p;
  return std::nullopt;
}

bool hasSensitivityBound(Node n) { return n != Node::OUT; }

Dependence dependenceOf(Node node, EdgeSet noisy) {
  noisy &= kAllEdges;
  // Edges run forward in node order (D < M2 < ... < OUT), so one sweep in that order settles
  // every node: reached by a clean path, and reached through some noisy edge.
  std::array<bool, kNodeCount> clean{}, viaNoise{};
  clean[static_cast<int>(Node::D)] = true;
  for (int n = 0; n < kNodeCount; ++n)
    for (const EdgeInfo& e : kEdges) {
      if (static_cast<int>(e.from) != n) continue;
      const int to = static_cast<int>(e.to);
      if (contains(noisy, e.id)) viaNoise[to] = viaNoise[to] || clean[n] || viaNoise[n];
      else {
        clean[to] = clean[to] || clean[n];
        viaNoise[to] = viaNoise[to] || viaNoise[n];
      }
    }
  const int i = static_cast<int>(node);
  if (clean[i] && viaNoise[i]) return Dependence::Mixed;
  return clean[i] ? Dependence::Clean : Dependence::Public;
}

PrivacyDecision decidePrivacy(EdgeSet noisy) {
  // Bits above e9 name no edge; parseEdgeSet never sets them, so they are ignored here.
  noisy &= kAllEdges;
  PrivacyDecision d;
  d.isCut = !shortestCleanPath(noisy, d.leakPath, d.leakEdges);
  d.allReleasesBounded = true;
  Node unbounded = Node::OUT;
  for (const EdgeInfo& e : kEdges)
    if (contains(noisy, e.id) && !hasSensitivityBound(e.from)) {
      d.allReleasesBounded = false;
      unbounded = e.from;
    }
  d.isPrivate = noisy != 0 && d.isCut && d.allReleasesBounded;
  for (const EdgeInfo& e : kEdges) {
    if (!contains(noisy, e.id)) continue;
    const Dependence dep = dependenceOf(e.from, noisy);
    if (dep == Dependence::Clean) continue;
    auto& list = dep == Dependence::Mixed ? d.mixedReleases : d.publicReleases;
    if (std::find(list.begin(), list.end(), e.from) == list.end()) list.push_back(e.from);
  }

  if (d.isCut) {
    // Drop noisy edges from the most downstream up while the rest still cuts: what is dropped is
    // noise the cut does not need (downstream first, so {e2,e3,e5,e9} keeps configuration 1).
    std::vector<Node> scratchPath;
    std::vector<int> scratchEdges;
    EdgeSet kept = noisy;
    for (int e = kEdgeCount - 1; e >= 0; --e)
      if (contains(kept, e) && !shortestCleanPath(kept & ~(1u << e), scratchPath, scratchEdges)) {
        kept &= ~(1u << e);
        d.unneededEdges.insert(d.unneededEdges.begin(), e);
      }
  }
  if (d.isPrivate && !d.mixedReleases.empty()) {
    std::string nodes;
    for (Node n : d.mixedReleases) nodes += (nodes.empty() ? "" : ", ") + std::string(nodeName(n));
    d.explanation = "A cut (" + edgeList(noisy, ", ") + "), but not covered by a proven bound: the release of " +
                    nodes + " depends on the data both directly and through another noisy edge, and its bound "
                    "was derived for the noise-free pipeline.";
  } else if (d.isPrivate) {
    d.explanation = "Private: every path from D to OUT crosses a noisy edge (" + edgeList(noisy, ", ") + ").";
  } else if (!d.isCut) {
    std::string path = nodeName(d.leakPath[0]);
    for (std::size_t i = 0; i < d.leakEdges.size(); ++i) {
      path += " -e";
      path += std::to_string(d.leakEdges[i]);
      path += "-> ";
      path += nodeName(d.leakPath[i + 1]);
    }
    d.explanation = noisy == 0 ? "Not private: no edge is noisy, so the path " + path + " carries no noise."
                               : "Not private: the path " + path + " carries no noise.";
  } else {
    d.explanation = std::string("Not private: node ") + nodeName(unbounded) +
                    " has no sensitivity bound, so its value cannot be released with calibrated noise.";
  }
  if (d.isPrivate && !d.unneededEdges.empty()) {
    std::string list;
    for (int e : d.unneededEdges) list += (list.empty() ? "e" : ", e") + std::to_string(e);
    d.explanation += " Not needed for the cut: " + list +
                     " (the other noisy edges already cut every path); this noise only adds error, and its release "
                     "may need bounds that refuse the run.";
  }
  return d;
}

std::vector<Release> releasesFor(EdgeSet noisy, bool shareReleases) {
  std::vector<Release> out;
  for (const EdgeInfo& e : kEdges) {
    if (!contains(noisy, e.id)) continue;
    if (shareReleases) {
      auto it = std::find_if(out.begin(), out.end(), [&](const Release& r) { return r.node == e.from; });
      if (it != out.end()) {
        it->edges.push_back(e.id);
        continue;
      }
    }
    out.push_back(Release{e.from, {e.id}});
  }
  return out;
}

}  // namespace dplda
