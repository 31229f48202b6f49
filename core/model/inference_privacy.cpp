#include "core/model/inference_privacy.h"

#include <filesystem>

namespace dplda {

namespace {
std::string canonical(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}
}  // namespace

std::string trainingDocumentsMatch(const ModelFile& m, const Corpus& documents, const std::string& corpusFolder) {
  if (m.training.fingerprint && *m.training.fingerprint == corpusFingerprint(documents)) {
    return "their fingerprint is the training corpus's";
  }
  if (!corpusFolder.empty() && !m.training.path.empty() && canonical(corpusFolder) == m.training.path) {
    return m.training.heldOutSplit ? "the model was fitted on a split of this corpus folder (its training part)"
                                   : "the model was fitted on this corpus folder";
  }
  return "";
}

std::string inferencePrivacyLabel(bool modelIsPrivate, const std::string& claim, const std::string& trainingMatch) {
  if (!modelIsPrivate) return "NOT private: the model itself is not a private release (" + claim + ")";
  if (!trainingMatch.empty()) {
    return "NOT private: these are the model's training documents (" + trainingMatch +
           "); inferring their topics is not post-processing of the release";
  }
  return "post-processing of the model's private release (" + claim + "), for documents outside its training set";
}

}  // namespace dplda
