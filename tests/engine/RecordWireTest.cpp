// The wire format between a recorded process and `pipescope record`: round trip,
// versions, a stream cut at every byte, garbage.
#include <gtest/gtest.h>

#include <random>

#include "record/WireDecoder.h"
#include "record/WireEncoder.h"

namespace pipescope::wire {
namespace {

std::vector<Message> sampleMessages() {
  Hello h;
  h.pid = 4242;
  h.parentPid = 17;
  h.clockNs = 123456789;
  h.cuptiVersion = 130000;
  h.processName = "python3";
  h.commandLine = "python3 train.py --epochs 2";
  h.timing = "CUPTI timestamps on CLOCK_MONOTONIC";
  Device d{0, "NVIDIA H100 80GB HBM3", 9, 0, 85ull << 30, 132, 3};
  Lane l0{0, 2, 7, 0, "stream 7"};
  Lane l1{1, 6, 0, 0, "compute engine"};
  Name n{1, "void gemm<float, 128>(float const*, float*) — ünïcode"};
  Ops ops;
  for (int i = 0; i < 3; ++i) {
    Op o;
    o.submit = 1000 + i;
    o.ready = 2000 + i;
    o.start = 3000 + i;
    o.end = 4000 + i;
    o.bytes = 1u << 20;
    o.correlation = 77 + std::uint32_t(i);
    o.lane = 0;
    o.engineLane = 1;
    o.name = 1;
    o.stream = 7;
    o.kind = 2;
    o.flags = 5;
    ops.ops.push_back(o);
  }
  Note note{Note::Warning, "CUPTI dropped 3 records"};
  End end{3, 0, "exit"};
  return {h, d, l0, l1, n, ops, note, end};
}

std::string encode(const std::vector<Message>& ms) {
  Encoder e;
  for (const auto& m : ms) e.add(m);
  return e.take();
}

std::vector<Message> decodeAll(Decoder& d) {
  std::vector<Message> out;
  Message m;
  while (d.next(m) == Decoder::Status::Message) out.push_back(m);
  return out;
}

TEST(RecordWire, RoundTripKeepsEveryField) {
  const auto sent = sampleMessages();
  Decoder d;
  d.feed(encode(sent));
  EXPECT_EQ(decodeAll(d), sent);
  EXPECT_FALSE(d.failed()) << d.error();
  EXPECT_TRUE(d.ended());
  EXPECT_EQ(d.endOfStream(), "");
  ASSERT_TRUE(d.hello());
  EXPECT_EQ(d.hello()->pid, 4242);
}

TEST(RecordWire, BytesArrivingOneAtATimeGiveTheSameMessages) {
  const auto sent = sampleMessages();
  const std::string bytes = encode(sent);
  Decoder d;
  std::vector<Message> got;
  for (char c : bytes) {
    d.feed(std::string_view(&c, 1));
    for (auto& m : decodeAll(d)) got.push_back(m);
  }
  EXPECT_EQ(got, sent);
}

TEST(RecordWire, LargeOpBatchesAreSplitIntoMessagesUnderTheLimit) {
  Ops big;
  big.ops.resize(kMaxMessageBytes / kOpBytes + 10);
  Encoder e;
  e.add(Hello{});
  e.add(big);
  Decoder d;
  d.feed(e.bytes());
  std::size_t ops = 0, messages = 0;
  Message m;
  while (d.next(m) == Decoder::Status::Message)
    if (auto* o = std::get_if<Ops>(&m)) ops += o->ops.size(), ++messages;
  EXPECT_EQ(ops, big.ops.size());
  EXPECT_EQ(messages, 2u);
  EXPECT_FALSE(d.failed()) << d.error();
}

TEST(RecordWire, AStreamCutAtEveryByteKeepsEveryCompleteMessageAndSaysWhere) {
  const auto sent = sampleMessages();
  const std::string bytes = encode(sent);
  // Message boundaries, to know how many complete messages a cut leaves.
  std::vector<std::size_t> ends;
  {
    Encoder e;
    for (const auto& m : sent) {
      e.add(m);
      ends.push_back(e.size());
    }
  }
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Decoder d;
    d.feed(std::string_view(bytes).substr(0, cut));
    const auto got = decodeAll(d);
    std::size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    ASSERT_EQ(got.size(), complete) << "cut at byte " << cut;
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], sent[i]);
    EXPECT_FALSE(d.failed()) << "cut at byte " << cut << ": " << d.error();
    const std::string why = d.endOfStream();
    ASSERT_FALSE(why.empty()) << "cut at byte " << cut;
    if (cut == 0)
      EXPECT_NE(why.find("sent nothing"), std::string::npos) << why;
    else if (complete > 0 && ends[complete - 1] == cut)
      EXPECT_NE(why.find("without its end-of-stream message"), std::string::npos) << why;
    else
      EXPECT_NE(why.find("ends inside a message"), std::string::npos) << why;
  }
}

TEST(RecordWire, ANewerMajorVersionIsRefusedWithAMessage) {
  Hello h;
  h.major = kMajor + 1;
  h.minor = 3;
  Encoder e;
  e.add(h);
  Decoder d;
  d.feed(e.bytes());
  Message m;
  EXPECT_EQ(d.next(m), Decoder::Status::Failed);
  EXPECT_NE(d.error().find("wire format 2.3, newer than the 1.0"), std::string::npos) << d.error();
  EXPECT_EQ(d.endOfStream(), d.error());
}

TEST(RecordWire, ANewerMinorVersionsUnknownMessagesAndFieldsAreSkipped) {
  Hello h;
  h.minor = kMinor + 1;
  Encoder e;
  e.add(h);
  std::string bytes = e.take();
  // An unknown message type (99), then a name with four bytes appended by the newer version.
  bytes += std::string("\x03\x00\x00\x00\x63\xAB\xCD", 7);
  Encoder n;
  n.add(Name{1, "kernel"});
  std::string name = n.take();
  name[0] = char(name[0] + 4);
  name += "XXXX";
  bytes += name;
  Decoder d;
  d.feed(bytes);
  const auto got = decodeAll(d);
  ASSERT_EQ(got.size(), 2u) << d.error();
  EXPECT_EQ(std::get<Name>(got[1]).text, "kernel");
  EXPECT_EQ(d.skippedMessages(), 1u);
  EXPECT_FALSE(d.failed()) << d.error();
}

TEST(RecordWire, AnUnknownMessageTypeInAStreamOfThisVersionIsDamage) {
  Encoder e;
  e.add(Hello{});
  std::string bytes = e.take() + std::string("\x01\x00\x00\x00\x63", 5);
  Decoder d;
  d.feed(bytes);
  decodeAll(d);
  EXPECT_TRUE(d.failed());
  EXPECT_NE(d.error().find("unknown message type 99"), std::string::npos) << d.error();
}

TEST(RecordWire, SomethingElseIsRefusedAtOnce) {
  Decoder d;
  d.feed("GET / HTTP/1.1\r\n");
  Message m;
  EXPECT_EQ(d.next(m), Decoder::Status::Failed);
  EXPECT_NE(d.error().find("not a pipescope recording"), std::string::npos) << d.error();
}

TEST(RecordWire, GarbageAfterGoodMessagesKeepsThemAndSaysWhatIsWrong) {
  const auto sent = sampleMessages();
  std::vector<Message> head(sent.begin(), sent.begin() + 6);  // up to and including the ops
  const std::string good = encode(head);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes = good;
    for (int i = 0; i < 64; ++i) bytes.push_back(char(rng()));
    Decoder d;
    d.feed(bytes);
    const auto got = decodeAll(d);
    ASSERT_GE(got.size(), head.size());
    for (std::size_t i = 0; i < head.size(); ++i) EXPECT_EQ(got[i], head[i]);
    // Either the garbage is refused (with the byte it starts at), or it waits for more;
    // at the end of the stream either way a message says what is wrong.
    if (d.failed()) {
      EXPECT_EQ(d.error().rfind("byte ", 0), 0u) << d.error();
    }
    EXPECT_FALSE(d.endOfStream().empty());
  }
}

TEST(RecordWire, DamagedMessagesNameTheirProblem) {
  auto damaged = [](const std::string& body, std::uint8_t type) {
    Encoder e;
    e.add(Hello{});
    std::string bytes = e.take();
    const auto size = std::uint32_t(body.size() + 1);
    for (int i = 0; i < 4; ++i) bytes.push_back(char((size >> (8 * i)) & 0xFF));
    bytes.push_back(char(type));
    bytes += body;
    Decoder d;
    d.feed(bytes);
    decodeAll(d);
    return d.error();
  };
  // A lane of an unknown kind.
  EXPECT_NE(damaged(std::string("\0\0\0\0\x2A\0\0\0\0\0\0\0\0\0\0\0\0", 17), 3).find("unknown lane kind 42"),
            std::string::npos);
  // More ops than the message holds.
  EXPECT_NE(damaged(std::string("\x10\0\0\0\x44\0", 6), 5).find("16 ops of 68 bytes do not fit"), std::string::npos);
  // A string longer than its message.
  EXPECT_NE(damaged(std::string("\x01\0\0\0\xFF\0\0\0ab", 10), 4).find("runs past the end"), std::string::npos);
  // A size beyond the limit is refused before its bytes arrive.
  Encoder e;
  e.add(Hello{});
  std::string bytes = e.take() + std::string("\xFF\xFF\xFF\x7F", 4);
  Decoder d;
  d.feed(bytes);
  Message m;
  EXPECT_EQ(d.next(m), Decoder::Status::Message);
  EXPECT_EQ(d.next(m), Decoder::Status::Failed);
  EXPECT_NE(d.error().find("at most 16777216"), std::string::npos) << d.error();
}

TEST(RecordWire, StringsOverTheLimitAreCutAtACharacterBoundary) {
  std::string longName(kMaxStringBytes - 1, 'a');
  longName += "é";  // two bytes straddling the limit
  Encoder e;
  e.add(Hello{});
  e.add(Name{1, longName});
  Decoder d;
  d.feed(e.bytes());
  const auto got = decodeAll(d);
  ASSERT_EQ(got.size(), 2u) << d.error();
  EXPECT_EQ(std::get<Name>(got[1]).text, std::string(kMaxStringBytes - 1, 'a'));
}

}  // namespace
}  // namespace pipescope::wire
