#include "core/corpus/document_ids.h"

#include <filesystem>
#include <fstream>

#include "core/common/text_escape.h"

namespace dplda {

namespace fs = std::filesystem;

Status writeDocumentIds(const std::vector<std::string>& ids, const std::string& dir, const OutputRules& rules) {
  std::string text;
  for (const std::string& id : ids) {
    text += escapeText(id);
    text += '\n';
  }
  return writeFileAtomically((fs::path(dir) / kDocumentIdsFileName).string(), text, rules);
}

Result<std::vector<std::string>> readDocumentIds(const std::string& dir, int documents) {
  const fs::path path = fs::path(dir) / kDocumentIdsFileName;
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::vector<std::string>{};
  DPLDA_RETURN_IF_ERROR(requireRegularFile(path.string()));
  const std::string name = escapeText(path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError("cannot open " + name);
  std::vector<std::string> ids;
  std::string line;
  bool extra = false;
  while (std::getline(in, line)) {
    if (static_cast<int>(ids.size()) >= documents) {
      extra = true;
      break;
    }
    if (hasControlText(line)) {
      return badInput(name + " line " + std::to_string(ids.size() + 1) +
                      ": a control byte or invalid UTF-8 (ids are written escaped, one a line)");
    }
    ids.push_back(std::move(line));
  }
  if (static_cast<int>(ids.size()) != documents || extra) {
    return badInput(name + " does not hold one id a line for the corpus's " + std::to_string(documents) +
                    " documents (it was not written with this corpus)");
  }
  return ids;
}

}  // namespace dplda
