#include "core/model/text_documents.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/common/safe_file.h"
#include "core/common/text_escape.h"

namespace dplda {

namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxTextBytes = std::uintmax_t(1) << 30;  // as import-text

Status readFile(const fs::path& path, std::string& text) {
  const std::string name = escapeText(path.string());
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return ioError("cannot read " + name + ": " + ec.message());
  if (size > kMaxTextBytes) return Status(StatusCode::ResourceLimit, name + " is larger than 1 GiB; split it");
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError("cannot open " + name + ": " + std::strerror(errno));
  text.assign(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return ioError("cannot read " + name + ": " + std::strerror(errno));
  return Status::ok();
}

bool isBlank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos;
}

class Counter {
 public:
  Counter(const std::vector<std::string>& vocabulary, const TextImportParams& p, TextDocuments& out)
      : m_params(p), m_out(out) {
    m_index.reserve(vocabulary.size());
    for (std::size_t w = 0; w < vocabulary.size(); ++w) m_index.try_emplace(vocabulary[w], static_cast<int>(w));
  }

  // `where` names the document's first line in messages.
  Status add(std::string_view text, std::string id, const std::string& where) {
    auto tokens = tokenizeText(text, m_params);
    if (!tokens.ok()) return badInput(where + ": " + tokens.status().message());
    const int row = static_cast<int>(m_out.ids.size());
    m_out.ids.push_back(std::move(id));
    for (const std::string& t : tokens.value()) {
      ++m_out.tokens;
      const auto it = m_index.find(t);
      if (it == m_index.end()) {
        ++m_out.tokensOutOfVocabulary;
        m_unknown.insert(t);
        continue;
      }
      m_triplets.emplace_back(row, it->second, 1.0);
    }
    return Status::ok();
  }

  // Lines of `text` (a whole file): each non-blank line a document, or separator-ended documents.
  Status addLines(const std::string& text, const std::string& name, const std::string& prefix) {
    std::string document;
    long long lineNo = 0, documentLine = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + pos, end - pos);
      pos = end + 1;
      ++lineNo;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const long long bad = findInvalidUtf8(line);
      if (bad >= 0) {
        return badInput(name + " line " + std::to_string(lineNo) + ": invalid UTF-8 at byte " + std::to_string(bad + 1) +
                        " of the line");
      }
      if (m_params.separator.empty()) {
        if (!isBlank(line)) {
          DPLDA_RETURN_IF_ERROR(add(line, prefix + std::to_string(lineNo), name + " line " + std::to_string(lineNo)));
        }
      } else if (line == m_params.separator) {
        DPLDA_RETURN_IF_ERROR(flush(document, documentLine, name, prefix));
      } else {
        if (document.empty()) documentLine = lineNo;
        document.append(line).push_back('\n');
      }
    }
    return flush(document, documentLine, name, prefix);
  }

  void finish() {
    const int n = static_cast<int>(m_out.ids.size());
    const int d = static_cast<int>(m_out.corpus.vocab.size());
    m_out.corpus.counts.resize(n, d);
    m_out.corpus.counts.setFromTriplets(m_triplets.begin(), m_triplets.end());  // duplicates summed
    m_out.corpus.counts.makeCompressed();
    m_out.corpus.lengths = Eigen::VectorXd::Zero(n);
    for (int r = 0; r < n; ++r)
      for (SparseCounts::InnerIterator it(m_out.corpus.counts, r); it; ++it) m_out.corpus.lengths[r] += it.value();
    m_out.distinctOutOfVocabulary = static_cast<int>(m_unknown.size());
  }

 private:
  Status flush(std::string& document, long long line, const std::string& name, const std::string& prefix) {
    Status st = Status::ok();
    if (!isBlank(document)) st = add(document, prefix + std::to_string(line), name + " line " + std::to_string(line));
    document.clear();
    return st;
  }

  const TextImportParams& m_params;
  TextDocuments& m_out;
  std::unordered_map<std::string, int> m_index;
  std::unordered_set<std::string> m_unknown;
  std::vector<Eigen::Triplet<double, int>> m_triplets;
};

}  // namespace

Result<TextDocuments> readTextDocuments(const std::string& input, const std::vector<std::string>& vocabulary,
                                        const TextImportParams& tokenizer) {
  if (input.empty()) return invalidArgument("the text input path is empty");
  if (vocabulary.empty()) return invalidArgument("the vocabulary is empty");
  if (tokenizer.separator.find_first_of("\r\n") != std::string::npos) {
    return invalidArgument("separator must be a single line, got one containing a line break");
  }
  DPLDA_RETURN_IF_ERROR(tokenizeText("", tokenizer).status());  // the tokenizer's options
  TextDocuments out;
  out.corpus.vocab = vocabulary;
  Counter counter(vocabulary, tokenizer, out);
  const fs::path path(input);
  std::error_code ec;
  std::string text;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string leaf = it->path().filename().string();
      if (!leaf.empty() && leaf[0] != '.' && it->is_regular_file(ec)) files.push_back(it->path());
    }
    if (ec) return ioError("cannot list the folder " + escapeText(input) + ": " + ec.message());
    std::sort(files.begin(), files.end());
    std::set<fs::path> seen;  // a link to a file already read is read once
    for (const fs::path& f : files) {
      if (!seen.insert(fs::weakly_canonical(f, ec)).second) continue;
      DPLDA_RETURN_IF_ERROR(readFile(f, text));
      const std::string leaf = f.filename().string();
      if (findInvalidUtf8(text) >= 0 || text.find('\0') != std::string::npos) {  // not UTF-8 text: skipped
        out.skippedFiles.push_back(leaf);
        continue;
      }
      if (tokenizer.separator.empty()) {
        if (!isBlank(text)) DPLDA_RETURN_IF_ERROR(counter.add(text, leaf, escapeText(f.string())));
      } else {
        DPLDA_RETURN_IF_ERROR(counter.addLines(text, escapeText(f.string()), leaf + ":"));
      }
    }
  } else {
    DPLDA_RETURN_IF_ERROR(requireRegularFile(input));
    DPLDA_RETURN_IF_ERROR(readFile(path, text));
    DPLDA_RETURN_IF_ERROR(counter.addLines(text, escapeText(input), ""));
  }
  if (out.ids.empty()) return badInput("no documents in " + escapeText(input) + " (empty, blank or no UTF-8 text files)");
  counter.finish();
  return out;
}

}  // namespace dplda
