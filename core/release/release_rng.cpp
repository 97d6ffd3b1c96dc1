#include "core/release/release_rng.h"

#include <pthread.h>
#include <sys/random.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

namespace dpx {

namespace {

// Number of fork() calls seen by this process image; the child handler runs in the child only.
std::atomic<std::uint64_t> g_forkGeneration{0};

void onForkInChild() {
    g_forkGeneration.fetch_add(1, std::memory_order_relaxed);
}

void registerForkHandlerOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        // If registration fails (ENOMEM), every next64() refills instead of trusting the buffer:
        // see forkHandlerRegistered below.
        if (pthread_atfork(nullptr, nullptr, &onForkInChild) != 0) {
            g_forkGeneration.store(~std::uint64_t{0}, std::memory_order_relaxed);
        }
    });
}

bool forkHandlerRegistered() {
    return g_forkGeneration.load(std::memory_order_relaxed) != ~std::uint64_t{0};
}

ssize_t systemGetrandom(void* buffer, std::size_t length, unsigned int flags) {
    return ::getrandom(buffer, length, flags);
}

}  // namespace

Status fillFromGetrandom(std::span<std::byte> out, GetrandomFunction getrandomFn) {
    std::size_t filled = 0;
    while (filled < out.size()) {
        errno = 0;
        const ssize_t got = getrandomFn(out.data() + filled, out.size() - filled, 0U);
        if (got < 0) {
            const int err = errno;
            if (err == EINTR) {
                continue;  // interrupted by a signal before any byte was written: retry
            }
            return Error{"the operating system's random number generator (getrandom) failed: " +
                         std::string(std::strerror(err)) + " (errno " + std::to_string(err) +
                         "); no random output was produced"};
        }
        if (got == 0 || static_cast<std::size_t>(got) > out.size() - filled) {
            return Error{"the operating system's random number generator (getrandom) returned " +
                         std::to_string(got) + " bytes for a request of " +
                         std::to_string(out.size() - filled) + "; no random output was produced"};
        }
        filled += static_cast<std::size_t>(got);  // short read: continue after the bytes received
    }
    return okStatus();
}

ReleaseRandomness::ReleaseRandomness() {
    registerForkHandlerOnce();
}

ReleaseRandomness::~ReleaseRandomness() {
    explicit_bzero(buffer_.data(), sizeof(buffer_));
}

Expected<std::uint64_t> ReleaseRandomness::next64() {
    const std::uint64_t generation = g_forkGeneration.load(std::memory_order_relaxed);
    if (next_ >= kWords || generation != forkGeneration_ || !forkHandlerRegistered()) {
        next_ = kWords;  // whatever happens below, nothing buffered before is handed out again
        explicit_bzero(buffer_.data(), sizeof(buffer_));
        const Status filled =
            fillFromGetrandom(std::as_writable_bytes(std::span(buffer_)), &systemGetrandom);
        if (!filled) {
            explicit_bzero(buffer_.data(), sizeof(buffer_));
            return filled.error();
        }
        forkGeneration_ = generation;
        next_ = 0;
    }
    const std::uint64_t word = buffer_[next_];
    buffer_[next_] = 0;
    ++next_;
    return word;
}

}  // namespace dpx
