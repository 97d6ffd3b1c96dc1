// libFuzzer target for the streaming CSV reader (issue #5, Robustness). Each input is written to an
// in-memory file and read twice, once as the reference (one thread, one block) and once with the
// threads and tiny block size its first bytes choose; the checks are in csv_fuzz_check.h, and a
// failed check aborts with what differed. Build and run: tests/fuzz/run-fuzz.sh [SECONDS].
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/csv_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dpx::fuzz::InputFile file;
    const std::string failure = dpx::fuzz::checkCsvInput(data, size, file);
    if (!failure.empty()) {
        std::fprintf(stderr, "\n== CSV reader invariant failed: %s\n", failure.c_str());
        std::abort();
    }
    return 0;
}
