#pragma once
// The echo operations of wsdl/echo.wsdl, plus the HTTP extras (GET ?wsdl,
// GET /stats, the answers of the HTTP layer) wired into gSOAP. One instance
// serves many connections in turn (one per event loop, pool worker or connection
// thread): gSOAP's context, with its 64 KiB buffer, is never held by an idle connection.
#include "soapEchoBindingService.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "config.h"
#include "connection.h"
#include "stats.h"
#include "xml_guard.h"

namespace soapbench::server {

// What one read of the thread CPU clock (--time-layers) adds between two
// readings: a system call, not vDSO. The median of back-to-back reads.
uint64_t measure_thread_clock_read_ns();

class EchoService : public EchoBindingService {
 public:
  EchoService(const Config& config, Stats& stats);
  ~EchoService() override;
  EchoService(const EchoService&) = delete;
  EchoService& operator=(const EchoService&) = delete;

  // Serves the requests buffered on c while whole ones are there and its output
  // is not backed up (answering 100-continue, refusals and a truncated request).
  // Never reads or waits on the socket. Returns false when the connection is to
  // close once its output is sent (c.close_after_output).
  bool serve_buffered(Connection& c, bool draining = false);
  // Answers the request begun on c with an HTTP error and a SOAP fault saying
  // why, and marks the connection to close.
  void refuse(Connection& c, const HttpError& error);

  Stats& stats() { return stats_; }
  const Config& config() const { return config_; }
  void note_status(int status) { status_ = status; }
  Connection* connection() { return conn_; }
  void count_sent(size_t n) { sent_ += n; }  // response bytes, for the access log
  bool varies_by_encoding() const { return varies_by_encoding_; }  // --gzip and a POST: Vary: Accept-Encoding
  // gSOAP's input: the request head it is given, then the framed body.
  size_t read_input(char* buf, size_t n);
  // Whether anything but white space is left of the body after the Envelope.
  bool body_has_more() const;

  // Whether the gSOAP runtime was built with zlib, which --gzip needs.
  static bool can_gzip();

  EchoBindingService* copy() override;
  int echoString(_echo__echoString* request, _echo__echoStringResponse& response) override;
  int echoStruct(_echo__echoStruct* request, _echo__echoStructResponse& response) override;
  int echoBinary(_echo__echoBinary* request, _echo__echoBinaryResponse& response) override;

 private:
  // Serves the framed request at the head of c's input. Returns true while the connection stays open.
  bool serve_one(Connection& c);
  void answer_unanswered();
  // Writes an HTTP error with a SOAP fault (`code`, `message`) and `extra_fields`
  // (CRLF-ended header lines). Returns whether the connection stays open: only
  // when keep_open is asked and keep-alive allows it; otherwise it is marked to close.
  bool write_refusal(Connection& c, int status, std::string_view code, std::string_view message,
                     std::string_view extra_fields, bool keep_open);
  // The access line of the request just answered, when there is a log.
  void log_request(Connection& c, int status, std::chrono::steady_clock::time_point started);

  const Config& config_;
  Stats& stats_;
  bool varies_by_encoding_ = false;  // this answer depends on Accept-Encoding (--gzip)
  Connection* conn_ = nullptr;  // the connection being served
  int status_ = 0;              // HTTP status of its response; 0 until one is sent
  std::string head_;            // the request head gSOAP parses (framing fields removed)
  std::string_view body_;       // the framed body (decoded)
  XmlGuard guard_;
  uint64_t posts_ = 0;  // POSTs served, for --time-layers-every
  std::string rewritten_;       // the body with long character references rewritten (XmlGuard)
  size_t head_pos_ = 0;
  size_t body_pos_ = 0;
  uint64_t sent_ = 0;           // bytes of the response being served
};

}  // namespace soapbench::server
