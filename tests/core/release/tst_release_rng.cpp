// Release randomness (core/release/release_rng.h, issue #8): the type rules that keep seeded
// generators and test doubles away from the release API (compile time), the getrandom loop's
// handling of short reads, EINTR and failures (with a fake system call), and the OS source itself:
// bit balance with a bound whose false-failure probability is below 1e-10, fresh words after
// fork().
#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/release/exact_samplers.h"
#include "core/release/release_rng.h"
#include "tests/testing/random_bits_doubles.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using dpxtest::ScriptedBits;
using dpxtest::SeededTestBits;

// ---- Compile-time rules (a violation fails the build of this test) --------------------------
// ReleaseRandomness has no seed and no state to copy in or out.
static_assert(std::is_default_constructible_v<ReleaseRandomness>);
static_assert(!std::is_constructible_v<ReleaseRandomness, std::uint64_t>);
static_assert(!std::is_constructible_v<ReleaseRandomness, std::uint64_t, std::uint64_t>);
static_assert(!std::is_constructible_v<ReleaseRandomness, SimulationRng&>);
static_assert(!std::is_constructible_v<ReleaseRandomness, RandomBits&>);
static_assert(!std::is_copy_constructible_v<ReleaseRandomness>);
static_assert(!std::is_move_constructible_v<ReleaseRandomness>);
static_assert(!std::is_copy_assignable_v<ReleaseRandomness>);
static_assert(std::is_final_v<ReleaseRandomness>);  // no test double can pose as one
// The simulation generator is a different, unrelated type.
static_assert(!std::is_same_v<ReleaseRandomness, SimulationRng>);
static_assert(!std::is_base_of_v<RandomBits, SimulationRng>);
static_assert(!std::is_convertible_v<SimulationRng&, RandomBits&>);
static_assert(!std::is_convertible_v<SimulationRng&, ReleaseRandomness&>);
static_assert(!std::is_convertible_v<ScriptedBits&, ReleaseRandomness&>);
static_assert(!std::is_convertible_v<SeededTestBits&, ReleaseRandomness&>);
static_assert(!std::is_convertible_v<RandomBits&, ReleaseRandomness&>);
// The release entry points take only the OS source: not a seeded generator, not a test double,
// not the abstract interface.
using LaplaceRelease = decltype(&releaseDiscreteLaplaceNoise);
using GaussianRelease = decltype(&releaseDiscreteGaussianNoise);
using MatrixRelease = decltype(&releaseCountMechanismOutputs);
static_assert(std::is_invocable_v<LaplaceRelease, const DiscreteLaplaceParams&, std::size_t,
                                  ReleaseRandomness&>);
static_assert(!std::is_invocable_v<LaplaceRelease, const DiscreteLaplaceParams&, std::size_t,
                                   SimulationRng&>);
static_assert(
    !std::is_invocable_v<LaplaceRelease, const DiscreteLaplaceParams&, std::size_t, ScriptedBits&>);
static_assert(!std::is_invocable_v<LaplaceRelease, const DiscreteLaplaceParams&, std::size_t,
                                   SeededTestBits&>);
static_assert(
    !std::is_invocable_v<LaplaceRelease, const DiscreteLaplaceParams&, std::size_t, RandomBits&>);
static_assert(
    !std::is_invocable_v<LaplaceRelease, const DiscreteLaplaceParams&, std::size_t, std::uint64_t>);
static_assert(std::is_invocable_v<GaussianRelease, const DiscreteGaussianParams&, std::size_t,
                                  ReleaseRandomness&>);
static_assert(!std::is_invocable_v<GaussianRelease, const DiscreteGaussianParams&, std::size_t,
                                   SimulationRng&>);
static_assert(!std::is_invocable_v<GaussianRelease, const DiscreteGaussianParams&, std::size_t,
                                   SeededTestBits&>);
static_assert(
    !std::is_invocable_v<GaussianRelease, const DiscreteGaussianParams&, std::size_t, RandomBits&>);
static_assert(std::is_invocable_v<MatrixRelease, const CountMechanismSampler&,
                                  std::span<const std::size_t>, ReleaseRandomness&>);
static_assert(!std::is_invocable_v<MatrixRelease, const CountMechanismSampler&,
                                   std::span<const std::size_t>, SimulationRng&>);
static_assert(!std::is_invocable_v<MatrixRelease, const CountMechanismSampler&,
                                   std::span<const std::size_t>, ScriptedBits&>);

namespace {

// A scripted stand-in for getrandom(2): each call pops one action.
struct FakeCall {
    ssize_t result;  // bytes to write (≥ 0) or −1
    int error;       // errno when result is −1
};
std::vector<FakeCall> g_calls;
std::size_t g_next = 0;
std::vector<unsigned> g_flags;
std::vector<std::size_t> g_lengths;
unsigned char g_counter = 0;

ssize_t fakeGetrandom(void* buffer, std::size_t length, unsigned int flags) {
    g_flags.push_back(flags);
    g_lengths.push_back(length);
    if (g_next >= g_calls.size()) {
        errno = EIO;
        return -1;
    }
    const FakeCall c = g_calls[g_next++];
    if (c.result < 0) {
        errno = c.error;
        return -1;
    }
    auto* bytes = static_cast<unsigned char*>(buffer);
    const auto n = std::min<std::size_t>(static_cast<std::size_t>(c.result), length);
    for (std::size_t i = 0; i < n; ++i) {
        bytes[i] = g_counter++;
    }
    return c.result;
}

void script(std::vector<FakeCall> calls) {
    g_calls = std::move(calls);
    g_next = 0;
    g_flags.clear();
    g_lengths.clear();
    g_counter = 1;
}

}  // namespace

class TestReleaseRng : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fillCompletesShortReads();
    void fillRetriesOnEintr();
    void fillFailsClosed_data();
    void fillFailsClosed();
    void osWordsAreBalanced();
    void forkedChildGetsFreshWords();
    void releaseEntryPointsUseTheOsSource();
};

// Short reads continue where they stopped; flags are 0 (blocking; GRND_NONBLOCK not set).
void TestReleaseRng::fillCompletesShortReads() {
    script({{3, 0}, {1, 0}, {5, 0}, {7, 0}});
    std::vector<std::byte> out(16);
    DPX_VERIFY_OK(fillFromGetrandom(out, &fakeGetrandom));
    QCOMPARE(g_next, std::size_t{4});
    for (std::size_t i = 0; i < out.size(); ++i) {
        QCOMPARE(static_cast<unsigned>(out[i]), static_cast<unsigned>(i + 1));  // no gap, no repeat
    }
    QCOMPARE(g_lengths, (std::vector<std::size_t>{16, 13, 12, 7}));
    for (unsigned f : g_flags) {
        QCOMPARE(f, 0U);
    }
}

void TestReleaseRng::fillRetriesOnEintr() {
    script({{-1, EINTR}, {-1, EINTR}, {4, 0}, {-1, EINTR}, {4, 0}});
    std::vector<std::byte> out(8);
    DPX_VERIFY_OK(fillFromGetrandom(out, &fakeGetrandom));
    QCOMPARE(g_next, std::size_t{5});
    QCOMPARE(static_cast<unsigned>(out[7]), 8U);
}

void TestReleaseRng::fillFailsClosed_data() {
    QTest::addColumn<int>("firstBytes");  // bytes delivered before the failure
    QTest::addColumn<int>("result");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("needle");
    QTest::newRow("ENOSYS") << 0 << -1 << ENOSYS << QStringLiteral("getrandom");
    QTest::newRow("EFAULT after a short read") << 4 << -1 << EFAULT << QStringLiteral("errno 14");
    QTest::newRow("EAGAIN (only with GRND_NONBLOCK)")
        << 0 << -1 << EAGAIN << QStringLiteral("errno 11");
    QTest::newRow("EINVAL") << 2 << -1 << EINVAL << QStringLiteral("no random output");
    QTest::newRow("zero bytes returned") << 0 << 0 << 0 << QStringLiteral("returned 0 bytes");
    QTest::newRow("more bytes than asked") << 0 << 64 << 0 << QStringLiteral("returned 64 bytes");
}

void TestReleaseRng::fillFailsClosed() {
    QFETCH(int, firstBytes);
    QFETCH(int, result);
    QFETCH(int, error);
    QFETCH(QString, needle);
    std::vector<FakeCall> calls;
    if (firstBytes > 0) {
        calls.push_back({firstBytes, 0});
    }
    calls.push_back({result, error});
    calls.push_back({16, 0});  // would succeed if the loop went on: it must not
    script(calls);
    std::vector<std::byte> out(16);
    const QByteArray n = needle.toUtf8();
    DPX_VERIFY_ERROR(fillFromGetrandom(out, &fakeGetrandom), n.constData());
    QCOMPARE(g_next, calls.size() - 1);
}

// 2^17 words from getrandom: each of the 64 bit positions is set in Bin(N, ½) of them. Hoeffding:
// Pr[|X − N/2| ≥ t] ≤ 2·exp(−2t²/N); with t = sqrt(N·ln(2·64/α)/2) and α = 1e-10 the chance that
// any position fails for a correct source is below 1e-10.
void TestReleaseRng::osWordsAreBalanced() {
    ReleaseRandomness os;
    constexpr std::size_t n = std::size_t{1} << 17;
    std::vector<std::uint64_t> ones(64, 0);
    std::uint64_t previous = 0;
    std::size_t repeats = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Expected<std::uint64_t> w = os.next64();
        QVERIFY2(w.hasValue(), w.hasValue() ? "" : w.error().message.c_str());
        for (unsigned b = 0; b < 64; ++b) {
            ones[b] += (*w >> b) & 1U;
        }
        repeats += *w == previous ? 1 : 0;  // P(any repeat) ≈ 2^17/2^64 for a correct source
        previous = *w;
    }
    QCOMPARE(repeats, std::size_t{0});
    const double t = std::sqrt(static_cast<double>(n) * std::log(2.0 * 64 / 1e-10) / 2);
    for (unsigned b = 0; b < 64; ++b) {
        DPX_VERIFY_NEAR(static_cast<double>(ones[b]), static_cast<double>(n) / 2, t);
    }
}

// Without the fork handler, parent and child would both hand out the second buffered word.
void TestReleaseRng::forkedChildGetsFreshWords() {
    ReleaseRandomness os;
    QVERIFY(os.next64().hasValue());  // fills the 32-word buffer, hands out word 0
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const pid_t pid = ::fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        const Expected<std::uint64_t> w = os.next64();
        const std::uint64_t v = w.hasValue() ? *w : 0;
        const ssize_t written = ::write(fds[1], &v, sizeof v);
        ::_exit(written == sizeof v && w.hasValue() ? 0 : 1);
    }
    ::close(fds[1]);
    const Expected<std::uint64_t> parentWord = os.next64();
    std::uint64_t childWord = 0;
    const ssize_t got = ::read(fds[0], &childWord, sizeof childWord);
    ::close(fds[0]);
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    QCOMPARE(got, static_cast<ssize_t>(sizeof childWord));
    QVERIFY(parentWord.hasValue());
    QVERIFY2(*parentWord != childWord, "parent and child handed out the same buffered word");
}

// The release functions draw from getrandom: two calls give different noise (a repeat of 64
// discrete Laplace draws at t = 10 has probability below 0.06^64), and invalid parameters give an
// Error before any draw.
void TestReleaseRng::releaseEntryPointsUseTheOsSource() {
    ReleaseRandomness os;
    const DiscreteLaplaceParams laplace{*parseDecimal("0.1"), 1};
    const auto a = releaseDiscreteLaplaceNoise(laplace, 64, os);
    const auto b = releaseDiscreteLaplaceNoise(laplace, 64, os);
    DPX_VERIFY_OK(a);
    DPX_VERIFY_OK(b);
    QCOMPARE(a->size(), std::size_t{64});
    QVERIFY(*a != *b);
    const DiscreteGaussianParams gauss{*parseDecimal("10"), 1};
    const auto g = releaseDiscreteGaussianNoise(gauss, 64, os);
    DPX_VERIFY_OK(g);
    QCOMPARE(g->size(), std::size_t{64});
    DPX_VERIFY_ERROR(releaseDiscreteLaplaceNoise(DiscreteLaplaceParams{Rational(), 1}, 4, os),
                     "epsilon");
    DPX_VERIFY_ERROR(releaseDiscreteGaussianNoise(DiscreteGaussianParams{Rational(), 1}, 4, os),
                     "sigma");
    const auto rr = CountMechanism::fromRows({{0.75, 0.25}, {0.25, 0.75}});
    QVERIFY(rr.hasValue());
    const auto sampler = CountMechanismSampler::create(*rr);
    QVERIFY(sampler.hasValue());
    const std::vector<std::size_t> counts{0, 1, 1, 0};
    const auto outs = releaseCountMechanismOutputs(*sampler, counts, os);
    DPX_VERIFY_OK(outs);
    QCOMPARE(outs->size(), counts.size());
    const std::vector<std::size_t> bad{2};
    DPX_VERIFY_ERROR(releaseCountMechanismOutputs(*sampler, bad, os), "outside");
}

QTEST_APPLESS_MAIN(TestReleaseRng)
#include "tst_release_rng.moc"
