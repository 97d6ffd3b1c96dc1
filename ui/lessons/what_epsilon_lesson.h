// Lesson 3 (issue #21): what ε means. The same count released many times as a quantile dot plot
// (Kay, Kola, Hullman & Munson 2016), with and without one person; the likelihood ratio of the two
// neighbouring datasets with the "at most e^ε times more likely" sentence; and the attacker's best
// error rates: the hypothesis-testing region of ε-DP (Kairouz, Oh & Viswanath 2015, from
// core/choosing/risk) with the Laplace mechanism's exact trade-off curve inside it (core/teaching).
#pragma once

#include <vector>

#include "core/choosing/risk.h"
#include "ui/lessons/lesson_page.h"

namespace dpx::ui {

class WhatEpsilonLesson : public LessonPage {
    Q_OBJECT
public:
    explicit WhatEpsilonLesson(LessonInfo info, QWidget* parent = nullptr);

    // The example: a count of 40 without the person, 41 with; 50 dots per dot plot.
    static constexpr double kCountWithout = 40;
    static constexpr int kDots = 50;
    // The curves of the last step as drawn (for tests): the region's boundary and the Laplace
    // mechanism's trade-off at the current ε.
    const std::vector<XYPoint>& regionDrawn() const { return region_; }
    const std::vector<XYPoint>& laplaceDrawn() const { return laplace_; }

protected:
    void showStep(int step) override;

private:
    void drawDots(bool both);
    void drawRatio();
    void drawRegion();

    std::vector<XYPoint> region_;
    std::vector<XYPoint> laplace_;
};

}  // namespace dpx::ui
