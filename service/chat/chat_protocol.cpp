#include "chat_protocol.h"

#include <time.h>

#include <cstring>

namespace soapbench::chat {

void put_u32(char* p, uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}

void put_u64(char* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}

uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

ParseResult parse_frame(std::string_view data, size_t max_frame) {
  if (data.size() < kLengthBytes) return {ParseStatus::need_more};
  const uint32_t length = get_u32(data.data());
  if (length == 0) return {ParseStatus::empty};
  if (length > max_frame) return {ParseStatus::too_long};
  if (data.size() < kLengthBytes + length) return {ParseStatus::need_more};
  const auto type = static_cast<FrameType>(static_cast<unsigned char>(data[kLengthBytes]));
  return {ParseStatus::frame, Frame{type, data.substr(kLengthBytes + 1, length - 1), kLengthBytes + length}};
}

namespace {
// Appends the length prefix and type of a frame whose body is `body_size` bytes,
// and returns where the body starts.
char* open_frame(std::string& out, FrameType type, size_t body_size) {
  const size_t at = out.size();
  out.resize(at + kLengthBytes + 1 + body_size);
  char* p = out.data() + at;
  put_u32(p, static_cast<uint32_t>(1 + body_size));
  p[kLengthBytes] = static_cast<char>(type);
  return p + kLengthBytes + 1;
}
}  // namespace

void append_frame(std::string& out, FrameType type, std::string_view body) {
  char* p = open_frame(out, type, body.size());
  body.copy(p, body.size());
}

void append_join(std::string& out, uint32_t room, uint32_t user) {
  char* p = open_frame(out, FrameType::join, 8);
  put_u32(p, room);
  put_u32(p + 4, user);
}

void append_send(std::string& out, uint32_t seq, uint64_t sent_ns, std::string_view content) {
  char* p = open_frame(out, FrameType::send, kSendHeaderBytes + content.size());
  put_u32(p, seq);
  put_u64(p + 4, sent_ns);
  content.copy(p + kSendHeaderBytes, content.size());
}

void append_deliver(std::string& out, uint32_t sender, uint32_t seq, uint64_t sent_ns,
                    std::string_view content) {
  char* p = open_frame(out, FrameType::deliver, kDeliverHeaderBytes + content.size());
  put_u32(p, sender);
  put_u32(p + 4, seq);
  put_u64(p + 8, sent_ns);
  content.copy(p + kDeliverHeaderBytes, content.size());
}

std::optional<JoinBody> parse_join(std::string_view body) {
  if (body.size() != 8) return std::nullopt;
  return JoinBody{get_u32(body.data()), get_u32(body.data() + 4)};
}

std::optional<DeliverBody> parse_deliver(std::string_view body) {
  if (body.size() < kDeliverHeaderBytes) return std::nullopt;
  return DeliverBody{get_u32(body.data()), get_u32(body.data() + 4), get_u64(body.data() + 8),
                     body.substr(kDeliverHeaderBytes)};
}

void message_content(uint32_t room, uint32_t user, uint32_t seq, size_t size, std::string& out) {
  // splitmix64 over the identity: cheap, and every byte depends on all three numbers.
  uint64_t state = (uint64_t{room} << 40) ^ (uint64_t{user} << 20) ^ seq ^ 0x9e3779b97f4a7c15ull;
  out.resize(size);
  uint64_t word = 0;
  for (size_t i = 0; i < size; ++i) {
    if (i % 8 == 0) {
      uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      word = z ^ (z >> 31);
    }
    out[i] = static_cast<char>('!' + (word & 0xff) % 94);  // printable ASCII
    word >>= 8;
  }
}

uint64_t content_hash(std::string_view bytes) {
  // FNV-1a's offset and prime over 8-byte words instead of single bytes: a
  // delivery's check costs a dozen multiplications, not a hundred.
  uint64_t h = 0xcbf29ce484222325ull ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    h = (h ^ word) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < bytes.size(); ++i) h = (h ^ static_cast<unsigned char>(bytes[i])) * 0x100000001b3ull;
  return h;
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

const char* to_string(FrameType t) {
  switch (t) {
    case FrameType::join: return "JOIN";
    case FrameType::joined: return "JOINED";
    case FrameType::send: return "SEND";
    case FrameType::deliver: return "DELIVER";
    case FrameType::stats: return "STATS";
    case FrameType::stats_reply: return "STATS_REPLY";
    case FrameType::error: return "ERROR";
  }
  return "?";
}

}  // namespace soapbench::chat
