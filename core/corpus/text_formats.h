#pragma once
// The files import-text reads (core/corpus/text_import.h), below the tokenizer: how bytes become
// documents and their ids.
//
// Compression: a file that starts with gzip's magic bytes (1f 8b) is decompressed, whatever its
// name (several gzip members are read one after the other); at most kMaxDecompressedBytes.
// Files compressed otherwise (bzip2, xz, zstd), archives (zip: also .xlsx, .docx, .odt) and PDF
// are BadInput naming the file and what it is.
//
// CSV (RFC 4180): the first record is the header (column names, a UTF-8 BOM dropped); fields are
// separated by ',' (TSV: a tab); a field in double quotes may hold the separator, line breaks
// and "" for a quote. Records end at LF or CRLF. Every record must have as many fields as the
// header (a ragged row is BadInput naming its line and both counts); empty lines are skipped.
// A quote inside an unquoted field is text (as spreadsheets and Python's csv module read it);
// text after a closing quote and a quote left open at the end are BadInput naming the line.
// JSON Lines: one JSON object a line (blank lines skipped; nlohmann-json parses each); the text
// field must be a string, the id field a string or an integer.
// Every record is a document, also one whose text is empty (the record structure is public,
// docs/PRIVACY.md §13.1); its id is the id column's or field's value, or else the number of its
// first line. Invalid UTF-8 is BadInput naming the file, line and byte; a NUL byte means a binary
// file, refused the same way.
#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "core/common/feedback.h"
#include "core/common/status.h"

namespace dplda {

enum class TextFormat { Text, Csv, Tsv, JsonLines };

inline constexpr long long kMaxDecompressedBytes = 16LL << 30;
// One record (a line in line mode, a CSV record or a JSON line).
inline constexpr std::size_t kMaxRecordBytes = std::size_t(64) << 20;

// "text", "csv", "tsv", "jsonl".
const char* textFormatName(TextFormat format);
// Parses the names above; InvalidArgument naming the value otherwise.
Result<TextFormat> parseTextFormat(std::string_view name);
// The format a file name says (.csv, .tsv or .tab, .jsonl or .ndjson, before an optional .gz),
// Text otherwise.
TextFormat textFormatFromName(const std::string& path);

// A regular file opened for reading, gzip-decoded when it starts with gzip's magic bytes.
class TextInput {
 public:
  virtual ~TextInput() = default;
  virtual std::istream& stream() = 0;
  // Ok, or the error that ended the stream early (a damaged gzip member, a read error, the
  // decompressed size limit). Check it when the stream ends.
  virtual Status status() const = 0;
  virtual bool compressed() const = 0;
  // Bytes of the file read so far, and its size: progress.
  virtual double fileBytesRead() const = 0;
  virtual double fileSize() const = 0;
};
Result<std::unique_ptr<TextInput>> openTextInput(const std::string& path);

// A whole file (gzip-decoded), at most maxBytes, checked to be UTF-8: BadInput naming the line
// otherwise. NUL bytes are left to the caller (folder mode skips such files).
Status readWholeTextFile(const std::string& path, std::string& text, long long maxBytes, bool* compressed = nullptr);

// "FILE line L: invalid UTF-8 byte 0xNN at byte B of the line (file offset O)".
Status invalidUtf8Error(const std::string& shownName, long long line, long long byteInLine, long long offset,
                        unsigned char byte);
// The first invalid UTF-8 byte of `text`, as the error above (`firstLine` is the line text[0]
// is on, `offset` its offset in the file); Ok when `text` is valid UTF-8 without NUL bytes
// (a NUL byte is "a binary file").
Status checkRecordText(std::string_view text, const std::string& shownName, long long firstLine, long long offset);

// std::getline with a limit: false at the end of the input, or with `tooLong` set when the
// line reaches maxBytes before its '\n' (a device such as /dev/zero has no line end at all).
bool getLineBounded(std::istream& in, std::string& line, std::size_t maxBytes, bool& tooLong);

// Receives each record's document text and id.
using RecordHandler = std::function<void(std::string_view text, std::string id)>;

struct RecordFields {
  std::string text;  // the column (CSV, TSV) or field (JSON Lines) holding the document
  std::string id;    // optional: the column or field holding its id
};

// CSV (delimiter ',') or TSV (delimiter '\t') records of `in`; `shownName` names the file in
// messages (escaped). A missing column is BadInput listing the header's columns.
Status readDelimitedRecords(std::istream& in, const std::string& shownName, char delimiter,
                            const RecordFields& fields, const RecordHandler& handler, Feedback* feedback);
// JSON Lines records of `in`.
Status readJsonLines(std::istream& in, const std::string& shownName, const RecordFields& fields,
                     const RecordHandler& handler, Feedback* feedback);

}  // namespace dplda
