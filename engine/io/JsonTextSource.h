#pragma once
// The characters of a JSON file, plain or gzip-compressed, read in chunks so a
// large file never sits in memory whole. Reports progress on the bytes read from
// disk, honours cancellation between chunks, and enforces the limits of
// TraceFileError.h (a gzip bomb or a single gigantic string stops with an error).
//
// CharIterator plugs the source into nlohmann::json::sax_parse; Stream into
// RapidJSON's Reader, which reads large Chrome traces several times faster.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "io/TraceFileError.h"

namespace pipescope {

class JsonTextSource {
 public:
  /// Opens `path`; throws TraceFileError when it cannot be read.
  JsonTextSource(const std::string& path, LoadControl control = {});
  /// Reads from memory (fuzzers, tests); `name` stands for the file in messages.
  JsonTextSource(std::string data, std::string name, LoadControl control = {});
  ~JsonTextSource();
  JsonTextSource(const JsonTextSource&) = delete;
  JsonTextSource& operator=(const JsonTextSource&) = delete;

  const std::string& name() const { return name_; }
  bool gzipped() const { return gzip_; }
  /// Characters handed out so far (the byte offset in the decompressed text).
  std::uint64_t offset() const { return consumedBefore_ + std::uint64_t(cur_ - buf_.data()); }
  /// True when every character has been handed out (used to tell truncation from bad syntax).
  bool exhausted() { return cur_ == end_ && !refill(); }
  /// Marks the start of a JSON value; a value longer than kMaxJsonTokenBytes fails.
  void markToken() { tokenStart_ = offset(); }

  class CharIterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    CharIterator() = default;
    explicit CharIterator(JsonTextSource* s) : s_(s) {}
    const char& operator*() const { return *s_->cur_; }
    CharIterator& operator++() {
      ++s_->cur_;
      return *this;
    }
    CharIterator operator++(int) {
      CharIterator old = *this;
      ++s_->cur_;
      return old;
    }
    /// Only comparison against the end sentinel is meaningful (input iterator).
    friend bool operator==(const CharIterator& a, const CharIterator& b) { return a.atEnd() == b.atEnd(); }
    friend bool operator!=(const CharIterator& a, const CharIterator& b) { return !(a == b); }

   private:
    bool atEnd() const { return s_ == nullptr || (s_->cur_ == s_->end_ && !s_->refill()); }
    JsonTextSource* s_ = nullptr;
  };
  /// RapidJSON's input stream concept (Peek, Take, Tell) on the chunk buffer: the
  /// parser's per-character reads inline to a pointer compare. Read-only: RapidJSON's
  /// in-place parsing, which would need the Put* calls, is never asked for.
  class Stream {
   public:
    using Ch = char;
    explicit Stream(JsonTextSource& s) : s_(s) {}
    /// The next character, '\0' at the end of the text.
    Ch Peek() const { return s_.cur_ != s_.end_ || s_.refill() ? *s_.cur_ : '\0'; }
    Ch Take() {
      const Ch c = Peek();
      if (s_.cur_ != s_.end_) ++s_.cur_;
      return c;
    }
    std::size_t Tell() const { return std::size_t(s_.offset()); }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    std::size_t PutEnd(Ch*) { return 0; }

   private:
    JsonTextSource& s_;
  };

  CharIterator begin() { return CharIterator(this); }
  CharIterator end() { return CharIterator(); }

  /// First bytes of the text (decompressed), for format detection; does not consume.
  std::string peek(std::size_t n);

 private:
  bool refill();
  std::size_t readRaw(unsigned char* dst, std::size_t n);
  void setupGzip();

  std::string name_;
  LoadControl control_;
  std::FILE* file_ = nullptr;
  std::string memory_;
  std::size_t memoryPos_ = 0;
  std::uint64_t rawSize_ = 0;
  std::uint64_t rawRead_ = 0;
  bool gzip_ = false;
  bool gzipDone_ = false;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
  std::size_t chunk_ = 0;
  std::vector<unsigned char> rawBuf_;
  std::vector<char> buf_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  std::uint64_t consumedBefore_ = 0;
  std::uint64_t tokenStart_ = 0;
  unsigned refills_ = 0;
};

}  // namespace pipescope
