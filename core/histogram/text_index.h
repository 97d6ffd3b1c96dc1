// The index of a Binner's text categories (issue #19, the CSV joint table): value → bin, looked up
// once per row and text column, so it is a flat open-addressing table of 32-bit bin numbers
// instead of std::unordered_map (whose lookup hashed with std::_Hash_bytes, divided by the bucket
// count and followed a node pointer: with 50 two-letter states, perf put it at a third of the
// extra time of a joint table over a one-column histogram).
//
// The keys themselves stay in the Binner's vector of categories (bin order); a slot holds a bin
// and 32 bits of the key's hash, so a probe compares a string only when those bits agree. The
// table is at most half full and doubles when it would be fuller. The hash reads a short text in
// at most two overlapping loads (so every byte counts) and folds longer ones 8 bytes at a time;
// a lookup is exact whatever the hash does, the hash only decides how long the probe runs.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace dpx {

class TextIndex {
public:
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

    // The bin of `s`, whose text is keys[bin], or kNone when `s` is not in the index. Always
    // inlined: in the CSV reader's per-row loop the call's frame and register saves cost a fifth
    // of a two-letter lookup (callgrind, issue #19).
    [[gnu::always_inline]] std::uint32_t find(std::string_view s,
                                              const std::vector<std::string>& keys) const {
        const std::uint32_t t = tag(hash(s));
        for (std::size_t i = slotOf(t);; i = (i + 1) & mask_) {
            const Slot& slot = slots_[i];
            if (slot.bin == kNone) {
                return kNone;
            }
            if (slot.tag == t) {
                const std::string& k = keys[slot.bin];
                if (k.size() == s.size() && same(k.data(), s.data(), s.size())) {
                    return slot.bin;
                }
            }
        }
    }

    // Adds `s` (not in the index) as bin `bin` (< kNone).
    void insert(std::string_view s, std::uint32_t bin) {
        if (2 * (count_ + 1) > slots_.size()) {
            grow();
        }
        place(tag(hash(s)), bin);
        ++count_;
    }

    std::size_t size() const { return count_; }

    // The hash of a text (public for the tests of the probe lengths).
    static std::uint64_t hash(std::string_view s) {
        constexpr std::uint64_t k0 = 0xA0761D6478BD642FULL, k1 = 0xE7037ED1A0B428DBULL,
                                k2 = 0x8EBC6AF09C88C6E3ULL;
        const char* p = s.data();
        const std::size_t n = s.size();
        std::uint64_t a = 0, b = 0;
        if (n >= 8) {
            a = load<std::uint64_t>(p);
            b = load<std::uint64_t>(p + n - 8);
        } else if (n >= 4) {
            a = load<std::uint32_t>(p);
            b = load<std::uint32_t>(p + n - 4);
        } else if (n > 0) {
            a = static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) |
                static_cast<std::uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
                static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16;
        }
        std::uint64_t seed = k0 ^ (n * k1);
        // Longer than 16 bytes: the bytes between the first and the last 8, 8 at a time (the last
        // load may overlap the last 8 bytes; every byte is read).
        for (std::size_t i = 8; i + 8 < n; i += 8) {
            seed = mix(load<std::uint64_t>(p + i) ^ k2, seed);
        }
        return mix(a ^ seed, b ^ k1 ^ (seed >> 7));
    }

private:
    struct Slot {
        std::uint32_t bin = kNone;
        std::uint32_t tag = 0;  // 32 bits of the hash: the slot is derived from them alone
    };

    template <typename T>
    static std::uint64_t load(const char* p) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    // The 128-bit product of a and b, its halves XORed (wyhash's "mum").
    static std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
        __extension__ typedef unsigned __int128 U128;
        const U128 r = static_cast<U128>(a) * b;
        return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
    }
    // Whether n bytes at a and b are equal: up to 16 bytes by the loads of hash() (inline; a call
    // of memcmp cost more than the rest of a two-letter lookup), memcmp beyond.
    static bool same(const char* a, const char* b, std::size_t n) {
        if (n > 16) {
            return std::memcmp(a, b, n) == 0;
        }
        if (n >= 8) {
            return load<std::uint64_t>(a) == load<std::uint64_t>(b) &&
                   load<std::uint64_t>(a + n - 8) == load<std::uint64_t>(b + n - 8);
        }
        if (n >= 4) {
            return load<std::uint32_t>(a) == load<std::uint32_t>(b) &&
                   load<std::uint32_t>(a + n - 4) == load<std::uint32_t>(b + n - 4);
        }
        // 1 to 3 bytes: positions 0, n/2 and n − 1 cover them all.
        return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
    }
    static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h ^ (h >> 32)); }
    // The home slot of a tag (Fibonacci hashing of its 32 bits); the table has at least 2 slots.
    std::size_t slotOf(std::uint32_t t) const {
        return static_cast<std::size_t>(static_cast<std::uint32_t>(t * 0x9E3779B9u) >> shift_);
    }
    void place(std::uint32_t t, std::uint32_t bin) {
        std::size_t i = slotOf(t);
        while (slots_[i].bin != kNone) {
            i = (i + 1) & mask_;
        }
        slots_[i] = {bin, t};
    }
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        const std::size_t size = 2 * old.size() < 16 ? 16 : 2 * old.size();
        slots_.assign(size, Slot{});
        mask_ = size - 1;
        shift_ = 32;
        for (std::size_t s = size; s > 1; s >>= 1) {
            --shift_;
        }
        for (const Slot& slot : old) {
            if (slot.bin != kNone) {
                place(slot.tag, slot.bin);
            }
        }
    }

    std::vector<Slot> slots_ = std::vector<Slot>(2);  // a lookup before any insert finds nothing
    std::size_t count_ = 0;
    std::size_t mask_ = 1;
    unsigned shift_ = 31;
};

}  // namespace dpx
