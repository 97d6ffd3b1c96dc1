// Lesson 2 (issue #21): the differencing attack. Two exact counts that differ by one person
// reveal that person; with each count released by the Laplace mechanism at ε = 0.1, 1 or 10 the
// attacker's best guess succeeds with the exact probability of core/teaching, never above the
// posterior bound of the Risk tab (core/choosing/risk).
#pragma once

#include "core/teaching/teaching.h"
#include "ui/lessons/lesson_page.h"

class QButtonGroup;
class QWidget;

namespace dpx::ui {

class DifferencingLesson : public LessonPage {
    Q_OBJECT
public:
    explicit DifferencingLesson(LessonInfo info, QWidget* parent = nullptr);

    // The example: 42 people in the data have the condition, Alice among them.
    static constexpr int kCountWith = 42;
    // The three levels the lesson compares.
    static constexpr double kLevels[3] = {0.1, 1.0, 10.0};
    // The level chosen in step 2 (one of kLevels) and the attack there.
    double chosenEpsilon() const;
    void chooseEpsilon(int index);  // 0, 1, 2
    Expected<teaching::DifferencingAttack> attack() const;

protected:
    void showStep(int step) override;

private:
    void drawExact();
    void drawNoisy();
    void drawOverEpsilon();

    QWidget* levelControls_ = nullptr;
    QButtonGroup* levels_ = nullptr;
};

}  // namespace dpx::ui
