// CSV joint-table benchmark (issue #19): the streaming CSV reader bins three columns of each row
// into one cell of a joint table (default age 100 × state 50 × income 2 = 10 000 cells) in the same
// single pass that makes a one-column histogram, and both are timed on the same file, alternating,
// so the ratio joint / histogram is measured under the same load (target ≤ 1.3). Prints wall times
// and peak RSS (getrusage: the most the process ever held, so memory independent of the rows shows
// as the same figure for a 10⁶- and a 10⁷-row file). Also the CPU time of each pass (getrusage,
// all threads of the process): on a machine shared with other jobs, wall times wait for the cores
// while CPU times mostly do not, so the CPU ratio is the steadier figure under load. The file comes
// from bench/make_csv.py.
//
//   bench_csv_joint --file data.csv [--joint 'age=integers:0:99|state=categories:AL,…|income=…']
//                   [--column income] [--bins 0:200000:32] [--threads 0] [--reps 5]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench_util.h"
#include "io/sources/csv_reader.h"

namespace {

// User + system CPU seconds of the whole process so far.
double cpuSeconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    auto s = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
    };
    return s(ru.ru_utime) + s(ru.ru_stime);
}

const char* kStates =
    "AL,AK,AZ,AR,CA,CO,CT,DE,FL,GA,HI,ID,IL,IN,IA,KS,KY,LA,ME,MD,MA,MI,MN,MS,MO,MT,NE,NV,NH,NJ,"
    "NM,NY,NC,ND,OH,OK,OR,PA,RI,SC,SD,TN,TX,UT,VT,VA,WA,WV,WI,WY";

}  // namespace

int main(int argc, char** argv) {
    using namespace dpx;
    const std::string defaultJoint =
        std::string("age=integers:0:99|state=categories:") + kStates + "|income=0:200000:2";
    bench::Options o(argc, argv,
                     {{"file", ""},
                      {"joint", defaultJoint},
                      {"column", "income"},
                      {"bins", "0:200000:32"},
                      {"threads", "0"},
                      {"reps", "5"}});
    if (o.str("file").empty()) {
        std::fprintf(stderr, "bench_csv_joint: --file is required (see bench/make_csv.py)\n");
        return 2;
    }
    std::vector<ColumnRequest> joint;
    std::string spec = o.str("joint");
    std::size_t start = 0;
    while (start <= spec.size()) {
        const std::size_t bar = std::min(spec.find('|', start), spec.size());
        const std::string part = spec.substr(start, bar - start);
        const std::size_t eq = part.find('=');
        auto b = eq == std::string::npos ? Expected<Binning>(Error{"expected COLUMN=BINS"})
                                         : parseBinSpec(part.substr(eq + 1));
        if (!b) {
            std::fprintf(stderr, "bench_csv_joint: '%s': %s\n", part.c_str(),
                         b.error().message.c_str());
            return 2;
        }
        joint.push_back({part.substr(0, eq), *b});
        start = bar + 1;
    }
    auto histBins = parseBinSpec(o.str("bins"));
    if (!histBins) {
        std::fprintf(stderr, "bench_csv_joint: %s\n", histBins.error().message.c_str());
        return 2;
    }
    bench::printHeader("CSV joint table vs one-column histogram");
    data::CsvOptions csv;
    csv.threads = static_cast<unsigned>(o.integer("threads"));
    std::vector<double> jointTimes, histTimes, separateTimes, jointCpu, histCpu;
    std::int64_t rows = 0, counted = 0;
    std::string cells;
    std::uint64_t occupied = 0;
    for (long long r = 0; r < o.integer("reps"); ++r) {
        auto t0 = std::chrono::steady_clock::now();
        double c0 = cpuSeconds();
        auto h = data::csvHistograms(o.str("file"), csv, {{o.str("column"), *histBins}});
        histTimes.push_back(bench::secondsSince(t0));
        histCpu.push_back(cpuSeconds() - c0);
        if (!h) {
            std::fprintf(stderr, "bench_csv_joint: %s\n", h.error().message.c_str());
            return 1;
        }
        t0 = std::chrono::steady_clock::now();
        c0 = cpuSeconds();
        auto j = data::csvJointTable(o.str("file"), csv, joint);
        jointTimes.push_back(bench::secondsSince(t0));
        jointCpu.push_back(cpuSeconds() - c0);
        if (!j) {
            std::fprintf(stderr, "bench_csv_joint: %s\n", j.error().message.c_str());
            return 1;
        }
        // The same columns as separate histograms in one pass: what reading three columns costs
        // without the joint binning.
        t0 = std::chrono::steady_clock::now();
        auto sep = data::csvHistograms(o.str("file"), csv, joint);
        separateTimes.push_back(bench::secondsSince(t0));
        if (!sep) {
            std::fprintf(stderr, "bench_csv_joint: %s\n", sep.error().message.c_str());
            return 1;
        }
        rows = j->rows;
        counted = j->counted;
        cells = cellCountText(j->table.cellCount());
        occupied = j->table.occupiedCount();
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double jm = bench::median(jointTimes), hm = bench::median(histTimes);
    const double jc = bench::median(jointCpu), hc = bench::median(histCpu);
    std::printf(
        "RESULT bench_csv_joint threads=%s rows=%lld cells=%s occupied=%llu counted=%lld "
        "joint_s_median=%.3f histogram_s_median=%.3f ratio=%.3f joint_s_min=%.3f "
        "histogram_s_min=%.3f same_columns_separate_s_median=%.3f joint_cpu_s_median=%.3f "
        "histogram_cpu_s_median=%.3f cpu_ratio=%.3f joint_cpu_s_min=%.3f histogram_cpu_s_min=%.3f "
        "peak_rss_mb=%.1f\n",
        o.str("threads").c_str(), static_cast<long long>(rows), cells.c_str(),
        static_cast<unsigned long long>(occupied), static_cast<long long>(counted), jm, hm, jm / hm,
        *std::min_element(jointTimes.begin(), jointTimes.end()),
        *std::min_element(histTimes.begin(), histTimes.end()), bench::median(separateTimes), jc, hc,
        jc / hc, *std::min_element(jointCpu.begin(), jointCpu.end()),
        *std::min_element(histCpu.begin(), histCpu.end()),
        static_cast<double>(ru.ru_maxrss) / 1024.0);
    return 0;
}
