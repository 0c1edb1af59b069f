#include "driver_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace soapbench::test {

std::string bin_path(const std::string& program) { return std::string(SOAPBENCH_BIN_DIR) + "/" + program; }

// ---- Program ---------------------------------------------------------------

Program::Program(const std::vector<std::string>& argv) : process_(argv, capture_output()) {}

Program::~Program() = default;  // the Subprocess kills and reaps it if still running

void Program::pump(std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{process_.out_fd(), POLLIN, 0}, {process_.err_fd(), POLLIN, 0}};
  if (::poll(fds, 2, static_cast<int>(timeout.count())) <= 0) return;
  std::string* text[2] = {&out_, &err_};
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[8192];
    const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
    if (n > 0) {
      text[i]->append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      i == 0 ? process_.close_out() : process_.close_err();
    }
  }
}

bool Program::wait_for_line(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    size_t start = 0;
    for (size_t nl; (nl = out_.find('\n', start)) != std::string::npos; start = nl + 1)
      if (out_.substr(start, nl - start).find(text) != std::string::npos) return true;
    if (process_.out_fd() < 0 || std::chrono::steady_clock::now() >= deadline) return false;
    pump(20ms);
  }
}

std::optional<int> Program::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!exit_code_) {
    pump(20ms);
    if (process_.try_wait()) {
      const int status = process_.status();
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else if (std::chrono::steady_clock::now() >= deadline) {
      return std::nullopt;
    }
  }
  while (process_.out_fd() >= 0 || process_.err_fd() >= 0) pump(100ms);  // the rest of the output
  return exit_code_;
}

std::string Program::last_line() const {
  std::istringstream in(out_);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

int run_program(const std::vector<std::string>& argv, std::string* out, std::string* err,
                std::chrono::milliseconds timeout) {
  Program p(argv);
  const auto code = p.wait(timeout);
  if (out) *out = p.out();
  if (err) *err = p.err();
  return code ? *code : -1;
}

// ---- FakeServer ------------------------------------------------------------

namespace {

std::string http_response(const std::string& status, const std::string& type, const std::string& body) {
  return "HTTP/1.1 " + status + "\r\nServer: fake\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: keep-alive\r\n\r\n" + body;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

bool send_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

const char* kFault =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><SOAP-ENV:Envelope "
    "xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Body><SOAP-ENV:Fault>"
    "<faultcode>SOAP-ENV:Server</faultcode><faultstring>fake fault</faultstring></SOAP-ENV:Fault>"
    "</SOAP-ENV:Body></SOAP-ENV:Envelope>";

}  // namespace

FakeServer::FakeServer(Mode mode, std::chrono::milliseconds delay) : mode_(mode), delay_(delay) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(listen_fd_, 64) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("fake server: cannot listen");
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeServer::~FakeServer() {
  stop_ = true;
  acceptor_.join();
  std::lock_guard lock(threads_mutex_);
  for (auto& t : connections_) t.join();
  ::close(listen_fd_);
}

std::string FakeServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/echo"; }

void FakeServer::accept_loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard lock(threads_mutex_);
    connections_.emplace_back([this, fd] { serve(fd); });
  }
}

// Appends what arrives on fd within 50 ms; false once the peer has closed.
bool FakeServer::read_more(int fd, std::string& in) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 50) <= 0) return true;
  char buf[16384];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n <= 0) return false;
  in.append(buf, static_cast<size_t>(n));
  return true;
}

void FakeServer::serve(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::string in;
  for (;;) {
    // One request: headers, then Content-Length bytes of body.
    size_t header_end;
    while ((header_end = in.find("\r\n\r\n")) == std::string::npos)
      if (stop_ || !read_more(fd, in)) return (void)::close(fd);
    std::string headers = in.substr(0, header_end);
    for (auto& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t length = 0;
    if (const auto at = headers.find("content-length:"); at != std::string::npos)
      length = std::stoul(headers.substr(at + 15));
    if (headers.find("expect: 100-continue") != std::string::npos) send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    while (in.size() < header_end + 4 + length)
      if (stop_ || !read_more(fd, in)) return (void)::close(fd);
    std::string body = in.substr(header_end + 4, length);
    in.erase(0, header_end + 4 + length);
    if (headers.rfind("post ", 0) != 0) {  // GET /stats and the like: not offered here
      if (!send_all(fd, http_response("404 Not Found", "text/plain", "no such page\n"))) break;
      continue;
    }
    ++requests_;

    std::string reply;
    switch (mode_) {
      case Mode::slow:
        std::this_thread::sleep_for(delay_);
        [[fallthrough]];
      case Mode::trickle:
      case Mode::echo:
      case Mode::wrong:
        replace_all(body, "echoString>", "echoStringResponse>");
        replace_all(body, "echoStruct>", "echoStructResponse>");
        if (mode_ == Mode::wrong) replace_all(body, "payload", "PAYLOAD");
        reply = http_response("200 OK", "text/xml; charset=utf-8", body);
        break;
      case Mode::fault:
        reply = http_response("500 Internal Server Error", "text/xml; charset=utf-8", kFault);
        break;
      case Mode::status:
        reply = http_response("503 Service Unavailable", "text/plain", "busy\n");
        break;
      case Mode::close:
        ::close(fd);
        return;
    }
    if (mode_ == Mode::trickle) {
      // Byte by byte until the client gives up (or the test ends): never quick enough.
      bool sent = true;
      for (size_t i = 0; i < reply.size() && sent && !stop_; ++i) {
        std::this_thread::sleep_for(10ms);
        sent = send_all(fd, reply.substr(i, 1));
      }
      if (!sent || stop_) break;
      continue;
    }
    if (!send_all(fd, reply)) break;
  }
  ::close(fd);
}

// ---- files and processes ---------------------------------------------------

TempDir::TempDir() {
  char tmpl[] = "/tmp/soapbench-driver-test.XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {
// Fields of /proc/PID/stat after the command: state is the first, ppid the second.
bool read_stat(pid_t pid, char& state, pid_t& ppid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(f, text)) return false;
  const auto close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 1));
  return static_cast<bool>(rest >> state >> ppid);
}
}  // namespace

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    char state = 0;
    pid_t ppid = 0;
    if (read_stat(std::stoi(name), state, ppid) && ppid == parent) out.push_back(std::stoi(name));
  }
  return out;
}

bool process_alive(pid_t pid) {
  char state = 0;
  pid_t ppid = 0;
  return read_stat(pid, state, ppid) && state != 'Z' && state != 'X';
}

uint16_t unused_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), len);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace soapbench::test
