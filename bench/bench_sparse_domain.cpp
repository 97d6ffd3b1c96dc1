// Thresholded Laplace on a huge sparse domain (issue #19): a 2⁴⁰-cell table (4 attributes of 1024
// bins) with 10⁵ occupied cells drawn at random; times one simulated release at the default τ
// (or --tau; a lower τ releases more empty cells, about (p − q)·½e^{−τ/b})
// (core/mechanisms/sparse_domain.h; target ≤ 0.5 s), its exact expected error, the table's
// construction, its 1- and 2-way marginals, and one box query with its exact readout. Medians of
// --reps runs (every run on a fresh seed); figures on lines starting with "RESULT".
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "bench/bench_util.h"
#include "core/mechanisms/sparse_domain.h"
#include "core/table/query.h"

int main(int argc, char** argv) {
    using namespace dpx;
    const bench::Options opt(argc, argv,
                             {{"occupied", "100000"},
                              {"bins", "1024"},
                              {"attributes", "4"},
                              {"epsilon", "1"},
                              {"tau", "default"},
                              {"reps", "7"},
                              {"seed", "19"}});
    bench::printHeader("Thresholded Laplace on a sparse domain, table marginals");
    const auto bins = static_cast<std::size_t>(opt.integer("bins"));
    const auto k = static_cast<std::size_t>(opt.integer("attributes"));
    const auto q = static_cast<std::size_t>(opt.integer("occupied"));
    const int reps = static_cast<int>(opt.integer("reps"));
    std::vector<Attribute> attributes;
    CellCount cells = 1;
    for (std::size_t a = 0; a < k; ++a) {
        attributes.push_back(indexAttribute("a" + std::to_string(a), bins));
        cells *= bins;
    }
    if (cells > (CellCount{1} << 64)) {
        std::fprintf(stderr, "the domain exceeds 2^64 cells\n");
        return 2;
    }
    std::mt19937_64 gen(static_cast<std::uint64_t>(opt.integer("seed")));
    std::map<std::uint64_t, std::int64_t> chosen;
    const auto top = static_cast<std::uint64_t>(cells - 1);
    while (chosen.size() < q)
        chosen[std::uniform_int_distribution<std::uint64_t>(0, top)(gen)] =
            1 + static_cast<std::int64_t>(gen() % 100);
    std::vector<TableCell> occupied;
    for (const auto& [i, c] : chosen)
        occupied.push_back({i, c});
    std::printf("# domain %s cells, %zu occupied, epsilon %g\n", cellCountText(cells).c_str(), q,
                opt.real("epsilon"));

    Expected<ContingencyTable> table = Error{"not built"};
    const auto build = bench::timeRuns(
        reps, 10, [&] { table = ContingencyTable::fromCells(attributes, occupied); });
    if (!table) {
        std::fprintf(stderr, "%s\n", table.error().message.c_str());
        return 1;
    }
    std::printf("RESULT case=table_from_cells_s median_s=%.6f\n", bench::median(build));

    SparseHistogramParams params{opt.real("epsilon"), std::nullopt};
    if (opt.str("tau") != "default")
        params.threshold = opt.real("tau");
    std::uint64_t stream = 0;
    std::size_t released = 0, releasedEmpty = 0;
    double tau = 0;
    const auto release = bench::timeRuns(reps, 30, [&] {
        SimulationRng rng(static_cast<std::uint64_t>(opt.integer("seed")), stream++);
        auto r = simulateSparseDomain(*table, params, rng);
        if (!r) {
            std::fprintf(stderr, "%s\n", r.error().message.c_str());
            std::exit(1);
        }
        released = r->cells.size();
        releasedEmpty = static_cast<std::size_t>(r->releasedEmpty);
        tau = r->threshold;
    });
    std::printf("# tau %g; last release: %zu cells, %zu of them empty cells\n", tau, released,
                releasedEmpty);
    std::printf("RESULT case=sparse_release_s median_s=%.6f\n", bench::median(release));

    double expectedL1 = 0;
    const auto exact = bench::timeRuns(reps, 10, [&] {
        expectedL1 = sparseDomainExpectedError(*table, params).value().thresholdedL1;
    });
    std::printf("# exact expected L1 error %.6g\n", expectedL1);
    std::printf("RESULT case=sparse_expected_error_s median_s=%.6f\n", bench::median(exact));

    const auto oneWay = bench::timeRuns(reps, 10, [&] {
        for (std::size_t a = 0; a < k; ++a) {
            const std::size_t keep[] = {a};
            (void)table->marginal(keep).value();
        }
    });
    std::printf("RESULT case=marginals_1way_all_s median_s=%.6f\n", bench::median(oneWay));
    const auto twoWay = bench::timeRuns(reps, 10, [&] {
        for (std::size_t a = 0; a < k; ++a) {
            for (std::size_t b = a + 1; b < k; ++b) {
                const std::size_t keep[] = {a, b};
                (void)table->marginal(keep).value();
            }
        }
    });
    std::printf("RESULT case=marginals_2way_all_s median_s=%.6f\n", bench::median(twoWay));

    TableQuery box = TableQuery::all(*table);
    for (std::size_t a = 0; a < k; ++a)
        box.box[a] = {bins / 4, bins / 2};
    const auto query = bench::timeRuns(reps, 10, [&] {
        (void)queryReadout(*table, box, NoiseDistribution::laplace(1 / opt.real("epsilon")), 0.95)
            .value();
    });
    std::printf("RESULT case=box_query_readout_s median_s=%.6f\n", bench::median(query));
    return 0;
}
