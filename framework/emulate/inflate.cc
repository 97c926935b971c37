// gzip's decompression (internal/inflate.h), from RFC 1951 (deflate) and RFC 1952 (gzip). Every
// malformed input is a failure with its reason, never a read outside the input or past `size`
// bytes of output: the bytes come from the library itself, but a corrupt copy must only make the
// tables unavailable (mufu_tables.cc).
#include "emulate/internal/inflate.h"

#include <algorithm>
#include <array>

namespace bankcheck::emulate::internal {
namespace {

constexpr std::array<uint32_t, 256> CrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = CrcTable();

// The input's bits, least significant first within each byte (RFC 1951, 3.1.1).
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // The next n (at most 32) bits, not consumed; zeros past the input's end.
  uint32_t Peek(int n) {
    Fill();
    return static_cast<uint32_t>(buffer_ & ((uint64_t{1} << n) - 1));
  }
  // Consumes n bits; false when the input has fewer.
  bool Skip(int n) {
    Fill();
    if (n > count_) return false;
    buffer_ >>= n;
    count_ -= n;
    return true;
  }
  bool Take(int n, uint32_t* value) {
    *value = Peek(n);
    return Skip(n);
  }
  // Drops the rest of the current byte (a stored block starts on a byte boundary).
  void Align() { Skip(count_ % 8); }
  // Whether every byte of the input has been consumed (after Align).
  bool AtEnd() const { return pos_ == size_ && count_ == 0; }

 private:
  void Fill() {
    while (count_ <= 56 && pos_ < size_) {
      buffer_ |= uint64_t{data_[pos_++]} << count_;
      count_ += 8;
    }
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t buffer_ = 0;
  int count_ = 0;
};

// A canonical Huffman code (RFC 1951, 3.2.2) decoded through one table indexed by the next
// `max_` bits: each entry is symbol << 4 | its code's length, 0 where no code begins so.
class Huffman {
 public:
  // The code of `lengths` (0: a symbol without a code); false when over-subscribed. An incomplete
  // code is accepted (a block with one distance code has one), its missing codes decode as errors.
  bool Build(const uint8_t* lengths, int symbols) {
    int counts[16] = {};
    max_ = 0;
    for (int s = 0; s < symbols; ++s) {
      ++counts[lengths[s]];
      max_ = std::max(max_, static_cast<int>(lengths[s]));
    }
    counts[0] = 0;
    int left = 1;
    uint32_t next[16] = {};
    for (int length = 1; length < 16; ++length) {
      left = 2 * left - counts[length];
      if (left < 0) return false;
      next[length] = (next[length - 1] + static_cast<uint32_t>(counts[length - 1])) << 1;
    }
    table_.assign(size_t{1} << max_, 0);
    for (int s = 0; s < symbols; ++s) {
      const int length = lengths[s];
      if (length == 0) continue;
      const uint32_t code = next[length]++;
      uint32_t reversed = 0;  // codes are read most significant bit first
      for (int b = 0; b < length; ++b) reversed |= ((code >> b) & 1u) << (length - 1 - b);
      for (size_t at = reversed; at < table_.size(); at += size_t{1} << length)
        table_[at] = static_cast<uint16_t>(s << 4 | length);
    }
    return true;
  }

  // The next symbol, or -1 where the bits are no code of this one or the input ends.
  int Decode(BitReader& bits) const {
    if (max_ == 0) return -1;
    const uint16_t entry = table_[bits.Peek(max_)];
    if ((entry & 15) == 0 || !bits.Skip(entry & 15)) return -1;
    return entry >> 4;
  }

 private:
  int max_ = 0;
  std::vector<uint16_t> table_;
};

constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistanceBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                        33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                        1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistanceExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order of the code length code's lengths in a dynamic block's header.
constexpr uint8_t kLengthOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

bool Fail(std::string* why, const std::string& what) {
  *why = what;
  return false;
}

class Inflater {
 public:
  Inflater(BitReader& bits, size_t size, std::vector<uint8_t>* out, std::string* why)
      : bits_(bits), size_(size), out_(*out), why_(why) {}

  bool Run() {
    out_.assign(size_, 0);
    uint32_t last = 0, type = 0;
    do {
      if (!bits_.Take(1, &last) || !bits_.Take(2, &type)) return Truncated();
      bool ok = false;
      if (type == 0)
        ok = Stored();
      else if (type == 1)
        ok = Fixed();
      else if (type == 2)
        ok = Dynamic();
      else
        return Fail(why_, "a deflate block of the reserved type 3");
      if (!ok) return false;
    } while (last == 0);
    out_.resize(end_);
    return true;
  }

 private:
  bool Truncated() { return Fail(why_, "the deflate stream is truncated or holds an invalid code"); }
  bool Longer() {
    return Fail(why_, "the deflate stream holds more than " + std::to_string(size_) + " bytes");
  }

  bool Stored() {
    bits_.Align();
    uint32_t length = 0, complement = 0;
    if (!bits_.Take(16, &length) || !bits_.Take(16, &complement)) return Truncated();
    if ((length ^ 0xffffu) != complement)
      return Fail(why_, "a stored block's length does not match its complement");
    for (uint32_t k = 0; k < length; ++k) {
      uint32_t byte = 0;
      if (!bits_.Take(8, &byte)) return Truncated();
      if (end_ == size_) return Longer();
      out_[end_++] = static_cast<uint8_t>(byte);
    }
    return true;
  }

  bool Fixed() {
    uint8_t lengths[288 + 30];
    std::fill(lengths, lengths + 144, uint8_t{8});
    std::fill(lengths + 144, lengths + 256, uint8_t{9});
    std::fill(lengths + 256, lengths + 280, uint8_t{7});
    std::fill(lengths + 280, lengths + 288, uint8_t{8});
    std::fill(lengths + 288, lengths + 318, uint8_t{5});
    Huffman literals, distances;
    literals.Build(lengths, 288);
    distances.Build(lengths + 288, 30);
    return Codes(literals, distances);
  }

  bool Dynamic() {
    uint32_t hlit = 0, hdist = 0, hclen = 0;
    if (!bits_.Take(5, &hlit) || !bits_.Take(5, &hdist) || !bits_.Take(4, &hclen)) return Truncated();
    const int literal_count = static_cast<int>(hlit) + 257, distance_count = static_cast<int>(hdist) + 1;
    if (literal_count > 286 || distance_count > 30)
      return Fail(why_, "a dynamic block with more length or distance codes than deflate has");
    uint8_t code_lengths[19] = {};
    for (uint32_t k = 0; k < hclen + 4; ++k) {
      uint32_t length = 0;
      if (!bits_.Take(3, &length)) return Truncated();
      code_lengths[kLengthOrder[k]] = static_cast<uint8_t>(length);
    }
    Huffman code_length_code;
    if (!code_length_code.Build(code_lengths, 19)) return Fail(why_, "an over-subscribed code length code");
    uint8_t lengths[286 + 30] = {};
    const int total = literal_count + distance_count;
    for (int at = 0; at < total;) {
      const int symbol = code_length_code.Decode(bits_);
      if (symbol < 0) return Truncated();
      if (symbol < 16) {
        lengths[at++] = static_cast<uint8_t>(symbol);
        continue;
      }
      uint32_t extra = 0;
      const int extra_bits = symbol == 16 ? 2 : symbol == 17 ? 3 : 7;
      if (!bits_.Take(extra_bits, &extra)) return Truncated();
      const int repeat = static_cast<int>(extra) + (symbol == 18 ? 11 : 3);
      if (symbol == 16 && at == 0) return Fail(why_, "a repeated code length with none before it");
      if (at + repeat > total) return Fail(why_, "code lengths past the block's count");
      const uint8_t value = symbol == 16 ? lengths[at - 1] : uint8_t{0};
      std::fill(lengths + at, lengths + at + repeat, value);
      at += repeat;
    }
    if (lengths[256] == 0) return Fail(why_, "a dynamic block without an end-of-block code");
    Huffman literals, distances;
    if (!literals.Build(lengths, literal_count) || !distances.Build(lengths + literal_count, distance_count))
      return Fail(why_, "an over-subscribed literal or distance code");
    return Codes(literals, distances);
  }

  // A block's literals and copies, up to its end-of-block code.
  bool Codes(const Huffman& literals, const Huffman& distances) {
    for (;;) {
      const int symbol = literals.Decode(bits_);
      if (symbol < 0) return Truncated();
      if (symbol < 256) {
        if (end_ == size_) return Longer();
        out_[end_++] = static_cast<uint8_t>(symbol);
        continue;
      }
      if (symbol == 256) return true;
      const int l = symbol - 257;
      if (l >= 29) return Fail(why_, "an invalid length code");
      uint32_t extra = 0;
      if (!bits_.Take(kLengthExtra[l], &extra)) return Truncated();
      const size_t length = kLengthBase[l] + extra;
      const int d = distances.Decode(bits_);
      if (d < 0) return Truncated();
      if (d >= 30) return Fail(why_, "an invalid distance code");
      if (!bits_.Take(kDistanceExtra[d], &extra)) return Truncated();
      const size_t distance = kDistanceBase[d] + extra;
      if (distance > end_) return Fail(why_, "a copy from before the start of the output");
      if (length > size_ - end_) return Longer();
      // Byte by byte: a copy may overlap what it writes (distance < length repeats a pattern).
      uint8_t* to = out_.data() + end_;
      const uint8_t* from = to - distance;
      for (size_t k = 0; k < length; ++k) to[k] = from[k];
      end_ += length;
    }
  }

  BitReader& bits_;
  size_t size_;
  std::vector<uint8_t>& out_;  // size_ bytes, the first end_ of them written
  size_t end_ = 0;
  std::string* why_;
};

uint32_t LittleEndian32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc) {
  crc = ~crc;
  for (size_t k = 0; k < size; ++k) crc = kCrcTable[(crc ^ data[k]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

bool Gunzip(const uint8_t* data, size_t data_size, size_t size, std::vector<uint8_t>* out, std::string* why) {
  constexpr size_t kHeader = 10, kTrailer = 8;
  if (data_size < kHeader + kTrailer) return Fail(why, "shorter than a gzip member's header and trailer");
  if (data[0] != 0x1f || data[1] != 0x8b || data[2] != 8)
    return Fail(why, "not a gzip member of deflate data");
  if (data[3] != 0)
    return Fail(why, "a gzip member with a name, comment, extra field or header CRC (gzip -n writes none)");
  BitReader bits(data + kHeader, data_size - kHeader - kTrailer);
  if (!Inflater(bits, size, out, why).Run()) return false;
  bits.Align();
  if (!bits.AtEnd()) return Fail(why, "bytes between the deflate stream and the gzip trailer");
  if (out->size() != size)
    return Fail(why, "holds " + std::to_string(out->size()) + " bytes, not " + std::to_string(size));
  const uint8_t* trailer = data + data_size - kTrailer;
  if (LittleEndian32(trailer + 4) != static_cast<uint32_t>(size))
    return Fail(why, "the gzip trailer's size is not " + std::to_string(size));
  if (Crc32(out->data(), out->size()) != LittleEndian32(trailer))
    return Fail(why, "the bytes fail the gzip trailer's CRC-32");
  return true;
}

}  // namespace bankcheck::emulate::internal
