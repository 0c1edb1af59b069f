#pragma once
// Variables in a request file, so that each call can differ (as JMeter users
// expect): ${seq} (this connection's call count, from 1), ${client} (the
// connection's index in the step, from 0), ${uuid} (a random version-4 UUID),
// ${random:N} (N random letters and digits), ${now} (xsd:dateTime, UTC, ms) and
// ${csv:COLUMN} (from --data FILE.csv, one row per call, round robin, each
// connection starting at its own row). Values are XML-escaped where they go.
// The envelope is split once; a call only appends the pieces.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace soapbench {

// --data FILE.csv: a header row of column names, then the rows (RFC 4180:
// quoted fields, "" inside quotes, CRLF or LF).
struct CsvData {
  std::string file;
  std::vector<std::string> columns;
  std::vector<std::string> cells;  // row after row, columns.size() each
  size_t rows() const { return columns.empty() ? 0 : cells.size() / columns.size(); }
  const std::string& cell(size_t row, size_t column) const { return cells[row * columns.size() + column]; }
};
// Throws std::invalid_argument with the file and line.
CsvData load_csv(const std::string& path);

class RequestTemplate {
 public:
  // Throws std::invalid_argument naming an unknown variable, a bad ${random:N},
  // or a ${csv:COLUMN} that `data` lacks (or any ${csv:...} without data).
  RequestTemplate(const std::string& text, const CsvData* data);

  bool varies() const { return pieces_.size() > 1 || (pieces_.size() == 1 && pieces_[0].kind != Kind::text); }
  // The next call's text, into `out` (replaced). `connection` seeds ${client},
  // the random values and the first CSV row.
  void render(std::string& out);
  // The same call's text as pieces, without copying the literal text: views
  // into the template for it, into a kept buffer for the variables' values.
  // Valid until the next render.
  void render_pieces(std::vector<std::string_view>& pieces);
  void set_connection(uint64_t connection);

 private:
  enum class Kind { text, seq, client, uuid, random, now, csv };
  struct Piece {
    Kind kind;
    std::string text;   // the literal text
    size_t arg = 0;     // random: N; csv: the column's index
  };
  uint64_t next_random();
  // Appends piece `p`'s value (not text) to `out`.
  void append_value(std::string& out, const Piece& p);
  size_t most_value_bytes_ = 0;  // the longest the variables' values can be, together

  std::vector<Piece> pieces_;
  const CsvData* data_;
  uint64_t seq_ = 0;
  uint64_t connection_ = 0;
  size_t row_ = 0;
  uint64_t rng_ = 0x9E3779B97F4A7C15ull;
  std::string scratch_;
};

}  // namespace soapbench
