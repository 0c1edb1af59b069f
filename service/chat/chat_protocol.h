#pragma once
// The chat wire protocol, shared by soapbench-chat-server and `soapbench chat`.
//
// Every frame is a 4-byte big-endian length N, then N bytes: a 1-byte type and
// its body. Integers are big-endian. A frame longer than the receiver's limit,
// an empty frame, an unknown type or a body of the wrong size is a protocol
// error: the server answers with an ERROR frame (best effort) and closes that
// connection, and only that one.
//
//   client -> server  JOIN    u32 room, u32 user      once, first; answered by JOINED
//                     SEND    u32 seq, u64 sent_ns, content (0..limit bytes)
//                     STATS   (empty)                 answered by STATS_REPLY, any time
//   server -> client  JOINED  u32 room, u32 user
//                     DELIVER u32 sender user, u32 seq, u64 sent_ns, content
//                     STATS_REPLY  a JSON object (see README, "The chat room")
//                     ERROR   text: why the connection is being closed
//
// The server relays each SEND as a DELIVER, with the sender's user id from its
// JOIN, to every other member of the sender's room and never back to the sender.
// sent_ns is opaque to the server (the client's CLOCK_MONOTONIC reading).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace soapbench::chat {

enum class FrameType : uint8_t {
  join = 1,
  joined = 2,
  send = 3,
  deliver = 4,
  stats = 5,
  stats_reply = 6,
  error = 7,
};

inline constexpr size_t kLengthBytes = 4;
inline constexpr size_t kSendHeaderBytes = 4 + 8;         // seq, sent_ns
inline constexpr size_t kDeliverHeaderBytes = 4 + 4 + 8;  // sender, seq, sent_ns

// One frame found at the head of a buffer: its type and body (a view into the buffer).
struct Frame {
  FrameType type;
  std::string_view body;
  size_t wire_bytes;  // length prefix + type + body: what to consume
};

enum class ParseStatus { frame, need_more, too_long, empty };

struct ParseResult {
  ParseStatus status;
  Frame frame{};
};

// Looks at the head of `data`. A length over max_frame (type + body) is
// too_long as soon as the prefix has arrived, before the body is buffered.
ParseResult parse_frame(std::string_view data, size_t max_frame);

// Appends a whole frame of `type` with `body` to `out`.
void append_frame(std::string& out, FrameType type, std::string_view body);
void append_join(std::string& out, uint32_t room, uint32_t user);
void append_send(std::string& out, uint32_t seq, uint64_t sent_ns, std::string_view content);
void append_deliver(std::string& out, uint32_t sender, uint32_t seq, uint64_t sent_ns,
                    std::string_view content);

void put_u32(char* p, uint32_t v);
void put_u64(char* p, uint64_t v);
uint32_t get_u32(const char* p);
uint64_t get_u64(const char* p);

struct JoinBody {
  uint32_t room, user;
};
std::optional<JoinBody> parse_join(std::string_view body);  // JOIN and JOINED

struct DeliverBody {
  uint32_t sender, seq;
  uint64_t sent_ns;
  std::string_view content;
};
std::optional<DeliverBody> parse_deliver(std::string_view body);

// The content of message `seq` from `user` in `room`, `size` bytes: printable
// and different for every (room, user, seq), so that the receiver can tell a
// corrupted, misrouted or misnumbered message from the right one.
void message_content(uint32_t room, uint32_t user, uint32_t seq, size_t size, std::string& out);

// A 64-bit hash of the bytes (FNV-1a constants, a word at a time). Checksums of
// a set of messages are the wrapping sum of their hashes, so that they do not depend on arrival order.
uint64_t content_hash(std::string_view bytes);

// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the host.
uint64_t monotonic_ns();

const char* to_string(FrameType t);

}  // namespace soapbench::chat
