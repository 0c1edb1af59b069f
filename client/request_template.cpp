#include "request_template.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "xml_values.h"

namespace soapbench {

namespace {

void append_number(std::string& out, uint64_t n) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, r.ptr);
}

}  // namespace

CsvData load_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot be read");
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  CsvData d;
  d.file = path;
  std::vector<std::string> row;
  std::string field;
  size_t line = 1, row_line = 1;
  bool quoted = false, was_quoted = false;
  auto end_row = [&] {
    row.push_back(field);
    field.clear();
    was_quoted = false;
    if (d.columns.empty()) {
      d.columns = row;
    } else if (!(row.size() == 1 && row[0].empty())) {  // blank lines are skipped
      if (row.size() != d.columns.size())
        throw std::invalid_argument(path + ": line " + std::to_string(row_line) + ": " + std::to_string(row.size()) +
                                    " fields, the header has " + std::to_string(d.columns.size()));
      d.cells.insert(d.cells.end(), row.begin(), row.end());
    }
    row.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_row();
      row_line = ++line;
    } else {
      field += c;
    }
  }
  if (quoted) throw std::invalid_argument(path + ": line " + std::to_string(row_line) + ": a quoted field is not closed");
  if (!field.empty() || !row.empty()) end_row();
  if (d.columns.empty() || (d.columns.size() == 1 && d.columns[0].empty()))
    throw std::invalid_argument(path + ": no header row of column names");
  if (d.rows() == 0) throw std::invalid_argument(path + ": no rows after the header");
  return d;
}

RequestTemplate::RequestTemplate(const std::string& text, const CsvData* data) : data_(data) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find("${", at);
    if (open == std::string::npos) break;
    const size_t close = text.find('}', open + 2);
    if (close == std::string::npos) throw std::invalid_argument("'${' without a closing '}'");
    if (open > at) pieces_.push_back({Kind::text, text.substr(at, open - at)});
    const std::string name = text.substr(open + 2, close - open - 2);
    Piece p{Kind::text, {}};
    if (name == "seq") p.kind = Kind::seq;
    else if (name == "client") p.kind = Kind::client;
    else if (name == "uuid") p.kind = Kind::uuid;
    else if (name == "now") p.kind = Kind::now;
    else if (name.rfind("random:", 0) == 0) {
      p.kind = Kind::random;
      const std::string n = name.substr(7);
      size_t used = 0;
      unsigned long value = 0;
      try {
        value = std::stoul(n, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != n.size() || value == 0 || value > 1000000)
        throw std::invalid_argument("${" + name + "}: N must be a count from 1 to 1000000");
      p.arg = value;
    } else if (name.rfind("csv:", 0) == 0) {
      p.kind = Kind::csv;
      const std::string column = name.substr(4);
      if (!data) throw std::invalid_argument("${" + name + "} needs --data FILE.csv");
      size_t k = 0;
      while (k < data->columns.size() && data->columns[k] != column) ++k;
      if (k == data->columns.size()) {
        std::string known;
        for (const auto& c : data->columns) known += (known.empty() ? "" : ", ") + c;
        throw std::invalid_argument("${" + name + "}: " + data->file + " has no column '" + column + "' (it has: " +
                                    known + ")");
      }
      p.arg = k;
    } else {
      throw std::invalid_argument("unknown variable ${" + name +
                                  "} (seq, client, uuid, random:N, now, csv:COLUMN)");
    }
    pieces_.push_back(std::move(p));
    at = close + 1;
  }
  if (at < text.size()) pieces_.push_back({Kind::text, text.substr(at)});
  size_t longest_cell = 0;
  if (data)
    for (const std::string& c : data->cells) longest_cell = std::max(longest_cell, c.size());
  for (const Piece& p : pieces_) {
    switch (p.kind) {
      case Kind::text: break;
      case Kind::seq: case Kind::client: most_value_bytes_ += 20; break;
      case Kind::uuid: case Kind::now: most_value_bytes_ += 40; break;
      case Kind::random: most_value_bytes_ += p.arg; break;
      case Kind::csv: most_value_bytes_ += 6 * longest_cell; break;  // &quot; and &#10; are the longest escapes
    }
  }
}

void RequestTemplate::set_connection(uint64_t connection) {
  connection_ = connection;
  rng_ ^= (connection + 1) * 0xBF58476D1CE4E5B9ull ^
          static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  if (rng_ == 0) rng_ = 1;
  if (data_ && data_->rows() > 0) row_ = connection % data_->rows();
}

uint64_t RequestTemplate::next_random() {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}

void RequestTemplate::append_value(std::string& out, const Piece& p) {
  static constexpr char kAlnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  switch (p.kind) {
    case Kind::text: out += p.text; break;
    case Kind::seq: append_number(out, seq_); break;
    case Kind::client: append_number(out, connection_); break;
    case Kind::random: {
      const size_t at = out.size();
      out.resize(at + p.arg);
      // Several characters from each 64-bit draw: x * 62 / 2^64 is the next
      // character, and the fraction left over the next draw's (as a dice roller).
      __extension__ typedef unsigned __int128 u128;  // GCC's 128-bit integer, for the high half of a product
      u128 x = next_random();
      for (size_t i = 0; i < p.arg; ++i) {
        if (i % 8 == 7) x = next_random();
        x *= 62;
        out[at + i] = kAlnum[static_cast<unsigned>(x >> 64)];
        x = static_cast<uint64_t>(x);
      }
      break;
    }
    case Kind::uuid: {
      const uint64_t hi = next_random(), lo = next_random();
      char u[40];
      std::snprintf(u, sizeof u, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                    static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xfff),
                    static_cast<unsigned>(0x8000 | ((lo >> 48) & 0x3fff)),
                    static_cast<unsigned long long>(lo & 0xffffffffffffull));
      out += u;
      break;
    }
    case Kind::now: {
      const auto t = std::chrono::system_clock::now();
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
      const std::time_t secs = static_cast<std::time_t>(ms / 1000);
      std::tm tm{};
      gmtime_r(&secs, &tm);
      char d[64];
      std::snprintf(d, sizeof d, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
      out += d;
      break;
    }
    case Kind::csv: xml::append_escaped(out, data_->cell(row_, p.arg)); break;
  }
}

void RequestTemplate::render(std::string& out) {
  out.clear();
  ++seq_;
  for (const Piece& p : pieces_) append_value(out, p);
  if (data_ && data_->rows() > 0) row_ = (row_ + 1) % data_->rows();
}

void RequestTemplate::render_pieces(std::vector<std::string_view>& pieces) {
  ++seq_;
  // scratch_ holds the longest values the template can produce (reserved once),
  // so it never moves while the views into it are taken.
  if (scratch_.capacity() < most_value_bytes_) scratch_.reserve(most_value_bytes_);
  scratch_.clear();
  pieces.clear();
  for (const Piece& p : pieces_) {
    if (p.kind == Kind::text) {
      pieces.emplace_back(p.text);
      continue;
    }
    const size_t at = scratch_.size();
    append_value(scratch_, p);
    pieces.emplace_back(scratch_.data() + at, scratch_.size() - at);
  }
  if (data_ && data_->rows() > 0) row_ = (row_ + 1) % data_->rows();
}

}  // namespace soapbench
