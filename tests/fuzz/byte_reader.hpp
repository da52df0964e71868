// Fuzz input → numbers, flags and words, read front to back (a short input reads as zeros), so
// that a seed can be written by hand (make-seeds.py) and a mutation changes one field at a time.
// Numbers lean small (most specs should get past validation and run) with a table of hostile
// values: NaN, ±Inf, negative, fractional, huge, denormal, and each limit and the value past it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace fuzz {

// What a number byte ≥ small_tags reads as (tag − small_tags indexes it); the last entry is a
// marker: the next 8 bytes are the double's bits.
// clang-format off
inline constexpr double hostile[] = {
    std::numeric_limits<double>::quiet_NaN(),
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
    -1, -0.0, 0.5, 1.5, 2.5, -2,                                   // negative, zero, fractional
    1e-300, 5e-324, 2.2250738585072014e-308,                       // tiny and denormal
    1e300, -1e300, 1.7976931348623157e308, 1e21,                   // huge
    9007199254740992.0, 9007199254740994.0, 18446744073709551616.0, // 2^53, 2^53 + 2, 2^64
    9.2233720368547758e18, 4294967295.0, 4294967296.0, 2147483648.0, // 2^63, 2^32 − 1, 2^32, 2^31
    16, 63, 64, 65, 127, 128, 129, 160, 161,                        // limits and one past
    1023, 1024, 1025, 4095, 4096, 4097, 16777215, 16777216, 16777217,
    1e6, 1000000.0000000001, -1e6, 0.1, 10, 10.000000000000002,    // entries', weightScale's
    1e-7, 0.3, 12, 32, 100,
    0 /* raw bits */};
// clang-format on
inline constexpr std::size_t hostile_count = sizeof hostile / sizeof hostile[0];
inline constexpr unsigned small_tags = 256 - unsigned(hostile_count); // tags 0 … small_tags − 1

class byte_reader {
  public:
    byte_reader(const std::uint8_t *data, std::size_t size) : data_(data), size_(size) {}

    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }

    // A small whole number 0 … 8 for most tags (so sizes usually validate), else a hostile one.
    double number() {
        const unsigned tag = byte();
        if (tag < small_tags)
            return double(tag % 9);
        const std::size_t i = tag - small_tags;
        if (i + 1 < hostile_count)
            return hostile[i];
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
            bits = bits << 8 | byte();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }

    // An entry of an explicit matrix: mostly (tag − 100) / 16, else a hostile number.
    double entry() {
        const std::uint8_t tag = byte();
        return tag < 224 ? (double(tag) - 100.0) / 16.0 : number();
    }

    // Absent for an even byte (the spec's default), else a number.
    std::optional<double> maybe() {
        if (byte() % 2 == 0)
            return std::nullopt;
        return number();
    }

    // A word: a length byte, then that many bytes (0 … 255: empty, control characters, bits of
    // UTF-8, and words longer than the 160-byte limit).
    std::string word() {
        std::string w(byte(), '\0');
        for (char &ch : w)
            ch = char(byte());
        return w;
    }

    bool exhausted() const { return at_ >= size_; }

  private:
    const std::uint8_t *data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

} // namespace fuzz
