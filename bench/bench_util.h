// Small helpers shared by the benchmark programs: "--key value" options, wall-clock timing with
// std::chrono::steady_clock, medians, and a description of the build. Benchmarks are plain
// programs; every machine-readable figure is printed on a line starting with "RESULT".
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <ctime>

namespace dpx::bench {

#ifndef DPX_BENCH_BUILD_TYPE
#define DPX_BENCH_BUILD_TYPE "unknown"
#endif

// Options of the form --key value (every option takes a value). Unknown keys are an error so a
// typo cannot silently benchmark the default case.
class Options {
public:
    Options(int argc, char** argv, std::map<std::string, std::string> defaults)
        : values_(std::move(defaults)) {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--help" || arg == "-h") {
                usage(argv[0]);
                std::exit(0);
            }
            if (arg.rfind("--", 0) != 0 || i + 1 >= argc) {
                fail(argv[0], "expected --key value, got '" + arg + "'");
            }
            const std::string key = arg.substr(2);
            if (values_.find(key) == values_.end()) {
                fail(argv[0], "unknown option '" + arg + "'");
            }
            values_[key] = argv[++i];
        }
    }

    const std::string& str(const std::string& key) const { return values_.at(key); }
    double real(const std::string& key) const { return std::stod(values_.at(key)); }
    long long integer(const std::string& key) const {
        // Accepts 1e7-style literals for trial counts.
        return static_cast<long long>(std::stod(values_.at(key)));
    }
    // Comma-separated list.
    std::vector<std::string> list(const std::string& key) const {
        std::vector<std::string> out;
        std::stringstream ss(values_.at(key));
        std::string item;
        while (std::getline(ss, item, ',')) {
            if (!item.empty()) {
                out.push_back(item);
            }
        }
        return out;
    }

private:
    void usage(const char* prog) const {
        std::printf("usage: %s [--key value ...]\noptions and defaults:\n", prog);
        for (const auto& [k, v] : values_) {
            std::printf("  --%s %s\n", k.c_str(), v.c_str());
        }
    }
    [[noreturn]] void fail(const char* prog, const std::string& msg) const {
        std::fprintf(stderr, "%s: error: %s\n", prog, msg.c_str());
        usage(prog);
        std::exit(2);
    }
    std::map<std::string, std::string> values_;
};

inline double median(std::vector<double> v) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// CPU seconds of the calling thread so far (CLOCK_THREAD_CPUTIME_ID): what a single-threaded
// run costs whatever else the machine is doing.
inline double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// CPU seconds of the whole process so far (every thread): what a multi-threaded run costs.
inline double processCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

inline double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs `f` `reps` times (at least once) and returns the wall-clock seconds of each run; stops
// early (after at least one run) once the runs so far exceed `budgetSeconds`, so slow cases stay
// bounded.
inline std::vector<double> timeRuns(int reps, double budgetSeconds,
                                    const std::function<void()>& f) {
    std::vector<double> times;
    double total = 0;
    for (int r = 0; r < std::max(reps, 1); ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        const double t = secondsSince(start);
        times.push_back(t);
        total += t;
        if (total > budgetSeconds) {
            break;
        }
    }
    return times;
}

inline std::string buildDescription() {
    std::string compiler;
#if defined(__clang__)
    compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    compiler = "g++ " __VERSION__;
#else
    compiler = "unknown compiler";
#endif
    return compiler + ", build type " DPX_BENCH_BUILD_TYPE;
}

inline void printHeader(const char* what) {
    std::printf("# %s\n# %s\n", what, buildDescription().c_str());
}

}  // namespace dpx::bench
