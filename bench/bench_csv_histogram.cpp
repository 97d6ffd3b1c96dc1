// CSV histogram benchmark (issue #5): parse a file with the streaming CSV reader and count a
// 32-bin histogram of one column in one pass; prints wall time and peak RSS (getrusage). The file
// comes from bench/make_csv.py; the pandas baseline is bench/pandas_csv.py.
//
//   bench_csv_histogram --file data.csv [--column income] [--bins 0:200000:32] [--threads 0]
//                       [--reps 3]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "bench_util.h"
#include "io/sources/csv_reader.h"

int main(int argc, char** argv) {
    using namespace dpx;
    bench::Options o(argc, argv,
                     {{"file", ""},
                      {"column", "income"},
                      {"bins", "0:200000:32"},
                      {"threads", "0"},
                      {"reps", "3"}});
    if (o.str("file").empty()) {
        std::fprintf(stderr, "bench_csv_histogram: --file is required (see bench/make_csv.py)\n");
        return 2;
    }
    auto binning = parseBinSpec(o.str("bins"));
    if (!binning) {
        std::fprintf(stderr, "bench_csv_histogram: %s\n", binning.error().message.c_str());
        return 2;
    }
    bench::printHeader("CSV streaming histogram");
    data::CsvOptions csv;
    csv.threads = static_cast<unsigned>(o.integer("threads"));
    std::vector<double> times;
    std::int64_t rows = 0, counted = 0;
    for (long long r = 0; r < o.integer("reps"); ++r) {
        const auto start = std::chrono::steady_clock::now();
        auto h = data::csvHistograms(o.str("file"), csv, {{o.str("column"), *binning}});
        times.push_back(bench::secondsSince(start));
        if (!h) {
            std::fprintf(stderr, "bench_csv_histogram: %s\n", h.error().message.c_str());
            return 1;
        }
        rows = h->rows;
        counted = h->columns[0].report.used;
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "RESULT bench_csv_histogram column=%s threads=%s rows=%lld wall_s_median=%.3f "
        "wall_s_min=%.3f peak_rss_mb=%.1f counted=%lld\n",
        o.str("column").c_str(), o.str("threads").c_str(), static_cast<long long>(rows),
        bench::median(times), *std::min_element(times.begin(), times.end()),
        static_cast<double>(ru.ru_maxrss) / 1024.0, static_cast<long long>(counted));
    return 0;
}
