// Randomness for releases (issue #8). A release draws its noise only from the operating system's
// CSPRNG, getrandom(2) without GRND_NONBLOCK (it blocks until the kernel pool is initialised, then
// never blocks again), and fails closed: if the OS cannot deliver bytes, the caller gets an Error
// and no value, never a fallback generator.
//
// RandomBits is the one interface the exact samplers (core/release/exact_samplers.h) read bits
// through, so their algorithm logic can be tested with scripted bit strings. ReleaseRandomness is
// its only implementation in the core for releases. It is final, has no constructor taking a seed,
// cannot be copied or moved, and is unrelated to SimulationRng (core/base/simulation_rng.h): the
// release entry points take a ReleaseRandomness&, so neither a seeded simulation generator nor a
// test double can reach them. tests/core/release/tst_release_rng.cpp checks this at compile time.
// Deterministic sources (scripted bits, a seeded generator wrapped as RandomBits) exist only under
// tests/, plus the statistical audit's seeded AuditRandomness (core/audit/dp_audit.h); they are NOT
// differentially private.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/base/expected.h"

namespace dpx {

// A source of independent, uniformly distributed 64-bit words. next64() either returns a word or an
// Error; after an Error the caller must discard everything drawn for the current output (the
// samplers do). Implementations need not be thread-safe.
class RandomBits {
public:
    virtual ~RandomBits() = default;
    virtual Expected<std::uint64_t> next64() = 0;

protected:
    RandomBits() = default;
    RandomBits(const RandomBits&) = default;
    RandomBits& operator=(const RandomBits&) = default;
};

// Signature of getrandom(2); the parameter of fillFromGetrandom so that its error handling can be
// tested with a fake system call.
using GetrandomFunction = ssize_t (*)(void* buffer, std::size_t length, unsigned int flags);

// Fills `out` completely by calling `getrandom(ptr, remaining, 0)` (flags 0: blocking, /dev/urandom
// pool) until every byte is written: a short read continues where it stopped, EINTR retries, any
// other failure (or a call that returns 0 bytes, which getrandom never does for a non-empty
// request) returns an Error naming the errno. On error the contents of `out` are unspecified and
// must not be used. This is the loop ReleaseRandomness runs with ::getrandom.
Status fillFromGetrandom(std::span<std::byte> out, GetrandomFunction getrandomFn);

// 64-bit words from getrandom(2), read 256 bytes at a time (requests up to 256 bytes are never
// interrupted once the pool is initialised; fillFromGetrandom copes if they are). Each word handed
// out is overwritten with zero in the buffer, and the buffer is wiped by the destructor, so a word
// is never handed out twice. After fork() the child discards what the parent had buffered (a
// pthread_atfork handler counts forks), so parent and child never share words. A failed refill
// returns an Error and leaves no partially filled words behind; the next call tries again.
// Not thread-safe: use one object per thread.
class ReleaseRandomness final : public RandomBits {
public:
    ReleaseRandomness();
    ~ReleaseRandomness() override;
    ReleaseRandomness(const ReleaseRandomness&) = delete;
    ReleaseRandomness& operator=(const ReleaseRandomness&) = delete;
    ReleaseRandomness(ReleaseRandomness&&) = delete;
    ReleaseRandomness& operator=(ReleaseRandomness&&) = delete;

    Expected<std::uint64_t> next64() override;

private:
    static constexpr std::size_t kWords = 32;  // 256 bytes per getrandom call
    std::array<std::uint64_t, kWords> buffer_{};
    std::size_t next_ = kWords;         // index of the next unused word; kWords: empty
    std::uint64_t forkGeneration_ = 0;  // fork count when buffer_ was filled
};

}  // namespace dpx
