#include "app/cli/commands/truth.h"

#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "app/cli/commands/histogram.h"
#include "app/cli/commands/table_input.h"
#include "core/base/validation.h"
#include "core/histogram/dataset.h"

namespace dpx::cli {

namespace {

Expected<Histogram> fromCounts(const Args& a) {
    for (const char* opt : {"column", "bins", "table"}) {
        if (a.has(opt)) {
            return Error{std::string("--") + opt + " goes with --data, not --counts"};
        }
    }
    auto raw = a.numberList("counts");
    if (!raw) {
        return raw.error();
    }
    auto counts = wholeCounts(*raw, [](std::size_t i, double c) {
        return "true count " + std::to_string(i) + " must be a whole number in [0, 9e15] (got '" +
               formatNumber(c) + "')";
    });
    if (!counts) {
        return counts.error();
    }
    return Histogram::create(*counts);
}

Expected<Histogram> fromData(const Args& a) {
    if (a.all("column").size() > 1 || a.all("bins").size() > 1) {
        return Error{"several --column (each with its --bins) make a joint table: add --joint"};
    }
    if (!a.has("column") || !a.has("bins")) {
        return Error{"--data needs --column C and --bins SPEC"};
    }
    HistogramQuery q;
    q.data = *a.get("data");
    q.table = a.text("table", "");
    auto b = parseBinSpec(*a.get("bins"));
    if (!b) {
        return Error{"--bins: " + b.error().message};
    }
    q.requests.push_back({*a.get("column"), std::move(b).value()});
    auto h = histogramsFromSource(q);
    if (!h) {
        return h.error();
    }
    return h->columns.at(0).histogram;
}

}  // namespace

Expected<std::vector<std::int64_t>> wholeCounts(
    const std::vector<double>& raw,
    const std::function<std::string(std::size_t, double)>& message) {
    std::vector<std::int64_t> counts;
    counts.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const double c = raw[i];
        if (!std::isfinite(c) || std::floor(c) != c || c < 0 || c > 9e15) {
            return Error{message(i + 1, c)};
        }
        counts.push_back(static_cast<std::int64_t>(c));
    }
    return counts;
}

Expected<Args> parseWithTruthOptions(const std::vector<std::string>& argv,
                                     std::set<std::string> known) {
    known.insert(std::begin(kTruthOptions), std::end(kTruthOptions));
    known.insert(std::begin(kCountsFileOptions), std::end(kCountsFileOptions));
    known.insert("joint");
    return Args::parse(argv, 2, known, kJointFlags, kJointRepeatable);
}

Expected<Histogram> trueHistogramFromArgs(const Args& a, std::ostream* err,
                                          const char* severalAttributes, std::size_t* attributes,
                                          std::vector<std::size_t>* shape) {
    if (attributes) {
        *attributes = 1;
    }
    if (auto st = checkCountsExclusive(a); !st) {
        return st.error();
    }
    if (asksForTable(a)) {
        auto t = tableFromArgs(a);
        if (!t) {
            return t.error();
        }
        if (severalAttributes) {
            if (auto st = refuseSeveralAttributes(*t, severalAttributes); !st) {
                return st.error();
            }
        }
        if (attributes) {
            *attributes = t->table.attributeCount();
        }
        auto h = tableAsHistogram(*t, "this command", err);
        if (h && shape) {
            shape->clear();
            for (std::uint64_t size : t->table.shape()) {
                shape->push_back(static_cast<std::size_t>(size));
            }
        }
        if (h && h->total() <= 0) {
            return Error{"the true table has total 0: there is nothing to measure error against"};
        }
        return h;
    }
    if (a.has("counts") == a.has("data")) {
        return Error{
            "give the true histogram as --counts C1,C2,... or --data FILE --column C "
            "--bins SPEC (one of them)"};
    }
    auto h = a.has("counts") ? fromCounts(a) : fromData(a);
    if (h && shape) {
        *shape = {h->size()};
    }
    if (h && h->total() <= 0) {
        return Error{"the true histogram has total 0: there is nothing to measure error against"};
    }
    return h;
}

}  // namespace dpx::cli
