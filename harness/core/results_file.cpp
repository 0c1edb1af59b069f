// Results files: sortable names, atomic writes, and reading with errors that
// name the file.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "core/results.h"

namespace soapbench {

namespace fs = std::filesystem;

namespace {

bool digits_at(const std::string& s, size_t pos, size_t n) {
  if (s.size() < pos + n) return false;
  for (size_t i = pos; i < pos + n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

std::string slug(const std::string& label) {
  std::string out;
  for (char c : label) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum)
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "run" : out;
}

[[noreturn]] void fail(const fs::path& path, const std::string& what) {
  throw std::runtime_error(fmt::format("cannot write '{}': {}: {}", path.string(), what,
                                       std::strerror(errno)));
}

// Writes `text` to a hidden temp file in the target's directory, syncs it and
// renames it over `target`, so that readers see the old file or the whole new one.
void write_atomically(const fs::path& target, const std::string& text) {
  const fs::path temp = target.parent_path() /
                        fmt::format(".{}.tmp-{}", target.filename().string(), getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(temp, "open");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      errno = saved;
      fail(temp, "write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    fail(temp, "fsync/close");
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    fail(target, "rename");
  }
}

// Makes the renames durable: the directory entry must reach the disk too.
void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail(dir, "open directory");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail(dir, "fsync directory");
}

}  // namespace

std::string results_file_name(const RunRecord& record) {
  const std::string& t = record.context.start_time;
  // "YYYY-MM-DDTHH:MM:SS"
  const bool ok = digits_at(t, 0, 4) && t.size() >= 19 && t[4] == '-' && digits_at(t, 5, 2) &&
                  t[7] == '-' && digits_at(t, 8, 2) && t[10] == 'T' && digits_at(t, 11, 2) &&
                  t[13] == ':' && digits_at(t, 14, 2) && t[16] == ':' && digits_at(t, 17, 2);
  if (!ok)
    throw std::invalid_argument(
        fmt::format("start_time '{}' is not ISO 8601 (YYYY-MM-DDTHH:MM:SSZ)", t));
  return fmt::format("{}{}{}-{}{}{}-{}.json", t.substr(0, 4), t.substr(5, 2), t.substr(8, 2),
                     t.substr(11, 2), t.substr(14, 2), t.substr(17, 2), slug(record.context.label));
}

fs::path write_results(const RunRecord& record, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("cannot create results directory '{}': {}", dir.string(), ec.message()));

  const fs::path name = results_file_name(record);
  const std::string stem = name.stem().string();
  fs::path json_path = dir / name;
  fs::path csv_path = dir / (stem + ".csv");
  for (int n = 2; fs::exists(json_path) || fs::exists(csv_path); ++n) {
    json_path = dir / fmt::format("{}-{}.json", stem, n);
    csv_path = dir / fmt::format("{}-{}.csv", stem, n);
  }

  const nlohmann::json j = record;
  write_atomically(json_path, j.dump(2) + "\n");
  std::ostringstream csv;
  write_csv(csv, record);
  write_atomically(csv_path, csv.str());
  sync_directory(dir);
  return json_path;
}

namespace {

template <class Input>
RunRecord results_from(Input&& input, std::string_view name) {
  const auto fail_read = [&](const std::string& reason) {
    return std::runtime_error(fmt::format("results file '{}': {}", name, reason));
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(std::forward<Input>(input));
  } catch (const nlohmann::json::exception& e) {
    // parse_error for bad syntax, out_of_range for a number no double holds (1e311)
    throw fail_read(fmt::format("not valid JSON ({})", e.what()));
  }
  try {
    return j.get<RunRecord>();
  } catch (const std::runtime_error& e) {
    throw fail_read(e.what());
  } catch (const nlohmann::json::exception& e) {  // not expected: fields are type-checked
    throw fail_read(e.what());
  }
}

}  // namespace

RunRecord read_results(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("results file '{}': cannot open: {}", path.string(), std::strerror(errno)));
  return results_from(in, path.string());
}

RunRecord parse_results(std::string_view text, std::string_view name) { return results_from(text, name); }

}  // namespace soapbench
