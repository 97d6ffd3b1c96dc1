// TEST ONLY. NOT DIFFERENTIALLY PRIVATE. Deterministic implementations of dpx::RandomBits for the
// tests of core/release/exact_samplers.h: they make the samplers' outputs predictable, which is
// exactly what a release must never be. They live under tests/ so that no production target can
// link them, and the release entry points (release*) do not accept them: those take
// dpx::ReleaseRandomness& only (tst_release_rng checks this at compile time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/release/release_rng.h"

namespace dpxtest {

// Bits from a script of '0'/'1' characters (spaces and '|' ignored), packed most significant bit
// first into 64-bit words, the last word padded with zeros or ones (`fillOnes`). When the words
// run out, next64() returns an Error ("script exhausted"), which is also how tests make the source
// fail. Running a sampler with both paddings and getting the same output shows that the output
// depends only on the scripted bits. NOT DP.
class ScriptedBits final : public dpx::RandomBits {
public:
    explicit ScriptedBits(std::string_view script, bool fillOnes = false,
                          std::size_t extraWords = 0) {
        std::uint64_t word = 0;
        unsigned used = 0;
        for (char c : script) {
            if (c == ' ' || c == '|') {
                continue;
            }
            word = (word << 1) | (c == '1' ? 1U : 0U);
            if (++used == 64) {
                words_.push_back(word);
                word = 0;
                used = 0;
            }
        }
        if (used > 0) {
            const unsigned pad = 64 - used;
            word <<= pad;
            if (fillOnes) {
                word |= (std::uint64_t{1} << pad) - 1;
            }
            words_.push_back(word);
        }
        for (std::size_t i = 0; i < extraWords; ++i) {
            words_.push_back(fillOnes ? ~std::uint64_t{0} : 0);
        }
    }
    static ScriptedBits fromWords(std::vector<std::uint64_t> words) {
        ScriptedBits s("");
        s.words_ = std::move(words);
        return s;
    }

    dpx::Expected<std::uint64_t> next64() override {
        if (next_ >= words_.size()) {
            return dpx::Error{"script exhausted after " + std::to_string(words_.size()) +
                              " words (test double)"};
        }
        return words_[next_++];
    }
    std::size_t wordsRead() const { return next_; }
    std::size_t wordCount() const { return words_.size(); }

private:
    std::vector<std::uint64_t> words_;
    std::size_t next_ = 0;
};

// A seeded xoshiro256** stream (dpx::SimulationRng) as RandomBits, for statistical tests with a
// fixed outcome. NOT DP: the seed determines every output.
class SeededTestBits final : public dpx::RandomBits {
public:
    SeededTestBits(std::uint64_t seed, std::uint64_t stream) : rng_(seed, stream) {}
    dpx::Expected<std::uint64_t> next64() override {
        ++words_;
        return rng_.next();
    }
    std::uint64_t words() const { return words_; }

private:
    dpx::SimulationRng rng_;
    std::uint64_t words_ = 0;
};

// Forwards to another source and fails from word number `failAt` (0-based) on. NOT DP.
class FailingBits final : public dpx::RandomBits {
public:
    FailingBits(dpx::RandomBits& inner, std::uint64_t failAt) : inner_(inner), failAt_(failAt) {}
    dpx::Expected<std::uint64_t> next64() override {
        if (calls_++ >= failAt_) {
            return dpx::Error{"injected failure at word " + std::to_string(calls_ - 1)};
        }
        return inner_.next64();
    }
    std::uint64_t calls() const { return calls_; }

private:
    dpx::RandomBits& inner_;
    std::uint64_t failAt_;
    std::uint64_t calls_ = 0;
};

}  // namespace dpxtest
