// Lesson 5 (issue #21): membership inference. The tracing attack of core/choosing/risk (the
// attacker knows the population and one candidate's record and asks whether it was in the data)
// first against the exact mean — the no-noise baseline, where many attributes and few people make
// detection near perfect — then against the mean released by the analytic Gaussian mechanism at
// (ε, δ), whose ROC the (ε, δ)-DP test region (Kairouz, Oh & Viswanath 2015) holds inside. The
// simulation runs off the GUI thread (ui/model/job_runner); the numbers are core/teaching's
// membershipDemo.
#pragma once

#include <optional>

#include "core/teaching/teaching.h"
#include "ui/lessons/lesson_page.h"

namespace dpx::ui {

class JobRunner;

class MembershipLesson : public LessonPage {
    Q_OBJECT
public:
    explicit MembershipLesson(LessonInfo info, QWidget* parent = nullptr);

    // The simulated study: 100 people, 1000 yes/no attributes, 10 datasets with 50 members and 50
    // non-members scored in each, δ = 10⁻⁶, a fixed seed.
    static TracingAttackParams paramsAt(double epsilon);
    // The last result drawn (nullptr before the first one arrives) and the error, if any.
    const teaching::MembershipDemo* demo() const { return demo_ ? &*demo_ : nullptr; }
    QString error() const { return error_; }
    bool busy() const override;

protected:
    void showStep(int step) override;

private:
    void start();
    void drawScores(const TracingAttackResult& r, bool noisy);
    void drawRoc(bool noisy);

    JobRunner* runner_ = nullptr;
    std::optional<teaching::MembershipDemo> demo_;
    QString error_;
    double requested_ = 0;  // ε of the job running or last finished
};

}  // namespace dpx::ui
