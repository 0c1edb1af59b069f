#pragma once
// The echo operations of wsdl/echo.wsdl on one connection, plus the HTTP extras
// (GET ?wsdl, GET /stats, request size limit, byte counting) wired into gSOAP.
#include "soapEchoBindingService.h"

#include <string>

#include "config.h"
#include "stats.h"

namespace soapbench::server {

class EchoService : public EchoBindingService {
 public:
  EchoService(const Config& config, Stats& stats);
  ~EchoService() override;
  EchoService(const EchoService&) = delete;
  EchoService& operator=(const EchoService&) = delete;

  // Takes ownership of a connected socket; closes any previous one.
  void attach(int fd);
  // Serves exactly one HTTP request from the attached socket (blocking, bounded by
  // the receive and send timeouts). Returns true while the connection stays open.
  bool serve_one();
  // True when bytes of a further request are already buffered in user space,
  // so waiting on the socket for readability would wait for nothing.
  bool has_buffered_input() const;
  // True when a whole further request is buffered: serving it cannot wait on the socket.
  bool has_buffered_request() const;
  // Bytes an event loop has already read from the socket; gSOAP reads them
  // before it reads the socket again.
  std::string& pending_input() { return pending_; }
  // Called by an event loop whose receive timeout expired on a partial request:
  // the parser gets what arrived, then the end of input, and the client a fault.
  void end_input_after_pending() { input_timed_out_ = true; }
  // Keeps the bytes gSOAP read past the request it just parsed (a pipelined next
  // request) as pending input: gSOAP writes the response into the same buffer.
  void keep_read_ahead();
  // The receive path gSOAP calls: pending bytes first, then the socket; watches for a DTD.
  size_t receive(char* buf, size_t n, size_t (*from_socket)(struct soap*, char*, size_t));
  // Event loops turn this on: a response the socket cannot take at once is kept
  // and sent by send_unsent_output() when the socket is writable, so that a
  // client that stops reading never makes the loop wait.
  void keep_unsent_output(bool on) { keep_unsent_ = on; }
  bool keeps_unsent_output() const { return keep_unsent_; }
  bool has_unsent_output() const { return unsent_pos_ < unsent_.size(); }
  void add_unsent_output(const char* buf, size_t n) { unsent_.append(buf, n); }
  // Sends what the socket takes now of the kept output. False when the
  // connection failed; true when all is sent or the rest must wait.
  bool send_unsent_output();
  // serve_one() answered, and the connection is to close once the kept output is sent.
  bool close_when_sent() const { return close_when_sent_; }
  // Closes the connection (if open) without sending anything.
  void close();
  int fd() const;
  Stats& stats() { return stats_; }
  const Config& config() const { return config_; }
  void note_status(int status) { status_ = status; }
  // One send per response: gSOAP writes a stored response's HTTP header and its
  // body in two fsend calls; the header is held and goes out with the body in
  // one sendmsg. hold_header() is called when a response with a body starts.
  void hold_header() { hold_header_ = true; }
  bool holding_header() const { return hold_header_; }
  void stop_holding_header() { hold_header_ = false; }
  std::string& held_header() { return header_; }

  EchoBindingService* copy() override;
  int echoString(_echo__echoString* request, _echo__echoStringResponse& response) override;
  int echoStruct(_echo__echoStruct* request, _echo__echoStructResponse& response) override;
  int echoBinary(_echo__echoBinary* request, _echo__echoBinaryResponse& response) override;

 private:
  const Config& config_;
  Stats& stats_;
  void answer_unanswered();

  int fd_ = -1;           // the connection; closed by close() only, never by gSOAP
  size_t received_ = 0;   // bytes read for the request being served
  int status_ = 0;        // HTTP status of its response; 0 until one is sent
  std::string pending_;   // read ahead by the event loop, not yet given to gSOAP
  size_t pending_pos_ = 0;
  char tail_[8];          // last bytes of the previous read, to find a DTD split across reads
  size_t tail_len_ = 0;
  bool dtd_seen_ = false;
  bool input_timed_out_ = false;
  bool peer_closed_ = false;
  bool keep_unsent_ = false;
  std::string unsent_;     // output the socket could not take yet (keep_unsent_output)
  size_t unsent_pos_ = 0;
  bool close_when_sent_ = false;
  bool hold_header_ = false;  // the next fsend is a response's header: hold it
  std::string header_;        // a held header, sent with the body's first bytes
};

}  // namespace soapbench::server
