// Lesson 4 (issue #21): composition. The attacker of lesson 2 asks the same pair of counts k
// times. Without a budget every answer gets fresh noise at ε, the average of the k differences
// closes in on Alice's bit and the attack succeeds (exact probability from core/teaching), while
// the privacy loss adds up (basic composition kε, zCDP of core/choosing/budget). With one total
// budget ε split across the k answers the attack stays at or below the one-question level.
#pragma once

#include <cstddef>
#include <vector>

#include "core/teaching/teaching.h"
#include "ui/lessons/lesson_page.h"

namespace dpx::ui {

class CompositionLesson : public LessonPage {
    Q_OBJECT
public:
    explicit CompositionLesson(LessonInfo info, QWidget* parent = nullptr);

    // The numbers of repeated questions the steps show, one step each, then the two summaries.
    static constexpr std::size_t kSteps[5] = {1, 4, 16, 64, 256};
    // The largest k of the summary curves.
    static constexpr std::size_t kMaxK = 1024;
    // k of step `step` (the last one for the summary steps).
    static std::size_t questionsAtStep(int step);
    // The attack at k questions and the lesson's ε, without a budget or with one total budget.
    Expected<teaching::RepeatedQueryAttack> attack(std::size_t k, teaching::QueryBudget b) const;

protected:
    void showStep(int step) override;

private:
    void drawAverages(std::size_t k);
    void drawSuccessOverK();
    void drawLossOverK();
    // 1 … kMaxK, about 40 whole numbers evenly spaced on a log scale, with every kSteps value.
    static std::vector<std::size_t> questionGrid();
    // The attack without and with a budget at every k of questionGrid(); listed: a row of the
    // summary tables (the steps' k and kMaxK).
    struct GridRow {
        std::size_t k = 1;
        teaching::RepeatedQueryAttack fresh, total;
        bool listed = false;
    };
    Expected<std::vector<GridRow>> overGrid() const;
};

}  // namespace dpx::ui
