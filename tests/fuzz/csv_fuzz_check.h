// The invariant checks of the CSV reader fuzz target (issue #5, Robustness), shared by the
// libFuzzer target tests/fuzz/fuzz_csv_reader.cpp and by tst_csv_reader, which replays every
// reproducer in tests/fuzz/regressions/ through the same checks without clang.
//
// Input format: the first kConfigBytes bytes choose the options (see decodeCase), the rest is the
// file's content. A shorter input is all content, read with the default options.
//
// For each input the reader runs twice on the same file: a reference run (one thread, one block
// holding the whole file) and the run under test (the decoded threads and a tiny block size, so
// that records straddle blocks and byte ranges start inside quotes). Checked:
//   - no exception escapes either run;
//   - both give the same result: the same error message, or the same rows, skipped rows by
//     reason (in order), capped rows, and per column the same counts, labels, edges and report;
//   - a successful result adds up, per column:
//       report.rows = rows − Σ skipped − capped rows   (every row not skipped or capped is binned)
//       report.rows = used + missing + dropped below/above + unknown categories
//       used        = Σ counts (clamped values and the "other" bin are counted)
//     and with the Stop policy nothing is skipped.
// On a mismatch the run with one thread and the tiny block is added to the message, so it says
// whether the block size or the threads make the difference.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "io/sources/csv_reader.h"

namespace dpx::fuzz {

inline constexpr std::size_t kConfigBytes = 4;

// The file the reader reads: an in-memory file (memfd) opened by path through /proc/self/fd, or a
// temporary file where memfd_create is not available. Rewritten for each input.
class InputFile {
public:
    InputFile() {
        fd_ = static_cast<int>(::memfd_create("dpx-fuzz-csv", 0));
        if (fd_ >= 0) {
            path_ = "/proc/self/fd/" + std::to_string(fd_);
            return;
        }
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dpx-fuzz-csv-XXXXXX";
        fd_ = ::mkstemp(pattern.data());
        if (fd_ < 0) {
            std::perror("dpx fuzz: cannot create the input file");
            std::abort();
        }
        path_ = pattern;
        unlink_ = true;
    }
    ~InputFile() {
        ::close(fd_);
        if (unlink_) {
            ::unlink(path_.c_str());
        }
    }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    const std::string& path() const { return path_; }
    void write(const std::uint8_t* data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0) {
            std::perror("dpx fuzz: ftruncate");
            std::abort();
        }
        std::size_t done = 0;
        while (done < size) {
            const auto n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) {
                std::perror("dpx fuzz: pwrite");
                std::abort();
            }
            done += static_cast<std::size_t>(n);
        }
    }

private:
    int fd_ = -1;
    std::string path_;
    bool unlink_ = false;
};

// The options an input asks for. Column choices are indices, resolved against the columns the
// reference inspectCsv finds (modulo their number).
struct CsvFuzzCase {
    data::CsvOptions options;  // the run under test (threads 1..3, block 1..64 bytes)
    int binning = 0;           // 0..7, see binningFor
    bool variant = false;      // clamp / closed last bin / 'other' instead of error
    std::size_t column = 0;
    bool second = false;  // a second request: the next column, categories from the data
    bool cap = false;
    std::int64_t capRows = 1;
    std::size_t idColumn = 0;
    bool overrideType = false;
    data::ValueType overrideAs = data::ValueType::Integer;
    std::int64_t equalWidthBins = 1;
};

// Config bytes:
//   b0: bits 0–2 delimiter (0–3 detect, 4 ',', 5 ';', 6 TAB, 7 '|'); bit 3 no header; bit 4 skip
//       bad rows; bits 5–6 threads (1, 2, 3, 2); bit 7 a second request
//   b1: bits 0–5 block size − 1 (1..64 bytes); bits 6–7 sample rows (1000, 1, 2, 3)
//   b2: bits 0–2 binning; bits 3–4 column; bit 5 variant; bit 6 contribution cap; bit 7 override
//       the type of the binned column
//   b3: bits 0–1 limits (default, record ≤ 32 bytes, ≤ 3 fields, both ≤ 64 bytes / ≤ 5 fields);
//       bits 2–3 cap rows − 1 and override type (integer, float, categorical, date); bits 4–5 id
//       column; bits 6–7 equal-width bins (1, 2, 5, 8)
inline CsvFuzzCase decodeCase(const std::uint8_t* cfg) {
    CsvFuzzCase c;
    data::CsvOptions& o = c.options;
    static constexpr char kDelims[] = {0, 0, 0, 0, ',', ';', '\t', '|'};
    o.delimiter = kDelims[cfg[0] & 7];
    o.header = (cfg[0] & 8) == 0;
    o.onBadRow = (cfg[0] & 16) ? data::BadRowPolicy::Skip : data::BadRowPolicy::Stop;
    static constexpr unsigned kThreads[] = {1, 2, 3, 2};
    o.threads = kThreads[(cfg[0] >> 5) & 3];
    c.second = (cfg[0] & 128) != 0;
    o.blockBytes = std::size_t{1} + (cfg[1] & 63);
    static constexpr std::size_t kSample[] = {1000, 1, 2, 3};
    o.sampleRows = kSample[cfg[1] >> 6];
    c.binning = cfg[2] & 7;
    c.column = (cfg[2] >> 3) & 3;
    c.variant = (cfg[2] & 32) != 0;
    c.cap = (cfg[2] & 64) != 0;
    c.overrideType = (cfg[2] & 128) != 0;
    switch (cfg[3] & 3) {
        case 1:
            o.limits.maxRecordBytes = 32;
            break;
        case 2:
            o.limits.maxFields = 3;
            break;
        case 3:
            o.limits.maxRecordBytes = 64;
            o.limits.maxFields = 5;
            break;
        default:
            break;
    }
    const int k = (cfg[3] >> 2) & 3;
    c.capRows = 1 + k;
    static constexpr data::ValueType kTypes[] = {data::ValueType::Integer, data::ValueType::Float,
                                                 data::ValueType::Categorical,
                                                 data::ValueType::Date};
    c.overrideAs = kTypes[k];
    c.idColumn = (cfg[3] >> 4) & 3;
    static constexpr std::int64_t kBins[] = {1, 2, 5, 8};
    c.equalWidthBins = kBins[cfg[3] >> 6];
    return c;
}

inline Binning binningFor(const CsvFuzzCase& c) {
    const OutOfRange out = c.variant ? OutOfRange::Clamp : OutOfRange::Drop;
    switch (c.binning) {
        case 0:
            return Binning::distinctValues(CategoryOrder::FirstSeen);
        case 1:
            return Binning::distinctValues(CategoryOrder::Sorted);
        case 2:
            return Binning::equalWidth(c.equalWidthBins, -10, 10, out);
        case 3:
            return Binning::integers(-5, 20, c.variant ? 3 : 1, out);
        case 4:  // entries that are numbers too, so the list suits either kind of column
            return Binning::fixedCategories(
                {"1", "2", "0"}, c.variant ? UnknownCategory::Other : UnknownCategory::Error);
        case 5:
            return Binning::fromEdges({-1, 0, 2.5, 10}, out, c.variant);
        case 6: {
            Binning b = Binning::equalWidth(c.equalWidthBins, 0, 100, out);
            b.closedHi = c.variant;
            return b;
        }
        default:
            return Binning::fixedCategories({"a", "b"}, UnknownCategory::Drop);
    }
}

namespace detail {

inline std::string describe(const Expected<data::SourceHistograms>& r) {
    std::ostringstream s;
    if (!r) {
        s << "error: " << r.error().message;
        return s.str();
    }
    s << "rows " << r->rows << ", capped " << r->cappedRows << ", skipped {";
    for (const auto& [why, n] : r->skipped) {
        s << " " << why << ": " << n << ";";
    }
    s << " }";
    for (const auto& c : r->columns) {
        const BinningReport& p = c.report;
        s << "\n    counts [";
        for (auto n : c.histogram.counts()) {
            s << " " << n;
        }
        s << " ] labels [";
        for (const auto& l : c.histogram.labels()) {
            s << " '" << l << "'";
        }
        s << " ] report rows " << p.rows << " used " << p.used << " missing " << p.missing
          << " clamped " << p.clampedLow << "/" << p.clampedHigh << " dropped " << p.droppedLow
          << "/" << p.droppedHigh << " unknown " << p.unknownCategories << " other "
          << p.otherCategories;
    }
    return s.str();
}

inline bool sameReport(const BinningReport& a, const BinningReport& b) {
    return a.rows == b.rows && a.used == b.used && a.missing == b.missing &&
           a.clampedLow == b.clampedLow && a.clampedHigh == b.clampedHigh &&
           a.droppedLow == b.droppedLow && a.droppedHigh == b.droppedHigh &&
           a.unknownCategories == b.unknownCategories && a.otherCategories == b.otherCategories;
}

inline bool same(const Expected<data::SourceHistograms>& a,
                 const Expected<data::SourceHistograms>& b) {
    if (bool(a) != bool(b)) {
        return false;
    }
    if (!a) {
        return a.error().message == b.error().message;
    }
    if (a->rows != b->rows || a->cappedRows != b->cappedRows || a->skipped != b->skipped ||
        a->columns.size() != b->columns.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a->columns.size(); ++i) {
        const BinnedColumn& x = a->columns[i];
        const BinnedColumn& y = b->columns[i];
        if (x.histogram.counts() != y.histogram.counts() ||
            x.histogram.labels() != y.histogram.labels() ||
            x.histogram.edges() != y.histogram.edges() || !sameReport(x.report, y.report)) {
            return false;
        }
    }
    return true;
}

// The accounting a successful result promises; empty if it holds.
inline std::string accounting(const data::SourceHistograms& h, data::BadRowPolicy policy) {
    std::int64_t skipped = 0;
    for (const auto& [why, n] : h.skipped) {
        if (n <= 0) {
            return "a skipped reason with a count ≤ 0: " + why;
        }
        skipped += n;
    }
    if (policy == data::BadRowPolicy::Stop && skipped != 0) {
        return "rows skipped under the Stop policy";
    }
    if (h.rows <= 0 || h.cappedRows < 0 || skipped + h.cappedRows > h.rows) {
        return "rows, skipped and capped rows do not fit together";
    }
    for (std::size_t i = 0; i < h.columns.size(); ++i) {
        const BinningReport& r = h.columns[i].report;
        const std::string col = "column request " + std::to_string(i) + ": ";
        if (r.rows != h.rows - skipped - h.cappedRows) {
            return col + "report.rows != rows - skipped - capped";
        }
        if (r.rows != r.used + r.missing + r.droppedLow + r.droppedHigh + r.unknownCategories) {
            return col + "report.rows != used + missing + dropped + unknown categories";
        }
        const auto& counts = h.columns[i].histogram.counts();
        if (r.used != std::accumulate(counts.begin(), counts.end(), std::int64_t{0})) {
            return col + "report.used != the sum of the counts";
        }
        if (r.clampedLow + r.clampedHigh + r.otherCategories > r.used) {
            return col + "more clamped or 'other' values than counted values";
        }
    }
    return {};
}

template <class F>
auto guarded(F&& run, std::string& escaped) -> decltype(run()) {
    try {
        return run();
    } catch (const std::exception& e) {
        escaped = std::string("an exception escaped the reader: ") + e.what();
    } catch (...) {
        escaped = "an exception of unknown type escaped the reader";
    }
    return Error{"(exception)"};
}

// The joint tables of two runs: both fail with the same message, or both give the same table,
// reports and accounting.
inline bool sameJoint(const Expected<data::SourceTable>& a, const Expected<data::SourceTable>& b) {
    if (bool(a) != bool(b)) {
        return false;
    }
    if (!a) {
        return a.error().message == b.error().message;
    }
    if (!(a->table == b->table) || a->rows != b->rows || a->counted != b->counted ||
        a->skipped != b->skipped || a->cappedRows != b->cappedRows ||
        a->reports.size() != b->reports.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a->reports.size(); ++i) {
        if (!sameReport(a->reports[i], b->reports[i])) {
            return false;
        }
    }
    return true;
}

}  // namespace detail

// Runs the checks on one input; returns an empty string if they hold, else what failed.
inline std::string checkCsvInput(const std::uint8_t* input, std::size_t size, InputFile& file) {
    static const std::uint8_t kDefault[kConfigBytes] = {0, 63, 0, 0};
    const std::uint8_t* cfg = size >= kConfigBytes ? input : kDefault;
    if (size >= kConfigBytes) {
        input += kConfigBytes;
        size -= kConfigBytes;
    }
    const CsvFuzzCase c = decodeCase(cfg);
    file.write(input, size);
    const std::string& path = file.path();

    data::CsvOptions ref = c.options;
    ref.threads = 1;
    ref.blockBytes = std::size_t{1} << 16;  // more than any fuzz input: the file in one block

    // The requests name columns of the file as the reference inspection sees them.
    std::string escaped;
    std::vector<std::string> names;
    try {
        if (auto schema = data::inspectCsv(path, ref)) {
            for (const auto& col : schema->columns) {
                names.push_back(col.name);
            }
        }
    } catch (const std::exception& e) {
        return std::string("an exception escaped inspectCsv: ") + e.what();
    } catch (...) {
        return "an exception of unknown type escaped inspectCsv";
    }
    if (names.empty()) {
        names.emplace_back("column 1");  // the reader fails before looking at the requests
    }
    auto name = [&](std::size_t i) { return names[i % names.size()]; };
    std::vector<data::ColumnRequest> requests = {{name(c.column), binningFor(c)}};
    if (c.second) {
        requests.push_back({name(c.column + 1), Binning::distinctValues()});
    }
    if (c.overrideType) {
        ref.types = {{name(c.column), c.overrideAs}};
    }
    data::ContributionCap cap;
    if (c.cap) {
        cap.idColumn = name(c.idColumn);
        cap.maxRowsPerPerson = c.capRows;
    }
    data::CsvOptions test = ref;
    test.threads = c.options.threads;
    test.blockBytes = c.options.blockBytes;

    const auto a =
        detail::guarded([&] { return data::csvHistograms(path, ref, requests, cap); }, escaped);
    if (!escaped.empty()) {
        return escaped + " (reference run)";
    }
    const auto b =
        detail::guarded([&] { return data::csvHistograms(path, test, requests, cap); }, escaped);
    if (!escaped.empty()) {
        return escaped + " (run with " + std::to_string(test.threads) + " threads, block " +
               std::to_string(test.blockBytes) + ")";
    }
    if (!detail::same(a, b)) {
        data::CsvOptions mid = test;
        mid.threads = 1;
        const auto m =
            detail::guarded([&] { return data::csvHistograms(path, mid, requests, cap); }, escaped);
        return "the result depends on the threads or the block size:\n  1 thread, whole file: " +
               detail::describe(a) + "\n  " + std::to_string(test.threads) + " threads, block " +
               std::to_string(test.blockBytes) + ": " + detail::describe(b) +
               "\n  1 thread, block " + std::to_string(test.blockBytes) + ": " +
               detail::describe(m);
    }
    if (a) {
        if (std::string why = detail::accounting(*a, ref.onBadRow); !why.empty()) {
            return "the counts do not add up: " + why + "\n  " + detail::describe(a);
        }
    }
    // The joint table of the same columns (issue #19) goes through the same pass: it must not
    // depend on the threads or the block size either, nor let an exception escape.
    const auto ja =
        detail::guarded([&] { return data::csvJointTable(path, ref, requests, cap); }, escaped);
    if (!escaped.empty()) {
        return escaped + " (joint table, reference run)";
    }
    const auto jb =
        detail::guarded([&] { return data::csvJointTable(path, test, requests, cap); }, escaped);
    if (!escaped.empty()) {
        return escaped + " (joint table, run with " + std::to_string(test.threads) +
               " threads, block " + std::to_string(test.blockBytes) + ")";
    }
    if (!detail::sameJoint(ja, jb)) {
        return "the joint table depends on the threads or the block size (" +
               std::to_string(test.threads) + " threads, block " + std::to_string(test.blockBytes) +
               ")";
    }
    return {};
}

}  // namespace dpx::fuzz
