// The text fields the local DP pages share: lists of numbers ("1000, 2e3, 3000"), a population
// and a seed, read with errors that name the field, and lists written back for the controls.
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "core/base/expected.h"

namespace dpx::ui {

// "1000, 2e3, 3000" → numbers; errors name the field and the bad entry.
Expected<std::vector<double>> parseNumberList(const QString& text, const QString& field);
// The inverse for the controls: "1000, 2000, 0.5" (6 significant digits).
QString numberListText(const std::vector<double>& xs);
// "Users N": a whole number ≥ 1 (up to 1e15; "1e4" is accepted).
Expected<std::uint64_t> parseUsers(const QString& text);
// "Seed": a whole number from 0 to 2^64 − 1.
Expected<std::uint64_t> parseSeed(const QString& text);

}  // namespace dpx::ui
