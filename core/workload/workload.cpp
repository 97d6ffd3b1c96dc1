// Workloads of box queries (issue #20): the text form, the queries of every kind in a fixed
// order, their answers by a summed-area table and WᵀW in closed form where the kind is a product
// of 1-D workloads.
#include "core/workload/workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "core/base/random_variates.h"
#include "core/base/simulation_rng.h"
#include "core/base/text_split.h"
#include "core/base/validation.h"

namespace dpx {

Status validateShape(const DomainShape& shape) {
    if (shape.empty() || shape.size() > 32) {
        return Error{"a domain has 1 to 32 dimensions, not " + std::to_string(shape.size())};
    }
    std::size_t cells = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 0) {
            return Error{"dimension " + std::to_string(d + 1) + " of the domain has size 0"};
        }
        if (shape[d] > kMaxWorkloadCells || cells > kMaxWorkloadCells / shape[d]) {
            return Error{"the domain has more than " + groupThousands(kMaxWorkloadCells) +
                         " cells (dimension " + std::to_string(d + 1) + ", of size " +
                         std::to_string(shape[d]) + ", takes it over the limit)"};
        }
        cells *= shape[d];
    }
    return okStatus();
}

std::size_t shapeCells(const DomainShape& shape) {
    std::size_t cells = 1;
    for (std::size_t n : shape) {
        cells *= n;
    }
    return cells;
}

// ---------------------------------------------------------------------------------------------
// Text form

namespace {

Expected<std::uint64_t> parseUnsigned(std::string_view s, std::string_view what) {
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        return Error{"workload: " + std::string(what) + " '" + std::string(s) +
                     "' is not a whole number"};
    }
    return v;
}

Expected<double> parseDouble(std::string_view s, std::string_view what) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
        return Error{"workload: " + std::string(what) + " '" + std::string(s) +
                     "' is not a finite number"};
    }
    return v;
}

std::string exactNumber(double v) {
    char buf[64];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, ptr) : std::string("nan");
}

std::string lowerCase(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

Expected<RangeQuery> parseBox(std::string_view text) {
    RangeQuery q;
    std::string_view body = text;
    if (const std::size_t star = text.find('*'); star != std::string_view::npos) {
        auto w = parseDouble(trimBlanks(text.substr(star + 1)), "box weight");
        if (!w) {
            return w.error();
        }
        q.weight = *w;
        body = trimBlanks(text.substr(0, star));
    }
    for (std::string_view range : splitTrimmed(body, 'x')) {
        const std::size_t dots = range.find("..");
        std::string_view lo = range, hi = range;
        if (dots != std::string_view::npos) {
            lo = trimBlanks(range.substr(0, dots));
            hi = trimBlanks(range.substr(dots + 2));
        }
        auto a = parseUnsigned(lo, "range start in box '" + std::string(text) + "'");
        auto b = parseUnsigned(hi, "range end in box '" + std::string(text) + "'");
        if (!a) {
            return a.error();
        }
        if (!b) {
            return b.error();
        }
        if (*a > *b) {
            return Error{"workload: the range '" + std::string(range) + "' in box '" +
                         std::string(text) + "' ends before it starts"};
        }
        q.box.push_back({*a, *b});
    }
    return q;
}

}  // namespace

namespace {
Expected<WorkloadSpec> parseSingle(std::string_view textIn);

// A leading "c*" weight of a union part: c when the text before the first '*' is a number.
std::optional<double> leadingWeight(std::string_view text, std::string_view& rest) {
    const std::size_t star = text.find('*');
    if (star == std::string_view::npos) {
        return std::nullopt;
    }
    const std::string_view head = trimBlanks(text.substr(0, star));
    double v = 0;
    const auto [ptr, ec] = std::from_chars(head.data(), head.data() + head.size(), v);
    if (head.empty() || ec != std::errc() || ptr != head.data() + head.size()) {
        return std::nullopt;
    }
    rest = trimBlanks(text.substr(star + 1));
    return v;
}
}  // namespace

Expected<WorkloadSpec> WorkloadSpec::parse(std::string_view textIn) {
    const std::string_view text = trimBlanks(textIn);
    std::string_view first = text;
    if (text.find('+') == std::string_view::npos && !leadingWeight(text, first)) {
        return parseSingle(text);
    }
    WorkloadSpec spec;
    spec.kind = WorkloadKind::Union;
    for (std::string_view part : splitTrimmed(text, '+')) {
        std::string_view body = part;
        const std::optional<double> c = leadingWeight(part, body);
        if (c && (!std::isfinite(*c) || *c <= 0)) {
            return Error{"workload: the weight of '" + std::string(part) +
                         "' must be a finite number > 0"};
        }
        auto one = parseSingle(body);
        if (!one) {
            return one.error();
        }
        spec.parts.push_back(std::move(*one));
        spec.partWeights.push_back(c.value_or(1.0));
    }
    if (spec.parts.size() > 16) {
        return Error{"workload: a union takes at most 16 parts, got " +
                     std::to_string(spec.parts.size())};
    }
    return spec;
}

namespace {

Expected<WorkloadSpec> parseSingle(std::string_view textIn) {
    const std::string_view text = trimBlanks(textIn);
    const std::size_t colon = text.find(':');
    const std::string head = lowerCase(trimBlanks(text.substr(0, colon)));
    const std::string_view rest =
        colon == std::string_view::npos ? std::string_view{} : trimBlanks(text.substr(colon + 1));
    WorkloadSpec spec;
    const auto noArgument = [&](WorkloadKind kind) -> Expected<WorkloadSpec> {
        if (colon != std::string_view::npos) {
            return Error{"workload '" + head + "' takes no argument (got '" + std::string(rest) +
                         "')"};
        }
        spec.kind = kind;
        return spec;
    };
    if (head == "identity") {
        return noArgument(WorkloadKind::Identity);
    }
    if (head == "total") {
        return noArgument(WorkloadKind::Total);
    }
    if (head == "prefix") {
        return noArgument(WorkloadKind::Prefix);
    }
    if (head == "allrange") {
        return noArgument(WorkloadKind::AllRange);
    }
    if (colon == std::string_view::npos || rest.empty()) {
        if (head == "range" || head == "marginals" || head == "rectangles" || head == "boxes") {
            return Error{"workload '" + head + "' needs an argument, e.g. " +
                         (head == "range"        ? "range:2000"
                          : head == "marginals"  ? "marginals:1,2"
                          : head == "rectangles" ? "rectangles:4x4"
                                                 : "boxes:0..3;5..9")};
        }
        return Error{"unknown workload '" + std::string(text) +
                     "'; known: identity, total, prefix, allrange, range:COUNT[:seed=S], "
                     "marginals:K[,K...], rectangles:AxB, boxes:LO..HI[xLO..HI][;...]"};
    }
    if (head == "range") {
        spec.kind = WorkloadKind::RandomRange;
        const auto parts = splitTrimmed(rest, ':');
        if (parts.size() > 2) {
            return Error{"workload 'range:" + std::string(rest) +
                         "': expected range:COUNT or range:COUNT:seed=S"};
        }
        auto count = parseUnsigned(parts[0], "query count");
        if (!count) {
            return count.error();
        }
        if (*count < 1 || *count > 10'000'000) {
            return Error{"workload: the number of random ranges must be in 1..10,000,000, not " +
                         std::to_string(*count)};
        }
        spec.count = *count;
        if (parts.size() == 2) {
            if (parts[1].substr(0, 5) != "seed=") {
                return Error{"workload: expected 'seed=S' after the count, got '" +
                             std::string(parts[1]) + "'"};
            }
            auto seed = parseUnsigned(parts[1].substr(5), "seed");
            if (!seed) {
                return seed.error();
            }
            spec.seed = *seed;
        }
        return spec;
    }
    if (head == "marginals") {
        spec.kind = WorkloadKind::Marginals;
        for (std::string_view part : splitTrimmed(rest, ',')) {
            auto k = parseUnsigned(part, "marginal order");
            if (!k) {
                return k.error();
            }
            if (*k < 1 || *k > 32) {
                return Error{"workload: a marginal order must be in 1..32, not " +
                             std::to_string(*k)};
            }
            if (std::find(spec.ways.begin(), spec.ways.end(), *k) != spec.ways.end()) {
                return Error{"workload: the marginal order " + std::to_string(*k) +
                             " is listed twice"};
            }
            spec.ways.push_back(static_cast<std::size_t>(*k));
        }
        return spec;
    }
    if (head == "rectangles") {
        spec.kind = WorkloadKind::Rectangles;
        for (std::string_view part : splitTrimmed(rest, 'x')) {
            auto e = parseUnsigned(part, "rectangle extent");
            if (!e) {
                return e.error();
            }
            if (*e < 1) {
                return Error{"workload: a rectangle extent must be at least 1"};
            }
            spec.extent.push_back(static_cast<std::size_t>(*e));
        }
        return spec;
    }
    if (head == "boxes") {
        spec.kind = WorkloadKind::Boxes;
        for (std::string_view part : splitTrimmed(rest, ';')) {
            auto q = parseBox(part);
            if (!q) {
                return q.error();
            }
            spec.boxes.push_back(std::move(*q));
        }
        return spec;
    }
    return Error{"unknown workload '" + std::string(head) +
                 "'; known: identity, total, prefix, allrange, range:COUNT[:seed=S], "
                 "marginals:K[,K...], rectangles:AxB, boxes:LO..HI[xLO..HI][;...]"};
}

}  // namespace

std::string WorkloadSpec::text() const {
    switch (kind) {
        case WorkloadKind::Union: {
            std::string out;
            for (std::size_t i = 0; i < parts.size(); ++i) {
                out += i ? " + " : "";
                if (i < partWeights.size() && partWeights[i] != 1) {
                    out += exactNumber(partWeights[i]) + "*";
                }
                out += parts[i].text();
            }
            return out;
        }
        case WorkloadKind::Identity:
            return "identity";
        case WorkloadKind::Total:
            return "total";
        case WorkloadKind::Prefix:
            return "prefix";
        case WorkloadKind::AllRange:
            return "allrange";
        case WorkloadKind::RandomRange:
            return "range:" + std::to_string(count) +
                   (seed == WorkloadSpec{}.seed ? "" : ":seed=" + std::to_string(seed));
        case WorkloadKind::Marginals: {
            std::string out = "marginals:";
            for (std::size_t i = 0; i < ways.size(); ++i) {
                out += (i ? "," : "") + std::to_string(ways[i]);
            }
            return out;
        }
        case WorkloadKind::Rectangles: {
            std::string out = "rectangles:";
            for (std::size_t i = 0; i < extent.size(); ++i) {
                out += (i ? "x" : "") + std::to_string(extent[i]);
            }
            return out;
        }
        case WorkloadKind::Boxes: {
            std::string out = "boxes:";
            for (std::size_t i = 0; i < boxes.size(); ++i) {
                out += i ? ";" : "";
                for (std::size_t d = 0; d < boxes[i].box.size(); ++d) {
                    out += (d ? "x" : "") + std::to_string(boxes[i].box[d].lo) + ".." +
                           std::to_string(boxes[i].box[d].hi);
                }
                if (boxes[i].weight != 1) {
                    out += "*" + exactNumber(boxes[i].weight);
                }
            }
            return out;
        }
    }
    return "identity";
}

// ---------------------------------------------------------------------------------------------
// Query enumeration

namespace {

// Number of boxes [a, b] ⊆ [0, n).
std::uint64_t rangesIn(std::uint64_t n) {
    return n * (n + 1) / 2;
}

// The p-th range of [0, n) in the order (a ascending, then b ascending): a is the largest a with
// F(a) = a·n − a(a−1)/2 ≤ p (the number of ranges starting before a).
BinRange rangeAt(std::uint64_t n, std::uint64_t p) {
    const auto before = [n](std::uint64_t a) { return a * n - a * (a - 1) / 2; };
    const double nd = static_cast<double>(n);
    const double disc = (nd + 0.5) * (nd + 0.5) - 2.0 * static_cast<double>(p);
    auto a = static_cast<std::uint64_t>(std::max(0.0, nd + 0.5 - std::sqrt(std::max(0.0, disc))));
    a = std::min(a, n - 1);
    while (a > 0 && before(a) > p) {
        --a;
    }
    while (a + 1 < n && before(a + 1) <= p) {
        ++a;
    }
    return {a, a + (p - before(a))};
}

// e_k of the sizes shape[j..]: esp[j][t] = Σ over t-subsets of {j, …, d−1} of ∏ sizes.
std::vector<std::vector<std::uint64_t>> suffixSymmetric(const DomainShape& shape, std::size_t k) {
    const std::size_t d = shape.size();
    std::vector<std::vector<std::uint64_t>> e(d + 1, std::vector<std::uint64_t>(k + 1, 0));
    e[d][0] = 1;
    for (std::size_t j = d; j-- > 0;) {
        e[j][0] = 1;
        for (std::size_t t = 1; t <= k; ++t) {
            e[j][t] = e[j + 1][t] + shape[j] * e[j + 1][t - 1];
        }
    }
    return e;
}

std::uint64_t countQueries(const WorkloadSpec& spec, const DomainShape& shape, std::size_t drawn) {
    std::uint64_t q = 1;
    switch (spec.kind) {
        case WorkloadKind::Identity:
        case WorkloadKind::Prefix:
            return shapeCells(shape);
        case WorkloadKind::Total:
            return 1;
        case WorkloadKind::AllRange:
            for (std::size_t n : shape) {
                q *= rangesIn(n);
            }
            return q;
        case WorkloadKind::Rectangles:
            for (std::size_t d = 0; d < shape.size(); ++d) {
                q *= shape[d] - spec.extent[d] + 1;
            }
            return q;
        case WorkloadKind::Marginals: {
            q = 0;
            for (std::size_t k : spec.ways) {
                q += suffixSymmetric(shape, k)[0][k];
            }
            return q;
        }
        case WorkloadKind::RandomRange:
        case WorkloadKind::Boxes:
            return drawn;
        case WorkloadKind::Union:
            return 0;  // set by make() from the parts
    }
    return 0;
}

// The multi-index of a C-order flat index.
std::vector<std::uint64_t> unflatten(std::uint64_t i, const std::vector<std::uint64_t>& sizes) {
    std::vector<std::uint64_t> idx(sizes.size());
    for (std::size_t d = sizes.size(); d-- > 0;) {
        idx[d] = i % sizes[d];
        i /= sizes[d];
    }
    return idx;
}

std::string shapeText(const DomainShape& shape) {
    std::string out;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        out += (d ? " × " : "") + std::to_string(shape[d]);
    }
    return out;
}

}  // namespace

Expected<Workload> Workload::make(const WorkloadSpec& spec, DomainShape shape) {
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    const std::size_t dims = shape.size();
    Workload w;
    w.spec_ = spec;
    switch (spec.kind) {
        case WorkloadKind::RandomRange: {
            if (spec.count < 1 || spec.count > 10'000'000) {
                return Error{
                    "workload: the number of random ranges must be in 1..10,000,000, not " +
                    std::to_string(spec.count)};
            }
            // DPBench / ektelo RandomRange: per query, the extents of every dimension first
            // (uniform in 1..n_d), then the lower ends (uniform in 0..n_d − w_d). Same distribution
            // as the peer's, from our generator.
            SimulationRng rng(spec.seed, 0x52414e4745ULL);  // stream "RANGE"
            w.drawn_.reserve(spec.count);
            std::vector<std::uint64_t> width(dims);
            for (std::uint64_t i = 0; i < spec.count; ++i) {
                RangeQuery q;
                q.box.resize(dims);
                for (std::size_t d = 0; d < dims; ++d) {
                    width[d] = 1 + uniformInt(rng, shape[d]);
                }
                for (std::size_t d = 0; d < dims; ++d) {
                    const std::uint64_t lo = uniformInt(rng, shape[d] - width[d] + 1);
                    q.box[d] = {lo, lo + width[d] - 1};
                }
                w.drawn_.push_back(std::move(q));
            }
            break;
        }
        case WorkloadKind::Boxes:
            if (spec.boxes.empty()) {
                return Error{"workload: the list of boxes is empty"};
            }
            for (std::size_t i = 0; i < spec.boxes.size(); ++i) {
                const RangeQuery& q = spec.boxes[i];
                if (q.box.size() != dims) {
                    return Error{"workload: box " + std::to_string(i + 1) + " has " +
                                 std::to_string(q.box.size()) + " ranges but the domain has " +
                                 std::to_string(dims) + " dimensions"};
                }
                if (!std::isfinite(q.weight)) {
                    return Error{"workload: box " + std::to_string(i + 1) +
                                 " has a non-finite weight"};
                }
                for (std::size_t d = 0; d < dims; ++d) {
                    if (q.box[d].lo > q.box[d].hi || q.box[d].hi >= shape[d]) {
                        return Error{"workload: box " + std::to_string(i + 1) + " range " +
                                     std::to_string(q.box[d].lo) + ".." +
                                     std::to_string(q.box[d].hi) + " on dimension " +
                                     std::to_string(d + 1) + " is outside 0.." +
                                     std::to_string(shape[d] - 1)};
                    }
                }
            }
            w.drawn_ = spec.boxes;
            break;
        case WorkloadKind::Marginals:
            if (spec.ways.empty()) {
                return Error{"workload: marginals need at least one order (e.g. marginals:1,2)"};
            }
            for (std::size_t k : spec.ways) {
                if (k < 1 || k > dims) {
                    return Error{"workload: a " + std::to_string(k) + "-way marginal needs " +
                                 std::to_string(k) + " dimensions but the domain has " +
                                 std::to_string(dims)};
                }
            }
            for (std::size_t i = 0; i < spec.ways.size(); ++i) {
                for (std::size_t j = 0; j < i; ++j) {
                    if (spec.ways[i] == spec.ways[j]) {
                        return Error{"workload: the marginal order " +
                                     std::to_string(spec.ways[i]) + " is listed twice"};
                    }
                }
            }
            break;
        case WorkloadKind::Union: {
            if (spec.parts.empty() || spec.parts.size() != spec.partWeights.size()) {
                return Error{"workload: a union needs its parts, one weight each"};
            }
            std::uint64_t total = 0;
            for (std::size_t i = 0; i < spec.parts.size(); ++i) {
                if (spec.parts[i].kind == WorkloadKind::Union) {
                    return Error{"workload: a union's part cannot be a union"};
                }
                const double c = spec.partWeights[i];
                if (!std::isfinite(c) || c <= 0) {
                    return Error{"workload: a union's weights must be finite and > 0"};
                }
                auto part = Workload::make(spec.parts[i], shape);
                if (!part) {
                    return part.error();
                }
                total += part->queryCount();
                w.parts_.push_back(std::move(*part));
            }
            w.shape_ = std::move(shape);
            w.queryCount_ = total;
            return w;
        }
        case WorkloadKind::Rectangles:
            if (spec.extent.size() != dims) {
                return Error{"workload: rectangles need one extent per dimension (" +
                             std::to_string(dims) + "), got " + std::to_string(spec.extent.size())};
            }
            for (std::size_t d = 0; d < dims; ++d) {
                if (spec.extent[d] < 1 || spec.extent[d] > shape[d]) {
                    return Error{"workload: the rectangle extent " +
                                 std::to_string(spec.extent[d]) + " on dimension " +
                                 std::to_string(d + 1) + " is outside 1.." +
                                 std::to_string(shape[d])};
                }
            }
            break;
        default:
            break;
    }
    w.shape_ = std::move(shape);
    w.queryCount_ = countQueries(spec, w.shape_, w.drawn_.size());
    return w;
}

// The order per kind is documented at query() in workload.h.
RangeQuery Workload::query(std::uint64_t i) const {
    const std::size_t dims = shape_.size();
    RangeQuery q;
    q.box.resize(dims);
    std::vector<std::uint64_t> sizes(shape_.begin(), shape_.end());
    switch (spec_.kind) {
        case WorkloadKind::Identity: {
            const auto idx = unflatten(i, sizes);
            for (std::size_t d = 0; d < dims; ++d) {
                q.box[d] = {idx[d], idx[d]};
            }
            return q;
        }
        case WorkloadKind::Total:
            for (std::size_t d = 0; d < dims; ++d) {
                q.box[d] = {0, sizes[d] - 1};
            }
            return q;
        case WorkloadKind::Prefix: {
            const auto idx = unflatten(i, sizes);
            for (std::size_t d = 0; d < dims; ++d) {
                q.box[d] = {0, idx[d]};
            }
            return q;
        }
        case WorkloadKind::AllRange: {
            std::vector<std::uint64_t> counts(dims);
            for (std::size_t d = 0; d < dims; ++d) {
                counts[d] = rangesIn(sizes[d]);
            }
            const auto idx = unflatten(i, counts);
            for (std::size_t d = 0; d < dims; ++d) {
                q.box[d] = rangeAt(sizes[d], idx[d]);
            }
            return q;
        }
        case WorkloadKind::Rectangles: {
            std::vector<std::uint64_t> counts(dims);
            for (std::size_t d = 0; d < dims; ++d) {
                counts[d] = sizes[d] - spec_.extent[d] + 1;
            }
            const auto idx = unflatten(i, counts);
            for (std::size_t d = 0; d < dims; ++d) {
                q.box[d] = {idx[d], idx[d] + spec_.extent[d] - 1};
            }
            return q;
        }
        case WorkloadKind::RandomRange:
        case WorkloadKind::Boxes:
            return drawn_[i];
        case WorkloadKind::Union:
            for (std::size_t p = 0; p < parts_.size(); ++p) {
                if (i < parts_[p].queryCount()) {
                    RangeQuery pq = parts_[p].query(i);
                    pq.weight *= spec_.partWeights[p];
                    return pq;
                }
                i -= parts_[p].queryCount();
            }
            return q;
        case WorkloadKind::Marginals: {
            for (std::size_t k : spec_.ways) {
                const auto e = suffixSymmetric(shape_, k);
                if (i >= e[0][k]) {
                    i -= e[0][k];
                    continue;
                }
                // Choose the subset's members one by one (lexicographic order): with the product P
                // of the sizes chosen so far, the queries whose next member is j number
                // P·shape[j]·e_{t−1}(shape[j+1..]). The rest of i is the cell, in C order over the
                // members.
                std::vector<std::size_t> members;
                std::uint64_t chosen = 1;
                std::size_t j = 0;
                for (std::size_t t = k; t > 0; --t) {
                    while (true) {
                        const std::uint64_t withJ = chosen * sizes[j] * e[j + 1][t - 1];
                        if (i < withJ) {
                            break;
                        }
                        i -= withJ;
                        ++j;
                    }
                    members.push_back(j);
                    chosen *= sizes[j];
                    ++j;
                }
                for (std::size_t m = members.size(); m-- > 0;) {
                    const std::uint64_t value = i % sizes[members[m]];
                    i /= sizes[members[m]];
                    q.box[members[m]] = {value, value};
                }
                for (std::size_t d = 0; d < dims; ++d) {
                    if (std::find(members.begin(), members.end(), d) == members.end()) {
                        q.box[d] = {0, sizes[d] - 1};
                    }
                }
                return q;
            }
            return q;
        }
    }
    return q;
}

Expected<std::vector<double>> Workload::answers(std::span<const double> x) const {
    const std::size_t cells = shapeCells(shape_);
    if (x.size() != cells) {
        return Error{"workload answers: the data has " + std::to_string(x.size()) +
                     " cells but the domain has " + std::to_string(cells)};
    }
    if (!explicitQueries()) {
        return Error{"workload answers: " + describe() + " are too many to answer one by one " +
                     "(limit " + groupThousands(static_cast<long long>(kMaxExplicitQueries)) + ")"};
    }
    const std::size_t dims = shape_.size();
    // Inclusive summed-area table S[i] = Σ_{j ≤ i componentwise} x[j], one prefix pass per
    // dimension (long double keeps the cancellation of the inclusion–exclusion small).
    std::vector<long double> s(x.begin(), x.end());
    std::vector<std::size_t> stride(dims, 1);
    for (std::size_t d = dims - 1; d-- > 0;) {
        stride[d] = stride[d + 1] * shape_[d + 1];
    }
    for (std::size_t d = 0; d < dims; ++d) {
        const std::size_t n = shape_[d], st = stride[d];
        for (std::size_t c = 0; c < cells; ++c) {
            if ((c / st) % n != 0) {
                s[c] += s[c - st];
            }
        }
    }
    std::vector<double> out(queryCount_);
    std::vector<std::size_t> lowDims;
    for (std::uint64_t qi = 0; qi < queryCount_; ++qi) {
        const RangeQuery q = query(qi);
        // Σ over the box = Σ over corners of (−1)^{#lower} S[corner], where a dimension with
        // lo = 0 has no lower corner.
        lowDims.clear();
        std::size_t top = 0;
        for (std::size_t d = 0; d < dims; ++d) {
            top += static_cast<std::size_t>(q.box[d].hi) * stride[d];
            if (q.box[d].lo > 0) {
                lowDims.push_back(d);
            }
        }
        long double sum = 0;
        const std::size_t corners = std::size_t{1} << lowDims.size();
        for (std::size_t mask = 0; mask < corners; ++mask) {
            std::size_t idx = top;
            int sign = 1;
            for (std::size_t b = 0; b < lowDims.size(); ++b) {
                if (mask & (std::size_t{1} << b)) {
                    const std::size_t d = lowDims[b];
                    idx -= static_cast<std::size_t>(q.box[d].hi - q.box[d].lo + 1) * stride[d];
                    sign = -sign;
                }
            }
            sum += sign * s[idx];
        }
        out[qi] = q.weight * static_cast<double>(sum);
    }
    return out;
}

namespace {

// The 1-D Gram matrices of the product kinds (provenance: counting the queries that contain both
// cells j ≤ k): Identity δ_jk; Total 1; Prefix [0, i] ∋ j, k ⇔ i ≥ k: n − k; AllRange
// [a, b] ∋ j, k ⇔ a ≤ j, b ≥ k: (j + 1)(n − k); width-e windows [l, l + e − 1] ∋ j, k ⇔
// max(0, k − e + 1) ≤ l ≤ min(j, n − e).
double gram1d(WorkloadKind kind, std::size_t n, std::size_t e, std::size_t a, std::size_t b) {
    const std::size_t j = std::min(a, b), k = std::max(a, b);
    switch (kind) {
        case WorkloadKind::Identity:
            return j == k ? 1.0 : 0.0;
        case WorkloadKind::Total:
            return 1.0;
        case WorkloadKind::Prefix:
            return static_cast<double>(n - k);
        case WorkloadKind::AllRange:
            return static_cast<double>((j + 1) * (n - k));
        case WorkloadKind::Rectangles: {
            const std::size_t lo = k + 1 >= e ? k + 1 - e : 0;
            const std::size_t hi = std::min(j, n - e);
            return hi >= lo ? static_cast<double>(hi - lo + 1) : 0.0;
        }
        default:
            return 0.0;
    }
}

}  // namespace

Expected<std::vector<double>> Workload::gram() const {
    const std::size_t cells = shapeCells(shape_);
    if (cells > 8192) {
        return Error{"workload Gram matrix: the domain has " + groupThousands(cells) +
                     " cells; the dense WᵀW is limited to 8,192"};
    }
    const std::size_t dims = shape_.size();
    if (spec_.kind == WorkloadKind::Union) {
        // WᵀW = Σ_i c_i² W_iᵀW_i.
        std::vector<double> g(cells * cells, 0.0);
        for (std::size_t p = 0; p < parts_.size(); ++p) {
            auto part = parts_[p].gram();
            if (!part) {
                return part.error();
            }
            const double c2 = spec_.partWeights[p] * spec_.partWeights[p];
            for (std::size_t k = 0; k < g.size(); ++k) {
                g[k] += c2 * (*part)[k];
            }
        }
        return g;
    }
    std::vector<double> g(cells * cells, 0.0);
    std::vector<std::uint64_t> sizes(shape_.begin(), shape_.end());
    std::vector<std::vector<std::uint64_t>> idx(cells);
    for (std::size_t c = 0; c < cells; ++c) {
        idx[c] = unflatten(c, sizes);
    }
    switch (spec_.kind) {
        case WorkloadKind::Identity:
        case WorkloadKind::Total:
        case WorkloadKind::Prefix:
        case WorkloadKind::AllRange:
        case WorkloadKind::Rectangles: {
            // A product of 1-D workloads: WᵀW = ⊗_d W_dᵀW_d.
            for (std::size_t r = 0; r < cells; ++r) {
                for (std::size_t c = 0; c < cells; ++c) {
                    double v = 1;
                    for (std::size_t d = 0; d < dims && v != 0; ++d) {
                        v *= gram1d(spec_.kind, shape_[d],
                                    spec_.kind == WorkloadKind::Rectangles ? spec_.extent[d] : 0,
                                    idx[r][d], idx[c][d]);
                    }
                    g[r * cells + c] = v;
                }
            }
            return g;
        }
        case WorkloadKind::Marginals: {
            // One k-way marginal over the subset S has WᵀW = ⊗ (I on S, J elsewhere): cells r, c
            // share a query of it iff they agree on S. With a = the number of dimensions where r
            // and c agree, Σ over the orders k of C(a, k).
            std::vector<std::vector<double>> binom(dims + 1, std::vector<double>(dims + 1, 0.0));
            for (std::size_t a = 0; a <= dims; ++a) {
                binom[a][0] = 1;
                for (std::size_t k = 1; k <= a; ++k) {
                    binom[a][k] = binom[a - 1][k - 1] + (k <= a - 1 ? binom[a - 1][k] : 0.0);
                }
            }
            for (std::size_t r = 0; r < cells; ++r) {
                for (std::size_t c = 0; c < cells; ++c) {
                    std::size_t agree = 0;
                    for (std::size_t d = 0; d < dims; ++d) {
                        agree += idx[r][d] == idx[c][d] ? 1 : 0;
                    }
                    double v = 0;
                    for (std::size_t k : spec_.ways) {
                        v += binom[agree][k];
                    }
                    g[r * cells + c] = v;
                }
            }
            return g;
        }
        case WorkloadKind::RandomRange:
        case WorkloadKind::Boxes: {
            // Column c of WᵀW is Σ over the queries containing c of w_q²·1_box(q): scatter the box
            // corners into a difference array, then one prefix pass per dimension.
            std::vector<std::size_t> stride(dims, 1);
            for (std::size_t d = dims - 1; d-- > 0;) {
                stride[d] = stride[d + 1] * shape_[d + 1];
            }
            std::vector<double> diff(cells);
            for (std::size_t c = 0; c < cells; ++c) {
                std::fill(diff.begin(), diff.end(), 0.0);
                bool any = false;
                for (const RangeQuery& q : drawn_) {
                    bool inside = true;
                    for (std::size_t d = 0; d < dims && inside; ++d) {
                        inside = q.box[d].lo <= idx[c][d] && idx[c][d] <= q.box[d].hi;
                    }
                    if (!inside) {
                        continue;
                    }
                    any = true;
                    const double w2 = q.weight * q.weight;
                    for (std::size_t mask = 0; mask < (std::size_t{1} << dims); ++mask) {
                        std::size_t at = 0;
                        int sign = 1;
                        bool outside = false;
                        for (std::size_t d = 0; d < dims; ++d) {
                            std::uint64_t v = q.box[d].lo;
                            if (mask & (std::size_t{1} << d)) {
                                v = q.box[d].hi + 1;
                                sign = -sign;
                                outside = outside || v >= shape_[d];
                            }
                            at += static_cast<std::size_t>(v) * stride[d];
                        }
                        if (!outside) {
                            diff[at] += sign * w2;
                        }
                    }
                }
                if (!any) {
                    continue;
                }
                for (std::size_t d = 0; d < dims; ++d) {
                    const std::size_t n = shape_[d], st = stride[d];
                    for (std::size_t k = 0; k < cells; ++k) {
                        if ((k / st) % n != 0) {
                            diff[k] += diff[k - st];
                        }
                    }
                }
                for (std::size_t r = 0; r < cells; ++r) {
                    g[r * cells + c] = diff[r];
                }
            }
            return g;
        }
        case WorkloadKind::Union:
            break;
    }
    return g;
}

std::string Workload::describe() const {
    const std::string on = " on " + shapeText(shape_);
    const auto n = [](std::uint64_t v) { return groupThousands(static_cast<long long>(v)); };
    switch (spec_.kind) {
        case WorkloadKind::Identity:
            return "the " + n(queryCount_) + " single cells" + on;
        case WorkloadKind::Total:
            return "the total" + on;
        case WorkloadKind::Prefix:
            return "all " + n(queryCount_) + " prefixes" + on;
        case WorkloadKind::AllRange:
            return "all " + n(queryCount_) + (shape_.size() == 1 ? " ranges" : " boxes") + on;
        case WorkloadKind::RandomRange:
            return n(queryCount_) + " random ranges (seed " + std::to_string(spec_.seed) + ")" + on;
        case WorkloadKind::Boxes:
            return n(queryCount_) + " listed boxes" + on;
        case WorkloadKind::Marginals: {
            std::string ks;
            for (std::size_t i = 0; i < spec_.ways.size(); ++i) {
                ks += (i == 0                       ? ""
                       : i + 1 == spec_.ways.size() ? " and "
                                                    : ", ") +
                      std::to_string(spec_.ways[i]);
            }
            return "all " + ks + "-way marginals (" + n(queryCount_) + " cells)" + on;
        }
        case WorkloadKind::Rectangles: {
            std::string ext;
            for (std::size_t d = 0; d < spec_.extent.size(); ++d) {
                ext += (d ? " × " : "") + std::to_string(spec_.extent[d]);
            }
            return "all " + n(queryCount_) + " " + ext + " rectangles" + on;
        }
        case WorkloadKind::Union: {
            // "all 136 prefixes + 0.5 × all 16 1-way marginals (16 cells) on 4 × 4"
            std::string out;
            for (std::size_t p = 0; p < parts_.size(); ++p) {
                std::string d = parts_[p].describe();
                d = d.substr(0, d.size() - std::min(d.size(), on.size()));  // one " on …"
                out += (p ? " + " : "") +
                       (spec_.partWeights[p] != 1 ? exactNumber(spec_.partWeights[p]) + " × "
                                                  : std::string()) +
                       d;
            }
            return out + on;
        }
    }
    return spec_.text();
}

bool isProductKind(WorkloadKind kind) {
    return kind == WorkloadKind::Identity || kind == WorkloadKind::Total ||
           kind == WorkloadKind::Prefix || kind == WorkloadKind::AllRange ||
           kind == WorkloadKind::Rectangles;
}

Expected<Workload> productFactor(const Workload& w, std::size_t d) {
    if (!isProductKind(w.spec().kind)) {
        return Error{w.describe() + " is not a product of one-dimensional workloads"};
    }
    if (d >= w.shape().size()) {
        return Error{"the workload has " + std::to_string(w.shape().size()) +
                     " dimensions, no factor " + std::to_string(d + 1)};
    }
    WorkloadSpec one = w.spec();
    if (one.kind == WorkloadKind::Rectangles) {
        one.extent = {w.spec().extent[d]};
    }
    return Workload::make(one, {w.shape()[d]});
}

}  // namespace dpx
