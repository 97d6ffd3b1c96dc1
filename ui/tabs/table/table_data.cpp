#include "ui/tabs/table/table_data.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dpx::ui {

Status validateTableInputs(const TableViewInputs& inputs) {
    const ContingencyTable& t = inputs.truth;
    if (t.attributeCount() == 0) {
        return Error{"the table has no attribute"};
    }
    if (!t.isDense()) {
        return Error{"the table has " + cellCountText(t.cellCount()) +
                     " cells, more than the 2-D view draws (it needs a dense table of at most " +
                     std::to_string(kMaxDenseCells) + " cells)"};
    }
    const auto cells = static_cast<std::size_t>(t.cellCount());
    if (inputs.noisy.size() != cells) {
        return Error{"the noisy table has " + std::to_string(inputs.noisy.size()) +
                     " values for a table of " + std::to_string(cells) + " cells"};
    }
    if (!inputs.estimate.empty() && inputs.estimate.size() != cells) {
        return Error{"the estimate has " + std::to_string(inputs.estimate.size()) +
                     " values for a table of " + std::to_string(cells) + " cells"};
    }
    for (const auto* v : {&inputs.noisy, &inputs.estimate}) {
        const auto bad =
            std::find_if(v->begin(), v->end(), [](double x) { return !std::isfinite(x); });
        if (bad != v->end()) {
            return Error{std::string(v == &inputs.noisy ? "noisy" : "estimated") +
                         " value of cell " +
                         t.cellLabel(static_cast<std::uint64_t>(bad - v->begin())) +
                         " is not a finite number"};
        }
    }
    if (!(inputs.epsilon > 0) || !std::isfinite(inputs.epsilon)) {
        return Error{"ε must be a positive finite number (got " + std::to_string(inputs.epsilon) +
                     ")"};
    }
    return okStatus();
}

std::vector<double> sumToMarginal(std::span<const std::uint64_t> shape,
                                  std::span<const std::size_t> keep,
                                  std::span<const double> values) {
    const std::size_t k = shape.size();
    // Stride of each attribute inside the marginal (0 for attributes summed over).
    std::vector<std::uint64_t> mstride(k, 0);
    std::uint64_t mcells = 1;
    for (std::size_t j = keep.size(); j-- > 0;) {
        mstride[keep[j]] = mcells;
        mcells *= shape[keep[j]];
    }
    std::vector<double> out(mcells, 0.0);
    if (values.empty()) {
        return out;
    }
    // All attributes kept in table order: the marginal is the table itself.
    bool identity = keep.size() == k;
    for (std::size_t j = 0; identity && j < k; ++j) {
        identity = keep[j] == j;
    }
    if (identity) {
        std::copy(values.begin(), values.end(), out.begin());
        return out;
    }
    // Odometer over the coordinates in C order (the last attribute fastest); the marginal index
    // moves by mstride of the attribute that steps, minus the wrapped ones.
    std::vector<std::uint64_t> coord(k, 0);
    std::uint64_t m = 0;
    const std::uint64_t last = shape[k - 1];
    const std::uint64_t lastStride = mstride[k - 1];
    std::size_t i = 0;
    const std::size_t n = values.size();
    while (i < n) {
        // The run of the last attribute: m, m + s, m + 2s, … (s = 0 when it is summed).
        for (std::uint64_t c = 0; c < last; ++c, ++i) {
            out[m + c * lastStride] += values[i];
        }
        // Carry into the earlier attributes.
        std::size_t a = k - 1;
        while (a-- > 0) {
            if (++coord[a] < shape[a]) {
                m += mstride[a];
                break;
            }
            m -= (shape[a] - 1) * mstride[a];
            coord[a] = 0;
        }
    }
    return out;
}

Expected<MarginalLayers> marginalLayers(const TableViewInputs& inputs,
                                        std::span<const std::size_t> keep) {
    if (Status st = validateTableInputs(inputs); !st) {
        return st.error();
    }
    const ContingencyTable& t = inputs.truth;
    MarginalLayers out;
    out.keep.assign(keep.begin(), keep.end());
    bool identity = keep.size() == t.attributeCount();
    for (std::size_t j = 0; identity && j < keep.size(); ++j) {
        identity = keep[j] == j;
    }
    if (identity) {
        // Every attribute kept in order: the table itself (no marginal to sum).
        out.shape = t.shape();
        out.truth.assign(t.denseCounts().begin(), t.denseCounts().end());
        out.termsPerCell = 1;
    } else {
        auto truth = t.marginal(keep);
        if (!truth) {
            return truth.error();
        }
        out.shape = truth->shape();
        const std::vector<std::int64_t>& counts = truth->denseCounts();
        out.truth.assign(counts.begin(), counts.end());
        out.termsPerCell = t.cellCount() / truth->cellCount();
    }
    const std::vector<std::uint64_t> shape = t.shape();
    out.noisy = sumToMarginal(shape, keep, inputs.noisy);
    out.estimate =
        inputs.estimate.empty() ? out.noisy : sumToMarginal(shape, keep, inputs.estimate);
    return out;
}

double expectedMarginalL1(const NoiseDistribution& cellNoise, std::uint64_t marginalCells,
                          CellCount termsPerCell) {
    const SummedNoise sum{cellNoise, termsPerCell};
    return static_cast<double>(marginalCells) * sum.meanAbs();
}

std::vector<MarginalError> marginalErrors(const TableViewInputs& inputs) {
    std::vector<MarginalError> out;
    const ContingencyTable& t = inputs.truth;
    const std::size_t k = t.attributeCount();
    if (k < 2 || !validateTableInputs(inputs)) {
        return out;
    }
    const std::vector<std::uint64_t> shape = t.shape();
    std::vector<double> truthValues(t.denseCounts().begin(), t.denseCounts().end());
    auto add = [&](std::vector<std::size_t> keep) {
        const std::vector<double> truth = sumToMarginal(shape, keep, truthValues);
        const std::vector<double> noisy = sumToMarginal(shape, keep, inputs.noisy);
        MarginalError e;
        e.keep = std::move(keep);
        e.cells = truth.size();
        e.termsPerCell = t.cellCount() / e.cells;
        for (std::size_t c = 0; c < truth.size(); ++c) {
            e.l1 += std::abs(noisy[c] - truth[c]);
        }
        if (inputs.cellNoise) {
            e.expectedL1 = expectedMarginalL1(*inputs.cellNoise, e.cells, e.termsPerCell);
        }
        out.push_back(std::move(e));
    };
    for (std::size_t a = 0; a < k; ++a) {
        add({a});
    }
    for (std::size_t a = 0; a < k; ++a) {
        for (std::size_t b = a + 1; b < k; ++b) {
            add({a, b});
        }
    }
    return out;
}

std::string boxBinToken(const Attribute& attribute, std::uint64_t bin) {
    const std::string& label = attribute.labels.at(bin);
    const bool plain = !label.empty() && label.find(',') == std::string::npos &&
                       label.find('=') == std::string::npos &&
                       label.find("..") == std::string::npos && label.front() != '#' &&
                       label.front() != ' ' && label.back() != ' ';
    const bool unique =
        plain && std::count(attribute.labels.begin(), attribute.labels.end(), label) == 1;
    return unique ? label : "#" + std::to_string(bin);
}

std::string boxQueryText(const ContingencyTable& table, std::span<const std::size_t> attributes,
                         std::span<const BinRange> ranges) {
    std::string text;
    for (std::size_t j = 0; j < attributes.size() && j < ranges.size(); ++j) {
        const Attribute& a = table.attribute(attributes[j]);
        if (!text.empty()) {
            text += ',';
        }
        text += a.name + '=' + boxBinToken(a, ranges[j].lo);
        if (ranges[j].hi != ranges[j].lo) {
            text += ".." + boxBinToken(a, ranges[j].hi);
        }
    }
    return text;
}

TableQuery boxOver(const ContingencyTable& table, std::span<const std::size_t> attributes,
                   std::span<const BinRange> ranges) {
    TableQuery q;
    q.kind = TableQuery::Kind::Box;
    for (std::size_t a = 0; a < table.attributeCount(); ++a) {
        q.box.push_back(BinRange{0, table.attribute(a).size() - 1});
    }
    for (std::size_t j = 0; j < attributes.size() && j < ranges.size(); ++j) {
        q.box[attributes[j]] = ranges[j];
    }
    return q;
}

}  // namespace dpx::ui
