#include "core/corpus/text_formats.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <vector>

#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/corpus/text_import.h"

namespace dplda {

namespace {

constexpr std::size_t kChunk = std::size_t(1) << 16;

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lowerAscii(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  return s;
}

// What a file that is not text is, from its first bytes; empty when nothing known.
std::string knownBinaryKind(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("PK\x03\x04")) return "a zip archive (also .xlsx, .docx, .odt): export the text as CSV or plain text";
  if (starts("%PDF-")) return "a PDF document: extract its text first (pdftotext)";
  if (starts("BZh")) return "compressed with bzip2, which import-text does not read: decompress it (bunzip2) or use gzip";
  if (starts(std::string_view("\xFD" "7zXZ\0", 6)))
    return "compressed with xz, which import-text does not read: decompress it (unxz) or use gzip";
  if (starts("\x28\xB5\x2F\xFD")) return "compressed with zstd, which import-text does not read: decompress it or use gzip";
  return {};
}

// A file's bytes, inflated when they are gzip: one member after the other until the end.
class FileBuffer : public std::streambuf {
 public:
  FileBuffer(int fd, std::string shownName, double size) : m_fd(fd), m_name(std::move(shownName)), m_size(size) {
    m_in.resize(kChunk);
  }
  ~FileBuffer() override {
    if (m_gzip) inflateEnd(&m_z);
    ::close(m_fd);
  }

  // Reads the first bytes and decides: gzip, refused binary kinds, or plain.
  Status start() {
    if (!fill()) return m_status;
    const std::string_view head(m_in.data(), m_inEnd);
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1F && static_cast<unsigned char>(head[1]) == 0x8B) {
      std::memset(&m_z, 0, sizeof(m_z));
      if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) return ioError("zlib could not start on " + m_name);
      m_gzip = true;
      m_out.resize(kChunk * 4);
      m_z.next_in = reinterpret_cast<Bytef*>(m_in.data());  // the bytes read above
      m_z.avail_in = static_cast<uInt>(m_inEnd);
      return Status::ok();
    }
    const std::string kind = knownBinaryKind(head);
    if (!kind.empty()) return badInput(m_name + " is " + kind);
    return Status::ok();
  }

  Status status() const { return m_status; }
  bool compressed() const { return m_gzip; }
  double bytesRead() const { return m_fileRead - (m_gzip ? m_z.avail_in : 0); }
  double size() const { return m_size; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!m_status.isOk()) return traits_type::eof();
    if (!m_gzip) {
      if (m_inPos >= m_inEnd && !fill()) return traits_type::eof();
      setg(m_in.data() + m_inPos, m_in.data() + m_inPos, m_in.data() + m_inEnd);
      m_inPos = m_inEnd;
      return traits_type::to_int_type(*gptr());
    }
    return inflateMore() ? traits_type::to_int_type(*gptr()) : traits_type::eof();
  }

 private:
  // Reads the next chunk of the file into m_in; false at the end or on an error (m_status).
  bool fill() {
    for (;;) {
      const ssize_t n = ::read(m_fd, m_in.data(), m_in.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        m_status = ioError("cannot read " + m_name + ": " + std::strerror(errno));
        return false;
      }
      m_inPos = 0;
      m_inEnd = static_cast<std::size_t>(n);
      m_fileRead += static_cast<double>(n);
      return n > 0;
    }
  }

  bool inflateMore() {
    for (;;) {
      if (m_z.avail_in == 0) {
        if (!fill()) {
          if (m_status.isOk() && m_inMember) m_status = badInput(m_name + ": the gzip data ends early (a truncated file)");
          return false;
        }
        m_z.next_in = reinterpret_cast<Bytef*>(m_in.data());
        m_z.avail_in = static_cast<uInt>(m_inEnd);
      }
      if (!m_inMember) {  // a further member must start with the magic bytes
        if (m_z.avail_in >= 1 && m_z.next_in[0] != 0x1F) {
          m_status = badInput(m_name + ": data after the end of the gzip stream (decompressed offset " +
                              std::to_string(m_produced) + ")");
          return false;
        }
        inflateReset(&m_z);
        m_inMember = true;
      }
      m_z.next_out = reinterpret_cast<Bytef*>(m_out.data());
      m_z.avail_out = static_cast<uInt>(m_out.size());
      const int rc = inflate(&m_z, Z_NO_FLUSH);
      const std::size_t produced = m_out.size() - m_z.avail_out;
      if (rc == Z_STREAM_END) m_inMember = false;
      else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        m_status = badInput(m_name + ": damaged gzip data (" + (m_z.msg ? std::string(m_z.msg) : "zlib error " + std::to_string(rc)) +
                            ") after " + std::to_string(m_produced) + " decompressed bytes");
        return false;
      }
      m_produced += static_cast<long long>(produced);
      if (m_produced > kMaxDecompressedBytes) {
        m_status = Status(StatusCode::ResourceLimit, m_name + " decompresses to more than " +
                                                         std::to_string(kMaxDecompressedBytes >> 30) +
                                                         " GiB, the most import-text reads; split it");
        return false;
      }
      if (produced > 0) {
        setg(m_out.data(), m_out.data(), m_out.data() + produced);
        return true;
      }
    }
  }

  int m_fd;
  std::string m_name;
  double m_size;
  std::vector<char> m_in, m_out;
  std::size_t m_inPos = 0, m_inEnd = 0;
  double m_fileRead = 0;
  bool m_gzip = false;
  bool m_inMember = true;
  long long m_produced = 0;
  z_stream m_z{};
  Status m_status;
};

class FileTextInput : public TextInput {
 public:
  explicit FileTextInput(std::unique_ptr<FileBuffer> buffer) : m_buffer(std::move(buffer)), m_stream(m_buffer.get()) {}
  std::istream& stream() override { return m_stream; }
  Status status() const override { return m_buffer->status(); }
  bool compressed() const override { return m_buffer->compressed(); }
  double fileBytesRead() const override { return m_buffer->bytesRead(); }
  double fileSize() const override { return m_buffer->size(); }

 private:
  std::unique_ptr<FileBuffer> m_buffer;
  std::istream m_stream;
};

std::string quotedList(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 20; ++i) out += (i ? ", " : "") + quoteText(names[i], 40);
  if (names.size() > 20) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

// The position of `name` among `names`; BadInput listing them when absent or repeated.
Result<int> findColumn(const std::vector<std::string>& names, const std::string& name, const std::string& shownName,
                       const char* what) {
  int found = -1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != name) continue;
    if (found >= 0) return badInput(shownName + ": the " + what + " " + quoteText(name) + " appears twice in the header");
    found = static_cast<int>(i);
  }
  if (found < 0) {
    return badInput(shownName + ": no " + what + " " + quoteText(name) + "; the header has " +
                    std::to_string(names.size()) + (names.size() == 1 ? " column: " : " columns: ") + quotedList(names));
  }
  return found;
}

// "a number", "an array": a JSON type with its article.
std::string withArticle(const char* type) {
  return (type[0] == 'a' || type[0] == 'o' ? "an " : "a ") + std::string(type);
}

std::string lineError(const std::string& shownName, long long line, const std::string& what) {
  return shownName + " line " + std::to_string(line) + ": " + what;
}

}  // namespace

const char* textFormatName(TextFormat format) {
  switch (format) {
    case TextFormat::Csv: return "csv";
    case TextFormat::Tsv: return "tsv";
    case TextFormat::JsonLines: return "jsonl";
    default: return "text";
  }
}

Result<TextFormat> parseTextFormat(std::string_view name) {
  for (TextFormat f : {TextFormat::Text, TextFormat::Csv, TextFormat::Tsv, TextFormat::JsonLines}) {
    if (name == textFormatName(f)) return f;
  }
  return invalidArgument("the text format must be text, csv, tsv or jsonl, got " + quoteText(name));
}

TextFormat textFormatFromName(const std::string& path) {
  std::string name = lowerAscii(path);
  if (endsWith(name, ".gz")) name.resize(name.size() - 3);
  if (endsWith(name, ".csv")) return TextFormat::Csv;
  if (endsWith(name, ".tsv") || endsWith(name, ".tab")) return TextFormat::Tsv;
  if (endsWith(name, ".jsonl") || endsWith(name, ".ndjson")) return TextFormat::JsonLines;
  return TextFormat::Text;
}

Result<std::unique_ptr<TextInput>> openTextInput(const std::string& path) {
  auto fd = openRegularFile(path);
  if (!fd.ok()) return fd.status();
  struct stat st {};
  const double size = ::fstat(fd.value(), &st) == 0 ? static_cast<double>(st.st_size) : 0.0;
  auto buffer = std::make_unique<FileBuffer>(fd.value(), escapeText(path), size);
  DPLDA_RETURN_IF_ERROR(buffer->start());
  return std::unique_ptr<TextInput>(std::make_unique<FileTextInput>(std::move(buffer)));
}

Status readWholeTextFile(const std::string& path, std::string& text, long long maxBytes, bool* compressed) {
  auto input = openTextInput(path);
  if (!input.ok()) return input.status();
  if (compressed) *compressed = input.value()->compressed();
  std::streambuf* sb = input.value()->stream().rdbuf();
  text.clear();
  std::array<char, kChunk> chunk;
  for (;;) {
    const std::streamsize n = sb->sgetn(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (n <= 0) break;
    if (static_cast<long long>(text.size()) + n > maxBytes) {
      return Status(StatusCode::ResourceLimit, escapeText(path) + " is larger than " + std::to_string(maxBytes >> 20) +
                                                   " MiB" + (input.value()->compressed() ? " decompressed" : "") +
                                                   "; split it or use file mode");
    }
    text.append(chunk.data(), static_cast<std::size_t>(n));
  }
  DPLDA_RETURN_IF_ERROR(input.value()->status());
  const long long bad = findInvalidUtf8(text);
  if (bad >= 0) {
    const long long line = 1 + std::count(text.begin(), text.begin() + bad, '\n');
    const std::size_t lineStart = bad == 0 ? std::string::npos : text.rfind('\n', bad - 1);
    const long long inLine = lineStart == std::string::npos ? bad : bad - 1 - static_cast<long long>(lineStart);
    return invalidUtf8Error(escapeText(path), line, inLine, bad, static_cast<unsigned char>(text[bad]));
  }
  return Status::ok();
}

Status invalidUtf8Error(const std::string& shownName, long long line, long long byteInLine, long long offset,
                        unsigned char byte) {
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02X", byte);
  return badInput(shownName + " line " + std::to_string(line) + ": invalid UTF-8 byte " + hex + " at byte " +
                  std::to_string(byteInLine + 1) + " of the line (file offset " + std::to_string(offset) +
                  "); convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)");
}

Status checkRecordText(std::string_view text, const std::string& shownName, long long firstLine, long long offset) {
  const long long bad = findInvalidUtf8(text);
  const std::size_t nul = text.find('\0');
  if (bad < 0 && nul == std::string_view::npos) return Status::ok();
  const std::size_t at = bad >= 0 ? static_cast<std::size_t>(bad) : nul;
  const long long line = firstLine + std::count(text.begin(), text.begin() + at, '\n');
  const std::size_t lineStart = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  const long long inLine = lineStart == std::string_view::npos ? at : at - 1 - static_cast<long long>(lineStart);
  if (bad >= 0) return invalidUtf8Error(shownName, line, inLine, offset + bad, static_cast<unsigned char>(text[at]));
  return badInput(lineError(shownName, line, "a NUL byte at byte " + std::to_string(inLine + 1) +
                                                 " of the line: a binary file, not text"));
}

bool getLineBounded(std::istream& in, std::string& line, std::size_t maxBytes, bool& tooLong) {
  line.clear();
  tooLong = false;
  std::streambuf* sb = in.rdbuf();
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (line.size() >= maxBytes) {
      tooLong = true;
      return false;
    }
    line += static_cast<char>(c);
  }
}

Status readDelimitedRecords(std::istream& in, const std::string& name, char delimiter, const RecordFields& fields,
                            const RecordHandler& handler, Feedback* feedback) {
  std::streambuf* sb = in.rdbuf();
  constexpr int kEof = std::char_traits<char>::eof();
  std::vector<std::string> record;
  std::string raw;  // the record's bytes: UTF-8 is checked on them, with their lines
  long long line = 1, offset = 0, records = 0;
  int textColumn = -1, idColumn = -1;
  std::size_t columns = 0;
  const char* kind = delimiter == '\t' ? "TSV" : "CSV";
  for (;;) {
    // One record: fields until an unquoted line end or the end of the input.
    record.assign(1, std::string());
    raw.clear();
    const long long firstLine = line;
    bool quoted = false, afterQuote = false, fieldStarted = false;
    int c = sb->sbumpc();
    if (c == kEof) break;
    for (;; c = sb->sbumpc()) {
      if (c == kEof) {
        if (quoted) return badInput(lineError(name, firstLine, "a quoted field opened on this line is not closed by the end of the file"));
        break;
      }
      const char ch = static_cast<char>(c);
      raw += ch;
      if (raw.size() > kMaxRecordBytes) {
        return Status(StatusCode::ResourceLimit, lineError(name, firstLine, "a record longer than " +
                                                                            std::to_string(kMaxRecordBytes >> 20) + " MiB"));
      }
      if (ch == '\n') ++line;
      std::string& field = record.back();
      if (quoted) {
        if (ch != '"') field += ch;
        else if (sb->sgetc() == '"') {
          field += '"';
          raw += static_cast<char>(sb->sbumpc());
        } else {
          quoted = false;
          afterQuote = true;
        }
        continue;
      }
      if (ch == '\n') break;
      if (ch == '\r' && sb->sgetc() == '\n') continue;  // CRLF
      if (ch == delimiter) {
        record.emplace_back();
        afterQuote = fieldStarted = false;
        continue;
      }
      if (afterQuote) {
        return badInput(lineError(name, line, "text after the closing quote of field " + std::to_string(record.size()) +
                                                  " (a quote inside a quoted field is written \"\")"));
      }
      if (ch == '"' && !fieldStarted) {  // a quote inside an unquoted field is text (as Python's csv reads it)
        quoted = true;
        fieldStarted = true;
        continue;
      }
      fieldStarted = true;
      field += ch;
    }
    const long long recordOffset = offset;
    offset += static_cast<long long>(raw.size());
    if (record.size() == 1 && record[0].empty() && raw.find('"') == std::string::npos) continue;  // an empty line
    DPLDA_RETURN_IF_ERROR(checkRecordText(raw, name, firstLine, recordOffset));
    if (columns == 0) {  // the header
      if (record[0].rfind("\xEF\xBB\xBF", 0) == 0) record[0].erase(0, 3);
      columns = record.size();
      auto t = findColumn(record, fields.text, name, "column");
      if (!t.ok()) return t.status();
      textColumn = t.value();
      if (!fields.id.empty()) {
        auto i = findColumn(record, fields.id, name, "id column");
        if (!i.ok()) return i.status();
        idColumn = i.value();
      }
      continue;
    }
    if (record.size() != columns) {
      return badInput(lineError(name, firstLine, "a " + std::string(kind) + " row of " + std::to_string(record.size()) +
                                                     (record.size() == 1 ? " field" : " fields") + ", the header has " +
                                                     std::to_string(columns) + " (a ragged row; a field holding the " +
                                                     (delimiter == '\t' ? "tab" : "comma") + " must be quoted)"));
    }
    handler(record[textColumn], idColumn >= 0 ? record[idColumn] : std::to_string(firstLine));
    if ((++records & 1023) == 0 && isCanceled(feedback)) return cancelled();
  }
  if (in.bad()) return ioError("cannot read " + name);
  if (columns == 0) return badInput(name + " is empty: a " + std::string(kind) + " file needs a header line with the column names");
  return Status::ok();
}

Status readJsonLines(std::istream& in, const std::string& name, const RecordFields& fields, const RecordHandler& handler,
                     Feedback* feedback) {
  using nlohmann::json;
  std::string line;
  long long lineNo = 0, offset = 0;
  bool tooLong = false;
  while (getLineBounded(in, line, kMaxRecordBytes, tooLong)) {
    ++lineNo;
    DPLDA_RETURN_IF_ERROR(checkRecordText(line, name, lineNo, offset));
    offset += static_cast<long long>(line.size()) + 1;
    if (lineNo == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json value;
    try {
      value = json::parse(line);
    } catch (const json::exception& e) {
      return badInput(lineError(name, lineNo, "not JSON (" + escapeText(e.what()) + ")"));
    }
    if (!value.is_object()) {
      return badInput(lineError(name, lineNo, "a JSON " + std::string(value.type_name()) +
                                                  ", not an object: JSON Lines needs one object a line"));
    }
    auto fieldValue = [&](const std::string& key, const char* what) -> Result<const json*> {
      const auto it = value.find(key);
      if (it == value.end()) {
        std::vector<std::string> keys;
        for (const auto& item : value.items()) keys.push_back(item.key());
        return badInput(lineError(name, lineNo, std::string("the object has no ") + what + " " + quoteText(key) +
                                                    (keys.empty() ? " (it has no fields)" : "; its fields: " + quotedList(keys))));
      }
      return &*it;
    };
    auto textField = fieldValue(fields.text, "field");
    if (!textField.ok()) return textField.status();
    const json* text = textField.value();
    if (!text->is_string()) {
      return badInput(lineError(name, lineNo, "the field " + quoteText(fields.text) + " is " + withArticle(text->type_name()) +
                                                  ", not a string"));
    }
    std::string id = std::to_string(lineNo);
    if (!fields.id.empty()) {
      auto idField = fieldValue(fields.id, "id field");
      if (!idField.ok()) return idField.status();
      const json* idValue = idField.value();
      if (idValue->is_string()) id = idValue->get<std::string>();
      else if (idValue->is_number_integer()) id = idValue->dump();
      else {
        return badInput(lineError(name, lineNo, "the id field " + quoteText(fields.id) + " is " +
                                                    withArticle(idValue->type_name()) + ", not a string or an integer"));
      }
    }
    handler(text->get_ref<const std::string&>(), std::move(id));
    if ((lineNo & 1023) == 0 && isCanceled(feedback)) return cancelled();
  }
  if (tooLong) {
    return Status(StatusCode::ResourceLimit, lineError(name, lineNo + 1, "longer than " +
                                                                         std::to_string(kMaxRecordBytes >> 20) + " MiB"));
  }
  if (in.bad()) return ioError("cannot read " + name);
  return Status::ok();
}

}  // namespace dplda
