// Lesson 6 (issue #21): post-processing and accuracy. The two-bin histogram [0, 16] with the
// Laplace mechanism, where resizing is worse than clamping at ε = 0.1 (Kerrigan 2019 §3.3; the
// example "two-bins"): one noisy release and what identity, clamp and resize make of it, their
// exact expected errors (core/accuracy), and why post-processing is free — the same ε for all
// three, different errors.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/base/expected.h"
#include "core/estimators/estimator.h"
#include "ui/lessons/lesson_page.h"

class QPushButton;

namespace dpx::ui {

class PostProcessingLesson : public LessonPage {
    Q_OBJECT
public:
    explicit PostProcessingLesson(LessonInfo info, QWidget* parent = nullptr);

    static constexpr std::array<EstimatorKind, 3> kEstimators = {
        EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize};
    // The true histogram (the "two-bins" example) and the exact E[SSE] of an estimator at the
    // lesson's ε, as shown.
    const std::vector<double>& truth() const { return truth_; }
    Expected<double> expectedSse(EstimatorKind kind) const;
    // The noisy release of step 1 and an estimator's answer to it.
    std::vector<double> noisyRelease() const;
    Expected<std::vector<double>> answer(EstimatorKind kind) const;
    void drawAgain();

protected:
    void showStep(int step) override;

private:
    void drawRelease();
    void drawErrors();
    void drawOverEpsilon();

    std::vector<double> truth_;
    std::uint64_t seed_ = 7;
    QPushButton* again_ = nullptr;
    // E[SSE] over ε for the three estimators (independent of the slider: computed once).
    std::vector<double> curveEpsilons_;
    std::array<std::vector<double>, 3> curves_;
};

}  // namespace dpx::ui
