#include "core/histogram/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpx {

Status ContributionBound::validate() const {
    if (maxBins < 1) {
        return Error{"contribution bound: a record must be allowed in at least 1 bin, got " +
                     std::to_string(maxBins)};
    }
    if (maxPerBin < 1) {
        return Error{"contribution bound: the per-bin contribution must be at least 1, got " +
                     std::to_string(maxPerBin)};
    }
    return okStatus();
}

Expected<Sensitivity> histogramSensitivity(std::size_t bins, Neighbouring relation,
                                           const ContributionBound& bound) {
    if (bins == 0) {
        return Error{"the histogram has no bins"};
    }
    if (auto s = bound.validate(); !s) {
        return s.error();
    }
    const auto n = static_cast<std::int64_t>(std::min<std::size_t>(
        bins, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())));
    const std::int64_t m = relation == Neighbouring::AddRemove
                               ? std::min(bound.maxBins, n)
                               : std::min(bound.maxBins > n ? n : 2 * bound.maxBins, n);
    const auto c = static_cast<double>(bound.maxPerBin);
    return Sensitivity{c * static_cast<double>(m), c * std::sqrt(static_cast<double>(m)), true};
}

const char* neighbouringName(Neighbouring relation) {
    return relation == Neighbouring::AddRemove ? "add-remove" : "replace";
}

Expected<Neighbouring> neighbouringFromName(const std::string& name) {
    if (name == "add-remove" || name == "addremove" || name == "add/remove") {
        return Neighbouring::AddRemove;
    }
    if (name == "replace") {
        return Neighbouring::Replace;
    }
    return Error{"unknown neighbouring relation '" + name + "' (use add-remove or replace)"};
}

Expected<Histogram> Histogram::create(std::vector<std::int64_t> counts,
                                      std::vector<std::string> labels, std::vector<double> edges) {
    if (counts.empty()) {
        return Error{"the histogram is empty: it needs at least one bin"};
    }
    std::int64_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] < 0) {
            return Error{"bin " + std::to_string(i + 1) + " has a negative count (" +
                         std::to_string(counts[i]) + "); true counts must be ≥ 0"};
        }
        if (total > std::numeric_limits<std::int64_t>::max() - counts[i]) {
            return Error{"the histogram total overflows a 64-bit integer"};
        }
        total += counts[i];
    }
    if (!labels.empty() && labels.size() != counts.size()) {
        return Error{"got " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(counts.size()) + " bins"};
    }
    if (!edges.empty()) {
        if (edges.size() != counts.size() + 1) {
            return Error{"got " + std::to_string(edges.size()) + " bin edges for " +
                         std::to_string(counts.size()) + " bins (need bins + 1)"};
        }
        for (std::size_t i = 0; i < edges.size(); ++i) {
            if (!std::isfinite(edges[i])) {
                return Error{"bin edge " + std::to_string(i + 1) + " is not finite"};
            }
            if (i > 0 && !(edges[i] > edges[i - 1])) {
                return Error{"bin edges must be strictly increasing (edge " +
                             std::to_string(i + 1) + ")"};
            }
        }
    }
    Histogram h;
    h.counts_ = std::move(counts);
    h.labels_ = std::move(labels);
    h.edges_ = std::move(edges);
    h.total_ = total;
    return h;
}

std::vector<double> Histogram::countsAsDouble() const {
    return {counts_.begin(), counts_.end()};
}

std::vector<double> Histogram::positions() const {
    std::vector<double> p(counts_.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
        p[i] = hasEdges() ? 0.5 * (edges_[i] + edges_[i + 1]) : static_cast<double>(i);
    }
    return p;
}

}  // namespace dpx
