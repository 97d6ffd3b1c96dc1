// Small helpers shared by the core tests: tolerance checks that print full-precision values, and
// error checks (an error is expected, its message is non-empty and names the parameter).
#pragma once

#include <QByteArray>
#include <QList>
#include <QTest>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

namespace dpxtest {

inline QByteArray nearMessage(const char* what, double actual, double expected, double tol) {
    return QByteArray(what) + ": got " + QByteArray::number(actual, 'g', 17) + ", expected " +
           QByteArray::number(expected, 'g', 17) + " ± " + QByteArray::number(tol, 'g', 3) +
           " (diff " + QByteArray::number(actual - expected, 'g', 3) + ")";
}

inline std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// True if `message` contains (case-insensitively) at least one of the '|'-separated alternatives.
inline bool mentions(const std::string& message, const std::string& alternatives) {
    const std::string m = lower(message);
    std::size_t start = 0;
    while (start <= alternatives.size()) {
        const std::size_t end = std::min(alternatives.find('|', start), alternatives.size());
        const std::string alt = lower(alternatives.substr(start, end - start));
        if (!alt.empty() && m.find(alt) != std::string::npos) {
            return true;
        }
        start = end + 1;
    }
    return false;
}

inline std::vector<double> toVector(const QList<double>& list) {
    return {list.begin(), list.end()};
}

inline QByteArray join(const std::vector<double>& v) {
    QByteArray out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        out += (i ? ", " : "") + QByteArray::number(v[i], 'g', 17);
    }
    return out + "]";
}

}  // namespace dpxtest

// |actual − expected| ≤ tol (fails on NaN).
#define DPX_VERIFY_NEAR(actual, expected, tol)                                    \
    do {                                                                          \
        const double dpxA_ = (actual);                                            \
        const double dpxE_ = (expected);                                          \
        const double dpxT_ = (tol);                                               \
        QVERIFY2(std::abs(dpxA_ - dpxE_) <= dpxT_,                                \
                 dpxtest::nearMessage(#actual, dpxA_, dpxE_, dpxT_).constData()); \
    } while (false)

// |actual − expected| ≤ rel·|expected|.
#define DPX_VERIFY_REL(actual, expected, rel)                    \
    do {                                                         \
        const double dpxE2_ = (expected);                        \
        DPX_VERIFY_NEAR(actual, dpxE2_, (rel)*std::abs(dpxE2_)); \
    } while (false)

// `expr` (an Expected<T> or Status) must hold an error whose message is non-empty and mentions one
// of the '|'-separated words in `needles`.
#define DPX_VERIFY_ERROR(expr, needles)                                               \
    do {                                                                              \
        const auto& dpxR_ = (expr);                                                   \
        QVERIFY2(!dpxR_.hasValue(), "expected an error from: " #expr);                \
        const std::string& dpxM_ = dpxR_.error().message;                             \
        QVERIFY2(!dpxM_.empty(), "empty error message from: " #expr);                 \
        QVERIFY2(dpxtest::mentions(dpxM_, needles),                                   \
                 (QByteArray("message of " #expr " does not mention '") + (needles) + \
                  "': " + QByteArray::fromStdString(dpxM_))                           \
                     .constData());                                                   \
    } while (false)

// `expr` must succeed; on failure the error message is printed.
#define DPX_VERIFY_OK(expr)                                                                       \
    do {                                                                                          \
        const auto& dpxR_ = (expr);                                                               \
        QVERIFY2(                                                                                 \
            dpxR_.hasValue(),                                                                     \
            (QByteArray("unexpected error from " #expr ": ") +                                    \
             QByteArray::fromStdString(dpxR_.hasValue() ? std::string() : dpxR_.error().message)) \
                .constData());                                                                    \
    } while (false)
