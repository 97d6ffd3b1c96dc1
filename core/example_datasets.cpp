#include "core/example_datasets.h"

#include <cmath>
#include <numbers>

namespace dpx {

const std::vector<ExampleDataset>& exampleDatasets() {
    static const std::vector<ExampleDataset> list = {
        {"seed000", "Two bins [0, 16] (seed 000)",
         "The two-bin histogram H = [0, 16] of Kerrigan 2019 §3.3, where resizing is worse than "
         "clamping at ε = 0.1.",
         ""},
        {"ages", "Ages of 5,000 people (synthetic)",
         "An age-like integer column in 10-year bins, 0–100, with a smooth population-pyramid "
         "shape; generated deterministically.",
         "years"},
    };
    return list;
}

Expected<Histogram> makeExample(const std::string& id) {
    if (id == "seed000") {
        return Histogram::create({0, 16}, {"bin 1", "bin 2"});
    }
    if (id == "ages") {
        // Counts ∝ a declining survival-like curve with a bump for working ages, rounded; total
        // 5000.
        std::vector<double> w(10);
        double sum = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            const double mid = 10.0 * static_cast<double>(i) + 5;
            w[i] = std::exp(-std::pow(mid / 78.0, 4)) *
                   (1 + 0.35 * std::exp(-std::pow((mid - 40) / 18, 2)));
            sum += w[i];
        }
        std::vector<std::int64_t> counts;
        std::vector<std::string> labels;
        std::vector<double> edges{0};
        for (std::size_t i = 0; i < w.size(); ++i) {
            counts.push_back(std::llround(5000 * w[i] / sum));
            labels.push_back(std::to_string(10 * i) + "–" + std::to_string(10 * i + 9));
            edges.push_back(10.0 * static_cast<double>(i + 1));
        }
        return Histogram::create(counts, labels, edges);
    }
    std::string known;
    for (const auto& e : exampleDatasets()) {
        known += (known.empty() ? "" : ", ") + e.id;
    }
    return Error{"unknown example dataset '" + id + "' (available: " + known + ")"};
}

}  // namespace dpx
