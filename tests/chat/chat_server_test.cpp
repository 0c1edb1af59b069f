// soapbench-chat-server over raw sockets: relaying within a room only, bad
// frames, abrupt disconnects and a reader that stops reading. Each test starts
// its own server on a free port.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "chat/chat_client.h"
#include "chat/chat_command.h"
#include "chat_test_support.h"

namespace soapbench::chat {
namespace {

using test::RawConn;
using namespace std::chrono_literals;

nlohmann::json stats(uint16_t port) {
  const std::string text = query_server_stats("127.0.0.1", port);
  EXPECT_FALSE(text.empty()) << "no STATS reply";
  return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

struct Delivery {
  uint32_t sender, seq;
  std::string content;
};

std::optional<Delivery> next_delivery(RawConn& c, std::chrono::milliseconds timeout = 5s) {
  const auto f = c.next(timeout);
  if (!f || f->type != FrameType::deliver) return std::nullopt;
  const auto d = parse_deliver(f->body);
  if (!d) return std::nullopt;
  return Delivery{d->sender, d->seq, std::string(d->content)};
}

TEST(ChatServer, RelaysEachMessageToTheOtherMembersOfItsRoomOnly) {
  auto server = start_chat_server(test::chat_server_binary(), {});
  RawConn a(server->port()), b(server->port()), c(server->port()), other(server->port());
  ASSERT_TRUE(a.join(7, 0));
  ASSERT_TRUE(b.join(7, 1));
  ASSERT_TRUE(c.join(7, 2));
  ASSERT_TRUE(other.join(8, 0));
  ASSERT_TRUE(a.send_message(41, "hello room"));
  for (RawConn* r : {&b, &c}) {
    const auto d = next_delivery(*r);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->sender, 0u);
    EXPECT_EQ(d->seq, 41u);
    EXPECT_EQ(d->content, "hello room");
  }
  EXPECT_FALSE(a.next(300ms)) << "the sender got its own message back";
  EXPECT_FALSE(other.next(100ms)) << "another room got the message";
  const auto s = stats(server->port());
  EXPECT_EQ(s["received"], 1);
  EXPECT_EQ(s["delivered"], 2);
  EXPECT_EQ(s["joined"], 4);
  EXPECT_EQ(s["protocol_errors"], 0);
}

TEST(ChatServer, KeepsOrderPerSenderAcrossThreads) {
  auto server = start_chat_server(test::chat_server_binary(), {"--threads", "3"});
  // Rooms 0..5 land on all three loops; members join through loop 0 and move.
  std::vector<std::unique_ptr<RawConn>> members;
  for (uint32_t room = 0; room < 6; ++room)
    for (uint32_t user = 0; user < 2; ++user) {
      members.push_back(std::make_unique<RawConn>(server->port()));
      ASSERT_TRUE(members.back()->join(room, user));
    }
  for (uint32_t room = 0; room < 6; ++room)
    for (uint32_t seq = 0; seq < 200; ++seq) ASSERT_TRUE(members[room * 2]->send_message(seq, std::to_string(room)));
  for (uint32_t room = 0; room < 6; ++room)
    for (uint32_t seq = 0; seq < 200; ++seq) {
      const auto d = next_delivery(*members[room * 2 + 1]);
      ASSERT_TRUE(d) << "room " << room << " seq " << seq;
      EXPECT_EQ(d->seq, seq);
      EXPECT_EQ(d->content, std::to_string(room));
    }
  EXPECT_EQ(stats(server->port())["delivered"], 1200);
}

struct Garbage {
  const char* name;
  bool join_first;     // JOIN room 1 user 9 before the bad bytes
  std::string bytes;
  const char* reason;  // in the ERROR frame
};

std::string frame_of(FrameType type, const std::string& body) {
  std::string f;
  append_frame(f, type, body);
  return f;
}

std::string length_prefix(uint32_t n) {
  std::string s(4, '\0');
  put_u32(s.data(), n);
  return s;
}

class ChatServerGarbage : public testing::TestWithParam<Garbage> {};

TEST_P(ChatServerGarbage, DropsThatConnectionAndKeepsServing) {
  const Garbage& g = GetParam();
  auto server = start_chat_server(test::chat_server_binary(), {});
  RawConn a(server->port()), b(server->port());
  ASSERT_TRUE(a.join(1, 0));
  ASSERT_TRUE(b.join(1, 1));
  {
    RawConn bad(server->port());
    if (g.join_first) {
      ASSERT_TRUE(bad.join(1, 9));
    }
    ASSERT_TRUE(bad.write(g.bytes));
    const auto f = bad.next();
    ASSERT_TRUE(f) << "no ERROR frame";
    EXPECT_EQ(f->type, FrameType::error);
    EXPECT_NE(f->body.find(g.reason), std::string::npos) << f->body;
    EXPECT_TRUE(bad.closed_by_server());
  }
  ASSERT_TRUE(a.send_message(0, "still here"));
  const auto d = next_delivery(b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->content, "still here");
  RawConn late(server->port());
  EXPECT_TRUE(late.join(1, 2)) << "the server no longer accepts members";
  EXPECT_TRUE(alive(server->pid()));
  EXPECT_EQ(stats(server->port())["protocol_errors"], 1);
}

INSTANTIATE_TEST_SUITE_P(
    Frames, ChatServerGarbage,
    testing::Values(
        Garbage{"http", false, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "over the limit"},
        Garbage{"oversize", false, length_prefix(1u << 30), "over the limit"},
        Garbage{"empty", false, length_prefix(0), "empty frame"},
        Garbage{"unknown_type", false, frame_of(static_cast<FrameType>(99), "x"), "unexpected frame type 99"},
        Garbage{"send_before_join", false, frame_of(FrameType::send, std::string(20, 'x')), "SEND before JOIN"},
        Garbage{"short_join", false, frame_of(FrameType::join, "abc"), "JOIN body of 3 bytes"},
        Garbage{"second_join", true, frame_of(FrameType::join, std::string(8, '\0')), "a second JOIN"},
        Garbage{"short_send", true, frame_of(FrameType::send, "abc"), "SEND body of 3 bytes"},
        Garbage{"duplicate_user", false, frame_of(FrameType::join, std::string("\0\0\0\x01\0\0\0\0", 8)),
                "user 0 is already in room 1"},
        Garbage{"server_frame", true, frame_of(FrameType::deliver, std::string(16, 'x')), "unexpected frame type 4"}),
    [](const testing::TestParamInfo<Garbage>& param) { return std::string(param.param.name); });

TEST(ChatServer, AbruptDisconnectsLeaveTheRoomServing) {
  auto server = start_chat_server(test::chat_server_binary(), {});
  RawConn sender(server->port()), reader(server->port());
  ASSERT_TRUE(sender.join(3, 0));
  ASSERT_TRUE(reader.join(3, 1));
  auto half = std::make_unique<RawConn>(server->port());
  auto never_reads = std::make_unique<RawConn>(server->port());
  ASSERT_TRUE(half->join(3, 2));
  ASSERT_TRUE(never_reads->join(3, 3));
  std::string frame;
  append_send(frame, 0, 0, std::string(100, 'h'));
  ASSERT_TRUE(half->write(frame.substr(0, 7)));  // half a frame, then a reset
  for (uint32_t seq = 0; seq < 50; ++seq) ASSERT_TRUE(sender.send_message(seq, "before"));
  half->reset();
  never_reads->reset();  // with deliveries queued for it
  for (uint32_t seq = 50; seq < 100; ++seq) ASSERT_TRUE(sender.send_message(seq, "after"));
  for (uint32_t seq = 0; seq < 100; ++seq) {
    const auto d = next_delivery(reader);
    ASSERT_TRUE(d) << "seq " << seq;
    EXPECT_EQ(d->seq, seq);
  }
  EXPECT_TRUE(alive(server->pid()));
  const auto s = stats(server->port());
  EXPECT_EQ(s["peer_closed"], 2);
  EXPECT_EQ(s["received"], 100);
  EXPECT_EQ(s["protocol_errors"], 0);
  RawConn late(server->port());
  EXPECT_TRUE(late.join(3, 2)) << "user 2's place is free again";
}

// /proc/PID/status VmRSS in bytes.
uint64_t rss_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  uint64_t kb = 0;
  while (in >> key)
    if (key == "VmRSS:") { in >> kb; break; }
  return kb * 1024;
}

TEST(ChatServer, ASlowReaderPausesItsRoomThenIsDropped) {
  auto server = start_chat_server(test::chat_server_binary(), {"--max-backlog", "16k", "--send-timeout", "0.5"});
  RawConn sender(server->port()), reader(server->port()), stuck(server->port());
  ASSERT_TRUE(sender.join(5, 0));
  ASSERT_TRUE(reader.join(5, 1));
  ASSERT_TRUE(stuck.join(5, 2));  // never reads from here on
  const int small = 4096;  // and keeps the kernel from buffering much for it
  setsockopt(stuck.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  constexpr uint32_t kMessages = 20000;  // 20 MB: far more than the socket buffers and the backlog
  std::thread writer([&] {
    std::string all;
    for (uint32_t seq = 0; seq < kMessages; ++seq) append_send(all, seq, 0, std::string(1000, 'm'));
    sender.write(all);
  });
  uint32_t got = 0;
  for (; got < kMessages; ++got) {
    const auto d = next_delivery(reader, 10s);
    if (!d || d->seq != got) break;
  }
  writer.join();
  EXPECT_EQ(got, kMessages) << "the reader stopped getting messages in order";
  const auto s = stats(server->port());
  EXPECT_GE(s["paused"].get<uint64_t>(), 1u) << s.dump();
  EXPECT_EQ(s["slow_dropped"], 1) << s.dump();
  EXPECT_EQ(s["open"], 3) << "sender, reader and this STATS connection; the stuck reader is gone";
  EXPECT_LT(rss_bytes(server->pid()), 64u << 20) << "the queue for the stuck reader was not bounded";
}

TEST(ChatServer, DropsAConnectionThatNeverJoins) {
  auto server = start_chat_server(test::chat_server_binary(), {"--join-timeout", "0.3"});
  RawConn idle(server->port());
  EXPECT_TRUE(idle.closed_by_server(5s));
  EXPECT_EQ(stats(server->port())["join_timeouts"], 1);
}

}  // namespace
}  // namespace soapbench::chat
