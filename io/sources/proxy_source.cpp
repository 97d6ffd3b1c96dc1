#include "io/sources/proxy_source.h"

#include <filesystem>
#include <string_view>
#include <utility>

#include "core/histogram/dataset.h"
#include "io/sources/csv_reader.h"

namespace dpx::data {

namespace {

constexpr std::uint64_t kMaxProxyFileBytes = std::uint64_t{64} << 20;

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

std::string at(std::int64_t line, std::size_t column) {
    return "line " + std::to_string(line) + ", column " + std::to_string(column + 1) + ": ";
}

struct Records {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::int64_t> lines;
};

Expected<Records> readRecords(const std::string& path) {
    CsvOptions csv;
    csv.threads = 1;
    csv.header = false;
    csv.onBadRow = BadRowPolicy::Stop;
    csv.limits.maxFileBytes = kMaxProxyFileBytes;
    Records out;
    auto read = csvForEachRecord(
        path, csv, [&](std::int64_t line, const std::vector<std::string_view>& f) -> Status {
            out.rows.emplace_back(f.begin(), f.end());
            out.lines.push_back(line);
            return okStatus();
        });
    if (!read) {
        return Error{fileName(path) + ": " + read.error().message};
    }
    if (out.rows.empty()) {
        return Error{fileName(path) + ": no records (expected one per bin)"};
    }
    return out;
}

// The label the release writer neutralised (a leading quote before =, +, -, @, tab, CR or U+2212;
// io/release/release_files.h neutraliseCsvCell) as it was.
std::string unneutralised(const std::string& cell) {
    if (cell.size() >= 2 && cell[0] == '\'') {
        const char c = cell[1];
        if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r' ||
            cell.compare(1, 3, "\xE2\x88\x92") == 0) {
            return cell.substr(1);
        }
    }
    return cell;
}

}  // namespace

Expected<ProxyFile> readShapeFile(const std::string& path) {
    auto rec = readRecords(path);
    if (!rec) {
        return rec.error();
    }
    ProxyFile out;
    const std::size_t columns = rec->rows.front().size();
    if (columns < 1 || columns > 2) {
        return Error{fileName(path) + ": expected one column of weights or two (bin,weight), got " +
                     std::to_string(columns)};
    }
    for (std::size_t r = 0; r < rec->rows.size(); ++r) {
        const auto& f = rec->rows[r];
        const std::size_t c = columns - 1;
        double v = 0;
        if (!parseNumber(f[c], v)) {
            if (r == 0) {
                continue;  // a header
            }
            return Error{fileName(path) + ": " + at(rec->lines[r], c) +
                         (f[c].empty() ? std::string("the weight is missing")
                                       : "'" + f[c] + "' is not a number")};
        }
        if (v < 0) {
            return Error{fileName(path) + ": " + at(rec->lines[r], c) + "the weight " + f[c] +
                         " is negative (weights must be ≥ 0)"};
        }
        out.weights.push_back(v);
    }
    if (out.weights.empty()) {
        return Error{fileName(path) + ": no weights (expected one number per bin)"};
    }
    return out;
}

Expected<ProxyFile> readReleasedCounts(const std::string& path) {
    auto rec = readRecords(path);
    if (!rec) {
        return rec.error();
    }
    const auto& header = rec->rows.front();
    std::size_t value = header.size();
    for (std::size_t j = 0; j < header.size(); ++j) {
        if (header[j] == "value") {
            value = j;
            break;
        }
    }
    if (value == header.size()) {
        return Error{fileName(path) +
                     ": not a release CSV (its header has no 'value' column; dpx writes "
                     "bin,value[,lower,upper])"};
    }
    // A histogram release has its labels in the one column "bin" before the values.
    const bool labelled = value == 1 && header[0] == "bin";
    ProxyFile out;
    for (std::size_t r = 1; r < rec->rows.size(); ++r) {
        const auto& f = rec->rows[r];
        double v = 0;
        if (!parseNumber(f[value], v)) {
            return Error{fileName(path) + ": " + at(rec->lines[r], value) +
                         (f[value].empty() ? std::string("the released value is missing")
                                           : "'" + f[value] + "' is not a number")};
        }
        out.weights.push_back(v);
        if (labelled) {
            out.labels.push_back(unneutralised(f[0]));
        }
    }
    if (out.weights.empty()) {
        return Error{fileName(path) + ": the release has no bins"};
    }
    return out;
}

Expected<PlanOn> loadPlanOnFile(PlanOn plan) {
    if (plan.kind != PlanOnKind::Shape && plan.kind != PlanOnKind::Release) {
        return plan;
    }
    auto file =
        plan.kind == PlanOnKind::Shape ? readShapeFile(plan.path) : readReleasedCounts(plan.path);
    if (!file) {
        return Error{std::string(plan.kind == PlanOnKind::Shape ? "shape file " : "release ") +
                     file.error().message};
    }
    plan.weights = std::move(file->weights);
    plan.labels = std::move(file->labels);
    return plan;
}

}  // namespace dpx::data
