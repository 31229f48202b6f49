#pragma once
// The ids of a corpus's documents: documents.txt beside docword.txt, written by import-text.
// Line n is the id of document n (row n of docword.txt, 1-based): the id column or field of a
// CSV/TSV/JSON Lines input, a file name (a folder, a document per file), "FILE:LINE" (a folder
// with a separator) or the line number of the document's first line (one file). Each id is
// written as escapeText gives it (a line break inside an id is "\n", a backslash "\\"), so the
// file has exactly D lines and a reader prints them as they are. The ids are private data like
// the documents (file names and id columns can name people): no release includes them.
#include <string>
#include <vector>

#include "core/common/safe_file.h"
#include "core/common/status.h"

namespace dplda {

inline constexpr const char* kDocumentIdsFileName = "documents.txt";

Status writeDocumentIds(const std::vector<std::string>& ids, const std::string& dir, const OutputRules& rules = {});

// The ids of the corpus in `dir`, as written; empty when the folder has no documents.txt.
// BadInput naming the file when its number of lines is not `documents` or a line holds a
// control byte or invalid UTF-8 (the file was not written by import-text, or was edited).
Result<std::vector<std::string>> readDocumentIds(const std::string& dir, int documents);

}  // namespace dplda
