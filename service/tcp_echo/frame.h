#pragma once
// The framing of the plain-TCP echo (soapbench-echo-server and the "tcp"
// client): each message is a 4-byte big-endian payload length, then the
// payload. The server echoes every byte back unchanged as it arrives; it reads
// the headers only to count whole messages (its request counter, which the
// driver checks against the calls the clients made) and to refuse a length
// above its limit, which is how non-frame bytes (an HTTP request, noise) show up.
// A length prefix rather than a delimiter: any payload byte is allowed, and a
// 2 MB message needs no scan for its end.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace soapbench::tcp {

inline constexpr size_t kFrameHeaderBytes = 4;

inline void write_frame_header(uint8_t* out, uint32_t payload_bytes) {
  out[0] = static_cast<uint8_t>(payload_bytes >> 24);
  out[1] = static_cast<uint8_t>(payload_bytes >> 16);
  out[2] = static_cast<uint8_t>(payload_bytes >> 8);
  out[3] = static_cast<uint8_t>(payload_bytes);
}

// Follows a byte stream frame by frame without holding it: a few counters per
// connection however large the messages.
class FrameScanner {
 public:
  explicit FrameScanner(uint64_t max_payload_bytes) : max_payload_(max_payload_bytes) {}

  // Walks `n` more bytes of the stream. Returns false (and stops) at a header
  // whose length exceeds the limit; `completed` grows by the frames that ended.
  bool scan(const uint8_t* data, size_t n, uint64_t& completed) {
    size_t i = 0;
    while (i < n) {
      if (left_ == 0 && have_ < kFrameHeaderBytes) {  // in a header
        length_ = (length_ << 8) | data[i++];
        if (++have_ < kFrameHeaderBytes) continue;
        if (length_ > max_payload_) return false;
        left_ = length_;
        if (left_ == 0) {  // an empty message is complete with its header
          ++completed;
          reset();
        }
        continue;
      }
      const uint64_t take = std::min<uint64_t>(left_, n - i);  // payload: skipped, not copied
      i += static_cast<size_t>(take);
      left_ -= take;
      if (left_ == 0) {
        ++completed;
        reset();
      }
    }
    return true;
  }
  // Between frames: no partial header or payload outstanding.
  bool at_boundary() const { return have_ == 0 && left_ == 0; }
  // After scan() returned false: the length the refused header declared.
  uint64_t refused_length() const { return length_; }

 private:
  void reset() {
    have_ = 0;
    length_ = 0;
  }
  uint64_t max_payload_;
  size_t have_ = 0;     // header bytes read of the current frame
  uint64_t length_ = 0; // its declared payload length, as far as read
  uint64_t left_ = 0;   // payload bytes still to come
};

}  // namespace soapbench::tcp
