#include "core/corpus/corpus_provenance.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/number_text.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"

namespace dplda {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
// The file is tiny; anything larger is not ours.
constexpr std::uintmax_t kMaxProvenanceBytes = 1 << 20;

constexpr struct {
  VocabularyOrigin origin;
  const char* name;
} kOriginNames[] = {{VocabularyOrigin::Unknown, "unknown"},
                    {VocabularyOrigin::Public, "public"},
                    {VocabularyOrigin::PrivateSelection, "private-selection"},
                    {VocabularyOrigin::CorpusCounts, "corpus-counts"}};
}  // namespace

const char* vocabularyOriginName(VocabularyOrigin o) {
  for (const auto& n : kOriginNames)
    if (n.origin == o) return n.name;
  return "unknown";
}

const char* vocabularyNotPrivateReason() {
  return "Not private: the vocabulary was chosen from this corpus's own word counts, so one document can change "
         "which words exist, every coordinate and which documents are kept (epsilon = infinity; docs/PRIVACY.md "
         "§13). Import with a public --vocabulary file or the private selection.";
}

const char* vocabularyAssumedPublicCaution() {
  return "vocabulary assumed public: a corpus the tool did not import (no provenance.json), so its vocabulary and "
         "which documents it holds are taken as public; neighbours replace one row of docword.txt";
}

std::string vocabularyChargedText(const VocabularySelectionRecord& v) {
  return "The vocabulary was selected privately at import (epsilon " + shortNumber(v.epsilon) + ", delta " +
         shortNumber(v.delta) + ", docs/PRIVACY.md §13); the totals include it by basic composition.";
}

Status writeCorpusProvenance(const CorpusProvenance& p, const std::string& dir, const OutputRules& rules) {
  json j;
  j["format"] = "dplda-corpus-provenance";
  j["version"] = 1;
  j["source"] = p.source;
  j["short_documents_kept"] = p.shortDocumentsKept;
  json v;
  v["origin"] = vocabularyOriginName(p.vocabulary);
  if (!p.vocabularyFile.empty()) v["file"] = p.vocabularyFile;
  if (p.vocabulary == VocabularyOrigin::PrivateSelection) {
    const VocabularySelectionRecord& s = p.selection;
    v["selection"] = {{"mechanism", "gaussian partition selection"},
                      {"epsilon", s.epsilon},
                      {"delta", s.delta},
                      {"max_words_per_document", s.maxWordsPerDocument},
                      {"sensitivity", s.sensitivity},
                      {"sigma", s.sigma},
                      {"threshold", s.threshold},
                      {"noise", s.noiseSource}};
  }
  j["vocabulary"] = v;
  const fs::path path = fs::path(dir) / kProvenanceFileName;
  return writeFileAtomically(path.string(), j.dump(2) + "\n", rules);
}

Result<CorpusProvenance> readCorpusProvenance(const std::string& dir) {
  const fs::path path = fs::path(dir) / kProvenanceFileName;
  std::error_code ec;
  if (!fs::exists(path, ec)) return CorpusProvenance{};
  const std::string name = escapeText(path.string());
  if (!fs::is_regular_file(path, ec)) return badInput(name + " is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (size > kMaxProvenanceBytes) return badInput(name + " is larger than 1 MiB");
  auto text = readFileText(path.string(), size);
  if (!text.ok()) return text.status();
  const json j = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return badInput(name + " is not a JSON object");
  if (j.value("format", std::string()) != "dplda-corpus-provenance" || !j.contains("version") ||
      !j["version"].is_number_integer() || j["version"].get<int>() != 1) {
    return badInput(name + " is not a dplda corpus provenance file of version 1");
  }
  CorpusProvenance p;
  try {
    p.source = j.value("source", std::string());
    p.shortDocumentsKept = j.at("short_documents_kept").get<bool>();
    const json& v = j.at("vocabulary");
    const std::string origin = v.at("origin").get<std::string>();
    bool known = false;
    for (const auto& n : kOriginNames)
      if (origin == n.name) {
        p.vocabulary = n.origin;
        known = true;
      }
    if (!known) return badInput(name + ": vocabulary origin \"" + escapeText(origin) + "\" is not known");
    p.vocabularyFile = v.value("file", std::string());
    if (p.vocabulary == VocabularyOrigin::PrivateSelection) {
      const json& s = v.at("selection");
      VocabularySelectionRecord& r = p.selection;
      r.epsilon = s.at("epsilon").get<double>();
      r.delta = s.at("delta").get<double>();
      r.maxWordsPerDocument = s.at("max_words_per_document").get<int>();
      r.sensitivity = s.at("sensitivity").get<double>();
      r.sigma = s.at("sigma").get<double>();
      r.threshold = s.at("threshold").get<double>();
      r.noiseSource = s.value("noise", std::string());
      if (!(r.epsilon > 0.0) || !(r.delta > 0.0 && r.delta < 1.0) || r.maxWordsPerDocument < 1 ||
          !(r.sigma > 0.0) || !std::isfinite(r.sigma) || !std::isfinite(r.threshold) || !std::isfinite(r.epsilon)) {
        return badInput(name + ": the vocabulary selection's budget or calibration is out of range");
      }
    }
  } catch (const json::exception& e) {
    return badInput(name + ": a field is missing or has the wrong type (" + escapeText(e.what()) + ")");
  }
  return p;
}

}  // namespace dplda
