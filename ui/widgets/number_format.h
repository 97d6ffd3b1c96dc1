// The window's number formatting: one place for every way a number is written in the UI. Each
// function takes the significant digits it shows (no hidden default), or is a named preset.
#pragma once

#include <QString>

#include "core/table/table.h"  // CellCount

namespace dpx::ui {

// `v` with `digits` significant digits in the shortest form (0.0123, 1.57, 1.2e+06), as
// QString::number(v, 'g', digits); NaN and ±∞ read "nan", "inf", "-inf".
QString formatSignificant(double v, int digits);
// The same, but an undefined value reads "—" and an infinite one "∞" / "−∞" (tables of a
// mechanism's properties, where such values are expected).
QString formatSignificantOrSymbol(double v, int digits);
// A signed difference: "+0.12", "−" as formatSignificantOrSymbol writes it, "0" within 5e-13.
QString formatSigned(double v, int digits);
// A probability with `digits` significant digits that never rounds up to a plain "1": a p just
// below 1 that would round to 1 is shown with 9 significant digits.
QString formatProbability(double p, int digits);
// Records: from 1000 up a whole number with the locale's digit groups ("12,345"), below that
// `digits` significant digits.
QString formatRecords(double v, int digits);
// In the locale: whole numbers with digit groups, others with `digits` significant digits;
// "—" when not finite.
QString formatLocaleNumber(double v, int digits);
// `digits` significant digits; outside [1e-3, 1e5) as a power of ten with a superscript
// exponent: 1.1·10⁻¹⁴.
QString formatPowerOfTen(double v, int digits);
// Whole numbers with their digits in groups of three: "3 701" with thin spaces (U+2009) and a
// "−" minus, as in the LP's report lines; "20 000" with narrow no-break spaces (U+202F) and a
// "-" minus, as in the errors tab.
QString formatThinSpaceGrouped(long long n);
QString formatNarrowSpaceGrouped(long long n);
// A number of cells of a table (up to 2⁶⁴): grouped as the locale does ("65,536"), the exact
// decimal beyond 64 bits ("18446744073709551616").
QString formatCellCount(CellCount cells);
// `a` with the fewest significant digits (4 to 15, else 17) that tell it apart from `b`.
QString formatDistinguishing(double a, double b);
// The superscript digits of n: -14 → "⁻¹⁴".
QString superscriptInteger(int n);
// A share in (0, 1] as a percentage with one decimal, more where needed to keep 99.99…% from
// reading 100%: "73.1%"; 1 and above "100%".
QString formatPercent(double share);

// Presets.
// A parameter (ε, δ, bandwidth): 6 significant digits — 0.01, 1, 2.5, 1e-06.
QString formatParameter(double v);
// An error value: `digits` significant digits, no trailing zeros, ×10ⁿ outside [1e-3, 1e7).
// Realized errors use 5 digits, exact expected values 6.
QString formatErrorValue(double v, int digits = 6);
// "12.34 ± 0.05": the half-width to 1–2 significant digits and the value to the same decimal
// place (4–6 significant digits); "(4.012 ± 0.005)×10⁻⁴" for very small or large values.
QString formatWithHalfWidth(double v, double halfWidth);

}  // namespace dpx::ui
