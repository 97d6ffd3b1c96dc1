// Histogram model of the central (trusted-curator) release: ordered bins with labels and optional
// numeric edges, non-negative integer counts, and the neighbouring relation plus contribution bound
// from which L1/L2 sensitivity are derived (seed 000 Def. 3; seed 003 uses replace-one, Δ1 = 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/expected.h"

namespace dpx {

enum class Neighbouring {
    AddRemove,  // datasets differ by adding or removing one record
    Replace,    // datasets differ by replacing one record with another
};

// How much one record may contribute: to at most `maxBins` different bins, at most `maxPerBin`
// to each. The usual histogram (each record in exactly one bin, weight 1) is {1, 1}.
struct ContributionBound {
    std::int64_t maxBins = 1;
    std::int64_t maxPerBin = 1;
    Status validate() const;
};

struct Sensitivity {
    double l1 = 0;         // Δ1 = max ||h(D) - h(D')||_1 over neighbours
    double l2 = 0;         // Δ2 = max ||h(D) - h(D')||_2 over neighbours
    bool integral = true;  // Δ1 is an integer (needed by integer-valued mechanisms)
};

// Sensitivity of a histogram with `bins` bins. With m = maxBins, c = maxPerBin:
//   add/remove: the change is one record's contribution, at most m bins of at most c each:
//               Δ1 = c·min(m, bins), Δ2 = c·sqrt(min(m, bins));
//   replace:    one record removed and another added; the two supports can be disjoint only while
//               2m ≤ bins, each coordinate changes by at most c: Δ1 = c·min(2m, bins),
//               Δ2 = c·sqrt(min(2m, bins)).
Expected<Sensitivity> histogramSensitivity(std::size_t bins, Neighbouring relation,
                                           const ContributionBound& bound);

const char* neighbouringName(Neighbouring relation);  // "add-remove" / "replace"
Expected<Neighbouring> neighbouringFromName(const std::string& name);

class Histogram {
public:
    // Counts must be non-empty and non-negative. Labels, if given, one per bin; edges, if given,
    // bins+1 finite strictly increasing values (bin i is [edges[i], edges[i+1])).
    static Expected<Histogram> create(std::vector<std::int64_t> counts,
                                      std::vector<std::string> labels = {},
                                      std::vector<double> edges = {});

    std::size_t size() const { return counts_.size(); }
    const std::vector<std::int64_t>& counts() const { return counts_; }
    std::vector<double> countsAsDouble() const;
    std::int64_t total() const { return total_; }
    const std::vector<std::string>& labels() const { return labels_; }
    const std::vector<double>& edges() const { return edges_; }
    bool hasEdges() const { return !edges_.empty(); }
    // Bin positions used by the Wasserstein distance: centres of numeric bins, else 0, 1, 2, ...
    std::vector<double> positions() const;

private:
    Histogram() = default;
    std::vector<std::int64_t> counts_;
    std::vector<std::string> labels_;
    std::vector<double> edges_;
    std::int64_t total_ = 0;
};

}  // namespace dpx
