#include "app/cli/commands/ldp.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <stop_token>
#include <thread>
#include <utility>

#include "app/cli/args.h"
#include "app/cli/commands/table_input.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/accuracy/wasserstein.h"
#include "core/base/moments.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"
#include "core/choosing/tradeoff.h"
#include "core/histogram/histogram.h"
#include "core/ldp/marginals.h"
#include "core/ldp/metrics.h"
#include "core/ldp/protocols.h"
#include "core/ldp/range.h"
#include "core/ldp/study.h"

namespace dpx::cli {

namespace {

// Shapes and rescaled data are built by largest remainders up to 10^15 users
// (core/choosing/tradeoff.h scaleToPopulation, core/ldp/metrics.h telemetryCounts).
constexpr std::uint64_t kMaxUsers = 1'000'000'000'000'000;
// The per-user simulators touch every user in every trial, and the frequency oracles hold one
// 32-bit value per user (400 MB at the limit).
constexpr std::uint64_t kMaxPerUserUsers = 100'000'000;
constexpr std::uint64_t kMaxTrials = 100'000;
constexpr std::uint64_t kMaxThreads = 1024;
// allRanges and sampleRanges stop at 2^24 ranges (core/ldp/range.h).
constexpr std::uint64_t kMaxRanges = std::uint64_t{1} << 24;
constexpr std::uint64_t kDefaultRangeSamples = 100'000;
// Ranges handled at once (generated on the fly: all 2^24 ranges of D = 5792 would take 268 MB).
constexpr std::size_t kRangeChunk = std::size_t{1} << 20;
// expectedMaxAbsNormal evaluates D error functions at 4 001 points: a few seconds at D = 2^16.
constexpr std::size_t kMaxDomainExpectedMax = std::size_t{1} << 16;
constexpr std::array<double, 3> kQuantiles{0.25, 0.5, 0.75};
constexpr double kZ95 = 1.959963984540054;

// A whole number in [lo, hi] inside --protocol or --oracle ("hh:B", "dbitflip:d", "inpht:K").
Expected<std::size_t> wholePart(const std::string& text, const std::string& what, std::size_t lo,
                                std::size_t hi) {
    std::size_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < lo ||
        v > hi) {
        return Error{what + " must be a whole number in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], got '" + text + "'"};
    }
    return v;
}

// --name as a whole number in [lo, hi] (fallback when absent); messages name the option.
Expected<std::uint64_t> wholeOption(const Args& a, const std::string& name, std::uint64_t lo,
                                    std::uint64_t hi, std::uint64_t fallback) {
    auto v = a.unsignedInt(name, fallback);
    if (!v) {
        return v.error();
    }
    if (*v < lo || *v > hi) {
        return Error{"--" + name + " must be a whole number in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], got " + *a.get(name)};
    }
    return v;
}

// ---------------------------------------------------------------------------------------------
// --protocol

enum class Family { Oracle, Hierarchical, Haar, Inpht, OneHot };

struct Plan {
    Family family = Family::Oracle;
    // Oracle: the protocol. Hierarchical: the oracle of every level (--oracle). OneHot: the
    // oracle over the 2^d cells. ε and the domain are set once they are known.
    ldp::ProtocolSpec oracle;
    std::size_t branching = 0;  // hh:B
    bool consistent = false;    // hh:B:consistent
    unsigned order = 0;         // inpht:K, onehot:K
    bool marginals() const { return family == Family::Inpht || family == Family::OneHot; }
};

const char* const kProtocolList =
    "rr, grr, oue, sue, olh, hrr, dbitflip[:d], hh:B[:consistent], haar, inpht:K or "
    "onehot:K[:ORACLE]";

// A frequency oracle: rr, grr, oue, sue, olh, hrr or dbitflip[:d] (d bits per user, default 1).
Expected<ldp::ProtocolSpec> parseOracle(const std::vector<std::string>& parts,
                                        const std::string& what) {
    auto p = ldp::protocolFromName(parts.at(0));
    if (!p) {
        return Error{what + ": " + p.error().message};
    }
    if (parts.size() > 2) {
        return Error{what + ": too many ':' in '" + parts[0] + ":" + parts[1] + ":" + parts[2] +
                     "…' (dbitflip:d is the only oracle with a parameter)"};
    }
    ldp::ProtocolSpec spec;
    spec.protocol = *p;
    if (*p == ldp::Protocol::DBitFlip && parts.size() == 2) {
        auto d =
            wholePart(parts[1], what + " dbitflip:d: the number of bits d", 1, ldp::kMaxDomain);
        if (!d) {
            return d.error();
        }
        spec.bits = *d;
    } else if (parts.size() > 1) {
        return Error{what +
                     ": only dbitflip takes a parameter (dbitflip:d, d bits per user); "
                     "got '" +
                     parts[0] + ":" + parts[1] + "'"};
    }
    return spec;
}

Expected<Plan> parseProtocol(const std::string& text) {
    const auto parts = split(text, ':');
    Plan plan;
    const std::string& name = parts[0];
    if (name == "hh") {
        if (parts.size() < 2 || parts.size() > 3 ||
            (parts.size() == 3 && parts[2] != "consistent")) {
            return Error{
                "--protocol hh: expected hh:B or hh:B:consistent (B ≥ 2 the branching "
                "factor), got '" +
                text + "'"};
        }
        auto b = wholePart(parts[1], "--protocol hh:B: the branching factor B", 2, ldp::kMaxDomain);
        if (!b) {
            return b.error();
        }
        plan.family = Family::Hierarchical;
        plan.branching = *b;
        plan.consistent = parts.size() == 3;
        return plan;
    }
    if (name == "haar") {
        if (parts.size() != 1) {
            return Error{"--protocol haar takes no parameter, got '" + text + "'"};
        }
        plan.family = Family::Haar;
        return plan;
    }
    if (name == "inpht" || name == "onehot") {
        if (parts.size() < 2 || (name == "inpht" && parts.size() > 2)) {
            return Error{
                "--protocol " + name + ": expected " +
                (name == "inpht" ? std::string("inpht:K") : std::string("onehot:K[:ORACLE]")) +
                " (K the order of the marginals), got '" + text + "'"};
        }
        auto k = wholePart(parts[1], "--protocol " + name + ":K: the marginal order K", 1,
                           ldp::kMaxAttributes);
        if (!k) {
            return k.error();
        }
        plan.order = static_cast<unsigned>(*k);
        if (name == "inpht") {
            plan.family = Family::Inpht;
            return plan;
        }
        plan.family = Family::OneHot;
        plan.oracle.protocol = ldp::Protocol::OUE;
        if (parts.size() > 2) {
            auto o = parseOracle({parts.begin() + 2, parts.end()}, "--protocol onehot:K:ORACLE");
            if (!o) {
                return o.error();
            }
            plan.oracle = *o;
        }
        return plan;
    }
    if (!ldp::protocolFromName(name)) {
        return Error{"--protocol: unknown protocol '" + text + "' (expected " + kProtocolList +
                     ")"};
    }
    auto o = parseOracle(parts, "--protocol");
    if (!o) {
        return o.error();
    }
    plan.oracle = *o;
    return plan;
}

std::string oracleLabel(const ldp::ProtocolSpec& s) {
    std::string label = ldp::protocolName(s.protocol);
    if (s.protocol == ldp::Protocol::DBitFlip) {
        label += ":" + std::to_string(s.bits);
    }
    return label;
}

// ---------------------------------------------------------------------------------------------
// The true data

struct Truth {
    std::vector<std::int64_t> counts;
    std::uint64_t users = 0;
    std::vector<double> positions;  // frequency families: of the Wasserstein metric
    std::string source;             // "shape normal", "counts", "data", ...
};

// --users N with data: the same shape scaled to exactly N users (largest remainders).
Status rescale(const Args& a, Histogram& h) {
    if (!a.has("users")) {
        return okStatus();
    }
    auto users = wholeOption(a, "users", 1, kMaxUsers, 0);
    if (!users) {
        return users.error();
    }
    auto scaled = scaleToPopulation(h, static_cast<std::int64_t>(*users));
    if (!scaled) {
        return scaled.error();
    }
    h = *scaled;
    return okStatus();
}

Truth truthOf(const Histogram& h, std::string source) {
    Truth t;
    t.counts = h.counts();
    t.users = static_cast<std::uint64_t>(h.total());
    t.source = std::move(source);
    return t;
}

// Frequency oracles, hh and haar: --shape (the telemetry study's telemetry buckets on [0, 24] h)
// with
// --domain and --users, or --counts / --data (optionally rescaled to --users).
Expected<Truth> frequencyTruth(const Args& a, std::ostream* err) {
    const bool shape = a.has("shape");
    const bool data = a.has("counts") || a.has("data") || a.has("counts-file");
    if (shape && data) {
        return Error{"--shape and --counts/--data are alternatives: give one true distribution"};
    }
    if (!shape && !data) {
        return Error{
            "give the true distribution: --shape normal|uniform|constant with --domain D "
            "and --users N, or --counts C1,C2,..., or --data FILE --column C --bins SPEC"};
    }
    if (shape) {
        for (const char* opt : {"column", "bins", "table"}) {
            if (a.has(opt)) {
                return Error{std::string("--") + opt + " goes with --data, not --shape"};
            }
        }
        const std::string name = *a.get("shape");
        auto s = ldp::telemetryShapeFromName(name);
        if (!s) {
            return Error{"--shape: " + s.error().message};
        }
        if (!a.has("domain") || !a.has("users")) {
            return Error{
                "--shape needs --domain D (the number of buckets on [0, 24] h) and "
                "--users N"};
        }
        auto domain = wholeOption(a, "domain", 2, ldp::kMaxDomain, 0);
        if (!domain) {
            return domain.error();
        }
        auto users = wholeOption(a, "users", 1, kMaxUsers, 0);
        if (!users) {
            return users.error();
        }
        auto h = ldp::telemetryCounts(*s, *domain, *users);
        if (!h) {
            return h.error();
        }
        Truth t = truthOf(*h, "shape " + name);
        t.positions = ldp::telemetryBucketCentres(*domain);
        return t;
    }
    std::size_t attributes = 1;
    auto h = trueHistogramFromArgs(a, err, nullptr, &attributes);
    if (!h) {
        return h.error();
    }
    if (attributes >= 2 && a.has("queries")) {
        return Error{"--queries: range queries over a table of " + std::to_string(attributes) +
                     " attributes taken as one vector of cells are not ranges of any attribute; "
                     "give one attribute"};
    }
    if (a.has("domain")) {
        auto domain = wholeOption(a, "domain", 2, ldp::kMaxDomain, 0);
        if (!domain) {
            return domain.error();
        }
        if (*domain != h->size()) {
            return Error{"--domain " + std::to_string(*domain) + " does not match the " +
                         std::to_string(h->size()) + " bins of the data"};
        }
    }
    if (h->size() < 2 || h->size() > ldp::kMaxDomain) {
        return Error{"the data must have 2 to " + std::to_string(ldp::kMaxDomain) +
                     " bins (the domain D of the protocol), got " + std::to_string(h->size())};
    }
    Histogram hist = *h;
    if (const Status s = rescale(a, hist); !s) {
        return s.error();
    }
    Truth t = truthOf(hist, a.has("counts")        ? "counts"
                            : a.has("counts-file") ? "counts file"
                                                   : "data");
    t.positions = hist.positions();
    return t;
}

// Marginals: the contingency table of d binary attributes as --counts (2^d cells, bit i of the
// cell index is attribute i) or --shape uniform|skewed with --users.
Expected<Truth> marginalTruth(const Args& a, unsigned attributes) {
    const std::size_t cells = std::size_t{1} << attributes;
    if (a.has("data")) {
        return Error{
            "--data does not apply to marginals: give the contingency table as --counts "
            "(2^d cells, bit i of the cell index = attribute i) or --shape "
            "uniform|skewed"};
    }
    if (a.has("domain")) {
        return Error{
            "--domain does not apply to marginals: the table has 2^d cells, d from "
            "--attributes"};
    }
    const bool shape = a.has("shape");
    if (a.has("counts-file")) {
        // A file of counts: d binary attributes (a 2 × … × 2 array, attribute i the i-th axis),
        // or the 2^d cells as one vector in the order of --counts.
        if (shape || a.has("counts")) {
            return Error{"give the contingency table one way: --counts-file, --counts or --shape"};
        }
        auto t = tableFromArgs(a);
        if (!t) {
            return t.error();
        }
        const ContingencyTable& table = t->table;
        std::vector<std::int64_t> counts(cells, 0);
        if (table.attributeCount() == 1 && table.cellCount() == CellCount{cells}) {
            counts = table.denseCounts();
        } else if (table.attributeCount() == attributes &&
                   std::all_of(table.attributes().begin(), table.attributes().end(),
                               [](const Attribute& at) { return at.size() == 2; })) {
            // The C-order index has attribute 0 as its most significant bit; the protocols' cell
            // index has attribute i as bit i.
            for (std::size_t c = 0; c < cells; ++c) {
                const auto coords = table.coordinates(c);
                std::size_t index = 0;
                for (unsigned i = 0; i < attributes; ++i) {
                    index |= static_cast<std::size_t>(coords[i]) << i;
                }
                counts[index] = table.denseCounts()[c];
            }
        } else {
            return Error{"--counts-file: a table of d = " + std::to_string(attributes) +
                         " binary attributes has 2^d = " + std::to_string(cells) +
                         " cells (a vector of them, or d axes of 2); the file holds " +
                         tableShapeText(table)};
        }
        auto h = Histogram::create(std::move(counts));
        if (!h) {
            return h.error();
        }
        if (h->total() <= 0) {
            return Error{"the true table has total 0: there is nothing to measure error against"};
        }
        Histogram hist = *h;
        if (const Status s = rescale(a, hist); !s) {
            return s.error();
        }
        return truthOf(hist, "counts file");
    }
    if (shape == a.has("counts")) {
        return Error{
            "give the contingency table as --counts C0,...,C(2^d−1) or --shape "
            "uniform|skewed with --users N (one of them)"};
    }
    if (!shape) {
        auto h = trueHistogramFromArgs(a);
        if (!h) {
            return h.error();
        }
        if (h->size() != cells) {
            return Error{"--counts: a table of d = " + std::to_string(attributes) +
                         " binary attributes has 2^d = " + std::to_string(cells) + " cells, got " +
                         std::to_string(h->size())};
        }
        Histogram hist = *h;
        if (const Status s = rescale(a, hist); !s) {
            return s.error();
        }
        return truthOf(hist, "counts");
    }
    for (const char* opt : {"column", "bins", "table"}) {
        if (a.has(opt)) {
            return Error{std::string("--") + opt + " goes with --data, not --shape"};
        }
    }
    const std::string name = *a.get("shape");
    if (name != "uniform" && name != "skewed") {
        return Error{"--shape for marginals is uniform or skewed, got '" + name + "'"};
    }
    if (!a.has("users")) {
        return Error{"--shape needs --users N"};
    }
    auto users = wholeOption(a, "users", 1, kMaxUsers, 0);
    if (!users) {
        return users.error();
    }
    // uniform: every cell 1/2^d; skewed: independent attributes with P(attribute i = 1) =
    // (i+1)/(d+2) (core/ldp/study.h), scaled to N by largest remainders.
    auto scaled = ldp::binaryAttributeTable(attributes, *users, name == "skewed");
    if (!scaled) {
        return scaled.error();
    }
    return truthOf(*scaled, "shape " + name);
}

// ---------------------------------------------------------------------------------------------
// Range workloads (seed 001 §5.3.1): all D(D+1)/2 ranges (in allRanges' order, lo then hi), K
// ranges sampled uniformly with replacement (sampleRanges, seeded), or the D prefixes [0, x].

struct Workload {
    enum class Kind { All, Sampled, Prefixes };
    Kind kind = Kind::All;
    std::size_t domain = 0;
    std::vector<ldp::Range> sampled;

    std::uint64_t count() const {
        switch (kind) {
            case Kind::All:
                return std::uint64_t{domain} * (domain + 1) / 2;
            case Kind::Sampled:
                return sampled.size();
            case Kind::Prefixes:
                return domain;
        }
        return 0;
    }
    const char* name() const {
        switch (kind) {
            case Kind::All:
                return "all ranges";
            case Kind::Sampled:
                return "sampled ranges";
            case Kind::Prefixes:
                return "prefixes";
        }
        return "?";
    }
    // f(span of ≤ kRangeChunk ranges) over the whole workload, in order; stops at an error.
    Status forEachChunk(const std::function<Status(std::span<const ldp::Range>)>& f) const {
        if (kind == Kind::Sampled) {
            for (std::size_t i = 0; i < sampled.size(); i += kRangeChunk) {
                const std::size_t n = std::min(kRangeChunk, sampled.size() - i);
                if (const Status s = f(std::span(sampled).subspan(i, n)); !s) {
                    return s;
                }
            }
            return okStatus();
        }
        std::vector<ldp::Range> buffer;
        buffer.reserve(std::min<std::uint64_t>(kRangeChunk, count()));
        auto flush = [&]() -> Status {
            if (buffer.empty()) {
                return okStatus();
            }
            const Status s = f(buffer);
            buffer.clear();
            return s;
        };
        auto push = [&](ldp::Range r) -> Status {
            buffer.push_back(r);
            return buffer.size() == kRangeChunk ? flush() : okStatus();
        };
        for (std::size_t lo = 0; lo < domain; ++lo) {
            if (kind == Kind::Prefixes) {
                if (const Status s = push(ldp::Range{0, lo}); !s) {
                    return s;
                }
                continue;
            }
            for (std::size_t hi = lo; hi < domain; ++hi) {
                if (const Status s = push(ldp::Range{lo, hi}); !s) {
                    return s;
                }
            }
        }
        return flush();
    }
};

// ---------------------------------------------------------------------------------------------
// Trials

struct TrialResult {
    std::vector<double> estimate;  // frequencies after --postprocess (frequency families)
    double maxAbs = 0;
    double w1 = 0;
    double mse = 0;
    double rangeMse = 0;                // with --queries
    std::array<double, 3> quantiles{};  // with --queries: estimated kQuantiles
    double meanTv = 0;                  // marginals
    double maxTv = 0;                   // marginals
    std::vector<std::string> warnings;
};

using TrialFn = std::function<Expected<TrialResult>(std::uint64_t trial)>;
using FoldFn = std::function<void(TrialResult&&)>;

// Runs trials 0…T−1 `window` at a time through core's parallel-trials engine (runTrialBlocks,
// one trial per block on `threads` threads) and hands the results to `fold` in trial order, so
// sums (and the output) do not depend on the number of threads. The first error (in trial order)
// is returned; an exception in a trial stops the window and is rethrown here.
Status runTrials(std::uint64_t trials, unsigned threads, std::size_t window, const TrialFn& run,
                 const FoldFn& fold) {
    std::vector<std::optional<Expected<TrialResult>>> slots;
    for (std::uint64_t begin = 0; begin < trials; begin += window) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(window, trials - begin));
        slots.assign(n, std::nullopt);
        std::stop_source stop;
        std::mutex thrownMutex;
        std::exception_ptr thrown;
        runTrialBlocks(n, 1, threads, stop.get_token(), {}, [&](std::uint64_t i) {
            try {
                slots[static_cast<std::size_t>(i)].emplace(run(begin + i));
            } catch (...) {
                const std::lock_guard lock(thrownMutex);
                if (!thrown) {
                    thrown = std::current_exception();
                }
                stop.request_stop();
            }
        });
        if (thrown) {
            std::rethrow_exception(thrown);
        }
        for (auto& slot : slots) {
            if (!slot->hasValue()) {
                return slot->error();
            }
            fold(std::move(*slot).value());
        }
    }
    return okStatus();
}

struct Summary {
    std::vector<double> values;
    QJsonObject json() const {
        const auto [mean, standardError] = meanAndStandardError(values);
        QJsonObject o{{QStringLiteral("mean"), mean}};
        if (values.size() > 1) {
            const double half = kZ95 * standardError;
            o[QStringLiteral("ci95")] = QJsonArray{mean - half, mean + half};
        } else {
            o[QStringLiteral("ci95")] = QJsonValue(QJsonValue::Null);  // one trial: no interval
        }
        return o;
    }
};

// Warnings of all trials, each once, at most 10 shown.
class Warnings {
public:
    void add(const std::vector<std::string>& ws) {
        for (const auto& w : ws) {
            if (seen_.insert(w).second) {
                order_.push_back(w);
            }
        }
    }
    QJsonArray json() const {
        QJsonArray a;
        for (std::size_t i = 0; i < order_.size() && i < 10; ++i) {
            a.append(qs(order_[i]));
        }
        if (order_.size() > 10) {
            a.append(qs("… and " + std::to_string(order_.size() - 10) + " more warnings"));
        }
        return a;
    }

private:
    std::set<std::string> seen_;
    std::vector<std::string> order_;
};

struct Common {
    double epsilon = 0;
    std::uint64_t trials = 0;
    std::uint64_t seed = 0;
    unsigned threads = 1;  // resolved (0 → all cores)
    bool perUser = false;
    std::string simulator;
};

// ---------------------------------------------------------------------------------------------
// Frequency oracles, hh and haar

struct FrequencyContext {
    Plan plan;
    Truth truth;
    std::vector<double> f;           // true frequencies
    std::vector<double> truePrefix;  // P[x] = Σ_{j < x} f_j, size D + 1
    ldp::FrequencyPostProcess post = ldp::FrequencyPostProcess::None;
    std::optional<Workload> workload;
    ldp::HierarchicalConfig hh;         // Hierarchical
    ldp::HaarConfig haar;               // Haar
    std::vector<std::uint32_t> values;  // per-user frequency oracles: one value per user
};

// Frequency metrics of one raw (unbiased) estimate: --postprocess, then max_j |f̂_j − f_j|, the
// mean over j of (f̂_j − f_j)² and W1 over the bucket positions (which clamps negatives and
// normalises itself, as seed 002 does; core/accuracy/wasserstein.h).
Expected<TrialResult> frequencyMetrics(const std::vector<double>& raw, const FrequencyContext& c) {
    auto pp = ldp::postProcessFrequencies(raw, c.post);
    if (!pp) {
        return pp.error();
    }
    TrialResult r;
    r.maxAbs = ldp::maxAbsError(*pp, c.f);
    double ss = 0;
    for (std::size_t j = 0; j < c.f.size(); ++j) {
        ss += ((*pp)[j] - c.f[j]) * ((*pp)[j] - c.f[j]);
    }
    r.mse = ss / static_cast<double>(c.f.size());
    r.w1 = wasserstein1Normalized(c.f, *pp, c.truth.positions);
    r.estimate = std::move(*pp);
    return r;
}

double trueRange(const FrequencyContext& c, ldp::Range r) {
    return c.truePrefix[r.hi + 1] - c.truePrefix[r.lo];
}

// Flat baseline (seed 001 §5.3.2, Fact 1): ranges and quantiles from the sums of the raw estimates.
Status flatQueries(const std::vector<double>& raw, const FrequencyContext& c, TrialResult& r) {
    std::vector<double> prefix(raw.size() + 1, 0.0);
    for (std::size_t j = 0; j < raw.size(); ++j) {
        prefix[j + 1] = prefix[j] + raw[j];
    }
    double ss = 0;
    const Status s = c.workload->forEachChunk([&](std::span<const ldp::Range> chunk) {
        for (const ldp::Range& q : chunk) {
            const double e = prefix[q.hi + 1] - prefix[q.lo] - trueRange(c, q);
            ss += e * e;
        }
        return okStatus();
    });
    if (!s) {
        return s;
    }
    r.rangeMse = ss / static_cast<double>(c.workload->count());
    for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
        auto x = ldp::quantileOfPrefixes(std::span(prefix).subspan(1), kQuantiles[i]);
        if (!x) {
            return x.error();
        }
        r.quantiles[i] = static_cast<double>(*x);
    }
    return okStatus();
}

// Range MSE of a hierarchical or Haar estimate over the workload (core's rangeMse per chunk).
template <class Estimate>
Status treeQueries(const Estimate& e, const FrequencyContext& c, TrialResult& r) {
    double sum = 0;
    const Status s = c.workload->forEachChunk([&](std::span<const ldp::Range> chunk) -> Status {
        auto m = ldp::rangeMse(e, c.truth.counts, chunk);
        if (!m) {
            return m.error();
        }
        sum += *m * static_cast<double>(chunk.size());
        return okStatus();
    });
    if (!s) {
        return s;
    }
    r.rangeMse = sum / static_cast<double>(c.workload->count());
    for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
        auto x = ldp::quantile(e, kQuantiles[i]);
        if (!x) {
            return x.error();
        }
        r.quantiles[i] = static_cast<double>(*x);
    }
    return okStatus();
}

// One trial's result from a hierarchical or Haar estimate and its leaf frequencies `raw`.
template <class Estimate>
Expected<TrialResult> treeTrial(const std::vector<double>& raw, const Estimate& est,
                                const FrequencyContext& c) {
    auto r = frequencyMetrics(raw, c);
    if (!r) {
        return r;
    }
    r->warnings = est.warnings;
    if (c.workload) {
        if (const Status s = treeQueries(est, c, r.value()); !s) {
            return s.error();
        }
    }
    return r;
}

Expected<TrialResult> oracleTrial(const FrequencyContext& c, const Common& common,
                                  std::uint64_t t) {
    // Trial t uses seed + t (mod 2^64): trials are independent and any one can be rerun alone.
    auto est = common.perUser
                   ? ldp::simulatePerUser(c.plan.oracle, c.values, common.seed + t, common.threads)
                   : ldp::simulateAggregate(c.plan.oracle, c.truth.counts, common.seed + t);
    if (!est) {
        return est.error();
    }
    auto r = frequencyMetrics(est->frequencies, c);
    if (r && c.workload) {
        if (const Status s = flatQueries(est->frequencies, c, r.value()); !s) {
            return s.error();
        }
    }
    return r;
}

Expected<TrialResult> hierarchicalTrial(const FrequencyContext& c, const Common& common,
                                        std::uint64_t t) {
    auto est = ldp::simulateHierarchical(c.hh, c.truth.counts, common.seed + t);
    if (!est) {
        return est.error();
    }
    if (c.plan.consistent) {
        est = ldp::makeConsistent(*est);
        if (!est) {
            return est.error();
        }
    }
    // Leaf frequencies: the leaf level (the padding beyond D is left out).
    const auto& leaves = est->levels.back();
    const std::vector<double> raw(leaves.begin(),
                                  leaves.begin() + static_cast<std::ptrdiff_t>(c.f.size()));
    return treeTrial(raw, *est, c);
}

Expected<TrialResult> haarTrial(const FrequencyContext& c, const Common& common, std::uint64_t t) {
    auto est = ldp::simulateHaarHrr(c.haar, c.truth.counts, common.seed + t);
    if (!est) {
        return est.error();
    }
    // Leaf frequencies: differences of consecutive prefixes.
    auto prefixes = ldp::allPrefixes(*est);
    if (!prefixes) {
        return prefixes.error();
    }
    std::vector<double> raw(prefixes->size());
    for (std::size_t x = 0; x < raw.size(); ++x) {
        raw[x] = x == 0 ? (*prefixes)[0] : (*prefixes)[x] - (*prefixes)[x - 1];
    }
    return treeTrial(raw, *est, c);
}

// Var[f̂_j] of the raw leaf/frequency estimates where it is known, with the method's name.
struct LeafVariances {
    std::vector<double> variance;  // empty: not known
    std::string method;
    bool independent = false;  // estimates (nearly) uncorrelated: the max-error integral applies
};

Expected<LeafVariances> leafVariances(const FrequencyContext& c) {
    LeafVariances v;
    const auto n = c.truth.users;
    switch (c.plan.family) {
        case Family::Oracle:
            for (double fj : c.f) {
                auto x = ldp::estimatorVariance(c.plan.oracle, n, fj);
                if (!x) {
                    return x.error();
                }
                v.variance.push_back(*x);
            }
            v.method =
                "exact: Var[f̂_j] of the protocol's unbiased estimator at the true f_j "
                "(core/ldp/protocols.h estimatorVariance)";
            v.independent = true;
            return v;
        case Family::Hierarchical: {
            if (c.plan.consistent) {
                v.method =
                    "not known in closed form after the consistency step (Kulkarni, PhD "
                    "thesis, §5.4.2 bounds ranges only)";
                return v;
            }
            std::vector<ldp::Range> leaves(c.f.size());
            for (std::size_t i = 0; i < leaves.size(); ++i) {
                leaves[i] = ldp::Range{i, i};
            }
            auto x = ldp::hierarchicalPredictedVariances(c.hh, c.truth.counts, leaves);
            if (!x) {
                return x.error();
            }
            v.variance = std::move(*x);
            v.method =
                "leaf-level oracle variance with N/h users plus the level split f(1 − f)(h − 1)/N "
                "(core/ldp/range.h hierarchicalPredictedVariance)";
            v.independent = true;
            return v;
        }
        case Family::Haar: {
            auto x = ldp::haarLeafVariances(c.haar, c.truth.counts);
            if (!x) {
                return x.error();
            }
            v.variance = std::move(*x);
            v.method =
                "derived (first order in 1/N): (h/N)·Σ_l (coth²(ε/2) − d_l²)/4^l − f(1 − f)/N "
                "over the Haar details d_l above the leaf";
            v.independent = false;
            return v;
        }
        case Family::Inpht:
        case Family::OneHot:
            break;
    }
    return Error{"leaf variances: not a frequency family"};
}

// Analytic range statistics over the workload: the seed's bound and the prediction where known.
Status rangeExpectations(const FrequencyContext& c, const LeafVariances& lv, QJsonObject& o) {
    const Workload& w = *c.workload;
    const auto n = c.truth.users;
    if (c.plan.family == Family::Hierarchical) {
        auto vf = ldp::hierarchicalVarianceFactor(c.hh);
        if (!vf) {
            return vf.error();
        }
        auto shape = ldp::makeHierarchy(c.f.size(), c.plan.branching);
        if (!shape) {
            return shape.error();
        }
        double bound = 0;
        double predicted = 0;
        const Status s = w.forEachChunk([&](std::span<const ldp::Range> chunk) -> Status {
            for (const ldp::Range& r : chunk) {
                auto b =
                    ldp::hierarchicalVarianceBound(*shape, r.length(), *vf, n, c.plan.consistent);
                if (!b) {
                    return b.error();
                }
                bound += *b;
            }
            if (!c.plan.consistent) {
                auto p = ldp::hierarchicalPredictedVariances(c.hh, c.truth.counts, chunk);
                if (!p) {
                    return p.error();
                }
                for (double x : *p) {
                    predicted += x;
                }
            }
            return okStatus();
        });
        if (!s) {
            return s;
        }
        const double count = static_cast<double>(w.count());
        o[QStringLiteral("variance_factor")] = *vf;
        o[QStringLiteral("variance_bound")] = bound / count;
        o[QStringLiteral("variance_bound_method")] =
            c.plan.consistent
                ? QStringLiteral(
                      "Kulkarni, PhD thesis, eq. (5.2): (B+1)/2·V_F·h·max(1, ⌈log_B r⌉)/N "
                      "(heuristic in the thesis), mean over the workload's range lengths r")
                : QStringLiteral(
                      "Kulkarni, PhD thesis, eq. (5.1): 2(B−1)·V_F·h·max(1, ⌈log_B r⌉)/N, "
                      "mean over the workload's range lengths r");
        if (!c.plan.consistent) {
            o[QStringLiteral("predicted_variance")] = predicted / count;
            o[QStringLiteral("predicted_variance_method")] = QStringLiteral(
                "Σ of the decomposition's node variances plus the level split "
                "(hierarchicalPredictedVariance): exact to first order in 1/N when a level's node "
                "estimates are uncorrelated (OUE, SUE, OLH, HRR), an upper bound for GRR");
        }
        return okStatus();
    }
    if (c.plan.family == Family::Haar) {
        auto b = ldp::haarVarianceBound(c.f.size(), c.haar.epsilon, n);
        if (!b) {
            return b.error();
        }
        o[QStringLiteral("variance_bound")] = *b;
        o[QStringLiteral("variance_bound_method")] = QStringLiteral(
            "Kulkarni, PhD thesis, eq. (5.3) with HRR's V_F = coth²(ε/2): ½·h²·V_F/N, the same "
            "for every range");
        return okStatus();
    }
    // Flat: Var of a sum of estimates is the sum of their variances when they are uncorrelated.
    const auto p = c.plan.oracle.protocol;
    // OUE, SUE: independent bits. HRR, dBitFlip: the per-value estimates are uncorrelated
    // (covariance exactly 0; measured range MSE equals Σ Var within its CI). OLH: uncorrelated in
    // the aggregate simulator; the per-user universal hash is pairwise but not three-wise
    // independent, which correlates the estimates positively. RR, GRR: negative covariances.
    const bool exact = p == ldp::Protocol::OUE || p == ldp::Protocol::SUE ||
                       p == ldp::Protocol::OLH || p == ldp::Protocol::HRR ||
                       p == ldp::Protocol::DBitFlip;
    double sum = 0;
    const Status s = w.forEachChunk([&](std::span<const ldp::Range> chunk) -> Status {
        auto v = ldp::flatRangeVariances(lv.variance, chunk);
        if (!v) {
            return v.error();
        }
        for (double x : *v) {
            sum += x;
        }
        return okStatus();
    });
    if (!s) {
        return s;
    }
    o[QStringLiteral("predicted_variance")] = sum / static_cast<double>(w.count());
    o[QStringLiteral("predicted_variance_method")] =
        exact ? QStringLiteral(
                    "Σ_{j in range} Var[f̂_j]: exact (uncorrelated per-value estimates; OLH "
                    "with the per-user universal hash: its estimates are positively correlated, "
                    "the family being pairwise but not three-wise independent, and the range "
                    "MSE can exceed this by tens of percent)")
              : QStringLiteral(
                    "Σ_{j in range} Var[f̂_j]: an upper bound (multinomial counts, "
                    "negative covariances)");
    return okStatus();
}

int runFrequency(const Args& a, Plan plan, const Common& common, std::ostream& out,
                 std::ostream& err) {
    if (a.has("attributes")) {
        return fail(err, "--attributes applies to the marginal protocols inpht:K and onehot:K");
    }
    if (a.has("oracle") && plan.family != Family::Hierarchical) {
        return fail(err, "--oracle applies to hh:B only (the oracle of every level)");
    }
    auto truth = frequencyTruth(a, &err);
    if (!truth) {
        return fail(err, truth.error().message);
    }
    FrequencyContext c;
    c.truth = std::move(*truth);
    const std::size_t domain = c.truth.counts.size();
    const std::uint64_t n = c.truth.users;
    auto post = ldp::frequencyPostProcessFromName(a.text("postprocess", "none"));
    if (!post) {
        return fail(err, "--postprocess: " + post.error().message);
    }
    c.post = *post;

    // The protocol at this ε and domain.
    switch (plan.family) {
        case Family::Oracle: {
            plan.oracle.epsilon = common.epsilon;
            plan.oracle.domain = domain;
            if (const Status s = plan.oracle.validate(); !s) {
                return fail(err, s.error().message);
            }
            break;
        }
        case Family::Hierarchical: {
            auto o = parseOracle(split(a.text("oracle", "oue"), ':'), "--oracle");
            if (!o) {
                return fail(err, o.error().message);
            }
            plan.oracle = *o;
            plan.oracle.epsilon = common.epsilon;
            plan.oracle.domain = domain;
            c.hh.oracle = plan.oracle;
            c.hh.branching = plan.branching;
            if (const Status s = c.hh.validate(); !s) {
                return fail(err, "--protocol hh:" + std::to_string(plan.branching) + ": " +
                                     s.error().message);
            }
            break;
        }
        case Family::Haar: {
            c.haar.epsilon = common.epsilon;
            c.haar.domain = domain;
            if (const Status s = c.haar.validate(); !s) {
                return fail(err, s.error().message);
            }
            break;
        }
        case Family::Inpht:
        case Family::OneHot:
            break;
    }
    c.plan = plan;
    if (common.perUser && n > kMaxPerUserUsers) {
        return fail(err, "--simulator per-user touches every user in every trial: at most " +
                             groupThousands(static_cast<long long>(kMaxPerUserUsers)) +
                             " users, got " + groupThousands(static_cast<long long>(n)) +
                             (plan.family == Family::Oracle ? " (use --simulator aggregate)" : ""));
    }

    // The workload.
    if (a.has("queries")) {
        const std::string q = *a.get("queries");
        Workload w;
        w.domain = domain;
        if (q == "ranges") {
            const std::uint64_t all = std::uint64_t{domain} * (domain + 1) / 2;
            if (a.has("range-samples") || all > kMaxRanges) {
                auto k = wholeOption(a, "range-samples", 1, kMaxRanges, kDefaultRangeSamples);
                if (!k) {
                    return fail(err, k.error().message);
                }
                auto sampled = ldp::sampleRanges(domain, *k, common.seed);
                if (!sampled) {
                    return fail(err, sampled.error().message);
                }
                w.kind = Workload::Kind::Sampled;
                w.sampled = std::move(*sampled);
            }
        } else if (q == "prefixes") {
            if (a.has("range-samples")) {
                return fail(err, "--range-samples applies to --queries ranges");
            }
            w.kind = Workload::Kind::Prefixes;
        } else {
            return fail(err, "--queries: expected ranges or prefixes, got '" + q + "'");
        }
        c.workload = std::move(w);
    } else if (a.has("range-samples")) {
        return fail(err, "--range-samples applies to --queries ranges");
    }

    c.f.resize(domain);
    c.truePrefix.assign(domain + 1, 0.0);
    std::int64_t run = 0;
    for (std::size_t j = 0; j < domain; ++j) {
        c.f[j] = static_cast<double>(c.truth.counts[j]) / static_cast<double>(n);
        run += c.truth.counts[j];
        c.truePrefix[j + 1] = static_cast<double>(run) / static_cast<double>(n);
    }
    if (common.perUser && plan.family == Family::Oracle) {
        c.values.reserve(n);
        for (std::size_t j = 0; j < domain; ++j) {
            c.values.insert(c.values.end(), static_cast<std::size_t>(c.truth.counts[j]),
                            static_cast<std::uint32_t>(j));
        }
    }

    // Trials. The per-user frequency oracles are multithreaded inside; everything else runs
    // trials side by side, at most 2^23 estimate values held at once.
    const bool innerThreads = common.perUser && plan.family == Family::Oracle;
    const unsigned trialThreads = innerThreads ? 1U : common.threads;
    const std::size_t window = std::max<std::size_t>(
        trialThreads, std::min<std::size_t>(8 * trialThreads, (std::size_t{1} << 23) / domain));
    Summary maxAbs, w1, mse, rangeMse;
    std::array<Summary, 3> quantileEst;
    std::array<Summary, 3> quantileErr;
    std::array<double, 3> trueQuantile{};
    for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
        auto x = ldp::quantileOfPrefixes(std::span(c.truePrefix).subspan(1), kQuantiles[i]);
        if (!x) {
            return fail(err, x.error());
        }
        trueQuantile[i] = static_cast<double>(*x);
    }
    std::vector<double> meanEstimate(domain, 0.0);
    Warnings warnings;
    const double trials = static_cast<double>(common.trials);
    const TrialFn trial = [&](std::uint64_t t) {
        switch (plan.family) {
            case Family::Hierarchical:
                return hierarchicalTrial(c, common, t);
            case Family::Haar:
                return haarTrial(c, common, t);
            default:
                return oracleTrial(c, common, t);
        }
    };
    const FoldFn fold = [&](TrialResult&& r) {
        for (std::size_t j = 0; j < domain; ++j) {
            meanEstimate[j] += r.estimate[j] / trials;
        }
        maxAbs.values.push_back(r.maxAbs);
        w1.values.push_back(r.w1);
        mse.values.push_back(r.mse);
        if (c.workload) {
            rangeMse.values.push_back(r.rangeMse);
            for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
                quantileEst[i].values.push_back(r.quantiles[i]);
                quantileErr[i].values.push_back(std::abs(r.quantiles[i] - trueQuantile[i]));
            }
        }
        warnings.add(r.warnings);
    };
    if (const Status s = runTrials(common.trials, trialThreads, window, trial, fold); !s) {
        return fail(err, s.error().message);
    }

    // Analytic expectations.
    auto lv = leafVariances(c);
    if (!lv) {
        return fail(err, lv.error().message);
    }
    QJsonValue expected(QJsonValue::Null);
    if (!lv->variance.empty()) {
        double sum = 0;
        for (double v : lv->variance) {
            sum += v;
        }
        QJsonObject e;
        e[QStringLiteral("applies_to")] =
            QStringLiteral("the unbiased estimate (before --postprocess)");
        e[QStringLiteral("variance")] = toArray(lv->variance);
        e[QStringLiteral("mse")] = sum / static_cast<double>(domain);
        e[QStringLiteral("mse_method")] =
            QStringLiteral("mean over the values of Var[f̂_j]; ") + qs(lv->method);
        if (!lv->independent) {
            e[QStringLiteral("max_abs_error")] = QJsonValue(QJsonValue::Null);
            e[QStringLiteral("max_abs_error_method")] = QStringLiteral(
                "not given: the leaf estimates share Haar coefficients (strongly correlated)");
        } else if (domain > kMaxDomainExpectedMax) {
            e[QStringLiteral("max_abs_error")] = QJsonValue(QJsonValue::Null);
            e[QStringLiteral("max_abs_error_method")] =
                qs("not computed for D > " + std::to_string(kMaxDomainExpectedMax) +
                   " (the integral costs D error functions at 4 001 points)");
        } else {
            const bool rr =
                plan.family == Family::Oracle && plan.oracle.protocol == ldp::Protocol::RR;
            e[QStringLiteral("max_abs_error")] =
                ldp::expectedMaxAbsError(plan.oracle.protocol, lv->variance);
            e[QStringLiteral("max_abs_error_method")] =
                rr ? QStringLiteral(
                         "normal approximation, σ·√(2/π): RR's two estimates sum to 1, "
                         "their errors mirror each other (core/ldp/metrics.h)")
                   : QStringLiteral(
                         "normal approximation, buckets independent: ∫ 1 − Π_j "
                         "(2Φ(t/σ_j) − 1) dt (core/ldp/metrics.h expectedMaxAbsNormal)");
        }
        expected = e;
    }

    QJsonObject o;
    const char* family = plan.family == Family::Hierarchical ? "hh"
                         : plan.family == Family::Haar       ? "haar"
                                                       : ldp::protocolName(plan.oracle.protocol);
    o[QStringLiteral("protocol")] = QString::fromLatin1(family);
    if (plan.family == Family::Oracle && plan.oracle.protocol == ldp::Protocol::DBitFlip) {
        o[QStringLiteral("bits")] = static_cast<double>(plan.oracle.bits);
    }
    if (plan.family == Family::Hierarchical) {
        const auto shape = *ldp::makeHierarchy(domain, plan.branching);
        o[QStringLiteral("branching")] = static_cast<double>(plan.branching);
        o[QStringLiteral("consistent")] = plan.consistent;
        o[QStringLiteral("oracle")] = qs(oracleLabel(plan.oracle));
        o[QStringLiteral("height")] = static_cast<double>(shape.height);
        o[QStringLiteral("padded_domain")] = static_cast<double>(shape.paddedDomain);
    }
    if (plan.family == Family::Haar) {
        const std::size_t padded = std::bit_ceil(domain);
        o[QStringLiteral("height")] = static_cast<double>(std::countr_zero(padded));
        o[QStringLiteral("padded_domain")] = static_cast<double>(padded);
    }
    o[QStringLiteral("epsilon")] = common.epsilon;
    o[QStringLiteral("domain")] = static_cast<double>(domain);
    o[QStringLiteral("users")] = static_cast<double>(n);
    o[QStringLiteral("data")] = qs(c.truth.source);
    o[QStringLiteral("trials")] = static_cast<double>(common.trials);
    o[QStringLiteral("seed")] = QString::number(common.seed);  // a string: 64-bit exact
    o[QStringLiteral("simulator")] = qs(common.simulator);
    o[QStringLiteral("postprocess")] = QString::fromLatin1(ldp::frequencyPostProcessName(c.post));
    if (plan.family == Family::Oracle) {
        auto k = ldp::oracleConstants(plan.oracle);
        if (!k) {
            return fail(err, k.error().message);
        }
        QJsonObject kj{{QStringLiteral("p"), k->p}, {QStringLiteral("q"), k->q}};
        if (k->hashRange > 0) {
            kj[QStringLiteral("g")] = static_cast<double>(k->hashRange);
        }
        o[QStringLiteral("constants")] = kj;
    }
    o[QStringLiteral("truth")] = toArray(c.f);
    o[QStringLiteral("mean_estimate")] = toArray(meanEstimate);
    o[QStringLiteral("max_abs_error")] = maxAbs.json();
    o[QStringLiteral("wasserstein")] = w1.json();
    o[QStringLiteral("mse")] = mse.json();
    o[QStringLiteral("expected")] = expected;
    if (expected.isNull()) {
        o[QStringLiteral("expected_note")] = qs(lv->method);
    }
    o[QStringLiteral("metrics_note")] = QStringLiteral(
        "frequencies (fractions of N) after --postprocess; max_abs_error = max_j |f̂_j − f_j| "
        "(the histogram error of the telemetry experiment after Ding, Kulkarni & Yekhanin 2017), "
        "mse = mean_j (f̂_j − f_j)², both per trial then averaged; wasserstein = W1 between truth "
        "and estimate at the bucket positions (hours on [0, 24] "
        "for --shape) after clamping negative estimates to 0 and normalising, as that experiment "
        "does, "
        "whatever --postprocess says");
    if (c.workload) {
        QJsonObject q;
        q[QStringLiteral("workload")] = QString::fromLatin1(c.workload->name());
        q[QStringLiteral("count")] = static_cast<double>(c.workload->count());
        q[QStringLiteral("mse")] = rangeMse.json();
        q[QStringLiteral("answers")] =
            plan.family == Family::Oracle
                ? QStringLiteral(
                      "flat baseline (Kulkarni, PhD thesis, §5.3.2): sums of the "
                      "unbiased frequency estimates (before --postprocess)")
            : plan.family == Family::Haar
                ? QStringLiteral("HaarHRR prefixes P(b) − P(a − 1) (Kulkarni, PhD thesis, §5.4.3)")
                : (plan.consistent
                       ? QStringLiteral("B-adic decomposition after the consistency "
                                        "step (Kulkarni, PhD thesis, §5.4.2)")
                       : QStringLiteral("B-adic decomposition (Kulkarni, PhD thesis, §5.4.1)"));
        if (const Status s = rangeExpectations(c, *lv, q); !s) {
            return fail(err, s.error().message);
        }
        o[QStringLiteral("ranges")] = q;
        QJsonArray qa;
        for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
            QJsonObject qi;
            qi[QStringLiteral("q")] = kQuantiles[i];
            qi[QStringLiteral("true")] = trueQuantile[i];
            qi[QStringLiteral("mean_estimate")] = quantileEst[i].json()[QStringLiteral("mean")];
            qi[QStringLiteral("mean_abs_error")] = quantileErr[i].json();
            qa.append(qi);
        }
        o[QStringLiteral("quantiles")] = qa;
    }
    o[QStringLiteral("warnings")] = warnings.json();
    printJson(out, o);
    return kOk;
}

// ---------------------------------------------------------------------------------------------
// Marginals

int runMarginals(const Args& a, Plan plan, const Common& common, std::ostream& out,
                 std::ostream& err) {
    for (const char* opt : {"queries", "range-samples", "oracle"}) {
        if (a.has(opt)) {
            return fail(err, std::string("--") + opt +
                                 " does not apply to marginals (inpht:K, onehot:K[:ORACLE])");
        }
    }
    if (!a.has("attributes")) {
        return fail(err, "marginals need --attributes d (the number of binary attributes, 1 to " +
                             std::to_string(ldp::kMaxAttributes) + ")");
    }
    auto d = wholeOption(a, "attributes", 1, ldp::kMaxAttributes, 0);
    if (!d) {
        return fail(err, d.error().message);
    }
    const auto attributes = static_cast<unsigned>(*d);
    if (plan.order > attributes) {
        return fail(err, "--protocol: the marginal order K = " + std::to_string(plan.order) +
                             " exceeds the number of attributes d = " + std::to_string(attributes));
    }
    const std::string postName = a.text("postprocess", "none");
    if (postName != "none" && postName != "simplex") {
        return fail(err,
                    "--postprocess for marginals: expected none or simplex (each marginal "
                    "projected onto the probability simplex), got '" +
                        postName + "'");
    }
    const auto negatives = postName == "simplex" ? ldp::NegativeEstimates::ProjectToSimplex
                                                 : ldp::NegativeEstimates::Keep;
    auto truth = marginalTruth(a, attributes);
    if (!truth) {
        return fail(err, truth.error().message);
    }
    const std::uint64_t n = truth->users;
    ldp::InphtConfig inpht;
    if (plan.family == Family::Inpht) {
        inpht.attributes = attributes;
        inpht.order = plan.order;
        inpht.epsilon = common.epsilon;
        if (const Status s = inpht.validate(); !s) {
            return fail(err, s.error().message);
        }
    } else {
        plan.oracle.epsilon = common.epsilon;
        plan.oracle.domain = std::size_t{1} << attributes;
        if (const Status s = plan.oracle.validate(); !s) {
            return fail(err, "--protocol onehot: " + s.error().message);
        }
    }
    if (common.perUser && n > kMaxPerUserUsers) {
        return fail(err, "--simulator per-user touches every user in every trial: at most " +
                             groupThousands(static_cast<long long>(kMaxPerUserUsers)) +
                             " users, got " + groupThousands(static_cast<long long>(n)));
    }
    std::vector<std::uint32_t> values;
    const bool innerThreads = common.perUser && plan.family == Family::OneHot;
    if (innerThreads) {
        values.reserve(n);
        for (std::size_t x = 0; x < truth->counts.size(); ++x) {
            values.insert(values.end(), static_cast<std::size_t>(truth->counts[x]),
                          static_cast<std::uint32_t>(x));
        }
    }
    const TrialFn trial = [&](std::uint64_t t) -> Expected<TrialResult> {
        Expected<ldp::MarginalError> e = Error{""};
        TrialResult r;
        if (plan.family == Family::Inpht) {
            auto c = ldp::simulateInpht(inpht, truth->counts, common.seed + t);
            if (!c) {
                return c.error();
            }
            r.warnings = c->warnings;
            e = ldp::marginalError(*c, truth->counts, negatives);
        } else {
            auto est =
                common.perUser
                    ? ldp::simulatePerUser(plan.oracle, values, common.seed + t, common.threads)
                    : ldp::simulateOneHot(plan.oracle, attributes, truth->counts, common.seed + t);
            if (!est) {
                return est.error();
            }
            e = ldp::marginalError(est->frequencies, attributes, plan.order, truth->counts,
                                   negatives);
        }
        if (!e) {
            return e.error();
        }
        r.meanTv = e->meanTv;
        r.maxTv = e->maxTv;
        return r;
    };
    Summary meanTv, maxTv;
    Warnings warnings;
    const FoldFn fold = [&](TrialResult&& r) {
        meanTv.values.push_back(r.meanTv);
        maxTv.values.push_back(r.maxTv);
        warnings.add(r.warnings);
    };
    const unsigned trialThreads = innerThreads ? 1U : common.threads;
    if (const Status s =
            runTrials(common.trials, trialThreads, 8 * std::size_t{trialThreads}, trial, fold);
        !s) {
        return fail(err, s.error().message);
    }
    auto masks = ldp::marginalMasks(attributes, plan.order);
    if (!masks) {
        return fail(err, masks.error().message);
    }

    QJsonObject o;
    o[QStringLiteral("protocol")] =
        plan.family == Family::Inpht ? QStringLiteral("inpht") : QStringLiteral("onehot");
    if (plan.family == Family::OneHot) {
        o[QStringLiteral("oracle")] = qs(oracleLabel(plan.oracle));
    }
    o[QStringLiteral("order")] = static_cast<double>(plan.order);
    o[QStringLiteral("attributes")] = static_cast<double>(attributes);
    o[QStringLiteral("cells")] = static_cast<double>(truth->counts.size());
    o[QStringLiteral("marginals")] = static_cast<double>(masks->size());
    o[QStringLiteral("epsilon")] = common.epsilon;
    o[QStringLiteral("users")] = static_cast<double>(n);
    o[QStringLiteral("data")] = qs(truth->source);
    o[QStringLiteral("trials")] = static_cast<double>(common.trials);
    o[QStringLiteral("seed")] = QString::number(common.seed);
    o[QStringLiteral("simulator")] = qs(common.simulator);
    o[QStringLiteral("postprocess")] = qs(postName);
    // P(attribute i = 1) in the data: the 1-way marginals, a readable summary of the table.
    std::vector<double> ones(attributes, 0.0);
    for (std::size_t x = 0; x < truth->counts.size(); ++x) {
        for (unsigned i = 0; i < attributes; ++i) {
            if ((x >> i) & 1U) {
                ones[i] += static_cast<double>(truth->counts[x]);
            }
        }
    }
    for (double& v : ones) {
        v /= static_cast<double>(n);
    }
    o[QStringLiteral("attribute_frequencies")] = toArray(ones);
    o[QStringLiteral("mean_tv")] = meanTv.json();
    o[QStringLiteral("max_tv")] = maxTv.json();
    o[QStringLiteral("metrics_note")] = QStringLiteral(
        "total variation ½·Σ_γ |Ĉ(γ) − C(γ)| of each K-way marginal (Kulkarni, PhD thesis, "
        "Definition 15): mean_tv is the mean over the C(d, K) marginals and max_tv the worst one, "
        "per trial, then "
        "averaged over trials; with --postprocess simplex each marginal is projected onto the "
        "probability simplex first");
    o[QStringLiteral("warnings")] = warnings.json();
    printJson(out, o);
    return kOk;
}

}  // namespace

int cmdLdp(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = parseWithTruthOptions(
        argv, {"protocol", "epsilon", "domain", "users", "shape", "trials", "seed", "simulator",
               "threads", "queries", "range-samples", "postprocess", "oracle", "attributes"});
    if (!args) {
        return fail(err, args.error().message);
    }
    const Args& a = *args;
    if (!a.has("protocol")) {
        return fail(err, std::string("missing required option --protocol (") + kProtocolList + ")");
    }
    auto plan = parseProtocol(*a.get("protocol"));
    if (!plan) {
        return fail(err, plan.error().message);
    }
    Common common;
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error().message);
    }
    if (!std::isfinite(*eps) || *eps <= 0) {
        return fail(err, "--epsilon (ε) must be finite and > 0, got " + *a.get("epsilon"));
    }
    common.epsilon = *eps;
    auto trials = wholeOption(a, "trials", 1, kMaxTrials, 10);
    if (!trials) {
        return fail(err, trials.error().message);
    }
    common.trials = *trials;
    auto seed = a.unsignedInt("seed", 1);
    if (!seed) {
        return fail(err, seed.error().message);
    }
    common.seed = *seed;
    auto threads = wholeOption(a, "threads", 0, kMaxThreads, 0);
    if (!threads) {
        return fail(err, threads.error().message);
    }
    common.threads = *threads == 0 ? std::max(1U, std::thread::hardware_concurrency())
                                   : static_cast<unsigned>(*threads);

    // Simulators: aggregate (the collector's statistics drawn directly) where core has one,
    // per-user (every report generated) where core has one; the default is aggregate if both.
    const bool hasAggregate = plan->family != Family::Haar && plan->family != Family::Inpht;
    const bool hasPerUser = plan->family != Family::Hierarchical;
    common.simulator = a.text("simulator", hasAggregate ? "aggregate" : "per-user");
    if (common.simulator != "aggregate" && common.simulator != "per-user") {
        return fail(err,
                    "--simulator: expected aggregate or per-user, got '" + common.simulator + "'");
    }
    common.perUser = common.simulator == "per-user";
    if (common.perUser && !hasPerUser) {
        return fail(err,
                    "--simulator per-user: hh:B is simulated from the level counts only "
                    "(core/ldp/range.h simulateHierarchical); use aggregate");
    }
    if (!common.perUser && !hasAggregate) {
        return fail(err, std::string("--simulator aggregate: ") +
                             (plan->family == Family::Haar ? "haar" : "inpht") +
                             " is simulated per user only (every report generated); use "
                             "per-user or leave --simulator out");
    }
    return plan->marginals() ? runMarginals(a, *plan, common, out, err)
                             : runFrequency(a, *plan, common, out, err);
}

}  // namespace dpx::cli
