#include "io/JsonTextSource.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pipescope {

namespace {
constexpr std::size_t kChunk = 1 << 20;
}

struct JsonTextSource::Inflater {
  z_stream z{};
  bool open = false;
  ~Inflater() {
    if (open) inflateEnd(&z);
  }
};

JsonTextSource::JsonTextSource(const std::string& path, LoadControl control)
    : name_(path), control_(std::move(control)) {
  file_ = std::fopen(path.c_str(), "rb");
  if (file_ == nullptr) throw TraceFileError("cannot open '" + path + "': " + std::strerror(errno));
  if (std::fseek(file_, 0, SEEK_END) == 0) {
    const long size = std::ftell(file_);
    rawSize_ = size > 0 ? std::uint64_t(size) : 0;
    std::fseek(file_, 0, SEEK_SET);
  }
  setupGzip();
}

JsonTextSource::JsonTextSource(std::string data, std::string name, LoadControl control)
    : name_(std::move(name)), control_(std::move(control)), memory_(std::move(data)) {
  rawSize_ = memory_.size();
  setupGzip();
}

JsonTextSource::~JsonTextSource() {
  if (file_ != nullptr) std::fclose(file_);
}

std::size_t JsonTextSource::readRaw(unsigned char* dst, std::size_t n) {
  std::size_t got = 0;
  if (file_ != nullptr) {
    got = std::fread(dst, 1, n, file_);
    if (got < n && std::ferror(file_)) throw TraceFileError("cannot read '" + name_ + "': " + std::strerror(errno));
  } else {
    got = std::min(n, memory_.size() - memoryPos_);
    std::memcpy(dst, memory_.data() + memoryPos_, got);
    memoryPos_ += got;
  }
  rawRead_ += got;
  return got;
}

void JsonTextSource::setupGzip() {
  // Small inputs (tests, fuzzers) get small buffers; large files read 1 MiB at a time.
  chunk_ = std::size_t(std::clamp<std::uint64_t>(rawSize_ * 4, 4096, kChunk));
  buf_.resize(chunk_);
  cur_ = end_ = buf_.data();
  rawBuf_.resize(chunk_);
  // Sniff the gzip magic from the first raw bytes; they stay in rawBuf_ for the first refill.
  std::size_t got = readRaw(rawBuf_.data(), 2);
  gzip_ = got == 2 && rawBuf_[0] == 0x1f && rawBuf_[1] == 0x8b;
  if (gzip_) {
    inflater_ = std::make_unique<Inflater>();
    if (inflateInit2(&inflater_->z, 15 + 32) != Z_OK) throw TraceFileError("cannot start gzip decompression");
    inflater_->open = true;
    inflater_->z.next_in = rawBuf_.data();
    inflater_->z.avail_in = unsigned(got);
  } else {
    if (got == 2) got += readRaw(rawBuf_.data() + 2, chunk_ - 2);
    std::memcpy(buf_.data(), rawBuf_.data(), got);
    end_ = buf_.data() + got;
  }
}

bool JsonTextSource::refill() {
  control_.checkCancel();
  consumedBefore_ += std::uint64_t(cur_ - buf_.data());
  if (consumedBefore_ - tokenStart_ > kMaxJsonTokenBytes)
    throw TraceFileError("'" + name_ + "': byte " + std::to_string(tokenStart_) + ": a single JSON value longer than " +
                         std::to_string(kMaxJsonTokenBytes >> 20) +
                         " MiB; this is not a trace file pipescope can read");
  if (consumedBefore_ > kMaxJsonTextBytes)
    throw TraceFileError("'" + name_ + "': more than " + std::to_string(kMaxJsonTextBytes >> 30) +
                         " GiB of JSON text (decompressed); pipescope reads trace files up to that size");
  cur_ = end_ = buf_.data();
  std::size_t produced = 0;
  if (!gzip_) {
    produced = readRaw(reinterpret_cast<unsigned char*>(buf_.data()), chunk_);
  } else {
    z_stream& z = inflater_->z;
    while (produced == 0 && !gzipDone_) {
      if (z.avail_in == 0) {
        z.avail_in = unsigned(readRaw(rawBuf_.data(), chunk_));
        z.next_in = rawBuf_.data();
        if (z.avail_in == 0) {
          throw TraceFileError("'" + name_ + "': the gzip data is truncated (ends after " + std::to_string(rawRead_) +
                               " compressed bytes); the file was not written completely");
        }
      }
      z.next_out = reinterpret_cast<Bytef*>(buf_.data());
      z.avail_out = unsigned(chunk_);
      const int rc = inflate(&z, Z_NO_FLUSH);
      produced = chunk_ - z.avail_out;
      if (rc == Z_STREAM_END) {
        // Concatenated gzip members are legal; continue with the next one if any.
        if (z.avail_in == 0) z.avail_in = unsigned(readRaw(rawBuf_.data(), chunk_)), z.next_in = rawBuf_.data();
        if (z.avail_in == 0) {
          gzipDone_ = true;
        } else if (inflateReset(&z) != Z_OK) {
          gzipDone_ = true;
        }
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw TraceFileError("'" + name_ + "': corrupt gzip data near compressed byte " +
                             std::to_string(rawRead_ - z.avail_in) + " (" + (z.msg ? z.msg : "inflate error") + ")");
      }
    }
  }
  end_ = buf_.data() + produced;
  if ((++refills_ & 7u) == 0 && rawSize_ > 0) control_.report(double(rawRead_) / double(rawSize_));
  return produced > 0;
}

std::string JsonTextSource::peek(std::size_t n) {
  // Only valid before anything was consumed: fill the first chunk if empty.
  if (cur_ == end_ && offset() == 0) refill();
  return std::string(cur_, std::min<std::size_t>(n, std::size_t(end_ - cur_)));
}

}  // namespace pipescope
