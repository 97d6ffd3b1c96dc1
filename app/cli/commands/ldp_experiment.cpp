#include "app/cli/commands/ldp_experiment.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>
#include <utility>

#include "app/cli/args.h"
#include "app/cli/commands/tradeoff.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/ldp/experiment.h"
#include "core/ldp/metrics.h"

namespace dpx::cli {

namespace {

constexpr std::uint64_t kMaxThreads = 1024;
// The telemetry experiment of Ding, Kulkarni & Yekhanin 2017 as repeated for low populations
// (seed 002; core/ldp/experiment.h).
const std::string kTelemetryPreset = "telemetry";

// A whole number of users ≥ 1 written as an integer or in scientific notation ("3e5").
Expected<std::uint64_t> wholeUsers(const std::string& text, const std::string& what) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!text.empty() && r.ec == std::errc() && r.ptr == text.data() + text.size()) {
        if (v < 1) {
            return Error{what + ": the number of users must be at least 1, got " + text};
        }
        return v;
    }
    auto d = parseNumber(text, what);
    if (!d) {
        return d.error();
    }
    if (!(*d >= 1 && *d <= static_cast<double>(ldp::kMaxExperimentUsers)) || *d != std::floor(*d)) {
        return Error{what + ": '" + text + "' is not a whole number of users in [1, 10^15]"};
    }
    return static_cast<std::uint64_t>(*d);
}

// The option a spec field comes from, for validate()'s messages.
std::string optionOf(const std::string& message) {
    static const std::pair<const char*, const char*> kFields[] = {
        {"protocols", "--protocols"}, {"shapes", "--shapes"},     {"buckets", "--buckets"},
        {"populations", "--users"},   {"epsilons", "--epsilons"}, {"repetitions", "--repetitions"}};
    for (const auto& [field, option] : kFields) {
        if (message.rfind(field, 0) == 0) {
            return std::string(option) + ": ";
        }
    }
    return {};
}

QJsonObject specJson(const ldp::ExperimentSpec& s, const std::optional<std::string>& preset) {
    QJsonObject o;
    o[QStringLiteral("preset")] = preset ? QJsonValue(qs(*preset)) : QJsonValue();
    QJsonArray protocols;
    for (const auto& p : s.protocols) {
        QJsonObject po;
        po[QStringLiteral("name")] = QString::fromLatin1(ldp::protocolName(p.protocol));
        po[QStringLiteral("label")] = qs(ldp::protocolLabel(p));
        if (p.protocol == ldp::Protocol::DBitFlip) {
            po[QStringLiteral("bits")] = static_cast<qint64>(p.bits);
        }
        protocols.append(po);
    }
    o[QStringLiteral("protocols")] = protocols;
    QJsonArray shapes;
    for (const auto sh : s.shapes) {
        shapes.append(QString::fromLatin1(ldp::telemetryShapeName(sh)));
    }
    o[QStringLiteral("shapes")] = shapes;
    o[QStringLiteral("buckets")] = static_cast<qint64>(s.buckets);
    o[QStringLiteral("bucket_hours")] = 24.0 / static_cast<double>(s.buckets);
    QJsonArray users;
    for (const auto n : s.populations) {
        users.append(static_cast<qint64>(n));  // ≤ 10^15 < 2^53: exact in JSON
    }
    o[QStringLiteral("users")] = users;
    QJsonArray eps;
    for (const double e : s.epsilons) {
        eps.append(e);
    }
    o[QStringLiteral("epsilons")] = eps;
    o[QStringLiteral("repetitions")] = static_cast<qint64>(s.repetitions);
    // A string: JSON numbers cannot hold every 64-bit seed exactly.
    o[QStringLiteral("seed")] = QString::number(s.seed);
    o[QStringLiteral("postprocess")] =
        QString::fromLatin1(ldp::frequencyPostProcessName(s.postProcess));
    o[QStringLiteral("points")] = static_cast<qint64>(ldp::experimentPointCount(s));
    o[QStringLiteral("work")] = ldp::experimentWork(s);
    return o;
}

QJsonObject pointJson(const ldp::ExperimentSpec& s, const ldp::ExperimentPoint& p) {
    QJsonObject o;
    o[QStringLiteral("protocol")] = qs(ldp::protocolLabel(s.protocols[p.protocol]));
    o[QStringLiteral("protocol_index")] = static_cast<qint64>(p.protocol);
    o[QStringLiteral("shape")] = QString::fromLatin1(ldp::telemetryShapeName(p.shape));
    o[QStringLiteral("users")] = static_cast<qint64>(p.users);
    o[QStringLiteral("epsilon")] = p.epsilon;
    o[QStringLiteral("max_error")] = p.maxError;
    o[QStringLiteral("max_error_ci95")] = p.maxErrorCi95;
    o[QStringLiteral("wasserstein_hours")] = p.wasserstein;
    o[QStringLiteral("wasserstein_ci95")] = p.wassersteinCi95;
    o[QStringLiteral("expected_max_error")] = p.expectedMaxError;
    o[QStringLiteral("expected_mse")] = p.expectedMse;
    return o;
}

}  // namespace

Expected<ldp::ProtocolSpec> parseExperimentProtocol(const std::string& text) {
    ldp::ProtocolSpec spec;
    std::string name = text;
    const auto colon = text.find(':');
    if (colon != std::string::npos) {
        name = text.substr(0, colon);
        const std::string d = text.substr(colon + 1);
        if (name != "dbitflip") {
            return Error{
                "--protocols: only dbitflip takes a parameter (dbitflip:D, D bits per "
                "user), got '" +
                text + "'"};
        }
        std::size_t bits = 0;
        const auto r = std::from_chars(d.data(), d.data() + d.size(), bits);
        if (d.empty() || r.ec != std::errc() || r.ptr != d.data() + d.size() || bits < 1) {
            return Error{"--protocols: in '" + text + "' the bits D must be a whole number ≥ 1"};
        }
        spec.bits = bits;
    }
    auto p = ldp::protocolFromName(name);
    if (!p) {
        return Error{"--protocols: " + p.error().message};
    }
    spec.protocol = *p;
    return spec;
}

Expected<std::vector<std::uint64_t>> parseUserGrid(const std::string& text) {
    std::vector<std::uint64_t> users;
    if (text.find(':') != std::string::npos) {
        const auto parts = split(text, ':');
        if (parts.size() != 3) {
            return Error{"--users: expected LO:HI:COUNT or N1,N2,..., got '" + text + "'"};
        }
        auto lo = wholeUsers(parts[0], "--users LO");
        if (!lo) {
            return lo.error();
        }
        auto hi = wholeUsers(parts[1], "--users HI");
        if (!hi) {
            return hi.error();
        }
        std::uint64_t count = 0;
        const auto r = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), count);
        if (parts[2].empty() || r.ec != std::errc() || r.ptr != parts[2].data() + parts[2].size() ||
            count < 1) {
            return Error{"--users: COUNT '" + parts[2] + "' is not a whole number ≥ 1"};
        }
        auto grid = logSpaced(static_cast<double>(*lo), static_cast<double>(*hi),
                              static_cast<std::size_t>(count));
        if (!grid) {
            return Error{"--users: " + grid.error().message};
        }
        for (const double v : *grid) {
            const auto n = static_cast<std::uint64_t>(std::llround(v));
            if (!users.empty() && users.back() == n) {
                return Error{"--users " + text +
                             ": rounding the log-spaced values to whole users "
                             "gives " +
                             std::to_string(n) +
                             " twice; use a smaller COUNT or a "
                             "wider range"};
            }
            users.push_back(n);
        }
        return users;
    }
    std::size_t i = 0;
    for (const auto& part : split(text, ',')) {
        auto n = wholeUsers(part, "--users item " + std::to_string(++i));
        if (!n) {
            return n.error();
        }
        users.push_back(*n);
    }
    return users;
}

int cmdLdpExperiment(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2,
                            {"preset", "protocols", "shapes", "buckets", "users", "epsilons",
                             "repetitions", "seed", "postprocess", "threads"});
    if (!args) {
        return fail(err, args.error().message);
    }
    const Args& a = *args;

    // The preset, then every explicit option over it; without a preset the four axes are needed.
    ldp::ExperimentSpec spec;
    std::optional<std::string> preset;
    if (a.has("preset")) {
        // "seed002" is the name the preset had before issue #18; still accepted.
        preset = *a.get("preset");
        if (*preset != kTelemetryPreset && *preset != "seed002") {
            return fail(err, "--preset: unknown preset '" + *preset +
                                 "' (available: " + kTelemetryPreset + ")");
        }
        preset = kTelemetryPreset;
        spec = ldp::telemetryExperimentPreset();
    } else {
        for (const char* required : {"protocols", "shapes", "users", "epsilons"}) {
            if (!a.has(required)) {
                return fail(err, std::string("missing required option --") + required +
                                     " (or start from --preset " + kTelemetryPreset + ")");
            }
        }
    }
    if (a.has("protocols")) {
        spec.protocols.clear();
        for (const auto& item : split(*a.get("protocols"), ',')) {
            auto p = parseExperimentProtocol(item);
            if (!p) {
                return fail(err, p.error().message);
            }
            spec.protocols.push_back(*p);
        }
    }
    if (a.has("shapes")) {
        spec.shapes.clear();
        for (const auto& item : split(*a.get("shapes"), ',')) {
            auto sh = ldp::telemetryShapeFromName(item);
            if (!sh) {
                return fail(err, "--shapes: " + sh.error().message);
            }
            spec.shapes.push_back(*sh);
        }
    }
    if (a.has("buckets")) {
        auto k = a.unsignedInt("buckets", 0);
        if (!k) {
            return fail(err, k.error().message);
        }
        if (*k < 2 || *k > ldp::kMaxDomain) {
            return fail(err, "--buckets must be 2 to " + std::to_string(ldp::kMaxDomain) +
                                 ", got " + *a.get("buckets"));
        }
        spec.buckets = static_cast<std::size_t>(*k);
    }
    if (a.has("users")) {
        auto users = parseUserGrid(*a.get("users"));
        if (!users) {
            return fail(err, users.error().message);
        }
        spec.populations = *users;
    }
    if (a.has("epsilons")) {
        auto eps = parseEpsilonGrid(*a.get("epsilons"));
        if (!eps) {
            return fail(err, eps.error().message);
        }
        spec.epsilons = *eps;
    }
    if (a.has("repetitions")) {
        auto r = a.unsignedInt("repetitions", 0);
        if (!r) {
            return fail(err, r.error().message);
        }
        if (*r < 1 || *r > ldp::kMaxExperimentRepetitions) {
            return fail(err, "--repetitions must be 1 to " +
                                 std::to_string(ldp::kMaxExperimentRepetitions) + ", got " +
                                 *a.get("repetitions"));
        }
        spec.repetitions = static_cast<unsigned>(*r);
    }
    auto seed = a.unsignedInt("seed", spec.seed);
    if (!seed) {
        return fail(err, seed.error().message);
    }
    spec.seed = *seed;
    if (a.has("postprocess")) {
        auto pp = ldp::frequencyPostProcessFromName(*a.get("postprocess"));
        if (!pp) {
            return fail(err, "--postprocess: " + pp.error().message);
        }
        spec.postProcess = *pp;
    }
    auto threads = a.unsignedInt("threads", 0);
    if (!threads) {
        return fail(err, threads.error().message);
    }
    if (*threads > kMaxThreads) {
        return fail(err, "--threads must be at most " + std::to_string(kMaxThreads));
    }
    if (auto s = spec.validate(); !s) {
        return fail(err, optionOf(s.error().message) + s.error().message);
    }

    const auto start = std::chrono::steady_clock::now();
    auto result = ldp::runExperiment(spec, {}, {}, static_cast<unsigned>(*threads));
    if (!result) {
        return fail(err, result.error().message, kFailure);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    QJsonObject o;
    o[QStringLiteral("spec")] = specJson(spec, preset);
    QJsonArray points;
    for (const auto& p : result->points) {
        points.append(pointJson(spec, p));
    }
    o[QStringLiteral("points")] = points;
    o[QStringLiteral("cancelled")] = result->cancelled;
    QJsonArray warnings;
    for (const auto& w : result->warnings) {
        warnings.append(qs(w));
    }
    o[QStringLiteral("warnings")] = warnings;
    o[QStringLiteral("threads")] = static_cast<qint64>(*threads);  // as given, 0: all cores
    o[QStringLiteral("seconds")] = seconds;
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
