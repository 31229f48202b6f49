#pragma once
// The computation graph of spectral LDA (SPEC §7, numbering of seed 002, Figure 1) and the
// privacy decision for a set of noisy edges.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace dplda {

enum class Node { D, M2, M3, W, T, Wplus, TD, U, OUT };
inline constexpr int kNodeCount = 9;
inline constexpr int kEdgeCount = 10;  // e0 .. e9

struct EdgeInfo {
  int id;               // 0..9
  Node from, to;
  const char* operation;  // e.g. "top-k eigendecomposition -> W"
};

struct NodeInfo {
  Node node;
  const char* name;         // as in SPEC §7 and the JSON: "D", "M2", "M3", "W", "T", "W+", "TD", "U", "OUT"
  const char* description;  // one sentence: what it holds
};

const std::array<EdgeInfo, kEdgeCount>& edges();
const EdgeInfo& edge(int id);
const NodeInfo& nodeInfo(Node n);
const char* nodeName(Node n);
std::optional<Node> nodeFromName(const std::string& name);

// A set of noisy edges as a bit mask (bit e = edge e is noisy).
using EdgeSet = unsigned;
inline bool contains(EdgeSet s, int e) { return (s >> e) & 1u; }
std::string edgeSetToString(EdgeSet s);                  // "e2,e3,e5"
Result<EdgeSet> parseEdgeSet(const std::string& text);  // accepts "e5,e6" or "5,6"; rejects unknown/empty

// Presets: configurations 1-4 of seed 002 Table 1, input perturbation, none.
enum class Preset { None, Config1, Config2, Config3, Config4, Input };
EdgeSet presetEdges(Preset p);
const char* presetName(Preset p);                        // "none", "1", "2", "3", "4", "input"
Result<Preset> parsePreset(const std::string& text);
std::optional<Preset> presetOf(EdgeSet s);               // the preset with exactly this set, if any

// Whether a node's value can be released with a sensitivity bound (SPEC §9). OUT is the
// output itself; every other node has a bound (D through clipping to a public length).
bool hasSensitivityBound(Node n);

struct PrivacyDecision {
  bool isCut = false;            // every D -> OUT path contains a noisy edge
  bool allReleasesBounded = false;
  bool isPrivate = false;        // isCut && allReleasesBounded && set non-empty
  std::vector<Node> leakPath;    // a D -> OUT path with no noisy edge, when not a cut
  std::vector<int> leakEdges;    // the edges of that path
  std::string explanation;       // one sentence for the user
  // Releases whose node depends on the data both through a clean path and through another
  // noisy edge upstream (e.g. T in {e0, e6}): the SPEC §9 bounds were derived for the clean
  // pipeline, so no proven bound covers them (docs/PRIVACY.md §5).
  std::vector<Node> mixedReleases;
  // Releases of a node that every path from D reaches only through noise: the value is
  // already public, the release is post-processing and its noise is redundant.
  std::vector<Node> publicReleases;
  // Noisy edges the cut does not need: the set without the edge still cuts every D -> OUT path
  // (e.g. e9 added to configuration 1). Their noise only adds error.
  std::vector<int> unneededEdges;
  bool coveredByProvenBounds() const { return isPrivate && mixedReleases.empty(); }
};
PrivacyDecision decidePrivacy(EdgeSet noisy);

// How the value of `node` depends on the data under the noisy set: only through clean paths
// (Clean), only through noisy edges (Public), or both (Mixed). D itself is Clean.
enum class Dependence { Clean, Public, Mixed };
Dependence dependenceOf(Node node, EdgeSet noisy);

// The releases a noisy set needs: one per noisy edge, or one per source node for edges that
// leave the same node when shareReleases is true (one draw, one budget charge).
struct Release {
  Node node;                 // the node whose value is released
  std::vector<int> edges;    // the noisy edges that use this release
};
std::vector<Release> releasesFor(EdgeSet noisy, bool shareReleases);

}  // namespace dplda
