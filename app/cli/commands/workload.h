// dpx workload, dpx algorithms (issue #20): one algorithm of the DPBench family (Hay,
// Machanavajjhala, Miklau, Chen & Zhang, SIGMOD 2016) on one table and workload — its budget
// split, estimate, answers and errors (realized, over trials, exact where the algorithm has a
// fixed strategy) — and the list of the algorithms. Also the pieces dpx bench shares: the data
// vector with its shape, algorithm look-up with messages, the domain text, JSON of an algorithm.
// Simulation only (a seeded generator): never a release.
#pragma once

#include <QJsonObject>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/algorithms/algorithm.h"
#include "core/base/expected.h"
#include "core/table/table.h"
#include "core/workload/workload.h"

namespace dpx::cli {

// A data vector over a 1-D or k-D domain, cells in C order.
struct DataVector {
    DomainShape shape;
    std::vector<double> x;
    std::string source;  // "--counts (12 cells)", "counts file h.npy (…)", "column 'age' of …"
};

// A dense table's cells as a data vector over its shape (at most kMaxWorkloadCells, total > 0).
Expected<DataVector> dataVectorFromTable(const ContingencyTable& table, std::string source);

// The data of --counts / --data --column --bins (1-D) or --counts-file / --data --joint (the
// table's shape). Counts are whole numbers ≥ 0 with a positive total.
Expected<DataVector> dataVectorFromArgs(const Args& a, std::ostream* err);

// "256" (1-D) or "64x64" (one size per dimension, 'x' between): exactly `dims` sizes ≥ 1.
Expected<DomainShape> parseDomain(const std::string& text, std::size_t dims);
// "4096", "256x256".
std::string domainText(const DomainShape& shape);

// The algorithm of `id` (case-insensitive); an unknown id lists the known ones.
Expected<const Algorithm*> algorithmFromId(const std::string& id);
// An error naming the dimensions `a` runs on when it does not run on `shape`, and the
// algorithms that do.
Status algorithmRunsOn(const Algorithm& a, const DomainShape& shape);

// --param NAME=VALUE (repeatable) as a map; a malformed one names itself.
Expected<std::map<std::string, double>> parametersFromArgs(const std::vector<std::string>& items);

// id, name, citation, dimensions, data_dependent, uses_workload, total_is_public, parameters
// (name, default, min, max, integer, description), doc.
QJsonObject algorithmJson(const AlgorithmInfo& info);

// The warning shown with every result of an algorithm that treats the true total as public.
std::string totalIsPublicWarning(const AlgorithmInfo& info);

// argv[1] == "workload" / "algorithms". Exit codes as every subcommand (output.h).
int cmdWorkload(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdAlgorithms(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
