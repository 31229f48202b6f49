#include "core/model/model_file.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/memory_budget.h"
#include "core/common/text_escape.h"
#include "core/corpus/truth_io.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace dplda {

namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

constexpr long long kMaxModelBytes = 1LL << 30;  // as truth.json

bool isObjectText(const std::string& text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object();
}

// The keys other than the numbers, as a small DOM: the callback drops "alpha" and "topics" at
// the top level while parsing (parseTruthJson reads them, packed), so memory stays at the
// vocabulary and the statement, whatever k x d is.
Result<json> parseMetadata(const std::string& text, const std::string& name) {
  const json::parser_callback_t skipNumbers = [](int depth, json::parse_event_t event, json& parsed) {
    return !(depth == 1 && event == json::parse_event_t::key && (parsed == "alpha" || parsed == "topics"));
  };
  try {
    return json::parse(text, skipNumbers);
  } catch (const json::parse_error& e) {
    return badInput(name + ": not valid JSON at byte " + std::to_string(e.byte) + " (" + e.what() + ")");
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::ResourceLimit, name + ": not enough memory to read it");
  }
}

Status wrongType(const std::string& name, const char* key, const char* expected, const json& value) {
  return badInput(name + ": \"" + key + "\" must be " + expected + ", got " + value.type_name());
}

}  // namespace

std::vector<std::string> corpusWords(const Corpus& corpus) {
  std::vector<std::string> words(static_cast<std::size_t>(corpus.vocabSize()));
  for (int w = 0; w < corpus.vocabSize(); ++w) words[w] = corpus.wordName(w);
  return words;
}

Status checkSameVocabulary(const std::vector<std::string>& modelWords, const Corpus& corpus, const std::string& what) {
  const int d = static_cast<int>(modelWords.size());
  for (int w = 0; w < std::min(d, corpus.vocabSize()); ++w) {
    const std::string word = corpus.wordName(w);
    if (word != modelWords[w]) {
      return badInput("the vocabulary of " + what + " differs from the model's: word " + std::to_string(w + 1) +
                      " is " + quoteText(word) + " there but " + quoteText(modelWords[w]) + " in the model");
    }
  }
  if (corpus.vocabSize() != d) {
    return badInput("the vocabulary of " + what + " has " + std::to_string(corpus.vocabSize()) +
                    " words but the model's has " + std::to_string(d) + " (the first " +
                    std::to_string(std::min(d, corpus.vocabSize())) + " agree)");
  }
  return Status::ok();
}

std::uint64_t corpusFingerprint(const Corpus& corpus) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  const std::int64_t shape[2] = {corpus.docCount(), corpus.vocabSize()};
  XXH3_64bits_update(state, shape, sizeof(shape));
  forEachRowBlock(
      corpus, 0, corpus.docCount(), [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
        for (Eigen::Index n = first; n < last; ++n)
          for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
            const std::int64_t item[3] = {n, entry(e).first, static_cast<std::int64_t>(entry(e).second)};
            XXH3_64bits_update(state, item, sizeof(item));
          }
      });
  const std::uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

std::string fingerprintText(std::uint64_t fingerprint) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "xxh3-64:%016llx", static_cast<unsigned long long>(fingerprint));
  return buf;
}

Status validateModelFile(const ModelFile& m) {
  DPLDA_RETURN_IF_ERROR(validateLdaModel(m.lda));
  if (static_cast<long long>(m.vocabulary.size()) != m.lda.topics.rows()) {
    return badInput("the vocabulary has " + std::to_string(m.vocabulary.size()) + " words but the topics are over " +
                    std::to_string(m.lda.topics.rows()) + " words");
  }
  if (m.model.empty()) return badInput("the model kind is empty");
  if (!isObjectText(m.privacyJson)) return badInput("the privacy statement is not a JSON object");
  if (!isObjectText(m.parametersJson)) return badInput("the parameters are not a JSON object");
  if (m.training.documents < 0) return badInput("the training corpus has a negative document count");
  return Status::ok();
}

std::string modelFileToJson(const ModelFile& m) {
  ordered j;
  j["format"] = kModelFormatName;
  j["version"] = kModelFormatVersion;
  j["model"] = m.model;
  j["private"] = m.isPrivate;
  j["claim"] = m.claim;
  j["vocabulary"] = m.vocabulary;
  j["alpha"] = std::vector<double>(m.lda.alpha.data(), m.lda.alpha.data() + m.lda.alpha.size());
  ordered topics = ordered::array();
  for (Eigen::Index i = 0; i < m.lda.topics.cols(); ++i) {
    const double* col = m.lda.topics.col(i).data();
    topics.push_back(std::vector<double>(col, col + m.lda.topics.rows()));
  }
  j["topics"] = std::move(topics);
  j["privacy"] = ordered::parse(m.privacyJson);
  j["parameters"] = ordered::parse(m.parametersJson);
  ordered t;
  t["path"] = m.training.path;
  t["documents"] = m.training.documents;
  t["held_out_split"] = m.training.heldOutSplit;
  if (m.training.fingerprint) {
    t["fingerprint"] = fingerprintText(*m.training.fingerprint);
    t["fingerprint_note"] =
        "a hash of the training documents: a function of the private data, NOT private (it identifies the data "
        "set); written for `dplda infer` to recognise them, left out with --release-only";
  }
  j["training_corpus"] = std::move(t);
  // Non-ASCII words as they are (UTF-8); a word that is not valid UTF-8 is replaced, never a throw.
  return j.dump(1, ' ', false, ordered::error_handler_t::replace) + "\n";
}

Status writeModelFile(const ModelFile& m, const std::string& path, const OutputRules& rules) {
  const Status valid = validateModelFile(m);
  if (!valid.isOk()) return Status(valid.code(), "cannot write " + escapeText(path) + ": " + valid.message());
  const std::string text = modelFileToJson(m);
  if (text.size() > static_cast<std::size_t>(kMaxModelBytes)) {
    return Status(StatusCode::ResourceLimit, "cannot write " + escapeText(path) + ": the model takes " +
                                                 std::to_string(text.size()) +
                                                 " bytes, more than the 1 GiB model readers accept");
  }
  return writeFileAtomically(path, text, rules);
}

Result<ModelFile> parseModelFile(const std::string& text, const std::string& sourceNameText) {
  const std::string name = escapeText(sourceNameText);
  auto parsed = parseMetadata(text, name);
  if (!parsed.ok()) return parsed.status();
  const json& j = parsed.value();
  if (!j.is_object()) return badInput(name + ": expected a JSON object (a dplda model file), got " + j.type_name());
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || format->get<std::string>() != kModelFormatName) {
    return badInput(name + ": not a dplda model file (\"format\" must be \"" + kModelFormatName +
                    "\"; write one with dplda run --save-model)");
  }
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) return badInput(name + ": \"version\" is missing or not an integer");
  if (version->get<long long>() != kModelFormatVersion) {
    return badInput(name + ": model format version " + version->dump() + " is not known to this dplda (it reads version " +
                    std::to_string(kModelFormatVersion) + ")");
  }
  ModelFile m;
  for (const char* key : {"model", "claim"}) {
    const auto it = j.find(key);
    if (it == j.end()) return badInput(name + ": the key \"" + key + "\" is missing");
    if (!it->is_string()) return wrongType(name, key, "a string", *it);
  }
  m.model = j["model"].get<std::string>();
  m.claim = j["claim"].get<std::string>();
  const auto priv = j.find("private");
  if (priv == j.end()) return badInput(name + ": the key \"private\" is missing");
  if (!priv->is_boolean()) return wrongType(name, "private", "true or false", *priv);
  m.isPrivate = priv->get<bool>();
  const auto vocab = j.find("vocabulary");
  if (vocab == j.end()) return badInput(name + ": the key \"vocabulary\" is missing");
  if (!vocab->is_array()) return wrongType(name, "vocabulary", "an array of words", *vocab);
  m.vocabulary.reserve(vocab->size());
  for (std::size_t w = 0; w < vocab->size(); ++w) {
    if (!(*vocab)[w].is_string()) {
      return badInput(name + ": vocabulary[" + std::to_string(w) + "] must be a string, got " + (*vocab)[w].type_name());
    }
    m.vocabulary.push_back((*vocab)[w].get<std::string>());
  }
  for (const char* key : {"privacy", "parameters"}) {
    const auto it = j.find(key);
    if (it == j.end()) return badInput(name + ": the key \"" + key + "\" is missing");
    if (!it->is_object()) return wrongType(name, key, "an object", *it);
  }
  m.privacyJson = j["privacy"].dump();
  m.parametersJson = j["parameters"].dump();
  const auto training = j.find("training_corpus");
  if (training != j.end()) {
    if (!training->is_object()) return wrongType(name, "training_corpus", "an object", *training);
    const auto path = training->find("path");
    if (path != training->end() && path->is_string()) m.training.path = path->get<std::string>();
    const auto docs = training->find("documents");
    if (docs != training->end() && docs->is_number_integer()) m.training.documents = docs->get<int>();
    const auto split = training->find("held_out_split");
    if (split != training->end() && split->is_boolean()) m.training.heldOutSplit = split->get<bool>();
    const auto fp = training->find("fingerprint");
    if (fp != training->end()) {
      const std::string s = fp->is_string() ? fp->get<std::string>() : "";
      unsigned long long h = 0;
      char tail = 0;
      if (s.size() != 24 || s.rfind("xxh3-64:", 0) != 0 || std::sscanf(s.c_str() + 8, "%16llx%c", &h, &tail) != 1) {
        return badInput(name + ": training_corpus.fingerprint must be \"xxh3-64:\" and 16 hex digits, got " + fp->dump());
      }
      m.training.fingerprint = h;
    }
  }
  // The numbers, by truth.json's reader (packed, line and column in its messages).
  auto lda = parseTruthJson(text, sourceNameText);
  if (!lda.ok()) return lda.status();
  m.lda = std::move(lda).value();
  const Status valid = validateModelFile(m);
  if (!valid.isOk()) return Status(valid.code(), name + ": " + valid.message());
  return m;
}

Result<ModelFile> readModelFile(const std::string& pathText) {
  namespace fs = std::filesystem;
  if (pathText.empty()) return invalidArgument("the model file path is empty");
  const std::string path = escapeText(pathText);
  DPLDA_RETURN_IF_ERROR(requireRegularFile(pathText));
  std::error_code ec;
  const auto size = fs::file_size(pathText, ec);
  if (ec) return ioError("cannot read " + path + ": " + ec.message());
  if (size > static_cast<std::uintmax_t>(kMaxModelBytes)) {
    return Status(StatusCode::ResourceLimit, path + " is larger than 1 GiB");
  }
  // The text and the topics packed as doubles (at most one number per 2 bytes), twice (read, copied).
  DPLDA_RETURN_IF_ERROR(checkMemory(static_cast<double>(size) * 9.0, "reading " + path, "its text and the topics"));
  auto text = readFileText(pathText, size);
  if (!text.ok()) return text.status();
  return parseModelFile(text.value(), pathText);
}

}  // namespace dplda
